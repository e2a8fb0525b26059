//! Generates a module for every definition in `defs/` into `OUT_DIR` (see `src/lib.rs` for the
//! `include!`). This is the whole build.rs a crate needs; `def_codegen::compile_defs("defs")` is
//! the one-call form with the default options.

fn main() {
    let mut config = def_codegen::Config::new();
    config
        .input("defs")
        // Serialize/Deserialize in the tera-vectors JSON form (needs def-runtime's `serde`).
        .serde(true)
        // Any attribute on any generated type or field, selected by `.def` path.
        .type_attribute("C_CHAT_EXAMPLE", "#[derive(Eq)]");
    if let Err(e) = config.compile() {
        // Every diagnostic, as `FILE:LINE:COL` with the line and a caret.
        eprintln!("{e}");
        std::process::exit(1);
    }
}
