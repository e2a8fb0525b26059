//! Generates the test definitions of `defs/` with serde on, and their views with the hidden
//! accessor checks (tests/roundtrip.rs compares every view accessor with the decoder).
fn main() {
    def_codegen::Config::new()
        .input("defs")
        .serde(true)
        .views(true)
        .view_checks(true)
        .compile_or_exit();
}
