//! Every golden vector of `tera-vectors/public.jsonl`, both ways, through the dynamic codec: to
//! and from its record, and to and from JSON.

#![cfg(feature = "dynamic")]

use crate::support;

use std::collections::HashMap;

use def_runtime::tera::Options;
use def_runtime::tera::dynamic::{Definition, Missing};
use hex::decode as from_hex;
use serde_json::Value;

#[test]
fn public_vectors_both_ways() {
    let Some((text, defs_dir)) = support::public_vectors() else {
        return;
    };
    let mut defs: HashMap<String, Definition> = HashMap::new();
    let (mut passed, mut failed) = (0usize, Vec::new());
    for (lineno, line) in text.lines().enumerate() {
        let v: Value = serde_json::from_str(line).unwrap();
        let name = v["def"].as_str().unwrap().to_string();
        let def = defs.entry(name.clone()).or_insert_with(|| {
            Definition::from_file(&defs_dir.join(&name), def_parser::Mode::Compatible).unwrap()
        });
        let opts = Options::new().padding(v["padding"].as_bool().unwrap());
        let bytes = from_hex(v["hex"].as_str().unwrap()).unwrap();
        let mut problems = Vec::new();
        match def.decode(&bytes, opts) {
            Ok(record) => {
                let got = def.to_json(&record);
                if got != v["object"] {
                    problems.push(format!(
                        "decode differs:\n  got  {got}\n  want {}",
                        v["object"]
                    ));
                }
                // The record itself writes the packet back, with no JSON in between.
                match def.encode_record(&record, 0x1234, opts) {
                    Ok(again) if again == bytes => {}
                    Ok(again) => problems.push(format!(
                        "record encode differs: got {}",
                        hex::encode(&again)
                    )),
                    Err(e) => problems.push(format!("record encode error: {e}")),
                }
                // Its values in their owned form make the same record again, which writes the
                // same packet; its fields come with the definition's names, in order.
                match def.record(&record.to_values()) {
                    Ok(r) if r == record => match def.encode_record(&r, 0x1234, opts) {
                        Ok(again) if again == bytes => {}
                        _ => problems.push("the rebuilt record encodes otherwise".into()),
                    },
                    Ok(r) => problems.push(format!("rebuilt record differs: {r:?}")),
                    Err(e) => problems.push(format!("record from values: {e}")),
                }
                if !record.iter().map(|(name, _)| name).eq(def.fields()) {
                    problems.push("the record's names are not the definition's".into());
                }
                // The JSON read back is the same record.
                match def.from_json(&v["object"], Missing::Error) {
                    Ok(r) if r == record => {}
                    Ok(r) => problems.push(format!("from_json differs: {r:?}")),
                    Err(e) => problems.push(format!("from_json error: {e}")),
                }
                // Members in another order, behind a key the definition does not have, are
                // found all the same (the encoder tries the definition's order first).
                match def.from_json(&reordered(&v["object"]), Missing::Error) {
                    Ok(r) if r == record => {}
                    Ok(r) => problems.push(format!("reordered from_json differs: {r:?}")),
                    Err(e) => problems.push(format!("reordered from_json error: {e}")),
                }
            }
            Err(e) => problems.push(format!("decode error: {e}")),
        }
        match def.decode_json(&bytes, opts) {
            Ok(got) if got == v["object"] => {}
            Ok(got) => problems.push(format!(
                "decode differs:\n  got  {got}\n  want {}",
                v["object"]
            )),
            Err(e) => problems.push(format!("decode error: {e}")),
        }
        match def.encode(&v["object"], 0x1234, opts, Missing::Error) {
            Ok(got) if got == bytes => {}
            Ok(got) => problems.push(format!(
                "encode differs:\n  got  {}\n  want {}",
                hex::encode(&got),
                v["hex"]
            )),
            Err(e) => problems.push(format!("encode error: {e}")),
        }
        if problems.is_empty() {
            passed += 1;
        } else {
            failed.push(format!(
                "line {} ({name}): {}",
                lineno + 1,
                problems.join("; ")
            ));
        }
    }
    println!("{passed} passed, {} failed", failed.len());
    assert!(
        failed.is_empty(),
        "{} failed, first:\n{}",
        failed.len(),
        failed
            .iter()
            .take(5)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert_eq!(passed, 16549);
}

/// `v` with the members of every object in reverse order and an unknown key first.
fn reordered(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut out = serde_json::Map::new();
            out.insert("~unknown".into(), Value::Bool(true));
            for (k, x) in m.iter().rev() {
                out.insert(k.clone(), reordered(x));
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(reordered).collect()),
        x => x.clone(),
    }
}
