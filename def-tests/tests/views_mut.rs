//! Mutable views change fixed fields in place: the packet keeps its length and every other byte,
//! and the dynamic codec (an independent reader) reads the new values.

use def_runtime::Options;
use def_runtime::tera::dynamic::{Definition, Missing};
use def_tests::c_every_type::v1::view::CEveryType;
use serde_json::{Value, json};

fn definition() -> Definition {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("defs/C_EVERY_TYPE.1.def");
    Definition::from_file(&path, def_parser::Mode::Strict).unwrap()
}

/// A packet with two entries, written by the dynamic codec.
fn packet(def: &Definition, opts: Options) -> (Value, Vec<u8>) {
    let mut v = json!({
        "flag": true, "small": 7, "i16v": -3, "u16v": 9, "i32v": 1000, "u32v": 5, "i64v": -7,
        "u64v": 8, "f32v": 1.5, "f64v": 2.25, "w": 0.0, "loc": {"x": 1.0, "y": 2.0, "z": 3.0},
        "rot": {"x": 0.0, "y": 0.0, "z": 0.0},
        "skill32": {"id": 1, "huntingZoneId": 0, "type": 1, "npc": false, "reserved": 0},
        "skill": {"id": 2, "huntingZoneId": 0, "type": 1, "npc": false, "reserved": 0},
        "look": {"unk": 1, "skinColor": 2, "faceStyle": 3, "faceDecal": 4, "hairStyle": 5,
                 "hairColor": 6, "voice": 7, "tattoos": 8},
        "name": "héllo", "blob": "0102", "ints": [1, 2], "words": ["a", "bc"],
        "points": [{"x": 1.0, "y": 1.0, "z": 1.0}],
        "pos": {"x": 4, "label": "here"},
        "entries": [
            {"id": 1, "text": "one", "marks": [1], "sub": [{"on": false, "data": "aa"}]},
            {"id": 2, "text": "two", "marks": [], "sub": []}
        ]
    });
    let bytes = def.encode(&v, 0x1234, opts, Missing::Error).unwrap();
    // The dynamic codec's own reading of it (its canonical JSON form).
    v = def.decode_json(&bytes, opts).unwrap();
    (v, bytes)
}

#[test]
fn setters_patch_in_place_and_the_other_bytes_stay() {
    let def = definition();
    for padding in [false, true] {
        let opts = Options::new().padding(padding).strict(true);
        let (mut expected, original) = packet(&def, opts);
        let mut bytes = original.clone();
        {
            let mut v = CEveryType::new_mut(&mut bytes, opts).unwrap();
            v.set_i32v(-42);
            v.set_small(200);
            let mut entries = v.entries_mut();
            let mut i = 0;
            while let Some(e) = entries.next() {
                let mut e = e.unwrap();
                e.set_id(100 + i);
                let mut subs = e.sub_mut();
                while let Some(s) = subs.next() {
                    s.unwrap().set_on(true);
                }
                i += 1;
            }
            assert_eq!(i, 2);
            // The mutable view reads what it wrote.
            assert_eq!(v.view().i32v(), -42);
        }
        assert_eq!(bytes.len(), original.len());
        let changed = bytes.iter().zip(&original).filter(|(a, b)| a != b).count();
        // i32v (4 bytes, all change), small (1), two ids (1 each), one `on` (1).
        assert_eq!(changed, 4 + 1 + 2 + 1, "only the patched fields change");
        expected["i32v"] = json!(-42);
        expected["small"] = json!(200);
        expected["entries"][0]["id"] = json!(100);
        expected["entries"][1]["id"] = json!(101);
        expected["entries"][0]["sub"][0]["on"] = json!(true);
        assert_eq!(def.decode_json(&bytes, opts).unwrap(), expected);
    }
}

#[test]
fn views_read_strings_arrays_and_objects_in_place() {
    let def = definition();
    let opts = Options::new();
    let (_, bytes) = packet(&def, opts);
    let v = CEveryType::new(&bytes, opts).unwrap();
    assert_eq!(v.i32v(), 1000);
    let name = v.name().unwrap();
    assert!(name == "héllo" && name != "hello", "{name:?}");
    assert_eq!(name.to_string(), "héllo");
    assert_eq!(v.blob().unwrap(), [1, 2]);
    assert_eq!(v.ints().collect::<Result<Vec<i32>, _>>().unwrap(), [1, 2]);
    let words: Vec<String> = v.words().map(|w| w.unwrap().to_string()).collect();
    assert_eq!(words, ["a", "bc"]);
    assert!(v.pos().label().unwrap() == "here");
    let texts: Vec<String> = v
        .entries()
        .map(|e| e.unwrap().text().unwrap().to_string())
        .collect();
    assert_eq!(texts, ["one", "two"]);
    assert_eq!(v.entries().declared(), 2);
    let first = v.entries().next().unwrap().unwrap();
    assert_eq!(first.to_owned().unwrap().text, "one");
    assert_eq!(v.to_owned().unwrap().entries[1].id, 2);
}

#[test]
fn bad_packets_give_errors_not_panics() {
    let def = definition();
    let opts = Options::new();
    let (_, bytes) = packet(&def, opts);
    // Too short for the header, and for the fixed fields.
    assert!(CEveryType::new(&bytes[..3], opts).is_err());
    assert!(CEveryType::new(&bytes[..20], opts).is_err());
    // Strict mode checks the header's length.
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(CEveryType::new(&longer, opts).is_ok());
    assert!(CEveryType::new(&longer, opts.strict(true)).is_err());
    // A chain that loops back ends with an error, not a loop.
    // The first element's `next` points at itself.
    let mut looped = bytes.clone();
    let first = first_entry(&bytes);
    looped[first + 2..first + 4].copy_from_slice(&(first as u16).to_le_bytes());
    let v = CEveryType::new(&looped, opts).unwrap();
    let all: Vec<_> = v.entries().collect();
    assert_eq!(all.len(), 2);
    assert!(all[0].is_ok() && all[1].is_err(), "{all:?}");
    // A fixed field after variable data (`pos.x` here) has no accessor: `to_owned` has it.
    assert_eq!(
        CEveryType::new(&bytes, opts)
            .unwrap()
            .to_owned()
            .unwrap()
            .pos
            .x,
        4
    );
}

/// The offset of the first element of `entries`: its `here` is its offset, and its `id` (1)
/// follows `here`, `next` and its 10 bytes of metadata.
fn first_entry(bytes: &[u8]) -> usize {
    (4..bytes.len() - 22)
        .find(|&i| {
            u16::from_le_bytes([bytes[i], bytes[i + 1]]) as usize == i
                && u64::from_le_bytes(bytes[i + 14..i + 22].try_into().unwrap()) == 1
        })
        .expect("the first entry")
}
