//! Generates a module for every definition in `defs/` into `OUT_DIR` (see `src/lib.rs` for the
//! `include!`). This is the whole build.rs a crate needs; `def_codegen::compile_defs("defs")` is
//! the one-call form with the default options.

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
}
