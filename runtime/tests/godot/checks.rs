//! One test per decoder check of SPEC.md §7 (and the deliberate non-checks), with the error
//! kind, engine error code, byte offset and container path; Godot 4 specifics (typed
//! containers, double-precision math, RID/Callable/Signal); the typed JSON form.
#![cfg(feature = "godot")]

use crate::common;

use common::{hex, unhex};
use def_runtime::godot::json::{from_json_str, to_json};
use def_runtime::godot::*;

fn d3(h: &str) -> Result<(Variant, usize), DecodeError> {
    decode(&unhex(h), DecodeOptions::new(Version::Godot3))
}

fn d4(h: &str) -> Result<(Variant, usize), DecodeError> {
    decode(&unhex(h), DecodeOptions::new(Version::GODOT_4_4))
}

fn refused(r: Result<(Variant, usize), DecodeError>) -> DecodeError {
    match r {
        Ok((v, _)) => panic!("expected a refusal, decoded {v:?}"),
        Err(e) => e,
    }
}

#[test]
fn header_checks() {
    for h in ["", "00", "000000"] {
        let e = refused(d3(h));
        assert!(matches!(e.kind(), DecodeErrorKind::MissingHeader { .. }));
        assert_eq!(e.engine_error(), EngineError::InvalidData);
    }
    // VARIANT_MAX is 27 for Godot 3 and 39 for Godot 4.
    assert!(matches!(
        refused(d3("1b000000")).kind(),
        DecodeErrorKind::UnknownType { id: 27, .. }
    ));
    assert!(matches!(
        refused(d4("27000000")).kind(),
        DecodeErrorKind::UnknownType { id: 39, .. }
    ));
    assert_eq!(
        d4("26000000 00000000").unwrap().0,
        Variant::PackedVector4Array(vec![])
    );
    // Header byte 1 and unknown flag bits are ignored.
    assert_eq!(d3("02ff0000 2a000000").unwrap().0, Variant::Int(42));
    assert_eq!(d3("0000ffff").unwrap().0, Variant::Nil);
    assert_eq!(d3("02000200 2a000000").unwrap().0, Variant::Int(42));
}

#[test]
fn fixed_size_payloads() {
    for (h, what) in [
        ("01000000", "bool"),
        ("02000000 0100", "int32"),
        ("02000100 01000000", "int64"),
        ("03000100 00000000", "float64"),
        ("05000000 0000803f", "Vector2"),
        ("0e000000 00000000 00000000 00000000", "Color"),
        ("11000100 01000000", "object id"),
    ] {
        let e = refused(d3(h));
        assert!(
            matches!(e.kind(), DecodeErrorKind::Truncated { what: w, .. } if *w == what),
            "{h}: {e}"
        );
        assert_eq!(e.offset(), 4, "{h}");
        assert_eq!(e.engine_error(), EngineError::InvalidData);
    }
    // Godot 4: RID and Signal ids are 8 bytes, FLAG_64 math needs f64 components.
    assert!(matches!(
        refused(d4("17000000 01000000")).kind(),
        DecodeErrorKind::Truncated { what: "RID", .. }
    ));
    assert!(matches!(
        refused(d4("05000100 0000803f 00000040")).kind(),
        DecodeErrorKind::Truncated { .. }
    ));
    // BOOL: any non-zero word is true.
    assert_eq!(d3("01000000 00010000").unwrap().0, Variant::Bool(true));
    // INT: FLAG_64 with a small value is accepted; 32-bit payloads sign-extend.
    assert_eq!(d3("02000100 05000000 00000000").unwrap().0, Variant::Int(5));
    assert_eq!(d3("02000000 ffffffff").unwrap().0, Variant::Int(-1));
}

