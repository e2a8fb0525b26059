//! The runtime's `Protocol::load` against the code `defc gen` generated from the same data: the
//! same current versions and opcodes, every public vector by opcode both ways, and the one JSON
//! policy of the dynamic and typed forms, on the same inputs.

#![cfg(feature = "serde")]

#[path = "../../runtime/tests/support/mod.rs"]
mod support;

use std::collections::BTreeSet;

use def_runtime::Options;
use def_runtime::tera::dynamic::{Decoded, LoadOptions, Missing, Protocol};
use serde_json::Value;

/// The protocol loaded at run time from the data protocol-defs was built from, when that is the
/// whole corpus.
fn protocol() -> Option<Protocol> {
    let data = support::tera_data("definitions")?;
    if protocol_defs::DEFINITIONS.len() < 836 {
        return support::missing(
            "the corpus in protocol-defs, which was built from its own data/ (point TERA_DATA_DIR \
             at a tera-data checkout and rebuild)",
        );
    }
    let data = data.parent().expect("definitions/ has a parent");
    let p = Protocol::load_newest(data, &LoadOptions::default()).expect("the corpus loads");
    assert_eq!(p.version(), protocol_defs::PROTOCOL_VERSION);
    Some(p)
}

fn from_hex(s: &str) -> Vec<u8> {
    hex::decode(s).expect("hex")
}

#[test]
fn protocol_load_picks_what_defc_gen_picks() {
    let Some(p) = protocol() else { return };
    let generated: BTreeSet<(String, u32, u16)> = protocol_defs::VERSIONS
        .iter()
        .filter(|v| v.current)
        .filter_map(|v| {
            Some((
                v.name.to_string(),
                v.version,
                protocol_defs::opcode_of(v.name)?,
            ))
        })
        .collect();
    let loaded: BTreeSet<(String, u32, u16)> = p
        .messages()
        .iter()
        .map(|m| {
            (
                m.definition.name().to_string(),
                m.definition.version(),
                m.opcode,
            )
        })
        .collect();
    assert_eq!(loaded, generated);
    assert!(loaded.len() > 350, "{} messages", loaded.len());
    for (name, opcode) in protocol_defs::MAP.by_name() {
        assert_eq!(p.opcode_of(name), Some(*opcode));
        assert_eq!(p.name_of(*opcode), Some(*name));
    }
}

#[test]
fn every_public_vector_through_the_protocol_both_ways() {
    let Some(p) = protocol() else { return };
    let file = support::shared("tera-vectors/public.jsonl").expect("vectors");
    let text = std::fs::read_to_string(file).unwrap();
    let (mut known, mut other) = (0usize, 0usize);
    for (n, line) in text.lines().enumerate() {
        let v: Value = serde_json::from_str(line).unwrap();
        let file = v["def"].as_str().unwrap();
        let mut parts = file.split('.');
        let (name, version) = (
            parts.next().unwrap(),
            parts.next().unwrap().parse::<u32>().unwrap(),
        );
        let mut bytes = from_hex(v["hex"].as_str().unwrap());
        let current = p.opcode_of(name).and_then(|c| p.message(c)).filter(|m| {
            m.definition.version() == version && m.padding == v["padding"].as_bool().unwrap()
        });
        let Some(m) = current else {
            // Not the current version (or no opcode): through the protocol's definition of
            // that version.
            let d = p
                .definition(name, version)
                .expect("every definition is loaded");
            let opts = Options::new().padding(v["padding"].as_bool().unwrap());
            let record = d
                .decode(&bytes, opts)
                .unwrap_or_else(|e| panic!("line {}: {e}", n + 1));
            assert_eq!(d.to_json(&record), v["object"], "line {}", n + 1);
            assert_eq!(
                d.encode_record(&record, 0x1234, opts).unwrap(),
                bytes,
                "line {}",
                n + 1
            );
            other += 1;
            continue;
        };
        let opcode = m.opcode;
        bytes[2..4].copy_from_slice(&opcode.to_le_bytes());
        let d = p
            .decode(&bytes, Options::new())
            .unwrap_or_else(|e| panic!("line {}: {e}", n + 1));
        let Decoded::Known { message, record } = &d else {
            panic!("line {}: decoded raw", n + 1)
        };
        assert_eq!(message.opcode, opcode);
        assert_eq!(
            message.definition.to_json(record),
            v["object"],
            "line {}",
            n + 1
        );
        assert_eq!(
            p.encode(&d, Options::new()).unwrap(),
            bytes,
            "line {}",
            n + 1
        );
        known += 1;
    }
    println!("{known} vectors by opcode, {other} of versions that are not current");
    assert!(known > 7_000, "{known}");
    assert_eq!(known + other, 16549);
}

