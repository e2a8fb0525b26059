//! Test data and tools from outside the repository: the shared folder (`../shared` beside the
//! repository, or `$WIRE_SHARED_DIR`), the tera-data checkout in it (or `$TERA_DATA_DIR`), the
//! Godot engine.
//!
//! A test that needs one of them and cannot find it FAILS, saying what is missing and where it
//! looked, so that a run without the data never looks like a full pass. Setting
//! `WIRE_ALLOW_SKIP=1` lets such tests pass after printing a `SKIPPED` line instead (cargo shows
//! it only with `--nocapture`: skipping is the runner's explicit choice). Under CI (`CI` set)
//! missing data always fails, whatever `WIRE_ALLOW_SKIP` says.
//!
//! The tests of `def-parser` and `protocol-defs` include this same file by path, so that the rule
//! is written once.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The shared folder: `$WIRE_SHARED_DIR`, else `shared` beside the repository.
pub fn shared_dir() -> PathBuf {
    match std::env::var_os("WIRE_SHARED_DIR") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
    }
}

/// The tera-data checkout: `$TERA_DATA_DIR`, else `tera-data` in the shared folder.
pub fn tera_data_dir() -> PathBuf {
    match std::env::var_os("TERA_DATA_DIR") {
        Some(d) => PathBuf::from(d),
        None => shared_dir().join("tera-data"),
    }
}

/// `path` if it exists; if not, see [`missing`].
pub fn require(path: PathBuf) -> Option<PathBuf> {
    if path.exists() {
        return Some(path);
    }
    missing(&format!(
        "{} (set WIRE_SHARED_DIR, or TERA_DATA_DIR for tera-data)",
        path.display()
    ))
}

/// `rel` inside the shared folder, required.
pub fn shared(rel: &str) -> Option<PathBuf> {
    require(shared_dir().join(rel))
}

/// `rel` inside the tera-data checkout, required.
pub fn tera_data(rel: &str) -> Option<PathBuf> {
    require(tera_data_dir().join(rel))
}

/// The golden vectors' text (`tera-vectors/public.jsonl`, one JSON object a line) and the
/// tera-data definitions folder they were made from, both required.
pub fn public_vectors() -> Option<(String, PathBuf)> {
    let vectors = shared("tera-vectors/public.jsonl")?;
    let defs = tera_data("definitions")?;
    let text = std::fs::read_to_string(&vectors)
        .unwrap_or_else(|e| panic!("reading {}: {e}", vectors.display()));
    Some((text, defs))
}

/// Something a test needs is missing: a panic naming it, or `None` after a `SKIPPED` line when
/// `WIRE_ALLOW_SKIP=1` is set outside CI. The caller returns on `None`.
pub fn missing<T>(what: &str) -> Option<T> {
    let allowed = std::env::var_os("WIRE_ALLOW_SKIP").is_some_and(|v| v == "1");
    if std::env::var_os("CI").is_some() {
        panic!("missing under CI: {what}");
    }
    if !allowed {
        panic!(
            "missing: {what}. Set WIRE_ALLOW_SKIP=1 to skip the tests that need it (README, \"Tests\")"
        );
    }
    eprintln!("=== SKIPPED (WIRE_ALLOW_SKIP=1): missing {what} ===");
    None
}
