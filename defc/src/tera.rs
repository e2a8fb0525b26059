//! `defc check`, `decode`, `encode` and `vectors`: the TERA commands, thin over def-parser and
//! the runtime's dynamic codec.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use def_parser::Mode;
use def_runtime::Options;
use def_runtime::tera::dynamic::{Definition, Missing};
use serde_json::Value;

/// Reads an argument, or standard input when it is `-`.
pub fn arg_or_stdin(arg: &str) -> Result<String, String> {
    if arg == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .map_err(|e| format!("standard input: {e}"))?;
        Ok(s)
    } else {
        Ok(arg.to_string())
    }
}

/// Prints `msg` as one error and fails. A message that is a rendered diagnostic (a `.def`
/// error: `FILE:LINE:COL`, `error: ...`, the line and a caret) carries its own `error:`, and is
/// printed as it is: one prefix either way. Every line is shown by the rule for input text
/// ([`crate::out::message`]).
pub fn fail(msg: impl std::fmt::Display) -> ExitCode {
    let msg = crate::out::message(&msg.to_string());
    if msg.starts_with("error:") {
        eprintln!("{msg}");
    } else {
        eprintln!("error: {msg}");
    }
    ExitCode::FAILURE
}

/// The bytes of hex text (`what` names it in errors: "packet"); whitespace anywhere is ignored.
/// A character that is not a hex digit is named (escaped) with its line and column, and an odd
/// number of digits is said.
pub fn parse_hex(text: &str, what: &str) -> Result<Vec<u8>, String> {
    let mut digits = Vec::with_capacity(text.len());
    for (line, l) in text.split('\n').enumerate() {
        for (col, c) in l.chars().enumerate() {
            if c.is_whitespace() {
                continue;
            }
            match c.to_digit(16) {
                Some(d) => digits.push(d as u8),
                None => {
                    return Err(format!(
                        "the {what} is not hex: {} at line {}, column {}",
                        c.escape_debug(),
                        line + 1,
                        col + 1
                    ));
                }
            }
        }
    }
    if digits.len() % 2 == 1 {
        return Err(format!(
            "the {what} has an odd number of hex digits ({}): the last byte is cut",
            digits.len()
        ));
    }
    Ok(digits.chunks_exact(2).map(|p| p[0] << 4 | p[1]).collect())
}

/// `defc check PATH... [--strict]`.
pub fn check(paths: &[PathBuf], strict: bool) -> ExitCode {
    let mode = if strict {
        Mode::Strict
    } else {
        Mode::Compatible
    };
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            let rd = match std::fs::read_dir(p) {
                Ok(rd) => rd,
                Err(e) => return fail(format!("{}: {e}", p.display())),
            };
            let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
            entries.sort();
            for e in entries {
                match e.extension().and_then(|x| x.to_str()) {
                    Some("def") => files.push(e),
                    Some("js") => eprintln!(
                        "note: {}: hand-written JavaScript definition, skipped",
                        def_text::shown(&e.display().to_string(), def_text::PATH)
                    ),
                    _ => {}
                }
            }
        } else {
            files.push(p.clone());
        }
    }
    let (mut warnings, mut errors) = (0usize, 0usize);
    for f in &files {
        // Regular UTF-8 files only: a FIFO named `.def` would block, and a UTF-16 file gets the
        // offset and a guess at its encoding.
        let text = match def_parser::text::read_file(f) {
            Ok(t) => t,
            Err(e) => {
                let _ = fail(format!("{}: {e}", f.display()));
                errors += 1;
                continue;
            }
        };
        let report = match def_parser::compile_str(&f.display().to_string(), &text, mode) {
            Ok(c) => c.warnings,
            Err(r) => r,
        };
        if !report.diagnostics.is_empty() {
            eprint!("{report}");
        }
        warnings += report.warnings();
        errors += report.errors();
    }
    let plural = |n: usize, w: &str| {
        if n == 1 {
            format!("{n} {w}")
        } else {
            format!("{n} {w}s")
        }
    };
    println!(
        "{}, {}, {}",
        plural(files.len(), "file"),
        plural(warnings, "warning"),
        plural(errors, "error")
    );
    if errors > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn load(def: &Path) -> Result<Definition, String> {
    Definition::from_file(def, Mode::Compatible).map_err(|e| e.to_string())
}

