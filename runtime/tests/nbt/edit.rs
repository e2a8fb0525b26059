//! Reaching and changing values: a chunk edit on a real chunk (one `get_path_mut`
//! and an assignment), checked against the sample's bytes and its independent JSON dump; paths
//! and their errors; the borrowing and mutable accessors; `compound!`.
#![cfg(feature = "nbt")]

use crate::support;

use def_runtime::nbt::dump::{self, Json};
use def_runtime::nbt::{
    Compound, List, NbtError, NbtErrorKind, NbtFile, Tag, TagView, TagViewMut, compound, nbt,
};

fn sample(name: &str) -> Option<Vec<u8>> {
    Some(std::fs::read(support::shared(&format!("nbt-samples/{name}"))?).unwrap())
}

fn json_member<'a>(j: &'a mut Json, key: &str) -> &'a mut Json {
    let k: Vec<u16> = key.encode_utf16().collect();
    match j {
        Json::Object(m) => &mut m.iter_mut().find(|(n, _)| *n == k).unwrap().1,
        _ => panic!("not an object at {key}"),
    }
}

fn json_index(j: &mut Json, i: usize) -> &mut Json {
    match j {
        Json::Array(a) => &mut a[i],
        _ => panic!("not an array"),
    }
}

#[test]
fn one_block_name_changed_in_a_real_chunk() {
    let Some(raw) = sample("fastnbt__chunk.nbt") else {
        return;
    };
    let mut file = NbtFile::decode(&raw, Default::default()).unwrap();

    // The whole edit: one lookup, one assignment.
    *file
        .get_path_mut("Level.Sections[1].Palette[0].Name")
        .unwrap() = "minecraft:stone".into();

    let out = file.encode().unwrap();

    // Bytes: the output is the sample with exactly one string replaced, in place.
    let i = raw.iter().zip(&out).position(|(a, b)| a != b).unwrap();
    assert_eq!(
        (raw[i], out[i]),
        (13, 15),
        "the string length changes 13 → 15"
    );
    assert_eq!(&raw[i + 1..i + 14], b"minecraft:air");
    assert_eq!(&out[i + 1..i + 16], b"minecraft:stone");
    assert_eq!(&raw[i + 14..], &out[i + 16..]);

    // Tree: the sample's dump (made by amulet-nbt) with that one value changed.
    let mut expected =
        Json::parse(&String::from_utf8(sample("fastnbt__chunk.nbt.json").unwrap()).unwrap())
            .unwrap()
            .without("meta");
    let mut at = json_member(&mut expected, "value");
    for step in ["Level", "Sections"] {
        at = json_member(json_member(at, step), "value");
    }
    at = json_member(json_member(json_index(at, 1), "value"), "Palette");
    at = json_member(
        json_member(json_index(json_member(at, "value"), 0), "value"),
        "Name",
    );
    let name = json_member(at, "value");
    assert_eq!(name.as_str().as_deref(), Some("minecraft:air"));
    *name = Json::String("minecraft:stone".encode_utf16().collect());

    let back = NbtFile::decode(&out, Default::default()).unwrap();
    let got = Json::parse(&dump::root_to_json(back.root().unwrap())).unwrap();
    assert!(got.same_as(&expected));
}

#[test]
fn reading_through_a_path_borrows_in_place() {
    let Some(raw) = sample("fastanvil__21w44a-test1.nbt") else {
        return;
    };
    let file = NbtFile::decode(&raw, Default::default()).unwrap();
    let root = file.root().unwrap();
    // Values from the sample's JSON dump.
    let section = root.get_path("sections[1]").unwrap();
    let sections = root.tag.get("sections").unwrap().as_list().unwrap();
    let stored: &Compound = &sections.as_compounds().unwrap()[1];
    assert!(std::ptr::eq(section.as_compound().unwrap(), stored));
    let name = root
        .get_path("sections[1].block_states.palette[1].Properties.axis")
        .unwrap();
    assert_eq!(name.as_str().unwrap(), "y");
    assert_eq!(
        root.get_path("sections[1].block_states.palette[0].Name")
            .unwrap()
            .as_str()
            .unwrap(),
        "minecraft:air"
    );
}

