//! Generates a module for every definition in `defs/` into `OUT_DIR` (see `src/lib.rs` for the
//! `include!`), and the small protocol crate content of the proxy example: the two messages it
//! and the ping mod hook and send, from the corpus (`TERA_DATA_DIR`, else the shared tera-data beside the repository).
//! The first part is the whole build.rs a crate needs; `def_codegen::compile_defs("defs")` is the
//! one-call form with the default options.

use std::path::PathBuf;

fn main() {
    def_codegen::Config::new()
        .input("defs")
        // Serialize/Deserialize in the tera-vectors JSON form (needs def-runtime's `serde`).
        .serde(true)
        // Zero-copy views (`defs::c_chat_example::v1::view::CChatExample`), docs/usage.md.
        .views(true)
        // Any attribute on any generated type or field, selected by `.def` path.
        .type_attribute("C_CHAT_EXAMPLE", "#[derive(Eq)]")
        // On a bad definition: each diagnostic as cargo's own error, `FILE:LINE:COL: error: ...`
        // with the line and a caret, and the build stops.
        .compile_or_exit();

    // The proxy's protocol: only the messages it needs, in their current versions, so that the
    // examples build in seconds (the whole corpus is `protocol-defs`).
    println!("cargo:rerun-if-env-changed=TERA_DATA_DIR");
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let data = std::env::var_os("TERA_DATA_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("../../shared/tera-data"));
    let map = data.join("maps/protocol.387463.map");
    if !map.is_file() {
        println!(
            "cargo::error=the proxy example is generated from tera-data's maps/protocol.387463.map, \
             not found in {}: set TERA_DATA_DIR to a tera-data checkout",
            data.display()
        );
        return;
    }
    let mut o = def_codegen::protocol::ProtocolOptions::new(data.join("definitions"), map);
    o.deprecated = Some(data.join("deprecated.json"));
    o.messages = vec!["C_CHAT".into(), "S_CHAT".into(), "S_ITEMLIST".into()];
    o.cargo_output = true;
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets it")).join("protocol");
    def_codegen::protocol::generate(&o, &out).unwrap_or_else(|e| e.exit_build_script());
}
