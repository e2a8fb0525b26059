//! Every `.def` of `defs/` into `OUT_DIR`, default options; a bad definition stops the build with
//! cargo's own errors (`FILE:LINE:COL: error: ...`, the line and a caret).

fn main() {
    def_codegen::Config::new().input("defs").compile_or_exit();
}
