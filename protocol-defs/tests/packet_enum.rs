//! The `Packet` enum as a proxy sees it: `decode(bytes, Options)` over one whole packet, strict
//! mode, `version()`, and its serde form checked against the golden vectors of the JavaScript
//! reference (`tera-vectors/public.jsonl`, read by TERA Toolbox's parser).

#![cfg(feature = "serde")]

#[path = "../../runtime/tests/support/mod.rs"]
mod support;

use def_runtime::Options;
use def_runtime::tera::DecodeErrorKind;
use protocol_defs::{Packet, RawPacket, VERSIONS, has_padding, name_of, opcode_of};
use serde_json::{Value, json};

fn from_hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// A public vector re-addressed to the real opcode of its message: the bytes (opcode patched) and
/// the serde form the enum must give, `{"name", "version", "data": the reference's object}`.
/// `None` when its definition is not the current version of a message with an opcode, or its
/// padding is not the protocol's padding for that opcode (the enum would not choose it).
fn as_enum_packet(v: &Value) -> Option<(Vec<u8>, Value)> {
    let file = v["def"].as_str().unwrap();
    let st = VERSIONS.iter().find(|s| s.file == file && s.current)?;
    let code = opcode_of(st.name)?;
    if has_padding(code) != v["padding"].as_bool().unwrap() {
        return None;
    }
    let mut bytes = from_hex(v["hex"].as_str().unwrap());
    bytes[2..4].copy_from_slice(&code.to_le_bytes());
    let expected = json!({"name": st.name, "version": st.version, "data": v["object"]});
    Some((bytes, expected))
}

/// The public vectors, when they and a protocol-defs built from the whole corpus are here
/// (the rule of tests/vectors.rs).
fn public_vectors() -> Option<Vec<Value>> {
    let file = support::shared("tera-vectors/public.jsonl")?;
    if protocol_defs::DEFINITIONS.len() < 836 {
        return support::missing(
            "the corpus in protocol-defs, which was built from its own data/ (point TERA_DATA_DIR \
             at a tera-data checkout and rebuild)",
        );
    }
    let text = std::fs::read_to_string(file).unwrap();
    Some(
        text.lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect(),
    )
}

#[test]
fn public_vectors_through_the_enum_and_its_json() {
    let Some(vectors) = public_vectors() else {
        return;
    };
    let (mut checked, mut failed) = (0usize, Vec::new());
    for (n, v) in vectors.iter().enumerate() {
        let Some((bytes, expected)) = as_enum_packet(v) else {
            continue;
        };
        let mut problems = Vec::new();
        match Packet::decode(&bytes, Options::new()) {
            Ok(p) => {
                if matches!(p, Packet::Raw(_)) {
                    problems.push("decoded as Raw".to_string());
                }
                if p.version() != expected["version"].as_u64().map(|x| x as u32) {
                    problems.push(format!("version() {:?}", p.version()));
                }
                let got = serde_json::to_value(&p).unwrap();
                if got != expected {
                    problems.push(format!("JSON differs: got {got}"));
                }
            }
            Err(e) => problems.push(format!("decode error: {e}")),
        }
        // And back: the reference's object, as the enum's JSON, encodes to the reference's bytes.
        match serde_json::from_value::<Packet>(expected.clone()) {
            Ok(p) => match p.encode() {
                Ok(out) if out == bytes => {}
                Ok(_) => problems.push("encode differs".to_string()),
                Err(e) => problems.push(format!("encode error: {e}")),
            },
            Err(e) => problems.push(format!("deserialize error: {e}")),
        }
        if problems.is_empty() {
            checked += 1;
        } else {
            failed.push(format!(
                "line {} ({}): {}",
                n + 1,
                v["def"],
                problems.join("; ")
            ));
        }
    }
    println!(
        "{checked} of {} vectors are current messages with their padding",
        vectors.len()
    );
    assert!(
        failed.is_empty(),
        "{} failed; first:\n{}",
        failed.len(),
        failed[..failed.len().min(5)].join("\n")
    );
    // Most definitions in the corpus are the current version of their message.
    assert!(checked > 5000, "only {checked} vectors checked");
}

#[test]
fn fewer_than_a_header_is_an_error() {
    for short in [&[][..], &[1], &[1, 0], &[3, 0, 1]] {
        let e = Packet::decode(short, Options::new()).unwrap_err();
        assert_eq!(
            *e.kind(),
            DecodeErrorKind::Truncated {
                needed: 4,
                available: short.len()
            }
        );
        assert_eq!(e.offset(), 0);
    }
}

/// An opcode no message of this protocol has.
fn unused_opcode() -> u16 {
    (0..=u16::MAX).find(|c| name_of(*c).is_none()).unwrap()
}

#[test]
fn header_length_must_be_the_slice_length() {
    // A known message: a valid packet with one more byte is refused, in both modes.
    let current = VERSIONS
        .iter()
        .find(|v| v.current && opcode_of(v.name).is_some())
        .expect("a current message with an opcode");
    let code = opcode_of(current.name).unwrap();
    let bytes = zero_packet(current.file, code);
    assert!(Packet::decode(&bytes, Options::new()).is_ok());
    let mut longer = bytes.clone();
    longer.push(0);
    for strict in [false, true] {
        let e = Packet::decode(&longer, Options::new().strict(strict)).unwrap_err();
        assert_eq!(
            *e.kind(),
            DecodeErrorKind::LengthMismatch {
                header: bytes.len(),
                actual: longer.len()
            }
        );
    }
    // Two packets in one slice: an error, never the first one alone.
    let two = [bytes.clone(), bytes.clone()].concat();
    assert!(Packet::decode(&two, Options::new()).is_err());

    // A raw packet follows the same rule.
    let raw = raw_packet(unused_opcode(), &[1, 2, 3]);
    assert!(Packet::decode(&raw, Options::new()).is_ok());
    let mut longer = raw.clone();
    longer.push(9);
    assert!(matches!(
        Packet::decode(&longer, Options::new()).unwrap_err().kind(),
        DecodeErrorKind::LengthMismatch {
            header: 7,
            actual: 8
        }
    ));
}

