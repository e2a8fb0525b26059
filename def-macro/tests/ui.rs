//! The trybuild suite of `def!`: `ui/pass` cases compile and run (round trips checked against
//! bytes worked out by hand from LAYOUT.md), `ui/fail` cases fail with the messages in their
//! `.stderr` files. Fixtures are in `ui/defs/`; the pass cases also compile def-codegen's snapshot
//! fixtures under `#![no_implicit_prelude]`.
//!
//! The `.stderr` files hold rustc's rendering around our messages, so they are pinned to the
//! toolchain the project builds with (stable, rust-toolchain or CI's); rewrite them with
//! `TRYBUILD=overwrite cargo test -p def-macro --test ui` and read the diff. Set
//! `DEF_MACRO_SKIP_UI=1` to skip the suite on another toolchain.

#[test]
fn ui() {
    if std::env::var_os("DEF_MACRO_SKIP_UI").is_some() {
        eprintln!("DEF_MACRO_SKIP_UI is set: skipping the def! UI tests");
        return;
    }
    // trybuild builds the cases in a crate of its own, whose CARGO_MANIFEST_DIR is not ours; the
    // macro reads this variable first, so fixture paths are relative to this crate.
    // SAFETY: this test binary has this one test, and no other thread reads the environment
    // while it is set.
    unsafe { std::env::set_var("DEF_MACRO_MANIFEST_DIR", env!("CARGO_MANIFEST_DIR")) };
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/pass/*.rs");
    t.compile_fail("tests/ui/fail/*.rs");
}
