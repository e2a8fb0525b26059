//! Generates the test definitions of `defs/` with serde on, and their views with the hidden
//! accessor checks (tests/roundtrip.rs compares every view accessor with the decoder); and the
//! protocol of `protocol/`, whose opcode 100 is padded (tests/padding.rs).
fn main() {
    def_codegen::Config::new()
        .input("defs")
        .serde(true)
        .views(true)
        .view_checks(true)
        .compile_or_exit();

    let mut o = def_codegen::protocol::ProtocolOptions::new(
        "protocol/definitions",
        "protocol/maps/protocol.1.map",
    );
    o.padding_opcodes = vec![100];
    o.cargo_output = true;
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets it"));
    def_codegen::protocol::generate(&o, &out.join("protocol"))
        .unwrap_or_else(|e| e.exit_build_script());
}