#[test]
fn path_text_round_trips_through_error_paths() {
    let t = nbt!({"a.b": {"": [{"x y": 1i8}]}, "q\"\\": 2i32});
    for path in ["\"a.b\".\"\"[0].\"x y\"", "\"q\\\"\\\\\""] {
        let p: def_runtime::ValuePath = path.parse().unwrap();
        assert_eq!(p.to_string(), path);
        assert!(t.get_path(path).is_ok(), "{path}");
    }
    // An error's path, printed, is a path that parses and leads to the same place.
    let err = t.get_path("\"a.b\".\"\"[3]").unwrap_err();
    let NbtErrorKind::PathNotFound { reason } = err.kind() else {
        panic!("{err}")
    };
    assert_eq!(err.path().to_string(), "\"a.b\".\"\"[3]");
    assert_eq!(reason, "index 3 is out of range (length 1)");
    assert_eq!(
        err.path()
            .to_string()
            .parse::<def_runtime::ValuePath>()
            .unwrap()
            .to_string(),
        err.path().to_string()
    );
}

#[test]
fn path_errors_are_typed_and_positioned() {
    let t = nbt!({"Level": {"Sections": [{"Y": 0i8}], "xPos": 3i32}});
    let syntax = |p: &str| match t.get_path(p).unwrap_err().into_kind() {
        NbtErrorKind::PathSyntax { at, .. } => at,
        e => panic!("{p}: {e}"),
    };
    assert_eq!(syntax("Level..Sections"), 6);
    assert_eq!(syntax("Level.Sections[x]"), 15);
    assert_eq!(syntax("Level.Sections[0"), 16);
    assert_eq!(syntax("Level[0]]"), 8);
    assert_eq!(syntax("\"open"), 5);
    assert_eq!(syntax("Level.Sections[99999999999999999999999]"), 15);
    let missing = |p: &str| {
        let e = t.get_path(p).unwrap_err();
        match e.kind() {
            NbtErrorKind::PathNotFound { reason } => (e.path().to_string(), reason.clone()),
            _ => panic!("{p}: {e}"),
        }
    };
    assert_eq!(
        missing("Level.Nope.Deeper"),
        ("Level.Nope".into(), "no such key in the compound".into())
    );
    assert_eq!(
        missing("Level.xPos.a"),
        ("Level.xPos.a".into(), "`int` has no keys".into())
    );
    assert_eq!(
        missing("Level.Sections[0].Y[1]"),
        (
            "Level.Sections[0].Y[1]".into(),
            "`byte` has no elements".into()
        )
    );
    let mut t = t;
    let e = t.get_path_mut("Level.Sections[0]").unwrap_err();
    match e.kind() {
        NbtErrorKind::PathNotFound { reason } => {
            assert_eq!(e.path().to_string(), "Level.Sections[0]");
            assert!(reason.contains("get_path_view_mut"), "{reason}");
        }
        _ => panic!("{e}"),
    }
    assert!(matches!(
        t.get_path_mut("Level.Sections[1].Y")
            .map_err(NbtError::into_kind),
        Err(NbtErrorKind::PathNotFound { .. })
    ));
    // Any path, list elements included, as a mutable view.
    t.get_path_view_mut("Level.Sections[0]")
        .unwrap()
        .into_compound()
        .unwrap()
        .insert("Y", 3i8);
    assert_eq!(
        t.get_path("Level.Sections[0].Y").unwrap().as_byte(),
        Some(3)
    );
    assert!(matches!(
        t.get_path_view_mut("Level.Sections[5]")
            .map_err(NbtError::into_kind),
        Err(NbtErrorKind::PathNotFound { .. })
    ));
    let whole = t.get_path_view_mut("").unwrap().tag_type();
    assert_eq!(whole, def_runtime::nbt::TagType::Compound);
    // The empty path is the value itself.
    assert_eq!(t.get_path("").unwrap(), t.clone());
    *t.get_path_mut("Level.Sections[0].Y").unwrap() = Tag::Byte(7);
    assert_eq!(
        t.get_path("Level.Sections[0].Y").unwrap().as_byte(),
        Some(7)
    );
}

