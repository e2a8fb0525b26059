//! Every vector of `engine-test-vectors.json` (Godot 4's own unit tests) and
//! `godot3-vectors.json` (bytes written by the real Godot 3.2.3), both directions.
//!
//! Expected values are built from the vectors' own typed descriptions by code in this file
//! (not by the crate's JSON form), so the check is against independent data.
#![cfg(feature = "godot")]

use crate::common;

use common::{as_ids, described, has_object, hex, read_shared, unhex};
use def_runtime::godot::framing::{self, Framing};
use def_runtime::godot::*;
use serde_json::Value;

fn g3() -> DecodeOptions {
    DecodeOptions::new(Version::Godot3)
}

fn decode_all(bytes: &[u8], opts: DecodeOptions) -> Variant {
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
        let got_full = decode_all(&bytes_full, g3().allow_objects(true));
        let got = decode_all(&bytes, g3());
        if same || objects {
            assert_eq!(got_full, expected, "{name}: decode of hex_full_objects");
            assert_eq!(
                encode(&expected, enc_full).unwrap(),
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
                encode(&got, enc).unwrap(),
                bytes,
                "{name}: re-encode of as-id hex"
            );
            // Full objects are refused unless allowed, as the engine does.
            let err = decode(&bytes_full, g3()).unwrap_err();
            assert_eq!(err.engine_error(), EngineError::Unauthorized, "{name}");
        } else if same {
            assert_eq!(got, expected, "{name}: decode");
            assert_eq!(encode(&expected, enc).unwrap(), bytes, "{name}: encode");
        } else {
            // The engine does not reproduce these bytes (BOM): encode the described value to
            // the engine's bytes, decode them as the engine re-encodes them.
            let round = unhex(vec["engine_roundtrip_hex"].as_str().unwrap());
            assert_eq!(encode(&expected, enc).unwrap(), bytes, "{name}: encode");
            assert_eq!(
                encode(&got, enc).unwrap(),
                round,
                "{name}: engine round trip"
            );
            assert_eq!(
                got,
                decode_all(&round, g3()),
                "{name}: decode of the round trip"
            );
        }
        // Raw NodePath bytes with the engine's uninitialised padding decode the same.
        for raw in ["hex_raw", "hex_full_objects_raw"] {
            if let Some(h) = vec.get(raw).and_then(Value::as_str) {
                assert_eq!(decode_all(&unhex(h), g3()), expected, "{name}: {raw}");
            }
        }
        checked += 1;
    }
    assert_eq!(checked, 65, "every value vector was checked");

    // Null object: written as a bare NIL header in both modes.
    let null = Variant::Object(Object::Null);
    assert_eq!(hex(&encode(&null, enc).unwrap()), "00000000");
    assert_eq!(hex(&encode(&null, enc_full).unwrap()), "00000000");
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
            assert_eq!(framing::to_base64(&values[0], enc).unwrap(), b64);
            assert_eq!(framing::from_base64(b64, g3()).unwrap(), values[0]);
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
            framing::encode_framed_into(v, enc, f, &mut out).unwrap();
        }
        assert_eq!(hex(&out), hex(&expected), "{kind}");
        // Read back frame by frame, and byte by byte through the incremental decoder.
        let (first, used) = framing::decode_framed(&expected, g3(), f).unwrap();
        assert_eq!(first, values[0]);
        let (second, _) = framing::decode_framed(&expected[used..], g3(), f).unwrap();
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
    let Some(text) = read_shared("engine-test-vectors.json") else {
        return;
    };
    let vectors: Vec<Value> = serde_json::from_str(&text).unwrap();
    let opts = DecodeOptions::new(Version::GODOT_4_4);
    let enc = EncodeOptions::new(Version::GODOT_4_4);
    let mut checked = 0;
    for vec in &vectors {
        let h = vec["hex"].as_str().unwrap();
        let bytes = unhex(h);
        let ty = vec["type"].as_str().unwrap();
        match vec["kind"].as_str().unwrap() {
            // The engine's `marshalls.h` helpers (`encode_uint16`, `encode_half`, ...): not part
            // of the Variant codec, and not of this crate (`to_le_bytes` does the same).
            "primitive" => {}
            "variant" => {
                let expected =
                    godot4_expected(ty, h).unwrap_or_else(|| panic!("no expectation for {ty}"));
                let (got, used) = decode(&bytes, opts).unwrap();
                assert_eq!(got, expected, "{ty} {h}");
                assert_eq!(used as u64, vec["r_len"].as_u64().unwrap(), "{ty} r_len");
                assert_eq!(hex(&encode(&expected, enc).unwrap()), h, "{ty} encode");
                checked += 1;
            }
            "variant-invalid" => {
                let err = decode(&bytes, opts).unwrap_err();
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
    let primitives = vectors.iter().filter(|v| v["kind"] == "primitive").count();
    assert_eq!(checked + primitives, vectors.len());
    assert_eq!(checked, 16 - primitives);
}
