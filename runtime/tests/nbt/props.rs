//! Property tests: random trees round-trip through every binary flavour, the zero-copy reader,
//! the JSON dump and SNBT.
#![cfg(feature = "nbt")]

use crate::support;

use def_runtime::nbt::borrow::BorrowedNbt;
use def_runtime::nbt::dump::{self, Json};
use def_runtime::nbt::{
    Compound, Edition, List, Nbt, NbtString, ReadOptions, RootForm, Tag, TagType, decode_exact,
    snbt,
};
use proptest::prelude::*;

fn nbt_string() -> impl Strategy<Value = NbtString> {
    prop_oneof![
        // Up to 40 bytes: kept inline (22), or not, as the writer's paths differ.
        "[a-zA-Z0-9_]{0,40}".prop_map(NbtString::from),
        "\\PC{0,8}".prop_map(NbtString::from),
        // Any UTF-16, lone surrogates and NUL included.
        prop::collection::vec(any::<u16>(), 0..6).prop_map(|u| NbtString::from_utf16(&u)),
        Just(NbtString::from("a\0b \" \\ '")),
    ]
}

fn leaf() -> impl Strategy<Value = Tag> {
    prop_oneof![
        any::<i8>().prop_map(Tag::Byte),
        any::<i16>().prop_map(Tag::Short),
        any::<i32>().prop_map(Tag::Int),
        any::<i64>().prop_map(Tag::Long),
        any::<u32>().prop_map(|b| Tag::Float(f32::from_bits(b))),
        any::<u64>().prop_map(|b| Tag::Double(f64::from_bits(b))),
        prop::collection::vec(any::<i8>(), 0..8).prop_map(|v| Tag::ByteArray(v.into())),
        nbt_string().prop_map(Tag::String),
        prop::collection::vec(any::<i32>(), 0..8).prop_map(|v| Tag::IntArray(v.into())),
        prop::collection::vec(any::<i64>(), 0..8).prop_map(|v| Tag::LongArray(v.into())),
        (0u8..=12).prop_map(|t| Tag::List(List::empty(TagType::from_id(t).unwrap()))),
    ]
}

fn tag() -> impl Strategy<Value = Tag> {
    leaf().prop_recursive(5, 96, 6, |inner| {
        prop_oneof![
            prop::collection::vec((nbt_string(), inner.clone()), 0..6)
                .prop_map(|e| Tag::Compound(Compound::from_entries(e))),
            prop::collection::vec(inner, 0..6).prop_map(|v| {
                let ty = v.first().map(Tag::tag_type);
                let same: Vec<Tag> = v.into_iter().filter(|t| Some(t.tag_type()) == ty).collect();
                Tag::List(List::from_tags(same).unwrap())
            }),
        ]
    })
}

fn root() -> impl Strategy<Value = Nbt> {
    (
        nbt_string(),
        prop::collection::vec((nbt_string(), tag()), 0..6),
    )
        .prop_map(|(n, e)| Nbt::named(n, Compound::from_entries(e)))
}

