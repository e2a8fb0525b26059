//! Builds `examples/standalone`, a crate outside the workspace that uses both `def!` and a
//! build.rs the way a user's crate does, and checks cargo's change tracking: an untouched rebuild
//! does nothing, editing a build.rs input reruns the build script and recompiles, editing a
//! `def!` input recompiles without rerunning the build script; and a bad build.rs input fails
//! the build with cargo's own `FILE:LINE:COL: error: ...` lines and nothing else of ours.
//!
//! It works on a copy under `<target>/tests/standalone/` (path dependencies made absolute, the
//! workspace's `Cargo.lock` copied in so the same versions are used) with a target folder of its
//! own there, kept between runs, so only the first run compiles the dependencies. `--offline`:
//! everything it needs is what the workspace itself already fetched.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace root")
        .to_path_buf()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if name == "target" || name == "Cargo.lock" {
            continue;
        }
        let (src, dst) = (entry.path(), to.join(&name));
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&src, &dst);
        } else {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}

/// `cargo build -v --offline` of the copy; returns stderr, where cargo reports.
fn build(krate: &Path, target: &Path) -> String {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args(["build", "-v", "--offline"])
        .current_dir(krate)
        .env("CARGO_TARGET_DIR", target)
        .env_remove("DEF_MACRO_MANIFEST_DIR")
        .env_remove("RUSTFLAGS")
        .output()
        .expect("run cargo");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "cargo build failed:\n{stderr}");
    stderr
}

/// What cargo did to the standalone crate itself.
#[derive(Debug, PartialEq)]
struct Did {
    compiled: bool,
    ran_build_script: bool,
    fresh: bool,
}

fn did(log: &str) -> Did {
    let ours = |l: &&str| l.contains("def-standalone") || l.contains("def_standalone");
    Did {
        compiled: log
            .lines()
            .filter(ours)
            .any(|l| l.trim_start().starts_with("Compiling")),
        ran_build_script: log.lines().any(|l| {
            l.trim_start().starts_with("Running")
                && l.contains("def-standalone-")
                && l.contains("build-script-build")
        }),
        fresh: log
            .lines()
            .filter(ours)
            .any(|l| l.trim_start().starts_with("Fresh")),
    }
}

fn append(path: &Path, text: &str) {
    let mut s = std::fs::read_to_string(path).unwrap();
    s.push_str(text);
    std::fs::write(path, s).unwrap();
}

#[test]
fn standalone_crate_builds_and_rebuilds_on_def_changes_only() {
    let root = root();
    let target_base = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map(|t| if t.is_absolute() { t } else { root.join(t) })
        .unwrap_or_else(|| root.join("target"));
    let work = target_base.join("tests").join("standalone");
    let krate = work.join("crate");
    let target = work.join("target");
    let _ = std::fs::remove_dir_all(&krate);
    copy_dir(&root.join("examples/standalone"), &krate);
    let manifest = krate.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let abs = format!("path = \"{}/", root.display());
    std::fs::write(&manifest, text.replace("path = \"../../", &abs)).unwrap();
    std::fs::copy(root.join("Cargo.lock"), krate.join("Cargo.lock")).unwrap();

    // A first build (the copy is new, so the crate compiles and its build script runs).
    let first = build(&krate, &target);
    assert!(did(&first).compiled, "{first}");
    let run = Command::new(target.join("debug/def-standalone"))
        .output()
        .unwrap();
    assert!(run.status.success(), "{run:?}");

    // Untouched: nothing to do.
    let again = build(&krate, &target);
    assert_eq!(
        did(&again),
        Did {
            compiled: false,
            ran_build_script: false,
            fresh: true
        },
        "{again}"
    );

    // A build.rs input changed: the build script reruns and the crate compiles.
    append(&krate.join("defs/S_BUILT.1.def"), "# edited\n");
    let edited = build(&krate, &target);
    let d = did(&edited);
    assert!(d.ran_build_script && d.compiled, "{d:?}\n{edited}");

    // The def! input changed: the crate compiles (include_bytes!), the build script does not run.
    append(&krate.join("macro_defs/S_MACRO.1.def"), "# edited\n");
    let edited = build(&krate, &target);
    let d = did(&edited);
    assert!(d.compiled && !d.ran_build_script, "{d:?}\n{edited}");

    // And untouched again.
    let again = build(&krate, &target);
    assert!(!did(&again).compiled, "{again}");

    // A bad build.rs input: the build fails with cargo's own errors, each diagnostic
    // `FILE:LINE:COL: error: ...` relative to the crate, then the line and its caret, and nothing
    // of the build script's in between (no "failed to run custom build command", no stdout dump).
    std::fs::write(
        krate.join("defs/S_BUILT.1.def"),
        "uint16 id\nuint33 broken\n",
    )
    .unwrap();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args(["build", "--offline"])
        .current_dir(&krate)
        .env("CARGO_TARGET_DIR", &target)
        .env("CARGO_TERM_COLOR", "never")
        .env_remove("DEF_MACRO_MANIFEST_DIR")
        .env_remove("RUSTFLAGS")
        .output()
        .expect("run cargo");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    let ours: Vec<&str> = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("error: def-standalone@0.1.0: "))
        .collect();
    assert_eq!(
        ours[..4],
        [
            "defs/S_BUILT.1.def:2:1: error: unknown type `uint33`",
            "  |",
            "2 | uint33 broken",
            "  | ^^^^^^",
        ],
        "{stderr}"
    );
    assert!(
        stderr.contains("error: build script logged errors"),
        "{stderr}"
    );
    for noise in [
        "failed to run custom build command",
        "rerun-if-changed",
        "--- stdout",
    ] {
        assert!(!stderr.contains(noise), "{noise}:\n{stderr}");
    }
}
