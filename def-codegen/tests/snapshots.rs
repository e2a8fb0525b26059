//! Snapshots of the code generated for the definitions of `tests/defs/` (one per `.def` feature:
//! scalars, arrays, nested objects, explicit refs, interleaving, `array<string>`, `bytes`, every
//! special type), so that a change in generated code shows up as a readable diff in review.
//!
//! The snapshots are committed under `tests/snapshots/`. After an intended change, rewrite them
//! with `INSTA_UPDATE=always cargo test -p def-codegen --test snapshots` (or `cargo insta review`)
//! and read the diff. A new fixture needs no Rust edit: every `.def` of the folder is a case.
//! That this code also compiles, under `#![no_implicit_prelude]`, is checked by def-macro's
//! `tests/ui/pass/hygiene.rs`.

use std::path::Path;

use def_codegen::Config;

fn fixtures() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/defs");
    let mut files: Vec<(String, String)> = std::fs::read_dir(&dir)
        .expect("tests/defs")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "def"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).expect("read fixture"))
        })
        .collect();
    files.sort();
    files
}

/// `S_SIMPLE.1.def` → `s_simple_1`.
fn snapshot_name(file: &str) -> String {
    file.trim_end_matches(".def")
        .to_ascii_lowercase()
        .replace('.', "_")
}

fn check(config: &Config, suffix: &str) {
    let files = fixtures();
    assert!(files.len() >= 8, "fixtures missing: {files:?}");
    for (file, text) in files {
        let code = config
            .generate_one(&format!("tests/defs/{file}"), &text)
            .unwrap_or_else(|e| panic!("{file}:\n{e}"));
        insta::with_settings!({ prepend_module_to_snapshot => false, description => file.clone() }, {
            insta::assert_snapshot!(format!("{}{suffix}", snapshot_name(&file)), code);
        });
    }
}

/// With serde on, as a user who wants the JSON form would build.
#[test]
fn generated_code_with_serde() {
    check(Config::new().serde(true), "");
}

/// The default options, for one representative file: no serde attributes at all.
#[test]
fn generated_code_default_options() {
    let code = Config::new()
        .generate_one(
            "tests/defs/S_NESTED.1.def",
            &std::fs::read_to_string(
                Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/defs/S_NESTED.1.def"),
            )
            .unwrap(),
        )
        .unwrap();
    assert!(!code.contains("serde"), "{code}");
    insta::with_settings!({ prepend_module_to_snapshot => false }, {
        insta::assert_snapshot!("s_nested_1_no_serde", code);
    });
}

/// serde behind a feature, for the file with a renamed field (`oldSkill`) and a float: every serde
/// attribute, the field ones too, is inside `cfg_attr`.
#[test]
fn generated_code_serde_behind_a_feature() {
    let code = Config::new()
        .serde_feature("serde")
        .generate_one(
            "tests/defs/S_SPECIAL.1.def",
            &std::fs::read_to_string(
                Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/defs/S_SPECIAL.1.def"),
            )
            .unwrap(),
        )
        .unwrap();
    assert!(!code.contains("#[serde("), "{code}");
    // Every serde impl is behind the feature, and the renamed field keeps its `.def` name.
    let impls = code
        .matches("impl ::def_runtime::__private::serde::")
        .count()
        + code
            .matches("impl<'de> ::def_runtime::__private::serde::")
            .count()
        + code
            .matches("impl ::def_runtime::__private::Fields")
            .count();
    assert!(impls >= 3, "{code}");
    assert_eq!(
        code.matches("#[cfg(feature = \"serde\")]\nimpl").count(),
        impls,
        "{code}"
    );
    assert!(code.contains("\"oldSkill\""), "{code}");
    insta::with_settings!({ prepend_module_to_snapshot => false }, {
        insta::assert_snapshot!("s_special_1_serde_feature", code);
    });
}
