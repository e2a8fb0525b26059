//! serde: ordinary Rust types to Variants and back, checked against bytes written by the
//! real Godot 3.2.3 engine (from `godot3-vectors.json`) where the engine has an opinion.
#![cfg(all(feature = "godot", feature = "serde"))]

use crate::common;

use std::collections::BTreeMap;

use common::{hex, unhex};

use def_runtime::godot::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Player {
    name: String,
    hp: i32,
    speed: f32,
    alive: bool,
    tags: Vec<String>,
    #[serde(with = "def_runtime::godot::variant_serde::bytes")]
    avatar: Vec<u8>,
    raw: Vec<u8>,
    home: Option<(i64, i64)>,
    state: State,
    inventory: BTreeMap<String, u16>,
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
enum State {
    Idle,
    Moving { dx: f64, dy: f64 },
    Hit(u8),
    Pair(i8, i8),
}

#[test]
fn struct_round_trip_and_layout() {
    let p = Player {
        name: "Ann ✓".into(),
        hp: -3,
        speed: 1.5,
        alive: true,
        tags: vec!["a".into(), "b".into()],
        avatar: vec![1, 2, 3],
        raw: vec![4, 5],
        home: None,
        state: State::Moving { dx: 0.1, dy: -2.0 },
        inventory: BTreeMap::from([("gold".to_string(), 12), ("wood".to_string(), 3)]),
    };
    let v = to_variant(&p).unwrap();
    let Variant::Dictionary(d) = &v else {
        panic!("{v:?}")
    };
    let keys: Vec<_> = d.entries.iter().map(|(k, _)| k.clone()).collect();
    assert_eq!(keys[0], Variant::string("name"));
    assert_eq!(
        d.get("avatar"),
        Some(&Variant::PackedByteArray(vec![1, 2, 3]))
    );
    assert_eq!(
        d.get("raw"),
        Some(&Variant::array(vec![Variant::Int(4), Variant::Int(5)]))
    );
    assert_eq!(d.get("home"), Some(&Variant::Nil));
    assert_eq!(d.get("speed"), Some(&Variant::Float(1.5)));
    assert_eq!(
        d.get("state"),
        Some(&Variant::dictionary(vec![(
            Variant::string("Moving"),
            Variant::dictionary(vec![
                (Variant::string("dx"), Variant::Float(0.1)),
                (Variant::string("dy"), Variant::Float(-2.0))
            ])
        )]))
    );
    let back: Player = from_variant(&v).unwrap();
    assert_eq!(back, p);
    // Through the wire and back, both versions.
    for version in [Version::Godot3, Version::GODOT_4_4] {
        let bytes = encode(&v, EncodeOptions::new(version)).unwrap();
        let (w, _) = decode(&bytes, DecodeOptions::new(version)).unwrap();
        assert_eq!(from_variant::<Player>(&w).unwrap(), p);
    }
}

#[test]
fn matches_engine_bytes() {
    // godot3-vectors.json "dict_insertion_order": {"z": 1, "a": 2, "m": 3}.
    #[derive(Serialize)]
    struct Zam {
        z: i32,
        a: i32,
        m: i32,
    }
    let bytes = encode(
        &to_variant(&Zam { z: 1, a: 2, m: 3 }).unwrap(),
        EncodeOptions::new(Version::Godot3),
    )
    .unwrap();
    assert_eq!(
        hex(&bytes),
        "120000000300000004000000010000007a0000000200000001000000040000000100000061000000020000000200000004000000010000006d0000000200000003000000"
    );
    // "pool_byte_array_len5" and "pool_int_array_extremes" style values.
    #[derive(Serialize)]
    struct B(#[serde(with = "def_runtime::godot::variant_serde::bytes")] Vec<u8>);
    let b = encode(
        &to_variant(&B(vec![1, 2, 3, 4, 5])).unwrap(),
        EncodeOptions::new(Version::Godot3),
    )
    .unwrap();
    assert_eq!(hex(&b), "14000000050000000102030405000000");
    // Reading engine bytes into Rust types: a PoolIntArray into a Vec<i32>, a PoolStringArray
    // into Vec<String>, a PoolByteArray into Vec<u8>, Vector2 into (f32, f32).
    let (v, _) = decode(
        &unhex("1500000004000000ffffffffffffff7f0000008000000000"),
        DecodeOptions::new(Version::Godot3),
    )
    .unwrap();
    assert_eq!(
        from_variant::<Vec<i32>>(&v).unwrap(),
        vec![-1, i32::MAX, i32::MIN, 0]
    );
    let (v, _) = decode(&unhex("1700000004000000020000006100000003000000626300000400000064656600050000006768696a00000000"), DecodeOptions::new(Version::Godot3)).unwrap();
    assert_eq!(
        from_variant::<Vec<String>>(&v).unwrap(),
        ["a", "bc", "def", "ghij"]
    );
    let (v, _) = decode(
        &unhex("14000000050000000102030405000000"),
        DecodeOptions::new(Version::Godot3),
    )
    .unwrap();
    assert_eq!(from_variant::<Vec<u8>>(&v).unwrap(), [1, 2, 3, 4, 5]);
    let (v, _) = decode(
        &unhex("050000000000803f00000040"),
        DecodeOptions::new(Version::Godot3),
    )
    .unwrap();
    assert_eq!(from_variant::<(f32, f32)>(&v).unwrap(), (1.0, 2.0));
}

#[test]
fn enums_options_and_errors() {
    assert_eq!(to_variant(&State::Idle).unwrap(), Variant::string("Idle"));
    assert_eq!(
        from_variant::<State>(&Variant::string("Idle")).unwrap(),
        State::Idle
    );
    let hit = to_variant(&State::Hit(4)).unwrap();
    assert_eq!(from_variant::<State>(&hit).unwrap(), State::Hit(4));
    let pair = to_variant(&State::Pair(-1, 2)).unwrap();
    assert_eq!(from_variant::<State>(&pair).unwrap(), State::Pair(-1, 2));
    assert_eq!(from_variant::<Option<i32>>(&Variant::Nil).unwrap(), None);
    assert_eq!(
        from_variant::<Option<i32>>(&Variant::Int(3)).unwrap(),
        Some(3)
    );
    assert_eq!(from_variant::<f64>(&Variant::Int(3)).unwrap(), 3.0);
    assert!(to_variant(&u64::MAX).is_err());
    assert!(from_variant::<u8>(&Variant::Int(300)).is_err());
    assert!(from_variant::<String>(&Variant::Int(1)).is_err());
    let name = Variant::StringName("sn".into());
    let borrowed: &str = from_variant(&name).unwrap();
    assert_eq!(borrowed, "sn");
    let map: BTreeMap<i64, String> = from_variant(&Variant::dictionary(vec![(
        Variant::Int(2),
        Variant::string("two"),
    )]))
    .unwrap();
    assert_eq!(map[&2], "two");
}

#[test]
fn strings_beyond_unicode_survive_json_and_serde() {
    // What the 3.2.3 engine decodes and writes back unchanged (a CESU-8 pair, a 6-byte form):
    // the same bytes must come back through every path.
    let wire = unhex("040000000c000000eda080edb080fdbfbfbfbfbf");
    let g3 = Version::Godot3;
    let (v, _) = decode(&wire, DecodeOptions::new(g3)).unwrap();
    let Variant::String(s) = &v else {
        panic!("{v:?}")
    };
    assert_eq!(
        s.code_points().collect::<Vec<_>>(),
        [0xD800, 0xDC00, 0x7FFF_FFFF]
    );
    let enc = |v: &Variant| hex(&encode(v, EncodeOptions::new(g3)).unwrap());
    let json = json::to_json(&v);
    assert_eq!(
        json,
        serde_json::json!({"type": "String", "value": {"code_points": [0xD800, 0xDC00, 0x7FFF_FFFF]}})
    );
    assert_eq!(enc(&json::from_json(&json).unwrap()), hex(&wire));
    let text = serde_json::to_string(&json::Typed(&v)).unwrap();
    assert_eq!(enc(&json::from_json_str(&text).unwrap()), hex(&wire));
    // serde: a GString field keeps it; a Rust String cannot hold it and says so.
    #[derive(Serialize, Deserialize)]
    struct Named {
        name: GString,
    }
    let named = Named { name: s.clone() };
    let as_variant = to_variant(&named).unwrap();
    assert_eq!(
        as_variant,
        Variant::dictionary(vec![(Variant::string("name"), v.clone())])
    );
    let back: Named = from_variant(&as_variant).unwrap();
    assert_eq!(&back.name, s);
    assert!(from_variant::<String>(&v).is_err());
    // Other formats see the code points.
    let text = serde_json::to_string(&named).unwrap();
    assert_eq!(text, r#"{"name":[55296,56320,2147483647]}"#);
    let back: Named = serde_json::from_str(&text).unwrap();
    assert_eq!(&back.name, s);
}

#[test]
fn math_types_variants_and_packed_helpers_through_serde() {
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Unit {
        pos: Vector3,
        tint: Color,
        cell: Vector2i,
        #[serde(with = "def_runtime::godot::variant_serde::packed_int32")]
        ids: Vec<i32>,
        #[serde(with = "def_runtime::godot::variant_serde::packed_string")]
        tags: Vec<String>,
        #[serde(with = "def_runtime::godot::variant_serde::packed_vector2")]
        path: Vec<Vector2>,
        extra: Variant,
    }
    let unit = Unit {
        pos: Vector3::from_array([1.0, 2.0, 3.0]),
        tint: Color::from_array([1.0, 0.5, 0.25, 1.0]),
        cell: Vector2i { x: -1, y: 7 },
        ids: vec![1, -2],
        tags: vec!["a".into()],
        path: vec![Vector2 { x: 0.5, y: 1.0 }],
        extra: Variant::NodePath(Box::new(NodePath::parse("/root/a:b"))),
    };
    let v = to_variant(&unit).unwrap();
    let Variant::Dictionary(d) = &v else {
        panic!("{v:?}")
    };
    // Each field is the Godot type a Godot user expects, not an Array.
    assert_eq!(d.get("pos"), Some(&Variant::Vector3(unit.pos)));
    assert_eq!(d.get("tint"), Some(&Variant::Color(unit.tint)));
    assert_eq!(d.get("cell"), Some(&Variant::Vector2i(unit.cell)));
    assert_eq!(d.get("ids"), Some(&Variant::PackedInt32Array(vec![1, -2])));
    assert_eq!(
        d.get("tags"),
        Some(&Variant::PackedStringArray(vec!["a".into()]))
    );
    assert_eq!(
        d.get("path"),
        Some(&Variant::PackedVector2Array(unit.path.clone()))
    );
    assert_eq!(d.get("extra"), Some(&unit.extra));
    // Bytes by SPEC §4.1 (Godot 3 ids): Vector3 = 7, PoolIntArray = 21.
    let g3 = EncodeOptions::new(Version::Godot3);
    assert_eq!(
        hex(&encode(d.get("pos").unwrap(), g3).unwrap()),
        "070000000000803f0000004000004040"
    );
    assert_eq!(
        hex(&encode(d.get("ids").unwrap(), g3).unwrap()),
        "150000000200000001000000feffffff"
    );
    let back: Unit = from_variant(&v).unwrap();
    assert_eq!(back, unit);
    // A Variant is itself through to_variant / from_variant, at any nesting.
    let deep = Variant::array(vec![Variant::dictionary(vec![(
        Variant::Int(1),
        Variant::Projection(Box::new(Projection([0.5; 16]))),
    )])]);
    assert_eq!(to_variant(&deep).unwrap(), deep);
    assert_eq!(from_variant::<Variant>(&deep).unwrap(), deep);
    // Other formats: math types as component lists, a Variant as its typed JSON.
    let text = serde_json::to_string(&unit).unwrap();
    assert!(
        text.starts_with(
            r#"{"pos":[1.0,2.0,3.0],"tint":[1.0,0.5,0.25,1.0],"cell":[-1,7],"ids":[1,-2]"#
        ),
        "{text}"
    );
    assert!(text.ends_with(r#""extra":{"type":"NodePath","value":{"names":["root","a"],"subnames":["b"],"absolute":true}}}"#), "{text}");
    let back: Unit = serde_json::from_str(&text).unwrap();
    assert_eq!(back, unit);
}

#[test]
fn one_call_each_way_with_the_engine_bytes() {
    // godot3-vectors.json "dict_insertion_order" again, through `to_bytes` / `from_bytes`.
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Zam {
        z: i32,
        a: i32,
        m: i32,
    }
    let engine = "120000000300000004000000010000007a0000000200000001000000040000000100000061000000020000000200000004000000010000006d0000000200000003000000";
    let zam = Zam { z: 1, a: 2, m: 3 };
    let bytes = to_bytes(&zam, EncodeOptions::new(Version::Godot3)).unwrap();
    assert_eq!(hex(&bytes), engine);
    let back: Zam = from_bytes(&unhex(engine), DecodeOptions::new(Version::Godot3)).unwrap();
    assert_eq!(back, zam);

    // Bytes that decode but do not fit the type, and bytes that do not decode: one error type.
    let e =
        from_bytes::<Vec<String>>(&unhex(engine), DecodeOptions::new(Version::Godot3)).unwrap_err();
    assert!(matches!(e.kind(), DecodeErrorKind::Serde(_)), "{e}");
    assert_eq!(e.offset(), 0);
    let e = from_bytes::<Zam>(&unhex("12000000"), DecodeOptions::new(Version::Godot3)).unwrap_err();
    assert!(!matches!(e.kind(), DecodeErrorKind::Serde(_)), "{e}");

    // A value Godot 3 cannot hold is refused by the encoder with its kind.
    #[derive(Serialize)]
    struct Big(#[serde(with = "def_runtime::godot::variant_serde::packed_vector4")] Vec<[f32; 4]>);
    let e = to_bytes(&Big(vec![[1.0; 4]]), EncodeOptions::new(Version::Godot3)).unwrap_err();
    assert!(!matches!(e.kind(), EncodeErrorKind::Serde(_)), "{e}");
    // A value with no Variant form is refused with serde's message.
    let e = to_bytes(&u64::MAX, EncodeOptions::new(Version::Godot3)).unwrap_err();
    assert!(matches!(e.kind(), EncodeErrorKind::Serde(_)), "{e}");
}

#[test]
fn serde_errors_say_where_the_value_is() {
    // The engine's bytes of {"z": 1, "a": 2, "m": 3} (dict_insertion_order) read as a type whose
    // `a` is a string: the error names the entry, as a decode error would.
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Zas {
        z: i32,
        a: String,
        m: i32,
    }
    let engine = "120000000300000004000000010000007a0000000200000001000000040000000100000061000000020000000200000004000000010000006d0000000200000003000000";
    let e = from_bytes::<Zas>(&unhex(engine), DecodeOptions::new(Version::Godot3)).unwrap_err();
    assert!(matches!(e.kind(), DecodeErrorKind::Serde(_)), "{e}");
    assert_eq!(e.path().to_string(), r#"["a"]"#, "{e}");

    // Nested: an Array whose third element holds a Dictionary with a wrong value.
    let v = Variant::array(vec![
        Variant::Int(1),
        Variant::Int(2),
        Variant::dictionary(vec![(Variant::string("hp"), Variant::string("lots"))]),
    ]);
    let e = from_variant::<(i32, i32, BTreeMap<String, i32>)>(&v).unwrap_err();
    assert_eq!(e.path().to_string(), r#"[2]["hp"]"#, "{e}");
    assert!(e.message().contains("lots"), "{e}");

    // Writing: a field of an element with no Variant form.
    #[derive(Serialize)]
    struct Item {
        count: u64,
    }
    let items = vec![Item { count: 1 }, Item { count: u64::MAX }];
    let e = to_variant(&items).unwrap_err();
    assert_eq!(e.path().to_string(), "[1].count", "{e}");
    let e = to_bytes(&items, EncodeOptions::new(Version::Godot3)).unwrap_err();
    assert!(matches!(e.kind(), EncodeErrorKind::Serde(_)), "{e}");
    assert_eq!(e.path().to_string(), "[1].count", "{e}");
    assert!(
        e.to_string()
            .starts_with("cannot encode the value in `[1].count`: "),
        "{e}"
    );
}
