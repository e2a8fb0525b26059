//! The Godot 4 generations (SPEC.md §9.3), one test each: 4.0–4.1 (no typed-container fields,
//! `VARIANT_MAX` 38), 4.2 (typed Arrays), 4.3 (`PackedVector4Array`, `VARIANT_MAX` 39) and 4.4+
//! (typed Dictionaries). Expectations come from the engine's own vectors
//! (`engine-test-vectors.json`, written by Godot 4.4's unit tests) and from SPEC.md's layouts.
#![cfg(feature = "godot")]

use crate::common;

use common::{hex, unhex};
use def_runtime::godot::*;
use serde_json::Value;

const GENERATIONS: [Version; 4] = [
    Version::GODOT_4_0,
    Version::GODOT_4_2,
    Version::GODOT_4_3,
    Version::GODOT_4_4,
];

/// `Array[int]([0xf123456789abcdef])` and `Dictionary[int, int]` of it, from the engine's tests.
const TYPED_ARRAY: &str = "1c000100020000000100000002000100efcdab89674523f1";
const TYPED_DICT: &str =
    "1b00050002000000020000000100000002000100efcdab89674523f102000100efcdab89674523f1";
/// The same values as the plain containers a generation without the header field writes.
const PLAIN_ARRAY: &str = "1c0000000100000002000100efcdab89674523f1";
const PLAIN_DICT: &str = "1b0000000100000002000100efcdab89674523f102000100efcdab89674523f1";
const BIG: i64 = 0xf123_4567_89ab_cdef_u64 as i64;

fn typed_array() -> Variant {
    Variant::Array(Box::new(Array {
        element_type: ContainerType::Builtin(VariantType::Int),
        items: vec![Variant::Int(BIG)],
    }))
}

fn typed_dict() -> Variant {
    Variant::Dictionary(Box::new(Dictionary {
        key_type: ContainerType::Builtin(VariantType::Int),
        value_type: ContainerType::Builtin(VariantType::Int),
        entries: vec![(Variant::Int(BIG), Variant::Int(BIG))],
    }))
}

fn enc(v: &Variant, version: Version) -> Result<String, EncodeError> {
    encode(v, EncodeOptions::new(version)).map(|b| hex(&b))
}

fn dec(h: &str, version: Version) -> Result<Variant, DecodeError> {
    decode_exact(&unhex(h), DecodeOptions::new(version))
}

/// `PackedVector4Array` with one `(1, 2, 3, 4)`: id 38, count, four f32 (SPEC §4.2).
const PV4: &str = "26000000010000000000803f000000400000404000008040";

fn pv4() -> Variant {
    Variant::PackedVector4Array(vec![Vector4 {
        x: 1.0,
        y: 2.0,
        z: 3.0,
        w: 4.0,
    }])
}