#[test]
fn list_elements_are_borrowed_and_changed_in_place() {
    let mut t = nbt!({"Pos": [1.0f64, 2.0f64], "Names": ["a", "b"], "L": [[1i32], [2i32, 3i32]]});
    let pos = t.get_mut("Pos").unwrap().as_list_mut().unwrap();
    assert_eq!(pos.get(1), Some(TagView::Double(2.0)));
    if let Some(TagViewMut::Double(x)) = pos.get_mut(0) {
        *x = 5.5;
    }
    assert_eq!(pos.get_mut(1).unwrap().set(Tag::Int(1)), Err(Tag::Int(1)));
    assert_eq!(pos.get_mut(1).unwrap().set(9.0f64), Ok(Tag::Double(2.0)));
    assert_eq!(t.get_path("Pos").unwrap().to_tag(), nbt!([5.5f64, 9.0f64]));
    let names = t.get_mut("Names").unwrap().as_list_mut().unwrap();
    *names.get_mut(0).unwrap().into_string().unwrap() = "z".into();
    let inner = t.get_path("L[1]").unwrap().as_list().unwrap();
    assert_eq!(
        inner.iter().collect::<Vec<_>>(),
        [TagView::Int(2), TagView::Int(3)]
    );
    assert_eq!(t.get_path("L[1][1]").unwrap().as_int(), Some(3));
    assert_eq!(t.get_path("Names[0]").unwrap().as_str().unwrap(), "z");
    let c = t.as_compound_mut().unwrap();
    *c.get_mut("Names").unwrap() = Tag::Int(4);
    assert_eq!(t.get("Names").and_then(Tag::as_int), Some(4));
    assert_eq!(List::End.get(0), None);
    // Views compare as tags do: floats by bits.
    let nan = List::Float(vec![f32::NAN].into());
    assert_eq!(nan.get(0), nan.get(0));
    assert_ne!(
        List::Double(vec![0.0].into()).get(0),
        List::Double(vec![-0.0].into()).get(0)
    );
}

#[test]
fn compound_macro_builds_the_same_tree_as_the_builders() {
    let c: Compound = compound! {
        "Name": "minecraft:oak_stairs",
        "Properties": { "facing": "north", "half": "bottom" },
        "Count": 3i8,
        "Pos": [1i32, (-2i32), 3i32],
    };
    let by_hand = Compound::new()
        .with("Name", "minecraft:oak_stairs")
        .with(
            "Properties",
            Compound::new()
                .with("facing", "north")
                .with("half", "bottom"),
        )
        .with("Count", 3i8)
        .with("Pos", List::Int(vec![1, -2, 3].into()));
    assert_eq!(c, by_hand);
}

#[test]
fn hostile_paths_fail_cleanly_with_short_messages() {
    let t = nbt!({"a": [{"b": 1i8}]});
    let key = "k".repeat(1 << 20);
    let e = t.get_path(&format!("a[0].{key}")).unwrap_err();
    assert!(matches!(e.kind(), NbtErrorKind::PathNotFound { .. }));
    assert!(e.to_string().len() < 400, "{} bytes", e.to_string().len());
    let e = t.get_path(&format!("a[0].\"{key}")).unwrap_err();
    assert!(matches!(e.kind(), NbtErrorKind::PathSyntax { at, .. } if *at == key.len() + 6));
    // A long path of indices through nothing: linear, and the error names the first step.
    let deep = "[0]".repeat(100_000);
    let e = t.get_path(&deep).unwrap_err();
    assert_eq!(e.to_string(), "NBT in `[0]`: `compound` has no elements");
}

