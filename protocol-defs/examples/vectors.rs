//! Checks every vector of a file in the tera-vectors form through the generated code, both ways:
//! decode must give the JSON, encode of that JSON must give the bytes.
//!
//! `cargo run -p protocol-defs --example vectors -- ../shared/tera-vectors/public.jsonl`

use std::process::ExitCode;

use def_runtime::Options;
use serde_json::Value;

fn from_hex(s: &str) -> Option<Vec<u8>> {
    s.len().is_multiple_of(2).then_some(())?;
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

fn check(line: &str) -> Result<(), String> {
    let v: Value = serde_json::from_str(line).map_err(|e| format!("invalid JSON: {e}"))?;
    let file = v["def"].as_str().ok_or("no `def`")?;
    let def = protocol_defs::definition(file)
        .ok_or_else(|| format!("{file} is not compiled into this crate"))?;
    let bytes = from_hex(v["hex"].as_str().ok_or("no `hex`")?).ok_or("`hex` is not hex")?;
    let opts = Options::new().padding(v["padding"].as_bool().unwrap_or(false));
    let opcode = def_runtime::tera::opcode(&bytes).ok_or("shorter than a header")?;
    let got = def
        .decode_json(&bytes, opts)
        .map_err(|e| format!("{file}: decode: {e}"))?;
    if got != v["object"] {
        return Err(format!(
            "{file}: decode gives {got}, expected {}",
            v["object"]
        ));
    }
    let enc = def
        .encode_json(&v["object"], opcode, opts)
        .map_err(|e| format!("{file}: encode: {e}"))?;
    if enc != bytes {
        let at = enc
            .iter()
            .zip(&bytes)
            .position(|(a, b)| a != b)
            .unwrap_or(enc.len().min(bytes.len()));
        return Err(format!("{file}: encode differs at byte {at:#x}"));
    }
    Ok(())
}

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: vectors FILE.jsonl");
        return ExitCode::FAILURE;
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (mut passed, mut failed) = (0, 0);
    for (n, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        match check(line) {
            Ok(()) => passed += 1,
            Err(e) => {
                failed += 1;
                if failed <= 10 {
                    eprintln!("line {}: {e}", n + 1);
                }
            }
        }
    }
    println!("{passed} passed, {failed} failed");
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