#[test]
fn unknown_opcodes_stay_raw() {
    let Some(p) = protocol() else { return };
    let free = (0..=u16::MAX)
        .find(|c| p.name_of(*c).is_none())
        .expect("a free opcode");
    let bytes = [7, 0, free.to_le_bytes()[0], free.to_le_bytes()[1], 1, 2, 3];
    let d = p.decode(&bytes, Options::new()).unwrap();
    assert_eq!(
        d,
        Decoded::Raw {
            opcode: free,
            name: None,
            bytes: bytes.to_vec()
        }
    );
    assert_eq!(p.encode(&d, Options::new()).unwrap(), bytes);
    // The header's length must be the packet's, as for the generated `Packet::decode`.
    assert!(p.decode(&bytes[..6], Options::new()).is_err());
    assert!(p.decode(&bytes[..3], Options::new()).is_err());
}

/// Variants of a JSON value that a lenient reader might accept: numbers for booleans and
/// booleans for numbers, integers written as floats or strings, objects with a part missing or an
/// unknown key, byte arrays for hex strings, nulls.
fn variants(v: &Value) -> Vec<Value> {
    let mut out = vec![Value::Null];
    match v {
        Value::Bool(b) => out.extend([Value::from(*b as u8), Value::from(b.to_string())]),
        Value::Number(n) => {
            if let Some(f) = n.as_f64() {
                out.push(serde_json::json!(f));
                out.push(serde_json::json!(f + 0.5));
            }
            out.extend([
                Value::Bool(true),
                Value::from(n.to_string()),
                serde_json::json!(1e300),
            ]);
        }
        Value::String(s) => {
            if let Ok(b) = hex::decode(s) {
                out.push(Value::from(b));
            }
            out.extend([Value::from(s.to_uppercase()), Value::from(1)]);
        }
        Value::Object(o) => {
            for k in o.keys() {
                let mut less = o.clone();
                less.remove(k);
                out.push(Value::Object(less));
            }
            let mut more = o.clone();
            more.insert("unknownKey".into(), Value::from(1));
            out.push(Value::Object(more));
        }
        Value::Array(a) => {
            out.push(Value::Object(Default::default()));
            if let Some(first) = a.first() {
                for w in variants(first) {
                    out.push(Value::Array(vec![w]));
                }
            }
        }
        Value::Null => {}
    }
    out
}

#[test]
fn dynamic_and_typed_json_accept_and_refuse_the_same() {
    let Some(p) = protocol() else { return };
    let _ = p;
    let defs_dir = support::tera_data("definitions").expect("definitions");
    let file = support::shared("tera-vectors/public.jsonl").expect("vectors");
    let text = std::fs::read_to_string(file).unwrap();
    let mut seen = std::collections::HashMap::<String, usize>::new();
    let (mut accepted, mut refused) = (0usize, 0usize);
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let file = v["def"].as_str().unwrap().to_string();
        // Two vectors a definition: every definition, in a test that stays fast.
        let count = seen.entry(file.clone()).or_default();
        *count += 1;
        if *count > 2 {
            continue;
        }
        let typed = protocol_defs::definition(&file).expect("built with the corpus");
        let dynamic = def_runtime::tera::dynamic::Definition::from_file(
            &defs_dir.join(&file),
            def_parser::Mode::Compatible,
        )
        .unwrap();
        let opts = Options::new().padding(v["padding"].as_bool().unwrap());
        let obj = v["object"].as_object().unwrap();
        let mut inputs = vec![Value::Object(Default::default())];
        for (k, field) in obj {
            for w in variants(field) {
                let mut o = obj.clone();
                o.insert(k.clone(), w);
                inputs.push(Value::Object(o));
            }
        }
        for input in inputs {
            let a = typed.encode_json(&input, 1, opts);
            let b = dynamic.encode(&input, 1, opts, Missing::Error);
            match (&a, &b) {
                (Ok(x), Ok(y)) => {
                    assert_eq!(x, y, "{file}: {input}");
                    accepted += 1;
                }
                (Err(_), Err(_)) => refused += 1,
                _ => panic!("{file}: typed {a:?}, dynamic {b:?} for {input}"),
            }
        }
    }
    println!("{accepted} accepted by both, {refused} refused by both");
    assert!(
        accepted > 1000 && refused > 10_000,
        "{accepted} / {refused}"
    );
}