#[test]
fn set_path_changes_a_list_element_of_a_real_file_and_refuses_a_wrong_type() {
    let Some(raw) = sample("simdnbt__complex_player.dat") else {
        return;
    };
    let mut file = NbtFile::decode(&raw, Default::default()).unwrap();

    // One call, `?`-friendly; the old value comes back.
    let old = file.set_path("Motion[1]", 0.5f64).unwrap();
    assert_eq!(old, Tag::Double(-0.0784000015258789));
    // A list keeps its element type: a typed error with the place, the file unchanged.
    let e = file.set_path("Motion[2]", 1i32).unwrap_err();
    match e.kind() {
        NbtErrorKind::WrongType { expected, found } => {
            let path = e.path();
            assert_eq!(
                (path.to_string(), *expected, *found),
                ("Motion[2]".into(), "double", "int")
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(
        e.to_string()
            .starts_with("NBT in `Motion[2]`: the place holds double, the value is int"),
        "{e}"
    );
    assert!(matches!(
        file.set_path("Motion[3]", 1.0f64)
            .map_err(NbtError::into_kind),
        Err(NbtErrorKind::PathNotFound { .. })
    ));

    // The sample's dump (amulet-nbt) with that one value changed is what the file now holds.
    let mut expected = Json::parse(
        &String::from_utf8(sample("simdnbt__complex_player.dat.json").unwrap()).unwrap(),
    )
    .unwrap()
    .without("meta");
    let motion = json_member(json_member(&mut expected, "value"), "Motion");
    let second = json_index(json_member(motion, "value"), 1);
    *json_member(second, "value") = Json::Number("0.5".into());
    let back = NbtFile::decode(&file.encode().unwrap(), Default::default()).unwrap();
    let got = Json::parse(&dump::root_to_json(back.root().unwrap())).unwrap();
    assert!(got.same_as(&expected));
}

#[test]
fn strings_read_as_str_where_stored_as_utf8() {
    let Some(raw) = sample("fastanvil__unicode.chunk") else {
        return;
    };
    let file = NbtFile::decode(&raw, Default::default()).unwrap();
    let name = |i: usize| {
        file.get_path(&format!("Level.TileEntities[{i}].CustomName"))
            .unwrap()
    };
    // Texts from the sample's JSON dump. Japanese is in the Basic Multilingual Plane: the same
    // bytes in MUTF-8 and UTF-8, so it borrows.
    let jp = "{\"text\":\"うそ。 日本語は存在しません。\"}";
    assert_eq!(name(0).as_str(), Some(jp));
    assert!(std::ptr::eq(
        name(0).as_str().unwrap(),
        &*name(0).as_string().unwrap().to_str().unwrap()
    ));
    assert_eq!(name(3).as_str(), Some("{\"text\":\"⛏\"}"));
    // Emoji are stored as surrogate pairs (not UTF-8): `as_str` says so, `to_str` decodes.
    let devil = name(1);
    assert_eq!(devil.as_str(), None);
    assert_eq!(
        devil.as_string().unwrap().to_str().as_deref(),
        Some("{\"text\":\"😈😈😈😈\"}")
    );
    // U+0000 is `C0 80` in MUTF-8; a byte array is not a string.
    let t = nbt!({"nul": "a\0b", "arr": (vec![1i8])});
    assert_eq!(t.get("nul").unwrap().as_str(), None);
    assert_eq!(
        t.get("nul")
            .unwrap()
            .as_string()
            .unwrap()
            .to_str()
            .as_deref(),
        Some("a\0b")
    );
    assert_eq!(t.get("arr").unwrap().as_str(), None);
}
