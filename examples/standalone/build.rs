//! The one-call form: every `.def` of `defs/` into `OUT_DIR`, default options.

fn main() {
    if let Err(e) = def_codegen::compile_defs("defs") {
        eprintln!("{e}");
        std::process::exit(1);
    }
}