/// What SNBT can express: empty lists lose their type, NaNs their payload.
fn snbt_normal(t: &Tag) -> Tag {
    match t {
        Tag::Float(v) if v.is_nan() => Tag::Float(f32::NAN),
        Tag::Double(v) if v.is_nan() => Tag::Double(f64::NAN),
        Tag::List(l) if l.is_empty() => Tag::List(List::End),
        Tag::List(l) => Tag::List(
            List::from_tags(l.iter().map(|x| snbt_normal(&x.to_tag())).collect()).unwrap(),
        ),
        Tag::Compound(c) => Tag::Compound(Compound::from_entries(
            c.entries()
                .iter()
                .map(|(k, v)| (k.clone(), snbt_normal(v)))
                .collect(),
        )),
        other => other.clone(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(192))]

    #[test]
    fn java_binary_round_trip(r in root()) {
        let bytes = r.encode(Edition::Java).unwrap();
        let o = ReadOptions::default();
        let back = decode_exact(&bytes, o).unwrap();
        prop_assert_eq!(&back, &r);
        prop_assert_eq!(back.encode(Edition::Java).unwrap(), bytes.clone());
        let b = BorrowedNbt::decode(&bytes, o).unwrap();
        prop_assert_eq!(b.consumed(), bytes.len());
        prop_assert_eq!(&b.to_owned_roots()[0], &r);
    }

    #[test]
    fn nameless_root_of_any_type(t in tag()) {
        let r = Nbt::nameless(t);
        let bytes = r.encode(Edition::Java).unwrap();
        let o = ReadOptions::default().root(RootForm::Nameless);
        prop_assert_eq!(decode_exact(&bytes, o).unwrap(), r.clone());
        prop_assert_eq!(BorrowedNbt::decode(&bytes, o).unwrap().to_owned_roots()[0].clone(), r);
    }

    #[test]
    fn bedrock_round_trips(r in root()) {
        for ed in [Edition::Bedrock, Edition::BedrockNetwork] {
            // Bedrock strings are UTF-8: a tree with a lone surrogate cannot be written.
            let Ok(bytes) = r.encode(ed) else { continue };
            let o = ReadOptions::new(ed);
            let back = decode_exact(&bytes, o).unwrap();
            prop_assert_eq!(&back, &r);
            prop_assert_eq!(back.encode(ed).unwrap(), bytes.clone());
            prop_assert_eq!(&BorrowedNbt::decode(&bytes, o).unwrap().to_owned_roots()[0], &r);
        }
    }

    #[test]
    fn json_dump_round_trip(r in root()) {
        let text = dump::root_to_json(&r);
        let j = Json::parse(&text).unwrap();
        prop_assert_eq!(dump::root_from_json(&j).unwrap(), r);
    }

    #[test]
    fn modern_snbt_round_trip(t in tag()) {
        // The 1.21.5 dialect: every tree without NaN prints and reads back (infinities as
        // 1e999), numbers, keys that start with digits and control characters included.
        let has_nan = snbt::to_snbt(&t).contains("NaN");
        match snbt::to_snbt_in(&t, snbt::Dialect::Modern) {
            Err(_) => prop_assert!(has_nan),
            Ok(text) => {
                let back = snbt::parse_in(&text, snbt::Dialect::Modern)
                    .map_err(|e| TestCaseError::fail(format!("{e}: {text}")))?;
                prop_assert_eq!(back, snbt_normal(&t), "{}", text);
            }
        }
    }

    #[test]
    fn snbt_round_trip(t in tag()) {
        let text = snbt::to_snbt(&t);
        let back = snbt::parse(&text).map_err(|e| TestCaseError::fail(format!("{e}: {text}")))?;
        prop_assert_eq!(back, snbt_normal(&t), "{}", text);
    }
}

#[test]
fn macro_builds_trees() {
    let t = def_runtime::nbt::nbt!({
        "name": "Steve",
        "health": 20.0f32,
        "pos": [1.5f64, 64.0f64, (-3.25f64)],
        "inv": [{ "id": "minecraft:stone", "count": 3i8 }],
        "empty": [],
        "longs": (vec![1i64, 2, 3]),
    });
    let c = t.as_compound().unwrap();
    assert_eq!(
        c.get("name")
            .and_then(Tag::as_string)
            .unwrap()
            .to_str()
            .unwrap(),
        "Steve"
    );
    assert_eq!(
        c.get("pos").and_then(Tag::as_list).unwrap().element_type(),
        TagType::Double
    );
    assert_eq!(
        c.get("empty")
            .and_then(Tag::as_list)
            .unwrap()
            .element_type(),
        TagType::End
    );
    assert_eq!(c.get("longs").unwrap().tag_type(), TagType::LongArray);
    assert_eq!(
        snbt::to_snbt(&t),
        r#"{name:"Steve",health:20.0f,pos:[1.5d,64.0d,-3.25d],inv:[{id:"minecraft:stone",count:3b}],empty:[],longs:[L;1L,2L,3L]}"#
    );
}

#[test]
fn bigtest_snbt_equals_its_binary_twin() {
    let (Some(text), Some(raw)) = (
        support::shared("nbt-samples/amulet__bigtest.snbt"),
        support::shared("nbt-samples/simdnbt__bigtest.nbt"),
    ) else {
        return;
    };
    let (text, raw) = (
        std::fs::read_to_string(text).unwrap(),
        std::fs::read(raw).unwrap(),
    );
    let from_text = snbt::parse(&text).unwrap();
    let f = def_runtime::nbt::NbtFile::decode(&raw, Default::default()).unwrap();
    assert_eq!(from_text, f.roots[0].tag);
    // And our own SNBT of it parses back to the same tree.
    assert_eq!(snbt::parse(&snbt::to_snbt(&from_text)).unwrap(), from_text);
}