/// `defc decode --def FILE [--padding] [--strict] HEX`.
pub fn decode(def: &Path, padding: bool, strict: bool, hex: &str) -> ExitCode {
    let run = || -> Result<String, String> {
        let d = load(def)?;
        let bytes = parse_hex(&arg_or_stdin(hex)?, "packet")?;
        let v = d
            .decode_json(&bytes, Options::new().padding(padding).strict(strict))
            .map_err(|e| e.to_string())?;
        serde_json::to_string(&v)
            .map(crate::out::json)
            .map_err(|e| e.to_string())
    };
    match run() {
        Ok(s) => {
            println!("{s}");
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}

/// `defc encode --def FILE [--padding] [--opcode N] [--fill-missing] JSON`.
pub fn encode(def: &Path, padding: bool, opcode: u16, fill: bool, json: &str) -> ExitCode {
    let run = || -> Result<String, String> {
        let d = load(def)?;
        let json = arg_or_stdin(json)?;
        let v: Value = serde_json::from_str(&json).map_err(|e| format!("invalid JSON: {e}"))?;
        let missing = if fill {
            Missing::Default
        } else {
            Missing::Error
        };
        let bytes = d
            .encode(&v, opcode, Options::new().padding(padding), missing)
            .map_err(|e| e.to_string())?;
        Ok(hex::encode(&bytes))
    };
    match run() {
        Ok(s) => {
            println!("{s}");
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}

/// The first place where two JSON values differ, as a path.
fn first_difference(path: &str, a: &Value, b: &Value) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in x {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                match y.get(k) {
                    None => return Some(format!("{p} (missing)")),
                    Some(w) => {
                        if let Some(d) = first_difference(&p, v, w) {
                            return Some(d);
                        }
                    }
                }
            }
            y.keys()
                .find(|k| !x.contains_key(*k))
                .map(|k| format!("{path}.{k} (unexpected)"))
        }
        (Value::Array(x), Value::Array(y)) => {
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                if let Some(d) = first_difference(&format!("{path}[{i}]"), v, w) {
                    return Some(d);
                }
            }
            (x.len() != y.len()).then(|| format!("{path} (length {} vs {})", x.len(), y.len()))
        }
        _ => (a != b).then(|| format!("{path}: got {a}, expected {b}")),
    }
}

/// `defc vectors --defs DIR FILE.jsonl`.
pub fn vectors(defs: &Path, file: &str) -> ExitCode {
    let text = match arg_or_stdin(file).and_then(|f| {
        if file == "-" {
            Ok(f)
        } else {
            def_parser::text::read_file(Path::new(&f)).map_err(|e| format!("{f}: {e}"))
        }
    }) {
        Ok(t) => t,
        Err(e) => return fail(e),
    };
    let mut cache: std::collections::HashMap<String, Result<Definition, String>> =
        std::collections::HashMap::new();
    let (mut passed, mut failed) = (0usize, 0usize);
    let mut shown = 0;
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let result = (|| -> Result<(), String> {
            let v: Value = serde_json::from_str(line).map_err(|e| format!("invalid JSON: {e}"))?;
            let name = v["def"].as_str().ok_or("no `def`")?;
            let def = cache
                .entry(name.to_string())
                .or_insert_with(|| load(&defs.join(name)))
                .as_ref()
                .map_err(Clone::clone)?;
            let bytes = parse_hex(v["hex"].as_str().ok_or("no `hex`")?, "vector's `hex`")?;
            let opts = Options::new().padding(v["padding"].as_bool().unwrap_or(false));
            let opcode =
                def_runtime::tera::opcode(&bytes).ok_or("packet shorter than its header")?;
            let got = def
                .decode_json(&bytes, opts)
                .map_err(|e| format!("decode: {e}"))?;
            if let Some(d) = first_difference("", &got, &v["object"]) {
                return Err(format!("decode differs at {d}"));
            }
            let enc = def
                .encode(&v["object"], opcode, opts, Missing::Error)
                .map_err(|e| format!("encode: {e}"))?;
            if enc != bytes {
                let at = enc
                    .iter()
                    .zip(&bytes)
                    .position(|(a, b)| a != b)
                    .unwrap_or(enc.len().min(bytes.len()));
                return Err(format!(
                    "encode differs at byte {at:#x}: got {}, expected {} (lengths {} and {})",
                    enc.get(at).map_or("end".into(), |b| format!("{b:02x}")),
                    bytes.get(at).map_or("end".into(), |b| format!("{b:02x}")),
                    enc.len(),
                    bytes.len()
                ));
            }
            Ok(())
        })();
        match result {
            Ok(()) => passed += 1,
            Err(e) => {
                failed += 1;
                if shown < 10 {
                    shown += 1;
                    let def = serde_json::from_str::<Value>(line)
                        .ok()
                        .and_then(|v| v["def"].as_str().map(str::to_string))
                        .unwrap_or_default();
                    eprintln!(
                        "{}",
                        crate::out::message(&format!("line {} ({def}): {e}", n + 1))
                    );
                }
            }
        }
    }
    println!("{passed} passed, {failed} failed");
    if failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