#[test]
fn string_checks() {
    let e = refused(d3("04000000 05000000 68656c6c6f"));
    assert!(matches!(
        e.kind(),
        DecodeErrorKind::StringPastEnd { len: 5, pad: 3, .. }
    ));
    assert_eq!(e.engine_error(), EngineError::FileEof);
    let e = refused(d3("04000000 ffffffff"));
    assert!(matches!(
        e.kind(),
        DecodeErrorKind::NegativeStringLength { len: -1 }
    ));
    assert_eq!(e.engine_error(), EngineError::FileEof);
    // n + pad overflows int32.
    assert!(matches!(
        refused(d3("04000000 ffffff7f")).kind(),
        DecodeErrorKind::StringPastEnd { .. }
    ));
    assert!(matches!(
        refused(d3("04000000 0100")).kind(),
        DecodeErrorKind::Truncated { .. }
    ));
    // Stops at NUL, drops a BOM, ignores padding contents.
    assert_eq!(
        d3("04000000 03000000 61006200").unwrap().0,
        Variant::string("a")
    );
    assert_eq!(
        d3("04000000 04000000 efbbbf61").unwrap().0,
        Variant::string("a")
    );
    assert_eq!(
        d3("04000000 01000000 617a7a7a").unwrap().0,
        Variant::string("a")
    );
    // Only the first BOM: a string that starts with three keeps two (U+FEFF each), so a round of
    // encode and decode drops one more (the fuzz harness's rounds to a fixed point rest on it).
    assert_eq!(
        d3("04000000 0a000000 efbbbfefbbbfefbbbf02 0000").unwrap().0,
        Variant::string("\u{FEFF}\u{FEFF}\u{2}")
    );
    // UTF-8: Godot 4 is strict; Godot 3.2.3 accepts surrogates and some overlong forms.
    let e = refused(d4("04000000 03000000 eda08000"));
    assert!(matches!(e.kind(), DecodeErrorKind::InvalidUtf8 { at: 0 }));
    assert_eq!(e.offset(), 8);
    // The surrogate is kept, and written back as the engine writes it (measured: the same bytes).
    let surrogate = d3("04000000 03000000 eda08000").unwrap().0;
    assert_eq!(
        surrogate,
        Variant::String(GString::from_code_points([0xD800]).unwrap())
    );
    assert_eq!(
        encode(&surrogate, EncodeOptions::new(Version::Godot3)).unwrap(),
        unhex("04000000 03000000 eda08000")
    );
    assert_eq!(
        d3("04000000 03000000 e09fbf00").unwrap().0,
        Variant::string("\u{7FF}")
    );
    assert!(
        refused(d4("04000000 03000000 e09fbf00"))
            .to_string()
            .contains("invalid UTF-8")
    );
    for bad in [
        "0400000002000000c0af0000",
        "0400000003000000e0808000",
        "040000000100000080000000",
    ] {
        assert!(
            matches!(refused(d3(bad)).kind(), DecodeErrorKind::InvalidUtf8 { .. }),
            "{bad}"
        );
    }
}

#[test]
fn node_path_checks() {
    assert!(matches!(
        refused(d3("0f000000 01000000 61000000")).kind(),
        DecodeErrorKind::OldNodePath
    ));
    assert!(matches!(
        refused(d3("0f000000 01000080 00000000")).kind(),
        DecodeErrorKind::Truncated { .. }
    ));
    // Bit 1 of the flags adds one subname; an empty path loses its absolute bit.
    let (v, _) =
        d3("0f000000 01000080 00000000 02000000 01000000 61000000 01000000 62000000").unwrap();
    assert_eq!(v, Variant::NodePath(Box::new(NodePath::parse("a:b"))));
    assert_eq!(
        d3("0f000000 00000080 00000000 01000000").unwrap().0,
        Variant::NodePath(Box::default())
    );
    let e = refused(d3(
        "0f000000 02000080 00000000 00000000 01000000 61000000 05000000",
    ));
    assert_eq!(e.path().to_string(), "[1]");
}

