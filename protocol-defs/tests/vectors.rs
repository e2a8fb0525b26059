//! Every golden vector of `tera-vectors/public.jsonl`, both ways, through the generated code:
//! decode the bytes and serialize to the JSON form; deserialize the JSON and encode to the bytes.

#![cfg(feature = "serde")]

#[path = "../../runtime/tests/support/mod.rs"]
mod support;

use std::path::PathBuf;

use def_runtime::Options;
use serde_json::Value;

/// The public vectors, when they and a protocol-defs built from the whole corpus are here.
fn vectors() -> Option<PathBuf> {
    let file = support::shared("tera-vectors/public.jsonl")?;
    if protocol_defs::DEFINITIONS.len() < 836 {
        return support::missing(
            "the corpus in protocol-defs, which was built from its own data/ (point TERA_DATA_DIR \
             at a tera-data checkout and rebuild)",
        );
    }
    Some(file)
}

fn from_hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

#[test]
fn public_vectors_through_generated_code() {
    let Some(file) = vectors() else { return };
    let text = std::fs::read_to_string(file).unwrap();
    let (mut passed, mut failed) = (0usize, Vec::new());
    for (n, line) in text.lines().enumerate() {
        let v: Value = serde_json::from_str(line).unwrap();
        let def =
            protocol_defs::definition(v["def"].as_str().unwrap()).expect("definition compiled");
        let opts = Options::new().padding(v["padding"].as_bool().unwrap());
        let bytes = from_hex(v["hex"].as_str().unwrap());
        let mut problems = Vec::new();
        match def.decode_json(&bytes, opts) {
            Ok(got) if got == v["object"] => {}
            Ok(got) => problems.push(format!("decode differs: got {got}")),
            Err(e) => problems.push(format!("decode error: {e}")),
        }
        match def.encode_json(&v["object"], 0x1234, opts) {
            Ok(got) if got == bytes => {}
            Ok(_) => problems.push("encode differs".to_string()),
            Err(e) => problems.push(format!("encode error: {e}")),
        }
        if problems.is_empty() {
            passed += 1;
        } else {
            failed.push(format!(
                "line {} ({}): {}",
                n + 1,
                def.file,
                problems.join("; ")
            ));
        }
    }
    println!("{passed} passed, {} failed", failed.len());
    assert!(
        failed.is_empty(),
        "{} failed; first:\n{}",
        failed.len(),
        failed[..failed.len().min(5)].join("\n")
    );
    assert_eq!(passed, 16549);
}

/// Every vector truncated at every length, and with bytes flipped: generated code and the
/// dynamic codec never panic, and they agree on whether and where a packet fails.
#[test]
fn damaged_vectors_agree_with_dynamic_codec() {
    let (Some(file), Some(defs_dir)) = (vectors(), support::tera_data("definitions")) else {
        return;
    };
    let text = std::fs::read_to_string(&file).unwrap();
    let mut dynamic: std::collections::HashMap<String, def_runtime::tera::dynamic::Definition> =
        Default::default();
    let mut checked = 0usize;
    for (n, line) in text.lines().enumerate().filter(|(n, _)| n % 7 == 0) {
        let v: Value = serde_json::from_str(line).unwrap();
        let name = v["def"].as_str().unwrap();
        let def = protocol_defs::definition(name).unwrap();
        let dy = dynamic.entry(name.to_string()).or_insert_with(|| {
            def_runtime::tera::dynamic::Definition::from_file(
                &defs_dir.join(name),
                def_parser::Mode::Compatible,
            )
            .unwrap()
        });
        let opts = Options::new().padding(v["padding"].as_bool().unwrap());
        let bytes = from_hex(v["hex"].as_str().unwrap());
        let mut cases: Vec<Vec<u8>> = (0..bytes.len()).map(|k| bytes[..k].to_vec()).collect();
        for i in (0..bytes.len()).step_by(3) {
            let mut b = bytes.clone();
            b[i] ^= 0xff;
            cases.push(b);
        }
        for b in cases {
            let typed = def.decode_json(&b, opts);
            let dynamic = dy.decode_json(&b, opts);
            match (&typed, &dynamic) {
                (Ok(a), Ok(d)) => {
                    if !a.to_string().contains("null") {
                        assert_eq!(a, d, "line {}: {name}", n + 1);
                    }
                }
                (Err(a), Err(d)) => assert_eq!(*a, d.to_string(), "line {}: {name}", n + 1),
                _ => panic!("line {}: {name}: {typed:?} vs {dynamic:?}", n + 1),
            }
            checked += 1;
        }
    }
    println!("{checked} damaged packets");
    assert!(checked > 100_000);
}
