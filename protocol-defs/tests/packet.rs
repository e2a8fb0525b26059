//! The `Packet` enum: dispatch by opcode, unknown opcodes kept byte for byte, the opcode map.

use protocol_defs::{MAP, Packet, RawPacket, name_of, opcode_of};

#[test]
fn unknown_opcode_round_trips_its_raw_bytes() {
    // An opcode no message of this protocol has.
    let unused = (0..=u16::MAX).find(|c| name_of(*c).is_none()).unwrap();
    let mut bytes = vec![9, 0, 0, 0, 1, 2, 3, 4, 5];
    bytes[2..4].copy_from_slice(&unused.to_le_bytes());
    let p = Packet::decode(&bytes, def_runtime::Options::new()).unwrap();
    assert_eq!(
        p,
        Packet::Raw(RawPacket {
            opcode: unused,
            name: None,
            bytes: bytes.clone()
        })
    );
    assert_eq!(p.opcode(), unused);
    assert_eq!(p.encode().unwrap(), bytes);
    // Shorter than a header: an error (tests/packet_enum.rs).
    assert!(Packet::decode(&[1], def_runtime::Options::new()).is_err());
}

#[test]
fn opcode_map_both_ways() {
    let (by_name, by_opcode) = (MAP.by_name(), MAP.by_opcode());
    assert!(!by_name.is_empty());
    assert_eq!(by_name.len(), by_opcode.len());
    for (name, code) in by_name {
        assert_eq!(opcode_of(name), Some(*code));
        assert_eq!(name_of(*code), Some(*name));
    }
}

#[cfg(feature = "serde")]
fn definitions_dir() -> std::path::PathBuf {
    let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    [
        std::env::var_os("TERA_DATA_DIR").map(std::path::PathBuf::from),
        Some(manifest.join("../../shared/tera-data")),
    ]
    .into_iter()
    .flatten()
    .find(|d| d.join("definitions").is_dir())
    .unwrap_or_else(|| manifest.join("data"))
    .join("definitions")
}

#[test]
#[cfg(feature = "serde")] // the dynamic codec writes from a JSON value
fn known_opcodes_dispatch_to_their_current_version() {
    let dir = definitions_dir();
    let current: Vec<_> = protocol_defs::VERSIONS
        .iter()
        .filter(|v| v.current)
        .collect();
    assert!(!current.is_empty());
    let mut dispatched = 0;
    for v in current {
        assert!(v.readable && v.writable && v.reason.is_none());
        let Some(code) = opcode_of(v.name) else {
            continue;
        };
        // A packet of the current version with every value zero, written by the dynamic codec,
        // read through the enum, gives that message and the same bytes back.
        let def = def_runtime::tera::dynamic::Definition::from_file(
            &dir.join(v.file),
            def_parser::Mode::Compatible,
        )
        .unwrap();
        let opts = def_runtime::Options::new().padding(protocol_defs::has_padding(code));
        let bytes = def
            .encode(
                &serde_json::json!({}),
                code,
                opts,
                def_runtime::tera::dynamic::Missing::Default,
            )
            .unwrap();
        let p = Packet::decode(&bytes, def_runtime::Options::new()).unwrap();
        assert_eq!(p.name(), Some(v.name), "{}", v.file);
        assert!(!matches!(p, Packet::Raw(_)), "{}", v.file);
        assert_eq!(p.encode().unwrap(), bytes);
        dispatched += 1;
    }
    assert!(dispatched > 0);
}

#[test]
fn superseded_versions_say_why() {
    for v in protocol_defs::VERSIONS.iter().filter(|v| !v.current) {
        assert!(!v.writable, "{}", v.file);
        assert!(v.reason.is_some(), "{}", v.file);
    }
}