#[test]
fn object_checks() {
    let full =
        "11000000 09000000 5265666572656e63 65000000 01000000 06000000 73637269 70740000 00000000";
    let e = refused(d3(full));
    assert!(matches!(e.kind(), DecodeErrorKind::ObjectsNotAllowed));
    assert_eq!(e.engine_error(), EngineError::Unauthorized);
    // Refused before anything is read: even a truncated or empty-class full object.
    assert!(matches!(
        refused(d3("11000000")).kind(),
        DecodeErrorKind::ObjectsNotAllowed
    ));
    let allow = DecodeOptions::new(Version::Godot3).allow_objects(true);
    assert_eq!(
        decode(&unhex("11000000 00000000"), allow).unwrap().0,
        Variant::Object(Object::Null)
    );
    assert!(matches!(
        decode(&unhex("11000000 01000000 41000000"), allow)
            .unwrap_err()
            .kind(),
        DecodeErrorKind::Truncated {
            what: "object property count",
            ..
        }
    ));
    let mut only_reference = allow;
    only_reference.class_check = Some(|c| c == "Reference");
    assert!(decode(&unhex(full), only_reference).is_ok());
    let e = decode(
        &unhex("11000000 01000000 41000000 00000000"),
        only_reference,
    )
    .unwrap_err();
    assert!(matches!(e.kind(), DecodeErrorKind::ClassUnavailable { .. }));
    assert_eq!(e.engine_error(), EngineError::Unavailable);
    // As-id objects are always accepted; id 0 is a null object.
    assert_eq!(
        d3("11000100 09050000 00000000").unwrap().0,
        Variant::Object(Object::Id(0x509))
    );
    assert_eq!(
        d3("11000100 00000000 00000000").unwrap().0,
        Variant::Object(Object::Null)
    );
    // Godot 4: `script` must be NIL or a res:// path.
    let allow4 = DecodeOptions::new(Version::GODOT_4_4).allow_objects(true);
    let obj4 = |script: &str| {
        format!("18000000 01000000 41000000 01000000 06000000 73637269 70740000 {script}")
    };
    assert!(decode(&unhex(&obj4("00000000")), allow4).is_ok());
    let good = format!("04000000 08000000 {}", hex(b"res://ab"));
    assert!(decode(&unhex(&obj4(&good)), allow4).is_ok());
    let e = decode(&unhex(&obj4("02000000 07000000")), allow4).unwrap_err();
    assert!(matches!(e.kind(), DecodeErrorKind::InvalidScript { .. }));
    assert_eq!(e.path().to_string(), "script");
}

