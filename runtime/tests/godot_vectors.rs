//! Every vector of `engine-test-vectors.json` (Godot 4's own unit tests) and
//! `godot3-vectors.json` (bytes written by the real Godot 3.2.3), both directions.
//!
//! Expected values are built from the vectors' own typed descriptions by code in this file
//! (not by the crate's JSON form), so the check is against independent data.
#![cfg(feature = "godot")]

#[path = "godot_engine/common.rs"]
mod common;

use common::{hex, read_shared, unhex};
use def_runtime::godot::framing::{self, Framing};
use def_runtime::godot::*;
use serde_json::Value;

fn f32_bits(h: &Value) -> f32 {
    let b = unhex(h.as_str().unwrap());
    f32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

/// Bit-exact widening, as the engine's single-precision math types hold `f32`.
fn real(h: &Value) -> f64 {
    let f = f32_bits(h);
    if f.is_nan() {
        let b = f.to_bits();
        f64::from_bits(
            (u64::from(b >> 31) << 63) | 0x7FF0_0000_0000_0000 | (u64::from(b & 0x7F_FFFF) << 29),
        )
    } else {
        f64::from(f)
    }
}

fn reals<const N: usize>(v: &Value) -> [f64; N] {
    let a = v["f32_le"].as_array().unwrap();
    assert_eq!(a.len(), N);
    std::array::from_fn(|i| real(&a[i]))
}

fn utf8(v: &Value) -> String {
    String::from_utf8(unhex(v["utf8"].as_str().unwrap())).unwrap()
}

/// The value a vector describes (Godot 3 typed description). Null objects are NIL on the wire,
/// so they are expected as [`Variant::Nil`].
fn described(d: &Value) -> Variant {
    match d["t"].as_str().unwrap() {
        "Nil" => Variant::Nil,
        "bool" => Variant::Bool(d["v"].as_bool().unwrap()),
        "int" => Variant::Int(d["v"].as_i64().unwrap()),
        "float" => {
            let b = unhex(d["f64_le"].as_str().unwrap());
            Variant::Float(f64::from_le_bytes(b.try_into().unwrap()))
        }
        "String" => Variant::String(utf8(d)),
        "Vector2" => Variant::Vector2(Vector2::from_array(reals(d))),
        "Plane" => Variant::Plane(Box::new(Plane::from_array(reals(d)))),
        "Quat" => Variant::Quaternion(Box::new(Quaternion::from_array(reals(d)))),
        "AABB" => Variant::Aabb(Box::new(Aabb::from_array(reals(d)))),
        "NodePath" => Variant::NodePath(Box::new(NodePath {
            names: d["names"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s.as_str().unwrap().to_owned())
                .collect(),
            subnames: d["subnames"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s.as_str().unwrap().to_owned())
                .collect(),
            absolute: d["absolute"].as_bool().unwrap(),
        })),
        "RID" => Variant::Rid(d["id"].as_u64().unwrap()),
        "Object" if d["null"].as_bool() == Some(true) => Variant::Nil,
        "Object" => Variant::Object(Object::Full(Box::new(FullObject {
            class: d["class"].as_str().unwrap().to_owned(),
            properties: d["stored_props"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| (p[0].as_str().unwrap().to_owned(), described(&p[1])))
                .collect(),
        }))),
        "Dictionary" => Variant::dictionary(
            d["entries"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| (described(&e[0]), described(&e[1])))
                .collect(),
        ),
        "Array" => {
            if let Some(n) = d["nested_empty_arrays"].as_u64() {
                let mut v = Variant::array(vec![]);
                for _ in 1..n {
                    v = Variant::array(vec![v]);
                }
                v
            } else {
                Variant::array(
                    d["items"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(described)
                        .collect(),
                )
            }
        }
        "PoolByteArray" => Variant::PackedByteArray(unhex(d["hex"].as_str().unwrap())),
        "PoolIntArray" => Variant::PackedInt32Array(
            d["v"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_i64().unwrap() as i32)
                .collect(),
        ),
        "PoolStringArray" => {
            Variant::PackedStringArray(d["items"].as_array().unwrap().iter().map(utf8).collect())
        }
        "PoolVector2Array" => Variant::PackedVector2Array(
            d["f32_le"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| Vector2::from_array(std::array::from_fn(|i| real(&p[i]))))
                .collect(),
        ),
        "PoolColorArray" => Variant::PackedColorArray(
            d["f32_le"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| Color::from_array(std::array::from_fn(|i| f32_bits(&p[i]))))
                .collect(),
        ),
        other => panic!("test does not know description type {other}"),
    }
}

/// Replaces full objects by an as-id placeholder, and every id by 0 (ids are run-dependent).
fn as_ids(v: &Variant) -> Variant {
    match v {
        Variant::Object(Object::Full(_)) | Variant::Object(Object::Id(_)) => {
            Variant::Object(Object::Id(0))
        }
        Variant::Array(a) => Variant::array(a.items.iter().map(as_ids).collect()),
        Variant::Dictionary(d) => Variant::dictionary(
            d.entries
                .iter()
                .map(|(k, v)| (as_ids(k), as_ids(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn has_object(v: &Variant) -> bool {
    match v {
        Variant::Object(Object::Full(_)) | Variant::Object(Object::Id(_)) => true,
        Variant::Array(a) => a.items.iter().any(has_object),
        Variant::Dictionary(d) => d
            .entries
            .iter()
            .any(|(k, v)| has_object(k) || has_object(v)),
        _ => false,
    }
}

fn g3() -> DecodeOptions {
    DecodeOptions::new(Version::Godot3)
}

fn decode_all(bytes: &[u8], opts: &DecodeOptions) -> Variant {
    let (v, used) = decode(bytes, opts).unwrap_or_else(|e| panic!("decode {}: {e}", hex(bytes)));
    assert_eq!(used, bytes.len(), "consumed length of {}", hex(bytes));
    v
}

#[test]
fn godot3_engine_vectors_both_ways() {
    let Some(text) = read_shared("godot3-vectors.json") else {
        return;
    };
    let vectors: Vec<Value> = serde_json::from_str(&text).unwrap();
    let enc = EncodeOptions::new(Version::Godot3);
    let enc_full = enc.full_objects(true);
    let mut checked = 0;
    for vec in vectors.iter().filter(|v| v.get("value").is_some()) {
        let name = vec["name"].as_str().unwrap();
        let expected = described(&vec["value"]);
        let bytes = unhex(vec["hex"].as_str().unwrap());
        let bytes_full = unhex(vec["hex_full_objects"].as_str().unwrap());
        let same = vec["engine_roundtrip_same_bytes"].as_bool().unwrap();
        let objects = has_object(&expected);

        // Full-object form: decode (objects allowed) and encode with full objects.
        let got_full = decode_all(&bytes_full, &g3().allow_objects(true));
        let got = decode_all(&bytes, &g3());
        if same || objects {
            assert_eq!(got_full, expected, "{name}: decode of hex_full_objects");
            assert_eq!(
                encode(&expected, &enc_full).unwrap(),
                bytes_full,
                "{name}: encode full objects"
            );
        }
        if objects {
            // As-id form: the instance id is run-dependent; the structure is not.
            assert_eq!(
                as_ids(&got),
                as_ids(&expected),
                "{name}: decode of as-id hex"
            );
            assert_eq!(
                encode(&got, &enc).unwrap(),
                bytes,
                "{name}: re-encode of as-id hex"
            );
            // Full objects are refused unless allowed, as the engine does.
            let err = decode(&bytes_full, &g3()).unwrap_err();
            assert_eq!(err.engine_error(), EngineError::Unauthorized, "{name}");
        } else if same {
            assert_eq!(got, expected, "{name}: decode");
            assert_eq!(encode(&expected, &enc).unwrap(), bytes, "{name}: encode");
        } else {
            // The engine does not reproduce these bytes (BOM): encode the described value to
            // the engine's bytes, decode them as the engine re-encodes them.
            let round = unhex(vec["engine_roundtrip_hex"].as_str().unwrap());
            assert_eq!(encode(&expected, &enc).unwrap(), bytes, "{name}: encode");
            assert_eq!(
                encode(&got, &enc).unwrap(),
                round,
                "{name}: engine round trip"
            );
            assert_eq!(
                got,
                decode_all(&round, &g3()),
                "{name}: decode of the round trip"
            );
        }
        // Raw NodePath bytes with the engine's uninitialised padding decode the same.
        for raw in ["hex_raw", "hex_full_objects_raw"] {
            if let Some(h) = vec.get(raw).and_then(Value::as_str) {
                assert_eq!(decode_all(&unhex(h), &g3()), expected, "{name}: {raw}");
            }
        }
        checked += 1;
    }
    assert_eq!(checked, 65, "every value vector was checked");

    // Null object: written as a bare NIL header in both modes.
    let null = Variant::Object(Object::Null);
    assert_eq!(hex(&encode(&null, &enc).unwrap()), "00000000");
    assert_eq!(hex(&encode(&null, &enc_full).unwrap()), "00000000");
}

#[test]
fn godot3_framing_vectors() {
    let Some(text) = read_shared("godot3-vectors.json") else {
        return;
    };
    let vectors: Vec<Value> = serde_json::from_str(&text).unwrap();
    let enc = EncodeOptions::new(Version::Godot3);
    let mut checked = 0;
    for vec in vectors.iter().filter(|v| v.get("framing").is_some()) {
        let values: Vec<Variant> = vec["values"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| match v {
                Value::Number(n) => Variant::Int(n.as_i64().unwrap()),
                Value::String(s) => Variant::string(s.clone()),
                other => panic!("{other}"),
            })
            .collect();
        let kind = vec["framing"].as_str().unwrap();
        if kind == "Marshalls.variant_to_base64" {
            let b64 = vec["base64"].as_str().unwrap();
            assert_eq!(framing::to_base64(&values[0], &enc).unwrap(), b64);
            assert_eq!(framing::from_base64(b64, &g3()).unwrap(), values[0]);
            checked += 1;
            continue;
        }
        let flag = |k: &str| vec.get(k).and_then(Value::as_bool).unwrap_or(false);
        let f = match kind {
            "File.store_var" => Framing::File {
                endian_swap: flag("endian_swap"),
            },
            "StreamPeer.put_var" => Framing::StreamPeer {
                big_endian: flag("big_endian"),
            },
            "PacketPeerStream.put_var" => Framing::PacketPeerStream,
            other => panic!("unknown framing {other}"),
        };
        let expected = unhex(vec["hex"].as_str().unwrap());
        let mut out = Vec::new();
        for v in &values {
            framing::encode_framed_into(v, &enc, f, &mut out).unwrap();
        }
        assert_eq!(hex(&out), hex(&expected), "{kind}");
        // Read back frame by frame, and byte by byte through the incremental decoder.
        let (first, used) = framing::decode_framed(&expected, &g3(), f).unwrap();
        assert_eq!(first, values[0]);
        let (second, _) = framing::decode_framed(&expected[used..], &g3(), f).unwrap();
        assert_eq!(second, values[1]);
        let mut dec = FrameDecoder::with_framing(g3(), f);
        let mut got = Vec::new();
        for b in &expected {
            dec.push(std::slice::from_ref(b));
            while let Some(v) = dec.next_value().unwrap() {
                got.push(v);
            }
        }
        assert_eq!(got, values, "{kind} incremental");
        checked += 1;
    }
    assert_eq!(checked, 6);
}

/// The values the Godot 4 vectors describe, in file order (transcribed from their descriptions).
fn godot4_expected(type_name: &str, hex_text: &str) -> Option<Variant> {
    let big = 0xf123456789abcdef_u64 as i64;
    Some(match (type_name, hex_text) {
        ("NIL", _) => Variant::Nil,
        ("INT", "0200000078563412") => Variant::Int(0x12345678),
        ("INT", _) => Variant::Int(big),
        ("FLOAT", "030000000000203e") => Variant::Float(0.15625),
        ("FLOAT", _) => Variant::Float(0.333_333_333_333_333_3),
        ("ARRAY", _) => Variant::Array(Box::new(Array {
            element_type: ContainerType::Builtin(VariantType::Int),
            items: vec![Variant::Int(big)],
        })),
        ("DICTIONARY", _) => Variant::Dictionary(Box::new(Dictionary {
            key_type: ContainerType::Builtin(VariantType::Int),
            value_type: ContainerType::Builtin(VariantType::Int),
            entries: vec![(Variant::Int(big), Variant::Int(big))],
        })),
        _ => return None,
    })
}

#[test]
fn godot4_engine_test_vectors() {
    use def_runtime::godot::marshal::*;
    let Some(text) = read_shared("engine-test-vectors.json") else {
        return;
    };
    let vectors: Vec<Value> = serde_json::from_str(&text).unwrap();
    let opts = DecodeOptions::new(Version::Godot4);
    let enc = EncodeOptions::new(Version::Godot4);
    let mut checked = 0;
    for vec in &vectors {
        let h = vec["hex"].as_str().unwrap();
        let bytes = unhex(h);
        let ty = vec["type"].as_str().unwrap();
        match vec["kind"].as_str().unwrap() {
            "primitive" => {
                match ty {
                    "uint16" => {
                        assert_eq!(encode_u16(0x1234).to_vec(), bytes);
                        assert_eq!(u16::from_le_bytes([bytes[0], bytes[1]]), 0x1234);
                    }
                    "uint32" => assert_eq!(encode_u32(0x12345678).to_vec(), bytes),
                    "uint64" => assert_eq!(encode_u64(0xf123456789abcdef).to_vec(), bytes),
                    "half" => {
                        assert_eq!(encode_half(0.33325195).to_vec(), bytes);
                        assert_eq!(decode_half([bytes[0], bytes[1]]), 0.33325195);
                    }
                    "float" => assert_eq!(encode_f32(0.15625).to_vec(), bytes),
                    "double" => assert_eq!(encode_f64(0.333_333_333_333_333_3).to_vec(), bytes),
                    "cstring" => assert_eq!(encode_cstring("Godot"), bytes),
                    other => panic!("unknown primitive {other}"),
                }
                checked += 1;
            }
            "variant" => {
                let expected =
                    godot4_expected(ty, h).unwrap_or_else(|| panic!("no expectation for {ty}"));
                let (got, used) = decode(&bytes, &opts).unwrap();
                assert_eq!(got, expected, "{ty} {h}");
                assert_eq!(used as u64, vec["r_len"].as_u64().unwrap(), "{ty} r_len");
                assert_eq!(hex(&encode(&expected, &enc).unwrap()), h, "{ty} encode");
                checked += 1;
            }
            "variant-invalid" => {
                let err = decode(&bytes, &opts).unwrap_err();
                assert_eq!(
                    err.engine_error().name(),
                    vec["error"].as_str().unwrap(),
                    "{h}"
                );
                checked += 1;
            }
            other => panic!("unknown kind {other}"),
        }
    }
    assert_eq!(checked, vectors.len());
    assert_eq!(checked, 16);
}