/// A packet of `file` with every value zero and every array empty, written by the dynamic codec
/// (an independent writer).
fn zero_packet(file: &str, code: u16) -> Vec<u8> {
    let dir = support::tera_data("definitions").unwrap_or_else(|| {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/definitions")
    });
    let def = def_runtime::tera::dynamic::Definition::from_file(
        &dir.join(file),
        def_parser::Mode::Compatible,
    )
    .unwrap();
    def.encode(
        &json!({}),
        code,
        Options::new().padding(has_padding(code)),
        def_runtime::tera::dynamic::Missing::Default,
    )
    .unwrap()
}

fn raw_packet(opcode: u16, body: &[u8]) -> Vec<u8> {
    let mut b = ((4 + body.len()) as u16).to_le_bytes().to_vec();
    b.extend_from_slice(&opcode.to_le_bytes());
    b.extend_from_slice(body);
    b
}

#[test]
fn strict_mode_is_reachable() {
    let Some(vectors) = public_vectors() else {
        return;
    };
    // A body byte the definition does not account for (the header length counts it): the
    // reference ignores it, so compatible mode does; strict refuses it.
    let (bytes, _) = vectors.iter().find_map(as_enum_packet).unwrap();
    let mut trailing = bytes.clone();
    trailing.push(0);
    let len = trailing.len() as u16;
    trailing[..2].copy_from_slice(&len.to_le_bytes());
    assert!(Packet::decode(&trailing, Options::new()).is_ok());
    assert!(matches!(
        Packet::decode(&trailing, Options::new().strict(true))
            .unwrap_err()
            .kind(),
        DecodeErrorKind::TrailingBytes { .. }
    ));

    // An array element whose `here` is not its offset: find one in the vectors by breaking each
    // 16-bit word that equals its own position (the tests of def-tests do the same).
    let mut broken_here = 0;
    for (bytes, _) in vectors.iter().filter_map(as_enum_packet) {
        if Packet::decode(&bytes, Options::new().strict(true)).is_err() {
            continue;
        }
        for at in 4..bytes.len().saturating_sub(1) {
            if u16::from_le_bytes([bytes[at], bytes[at + 1]]) as usize != at {
                continue;
            }
            let mut b = bytes.clone();
            b[at] ^= 1;
            if let Err(e) = Packet::decode(&b, Options::new().strict(true))
                && matches!(e.kind(), DecodeErrorKind::HereMismatch { .. })
            {
                assert!(
                    Packet::decode(&b, Options::new()).is_ok(),
                    "compatible mode refuses a wrong `here`: {e}"
                );
                broken_here += 1;
            }
        }
        if broken_here >= 20 {
            break;
        }
    }
    assert!(broken_here >= 20, "{broken_here} wrong `here` found");
}

#[test]
fn raw_packets_stay_byte_exact_and_have_json() {
    let unused = unused_opcode();
    let bytes = raw_packet(unused, &[1, 2, 3, 4, 5]);
    let p = Packet::decode(&bytes, Options::new().strict(true)).unwrap();
    assert_eq!(
        p,
        Packet::Raw(RawPacket {
            opcode: unused,
            name: None,
            bytes: bytes.clone()
        })
    );
    assert_eq!((p.opcode(), p.name(), p.version()), (unused, None, None));
    assert_eq!(p.encode().unwrap(), bytes);
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let expected = json!({"opcode": unused, "name": null, "bytes": hex});
    assert_eq!(serde_json::to_value(&p).unwrap(), expected);
    assert_eq!(serde_json::from_value::<Packet>(expected).unwrap(), p);

    // Wrong raw forms are refused with a message.
    for bad in [
        json!({"opcode": unused, "bytes": "0900"}),
        json!({"opcode": unused, "bytes": "zz"}),
        json!({"opcode": unused ^ 1, "name": null, "bytes": hex}),
        json!({"opcode": unused, "name": "S_NOT_THIS", "bytes": hex}),
        json!({"opcode": unused, "bytes": hex, "extra": 1}),
        json!({"name": "NO_SUCH_MESSAGE", "data": {}}),
        json!({"version": 1, "data": {}}),
    ] {
        assert!(
            serde_json::from_value::<Packet>(bad.clone()).is_err(),
            "{bad}"
        );
    }
}

#[test]
fn version_is_the_current_definition_version() {
    let mut seen = 0;
    for v in VERSIONS.iter().filter(|v| v.current) {
        let Some(code) = opcode_of(v.name) else {
            continue;
        };
        let bytes = zero_packet(v.file, code);
        let p = Packet::decode(&bytes, Options::new()).unwrap();
        assert_eq!((p.name(), p.version()), (Some(v.name), Some(v.version)));
        // A version other than the current one is refused when deserializing.
        let mut j = serde_json::to_value(&p).unwrap();
        j["version"] = json!(v.version + 1000);
        assert!(serde_json::from_value::<Packet>(j).is_err(), "{}", v.file);
        seen += 1;
    }
    assert!(seen > 0);
}
