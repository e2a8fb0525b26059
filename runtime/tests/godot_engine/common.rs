//! Shared helpers of the Godot integration tests: where the shared test data lives, hex.
#![allow(dead_code)]

use std::path::PathBuf;

/// The folder holding `godot/` (and `tera-data/` …): `$WIRE_SHARED_DIR`, else `../../shared`
/// relative to the runtime crate.
pub fn shared_dir() -> PathBuf {
    match std::env::var_os("WIRE_SHARED_DIR") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared")),
    }
}

/// Reads `godot/<name>` from the shared folder. `None` (after a loud SKIPPED line) when it is
/// missing outside CI; a panic when it is missing under CI.
pub fn read_shared(name: &str) -> Option<String> {
    let path = shared_dir().join("godot").join(name);
    match std::fs::read_to_string(&path) {
        Ok(s) => Some(s),
        Err(e) => {
            if std::env::var_os("CI").is_some() {
                panic!("test data {} missing under CI: {e}", path.display());
            }
            eprintln!(
                "=== SKIPPED: test data {} not found ({e}); set WIRE_SHARED_DIR ===",
                path.display()
            );
            None
        }
    }
}

pub fn unhex(s: &str) -> Vec<u8> {
    def_runtime::godot::json::parse_hex(s).expect("valid hex in test data")
}

pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}
