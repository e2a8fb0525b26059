//! Generates the test definitions of `defs/` with serde on.
fn main() {
    if let Err(e) = def_codegen::Config::new()
        .input("defs")
        .serde(true)
        .compile()
    {
        eprintln!("{e}");
        std::process::exit(1);
    }
}
