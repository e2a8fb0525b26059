//! Generated code compiles, warning-free, under every `Config` option, in a library crate and in a
//! binary crate.
//!
//! One scratch cargo project (under `CARGO_TARGET_TMPDIR`, with its own target folder that later
//! runs reuse) holds a module per option combination, each including the build.rs-style output of
//! `Config::compile` for the same definitions: `tests/defs/` here, `def-tests/defs/` (every field
//! type) and def-macro's keyword and duplicate-name files. Its `lib.rs` makes the modules `pub`,
//! its `main.rs` private and unused, as a program that uses none of the messages would. Both deny
//! all warnings and are built twice, with the project's `ser` feature off (and so def-runtime
//! without serde: any serde attribute outside `cfg_attr` fails) and on. Under clippy when it is
//! installed (CI), so clippy's default lints count as warnings too; else `cargo check`.
//!
//! Combinations: the defaults; serde on; serde on with `serde_default`; serde behind the `ser`
//! feature; comments off; a re-exported runtime path (`crate::rt`) with serde (and
//! `serde_default`) behind the feature; type and field attributes with serde behind the feature;
//! zero-copy views, alone and with the re-exported runtime, serde behind the feature and no comments.

use std::path::{Path, PathBuf};
use std::process::Command;

use def_codegen::Config;

/// The definitions every combination compiles.
fn inputs() -> Vec<PathBuf> {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![
        here.join("tests/defs"),
        here.join("../def-tests/defs"),
        here.join("../def-macro/tests/ui/defs/S_KEYWORDS.1.def"),
        here.join("../def-macro/tests/ui/defs/C_DUP.1.def"),
    ];
    for f in &files {
        assert!(f.exists(), "{} is missing", f.display());
    }
    files.sort();
    files
}

/// `(module name, whether it needs the `ser` feature, options)`.
type Combination = (&'static str, bool, fn(&mut Config));

const COMBINATIONS: &[Combination] = &[
    ("defaults", false, |_| {}),
    ("serde_on", true, |c| {
        c.serde(true);
    }),
    ("serde_on_default", true, |c| {
        c.serde(true).serde_default(true);
    }),
    ("serde_feature", false, |c| {
        c.serde_feature("ser");
    }),
    ("no_comments", false, |c| {
        c.disable_comments();
    }),
    ("runtime_path", false, |c| {
        c.runtime_path("crate::rt")
            .serde_feature("ser")
            .serde_default(true);
    }),
    ("views", false, |c| {
        c.views(true);
    }),
    ("views_everything", false, |c| {
        c.views(true)
            .runtime_path("crate::rt")
            .serde_feature("ser")
            .disable_comments();
    }),
    ("attributes", false, |c| {
        c.serde_feature("ser")
            .type_attribute(".", "#[doc(alias = \"packet\")] #[must_use]")
            .type_attribute("C_EVERY_TYPE.entries", "#[non_exhaustive]")
            .field_attribute(".", "#[doc(alias = \"field\")]")
            .field_attribute(
                "S_KEYWORDS.type",
                "#[cfg_attr(feature = \"ser\", serde(skip))]",
            );
    }),
];

/// The crate root: `pub` modules for a library, private ones for a binary.
fn root(vis: &str) -> String {
    let mut s = String::from(
        "//! Generated code under each option combination.\n#![deny(warnings, missing_docs)]\n\n",
    );
    s.push_str(&format!(
        "/// The runtime, re-exported (for `runtime_path`).\n{vis}mod rt {{\n    pub use def_runtime::*;\n}}\n"
    ));
    for (name, needs_ser, _) in COMBINATIONS {
        if *needs_ser {
            s.push_str("#[cfg(feature = \"ser\")]\n");
        }
        s.push_str(&format!(
            "/// `{name}`.\n{vis}mod {name} {{\n    include!(\"../gen/{name}/_defs.rs\");\n}}\n"
        ));
    }
    s
}

fn cargo() -> Command {
    let mut c = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    // Whatever the outer build was told, the scratch project builds into its own folder.
    c.env_remove("CARGO_TARGET_DIR")
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS");
    c
}

#[test]
fn generated_code_builds_warning_free_under_every_option_as_lib_and_bin() {
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR")).join("option-matrix");
    let runtime = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../runtime")
        .canonicalize()
        .expect("the runtime crate beside def-codegen");
    for dir in ["gen", "src"] {
        let _ = std::fs::remove_dir_all(scratch.join(dir));
    }
    std::fs::create_dir_all(scratch.join("src")).unwrap();

    let inputs = inputs();
    let mut modules = 0;
    for (name, _, set) in COMBINATIONS {
        let mut config = Config::new();
        config
            .inputs(&inputs)
            .out_dir(scratch.join("gen").join(name))
            .cargo_output(false);
        set(&mut config);
        let generated = config.compile().unwrap_or_else(|e| panic!("{name}:\n{e}"));
        modules += generated.len();
    }
    assert!(modules >= 7 * 13, "{modules} modules");

    let manifest = format!(
        "[package]\nname = \"option-matrix\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
         [lib]\npath = \"src/lib.rs\"\n\n[[bin]]\nname = \"option-matrix\"\npath = \"src/main.rs\"\n\n\
         [features]\nser = [\"def-runtime/serde\", \"dep:serde\"]\n\n\
         [dependencies]\ndef-runtime = {{ path = {:?} }}\n\
         # The `attributes` combination's serde attribute makes its struct derive serde.\n\
         serde = {{ version = \"1\", optional = true, features = [\"derive\"] }}\n\n[workspace]\n",
        runtime.display().to_string()
    );
    std::fs::write(scratch.join("Cargo.toml"), manifest).unwrap();
    // The workspace's lock file: the same dependency versions, all fetched already (`--offline`).
    let lock = Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.lock");
    std::fs::copy(&lock, scratch.join("Cargo.lock")).expect("the workspace's Cargo.lock");
    std::fs::write(scratch.join("src/lib.rs"), root("pub ")).unwrap();
    std::fs::write(scratch.join("src/main.rs"), root("") + "\nfn main() {}\n").unwrap();

    let clippy = cargo()
        .args(["clippy", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    let tool = if clippy { "clippy" } else { "check" };
    if !clippy {
        eprintln!("clippy is not installed: `cargo check` only");
    }
    for features in [&[][..], &["--features", "ser"][..]] {
        let out = cargo()
            .arg(tool)
            .args(["--quiet", "--offline", "--lib", "--bins", "--manifest-path"])
            .arg(scratch.join("Cargo.toml"))
            .args(features)
            .env("CARGO_TARGET_DIR", scratch.join("target"))
            .env("CARGO_TERM_COLOR", "never")
            .output()
            .expect("cargo runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && !stderr.contains("warning"),
            "cargo {tool} {features:?} in {}:\n{stderr}",
            scratch.display()
        );
    }
}
