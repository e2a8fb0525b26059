//! Generates the test definitions of `defs/` with serde on.
fn main() {
    def_codegen::Config::new()
        .input("defs")
        .serde(true)
        .compile_or_exit();
}