/// One edit of a compound by key, for the model test below.
#[derive(Clone, Debug)]
enum Edit {
    Insert(u8, i32),
    Set(u8, i32),
    Remove(u8),
    /// Appends through `entries_mut` without looking for the key (duplicates, as files have).
    Push(u8, i32),
    /// Appends with the builder `with` (no lookup either).
    With(u8, i32),
    Clone,
}

fn edit() -> impl Strategy<Value = Edit> {
    // Keys from a set of 48, so compounds cross the 32 entries at which they index their keys,
    // and repeat.
    prop_oneof![
        4 => (0u8..48, any::<i32>()).prop_map(|(k, v)| Edit::Insert(k, v)),
        2 => (0u8..48, any::<i32>()).prop_map(|(k, v)| Edit::Set(k, v)),
        1 => (0u8..48).prop_map(Edit::Remove),
        1 => (0u8..48, any::<i32>()).prop_map(|(k, v)| Edit::Push(k, v)),
        1 => (0u8..48, any::<i32>()).prop_map(|(k, v)| Edit::With(k, v)),
        1 => Just(Edit::Clone),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// `Compound`'s edits by key against a plain list of entries that follows the documented
    /// rules (the last entry of a key is the one read, set and replaced; remove drops every
    /// entry of the key and gives the last value), from an empty compound and from a parsed one
    /// with duplicate keys: the key index a large compound builds never changes an answer.
    #[test]
    fn compound_edits_by_key_follow_a_plain_list(
        start in prop::collection::vec((0u8..48, any::<i32>()), 0..64),
        edits in prop::collection::vec(edit(), 0..200),
    ) {
        let key = |k: u8| format!("k{k}");
        let mut model: Vec<(String, i32)> = start.iter().map(|&(k, v)| (key(k), v)).collect();
        // The starting compound comes from bytes, as a parsed chunk's would.
        let mut bytes = vec![10u8, 0, 0];
        for (k, v) in &model {
            bytes.push(3);
            bytes.extend_from_slice(&(k.len() as u16).to_be_bytes());
            bytes.extend_from_slice(k.as_bytes());
            bytes.extend_from_slice(&v.to_be_bytes());
        }
        bytes.push(0);
        let root = decode_exact(&bytes, ReadOptions::default()).unwrap();
        let mut c = match root.tag {
            Tag::Compound(c) => c,
            other => panic!("{other:?}"),
        };
        let last = |m: &[(String, i32)], k: &str| m.iter().rposition(|(n, _)| n == k);
        for e in edits {
            match e {
                Edit::Insert(k, v) => {
                    let k = key(k);
                    let old = match last(&model, &k) {
                        Some(i) => Some(std::mem::replace(&mut model[i].1, v)),
                        None => { model.push((k.clone(), v)); None }
                    };
                    prop_assert_eq!(c.insert(k.as_str(), v), old.map(Tag::Int));
                }
                Edit::Set(k, v) => {
                    let k = key(k);
                    let i = last(&model, &k);
                    match c.get_mut(&k) {
                        Some(t) => { *t = Tag::Int(v); model[i.unwrap()].1 = v; }
                        None => prop_assert!(i.is_none()),
                    }
                }
                Edit::Remove(k) => {
                    let k = key(k);
                    let old = last(&model, &k).map(|i| model[i].1);
                    model.retain(|(n, _)| *n != k);
                    prop_assert_eq!(c.remove(&k), old.map(Tag::Int));
                }
                Edit::Push(k, v) => {
                    c.entries_mut().push((NbtString::from(key(k)), Tag::Int(v)));
                    model.push((key(k), v));
                }
                Edit::With(k, v) => {
                    c = c.with(key(k), v);
                    model.push((key(k), v));
                }
                Edit::Clone => c = c.clone(),
            }
            for k in 0..48 {
                let k = key(k);
                let expected = last(&model, &k).map(|i| Tag::Int(model[i].1));
                prop_assert_eq!(c.get(&k), expected.as_ref());
            }
            let entries: Vec<(String, i32)> = c
                .entries()
                .iter()
                .map(|(n, t)| match t {
                    Tag::Int(v) => (n.to_str_lossy().into_owned(), *v),
                    other => panic!("{other:?}"),
                })
                .collect();
            prop_assert_eq!(&entries, &model);
        }
    }
}
