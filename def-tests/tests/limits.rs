//! What does not fit TERA's 16-bit lengths is an error, never a wrapped value; strict reading
//! rejects what lenient reading lets through.

use def_runtime::tera::dynamic::{Definition, Missing};
use def_runtime::tera::{DecodeErrorKind, EncodeErrorKind};
use def_runtime::{Options, Packet};
use def_tests::c_every_type::v1::{CEveryType, CEveryTypeEntries};
use def_tests::i_fixed_after_var::v1::IFixedAfterVar;
use serde_json::json;

fn dynamic(file: &str) -> Definition {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("defs")
        .join(file);
    Definition::from_file(&path, def_parser::Mode::Strict).unwrap()
}

#[test]
fn packet_over_65535_bytes() {
    let p = IFixedAfterVar {
        command: "x".repeat(40_000).into(),
        ..Default::default()
    };
    let e = p.encode(1, Options::new()).unwrap_err();
    assert_eq!(
        *e.kind(),
        EncodeErrorKind::PacketTooLarge {
            len: 4 + 5 + 80_002 + 2
        }
    );
    assert!(e.path().is_empty());
    assert_eq!(e.packet(), Some(("I_FIXED_AFTER_VAR", 1)));
    assert_eq!(
        e.to_string(),
        "cannot encode I_FIXED_AFTER_VAR v1: the packet would be 80013 bytes, more than 65535"
    );
    let v = json!({"command": "x".repeat(40_000), "parameter": "", "unk": false});
    match dynamic("I_FIXED_AFTER_VAR.1.def").encode(&v, 1, Options::new(), Missing::Error) {
        Err(e) => assert!(
            matches!(
                e.kind(),
                EncodeErrorKind::PacketTooLarge { .. } | EncodeErrorKind::OffsetTooLarge { .. }
            ),
            "{e}"
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn count_over_65535() {
    let p = CEveryType {
        entries: vec![CEveryTypeEntries::default(); 70_000],
        ..Default::default()
    };
    assert!(matches!(
        p.encode(1, Options::new()).unwrap_err().kind(),
        EncodeErrorKind::PacketTooLarge { .. }
    ));
}

#[test]
fn integers_out_of_range_in_json() {
    let d = dynamic("I_FIXED_AFTER_VAR.1.def");
    let e = d
        .encode(
            &json!({"command": "", "parameter": "", "unk": "yes"}),
            1,
            Options::new(),
            Missing::Error,
        )
        .unwrap_err();
    assert_eq!(e.path().to_string(), "unk", "{e}");
    assert!(matches!(e.kind(), EncodeErrorKind::Invalid(_)), "{e}");
    let d = dynamic("C_EVERY_TYPE.1.def");
    let e = d
        .encode(&json!({"small": 256}), 1, Options::new(), Missing::Default)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot encode C_EVERY_TYPE v1 in `small`: invalid value: integer `256`, expected u8"
    );
    let e = d
        .encode(&json!({}), 1, Options::new(), Missing::Error)
        .unwrap_err();
    assert_eq!(*e.kind(), EncodeErrorKind::Missing);
    assert_eq!(e.path().to_string(), "flag");
    assert_eq!(
        e.to_string(),
        "cannot encode C_EVERY_TYPE v1 in `flag`: missing"
    );
}

#[test]
fn missing_fields_default_to_zero() {
    let d = dynamic("C_EVERY_TYPE.1.def");
    let bytes = d
        .encode(&json!({}), 7, Options::new(), Missing::Default)
        .unwrap();
    assert_eq!(
        bytes,
        CEveryType::default().encode(7, Options::new()).unwrap()
    );
}

#[test]
fn strict_reading() {
    let p = IFixedAfterVar {
        command: "go".into(),
        parameter: "now".into(),
        unk: true,
    };
    let mut bytes = p.encode(9, Options::new()).unwrap();
    bytes.push(0xee);
    // Lenient (the reference's behaviour): the trailing byte is ignored.
    assert_eq!(IFixedAfterVar::decode(&bytes, Options::new()).unwrap(), p);
    // Strict: the header length no longer matches, and with it fixed, the byte is trailing.
    let e = IFixedAfterVar::decode(&bytes, Options::new().strict(true)).unwrap_err();
    assert_eq!(
        *e.kind(),
        DecodeErrorKind::LengthMismatch {
            header: bytes.len() - 1,
            actual: bytes.len()
        }
    );
    let n = bytes.len() as u16;
    bytes[..2].copy_from_slice(&n.to_le_bytes());
    let e = IFixedAfterVar::decode(&bytes, Options::new().strict(true)).unwrap_err();
    assert_eq!(
        *e.kind(),
        DecodeErrorKind::TrailingBytes {
            used: bytes.len() - 1,
            len: bytes.len()
        }
    );
    assert_eq!(
        e.to_string(),
        format!(
            "I_FIXED_AFTER_VAR v1 at byte {} ({:#x}): 1 trailing bytes after the last field (used {} of {})",
            bytes.len() - 1,
            bytes.len() - 1,
            bytes.len() - 1,
            bytes.len()
        )
    );
}

#[test]
fn strict_checks_here() {
    let p = CEveryType {
        entries: vec![CEveryTypeEntries::default()],
        ..Default::default()
    };
    let mut bytes = p.encode(9, Options::new()).unwrap();
    // The entries metadata: find the element through its count/offset and break its `here`.
    let d = dynamic("C_EVERY_TYPE.1.def");
    let ok = d.decode_json(&bytes, Options::new().strict(true)).unwrap();
    assert_eq!(ok["entries"].as_array().unwrap().len(), 1);
    let at = (0..bytes.len() - 1)
        .rev()
        .find(|&i| u16::from_le_bytes([bytes[i], bytes[i + 1]]) as usize == i)
        .unwrap();
    bytes[at] ^= 0x01;
    let e = CEveryType::decode(&bytes, Options::new().strict(true)).unwrap_err();
    assert!(
        matches!(e.kind(), DecodeErrorKind::HereMismatch { .. }),
        "{e}"
    );
    assert_eq!(e.path().to_string(), "entries[0]");
    assert!(CEveryType::decode(&bytes, Options::new()).is_ok());
}