#[test]
fn untyped_engine_vectors_are_the_same_in_every_generation() {
    let Some(text) = common::read_shared("engine-test-vectors.json") else {
        return;
    };
    let vectors: Vec<Value> = serde_json::from_str(&text).unwrap();
    let mut checked = 0;
    for r in &vectors {
        let (kind, ty) = (r["kind"].as_str().unwrap(), r["type"].as_str().unwrap());
        if !kind.starts_with("variant") || ty == "ARRAY" || ty == "DICTIONARY" {
            continue;
        }
        let bytes = unhex(r["hex"].as_str().unwrap());
        let newest = decode(&bytes, DecodeOptions::new(Version::GODOT_4_4));
        for version in GENERATIONS {
            let got = decode(&bytes, DecodeOptions::new(version));
            match (&newest, &got) {
                (Ok((v, _)), Ok((w, _))) => {
                    assert_eq!(v, w, "{version}: {}", r["value_description"]);
                    assert_eq!(encode(w, EncodeOptions::new(version)).unwrap(), bytes);
                }
                (Err(e), Err(f)) => assert_eq!(e.engine_error(), f.engine_error()),
                _ => panic!(
                    "{version}: {} {newest:?} vs {got:?}",
                    r["value_description"]
                ),
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 4 * 7, "7 untyped variant vectors × 4 generations");
}

#[test]
fn godot_4_0_has_no_typed_containers_and_no_vector4_arrays() {
    for v in [Version::GODOT_4_0, Version::Godot4 { minor: 1 }] {
        godot_4_0_generation(v);
    }
}

fn godot_4_0_generation(v: Version) {
    assert_eq!(VariantType::variant_max(v), 38);
    // Typed containers are written as the plain ones the engine writes (type lost).
    assert_eq!(enc(&typed_array(), v).unwrap(), PLAIN_ARRAY);
    assert_eq!(enc(&typed_dict(), v).unwrap(), PLAIN_DICT);
    // A 4.0 decoder takes the element-type word (2) for the count: the engine's misreading,
    // which here ends in an invalid type id.
    let err = dec(TYPED_ARRAY, v).unwrap_err();
    assert_eq!(err.engine_error(), EngineError::InvalidData, "{err}");
    assert_eq!(
        dec(PLAIN_ARRAY, v).unwrap().variant_type(),
        VariantType::Array
    );
    // No id 38.
    assert!(matches!(
        enc(&pv4(), v).unwrap_err().kind(),
        EncodeErrorKind::TypeNotInVersion { .. }
    ));
    let err = dec(PV4, v).unwrap_err();
    assert!(
        matches!(err.kind(), DecodeErrorKind::UnknownType { id: 38, .. }),
        "{err}"
    );
    assert_eq!(err.engine_error(), EngineError::InvalidData);
}

#[test]
fn godot_4_2_has_typed_arrays_only() {
    let v = Version::GODOT_4_2;
    assert_eq!(VariantType::variant_max(v), 38);
    assert_eq!(dec(TYPED_ARRAY, v).unwrap(), typed_array());
    assert_eq!(enc(&typed_array(), v).unwrap(), TYPED_ARRAY);
    assert_eq!(enc(&typed_dict(), v).unwrap(), PLAIN_DICT);
    // The dictionary's key-type word (2) is read as its count.
    assert!(dec(TYPED_DICT, v).is_err());
    assert!(matches!(
        enc(&pv4(), v).unwrap_err().kind(),
        EncodeErrorKind::TypeNotInVersion { .. }
    ));
    assert!(dec(PV4, v).is_err());
}

#[test]
fn godot_4_3_adds_packed_vector4_arrays() {
    let v = Version::GODOT_4_3;
    assert_eq!(VariantType::variant_max(v), 39);
    assert_eq!(dec(TYPED_ARRAY, v).unwrap(), typed_array());
    assert_eq!(enc(&typed_array(), v).unwrap(), TYPED_ARRAY);
    assert_eq!(enc(&typed_dict(), v).unwrap(), PLAIN_DICT);
    assert!(dec(TYPED_DICT, v).is_err());
    assert_eq!(enc(&pv4(), v).unwrap(), PV4);
    assert_eq!(dec(PV4, v).unwrap(), pv4());
}

#[test]
fn godot_4_4_adds_typed_dictionaries() {
    for v in [Version::GODOT_4_4, Version::Godot4 { minor: 5 }] {
        assert_eq!(VariantType::variant_max(v), 39);
        for (h, value) in [(TYPED_ARRAY, typed_array()), (TYPED_DICT, typed_dict())] {
            assert_eq!(dec(h, v).unwrap(), value);
            assert_eq!(enc(&value, v).unwrap(), h);
        }
        assert_eq!(enc(&pv4(), v).unwrap(), PV4);
        // The id after the last type is refused (VARIANT_MAX 39).
        let err = dec("27000000", v).unwrap_err();
        assert!(matches!(
            err.kind(),
            DecodeErrorKind::UnknownType { id: 39, .. }
        ));
    }
    assert_eq!(Version::GODOT_4_4.to_string(), "Godot 4.4+");
    assert_eq!(Version::GODOT_4_2.to_string(), "Godot 4.2");
}