#[test]
fn container_checks_and_paths() {
    assert!(matches!(
        refused(d3("12000000 0100")).kind(),
        DecodeErrorKind::Truncated {
            what: "Dictionary count",
            ..
        }
    ));
    assert!(matches!(
        refused(d3("13000000")).kind(),
        DecodeErrorKind::Truncated {
            what: "Array count",
            ..
        }
    ));
    // The shared bit 31 of counts is masked.
    assert_eq!(
        d3("13000000 01000080 02000000 05000000").unwrap().0,
        Variant::array(vec![Variant::Int(5)])
    );
    // Paths: [1]["key"][0] and {key 0}.
    let bytes = "13000000 02000000 00000000 12000000 01000000 04000000 03000000 6b657900 13000000 01000000 04000000";
    let e = refused(d3(bytes));
    assert_eq!(e.path().to_string(), r#"[1]["key"][0]"#);
    assert_eq!(e.offset(), 44); // the string length word of the innermost element
    assert!(e.to_string().contains(r#"[1]["key"][0]"#), "{e}");
    let e = refused(d3("12000000 01000000 04000000 09000000"));
    assert_eq!(e.path().to_string(), "{key 0}");
    // Duplicate keys collapse: first position, later value (1 and 1.0 are different keys).
    let (v, _) = d3("12000000 03000000 02000000 01000000 02000000 05000000 03000000 0000803f 00000000 02000000 01000000 02000000 06000000").unwrap();
    assert_eq!(
        v,
        Variant::dictionary(vec![
            (Variant::Int(1), Variant::Int(6)),
            (Variant::Float(1.0), Variant::Nil)
        ])
    );
    // 0.0 and -0.0 are the same key.
    let (v, _) =
        d3("12000000 02000000 03000000 00000000 00000000 03000000 00000080 01000000 01000000")
            .unwrap();
    let Variant::Dictionary(d) = v else { panic!() };
    assert_eq!(d.entries.len(), 1);
}

#[test]
fn packed_array_checks() {
    for (h, ty) in [
        ("14000000 ffffffff", VariantType::PackedByteArray),
        ("14000000 05000000 01020304", VariantType::PackedByteArray),
        ("15000000 00000040", VariantType::PackedInt32Array),
        (
            "16000000 02000000 00000000",
            VariantType::PackedFloat32Array,
        ),
        ("18000000 00000010", VariantType::PackedVector2Array),
        ("1a000000 01000000", VariantType::PackedColorArray),
    ] {
        let e = refused(d3(h));
        assert!(
            matches!(e.kind(), DecodeErrorKind::PackedPastEnd { ty: t, .. } if *t == ty),
            "{h}: {e}"
        );
        assert_eq!(e.engine_error(), EngineError::InvalidData);
    }
    // Byte-array padding need not be present at the end; a negative string-array count is empty.
    assert_eq!(
        d3("14000000 03000000 010203").unwrap(),
        (Variant::PackedByteArray(vec![1, 2, 3]), 11)
    );
    assert_eq!(
        d3("17000000 ffffffff").unwrap().0,
        Variant::PackedStringArray(vec![])
    );
    // String-array elements with or without their NUL.
    assert_eq!(
        d3("17000000 01000000 02000000 61620000").unwrap().0,
        Variant::PackedStringArray(vec!["ab".into()])
    );
    // Godot 4 FLAG_64 vector arrays use 8-byte components; Godot 3 ignores the flag.
    let v = d4("23000100 01000000 000000000000f03f 0000000000000040")
        .unwrap()
        .0;
    assert_eq!(
        v,
        Variant::PackedVector2Array(vec![Vector2 { x: 1.0, y: 2.0 }])
    );
    assert_eq!(
        d3("05000100 0000803f 00000040").unwrap().0,
        Variant::Vector2(Vector2 { x: 1.0, y: 2.0 })
    );
}

#[test]
fn godot4_specifics() {
    let enc4 = EncodeOptions::new(Version::GODOT_4_4);
    // Typed containers: builtin id checked; class/script names become EncodedObjectAsID
    // unless objects are allowed / full objects written.
    assert!(matches!(
        refused(d4("1c000100 27000000 00000000")).kind(),
        DecodeErrorKind::InvalidContainerType { id: 39 }
    ));
    let script = Variant::Array(Box::new(Array {
        element_type: ContainerType::Script("res://enemy.gd".into()),
        items: vec![],
    }));
    let as_id = encode(&script, enc4).unwrap();
    assert_eq!(hex(&as_id[..4]), "1c000200");
    assert_eq!(
        d4(&hex(&as_id)).unwrap().0,
        Variant::Array(Box::new(Array {
            element_type: ContainerType::Class("EncodedObjectAsID".into()),
            items: vec![]
        }))
    );
    let full = encode(&script, enc4.full_objects(true)).unwrap();
    assert_eq!(hex(&full[..4]), "1c000300");
    let allow4 = DecodeOptions::new(Version::GODOT_4_4).allow_objects(true);
    assert_eq!(decode(&full, allow4).unwrap().0, script);
    let bad_path = "1c000300 05000000 612e676400000000 00000000";
    assert!(matches!(
        decode(&unhex(bad_path), allow4).unwrap_err().kind(),
        DecodeErrorKind::InvalidScriptPath { .. }
    ));
    // A Dictionary typed on one side only.
    let d = Variant::Dictionary(Box::new(Dictionary {
        key_type: ContainerType::Builtin(VariantType::Int),
        value_type: ContainerType::Untyped,
        entries: vec![],
    }));
    assert_eq!(hex(&encode(&d, enc4).unwrap()), "1b0001000200000000000000");
    // Double precision: FLAG_64 and f64 components, never for Color.
    let v = Variant::Vector3(Vector3 {
        x: 0.1,
        y: 0.2,
        z: 0.3,
    });
    let b = encode(&v, enc4.double_precision(true)).unwrap();
    assert_eq!(hex(&b[..4]), "09000100");
    assert_eq!(b.len(), 28);
    assert_eq!(d4(&hex(&b)).unwrap().0, v);
    let c = encode(
        &Variant::Color(Color::default()),
        enc4.double_precision(true),
    )
    .unwrap();
    assert_eq!(hex(&c[..4]), "14000000");
    assert!(
        encode(
            &v,
            EncodeOptions::new(Version::Godot3).double_precision(true)
        )
        .is_err()
    );
    // RID, Callable, Signal; StringName.
    assert_eq!(
        hex(&encode(&Variant::Rid(7), enc4).unwrap()),
        "170000000700000000000000"
    );
    assert_eq!(
        hex(&encode(&Variant::Rid(7), EncodeOptions::new(Version::Godot3)).unwrap()),
        "10000000"
    );
    assert_eq!(hex(&encode(&Variant::Callable, enc4).unwrap()), "19000000");
    let sig = Variant::Signal(Box::new(Signal {
        name: "hit".into(),
        object: 9,
    }));
    assert_eq!(
        hex(&encode(&sig, enc4).unwrap()),
        "1a000000030000006869740009000000 00000000".replace(' ', "")
    );
    assert_eq!(
        hex(&encode(&Variant::StringName("ab".into()), enc4).unwrap()),
        "150000000200000061620000"
    );
    // Godot 4-only types are refused for Godot 3, with their path.
    let e = encode(
        &Variant::array(vec![Variant::Nil, Variant::Callable]),
        EncodeOptions::new(Version::Godot3),
    )
    .unwrap_err();
    assert!(matches!(e.kind(), EncodeErrorKind::TypeNotInVersion { .. }));
    assert_eq!(e.path().to_string(), "[1]");
}

#[test]
fn strict_decoding_reports_trailing_bytes() {
    let opts = DecodeOptions::new(Version::Godot3);
    assert_eq!(
        decode(&unhex("02000000 2a000000 ffff"), opts).unwrap(),
        (Variant::Int(42), 8)
    );
    let e = decode_exact(&unhex("02000000 2a000000 ffff"), opts).unwrap_err();
    assert!(matches!(
        e.kind(),
        DecodeErrorKind::TrailingBytes {
            consumed: 8,
            extra: 2
        }
    ));
}

#[test]
fn typed_json_form() {
    let v = Variant::dictionary(vec![
        (Variant::string("f"), Variant::Float(0.1)),
        (
            Variant::string("nan"),
            Variant::Float(f64::from_bits(0x7ff8_0000_2000_0000)),
        ),
        (Variant::string("neg0"), Variant::Float(-0.0)),
        (
            Variant::string("c"),
            Variant::Color(Color {
                r: 0.1,
                g: f32::NAN,
                b: -0.0,
                a: 1.0,
            }),
        ),
        (
            Variant::string("bytes"),
            Variant::PackedByteArray(vec![1, 255]),
        ),
        (
            Variant::string("path"),
            Variant::NodePath(Box::new(NodePath::parse("/root/a:b"))),
        ),
        (Variant::string("obj"), Variant::Object(Object::Id(5))),
    ]);
    let j = to_json(&v);
    let text = serde_json::to_string(&j).unwrap();
    assert!(text.contains(r#"{"type":"float","value":"0.1"}"#), "{text}");
    assert!(text.contains(r#""value":"0x7ff8000020000000""#), "{text}");
    assert!(text.contains(r#""value":"-0.0""#), "{text}");
    assert!(
        text.contains(r#"{"type":"PackedByteArray","value":"01ff"}"#),
        "{text}"
    );
    assert_eq!(from_json_str(&text).unwrap(), v);
    // Hand-written input: aliases, bit patterns, numbers, ints as strings, path strings.
    let v2 = from_json_str(
        r#"{"type":"Array","element_type":{"builtin":"int"},"value":[
            {"type":"real","value":"0x3fb999999999999a"},
            {"type":"Quat","value":[0,0,0,1]},
            {"type":"int","value":"-9223372036854775808"},
            {"type":"NodePath","value":"../x:y"}]}"#,
    )
    .unwrap();
    let Variant::Array(a) = &v2 else { panic!() };
    assert_eq!(a.element_type, ContainerType::Builtin(VariantType::Int));
    assert_eq!(a.items[0], Variant::Float(0.1));
    assert_eq!(
        a.items[1],
        Variant::Quaternion(Box::new(Quaternion {
            x: 0.0,
            y: 0.0,
            z: 0.0,
            w: 1.0
        }))
    );
    assert_eq!(a.items[2], Variant::Int(i64::MIN));
    assert_eq!(
        a.items[3],
        Variant::NodePath(Box::new(NodePath::parse("../x:y")))
    );
    let e = from_json_str(r#"{"type":"Array","value":[{"type":"Vector2","value":["1"]}]}"#)
        .unwrap_err();
    assert_eq!(e.path, "/value/0/value");
}
