//! `defc gen` writes a `Cargo.toml` that cargo reads as we mean it: the runtime by version (this
//! defc's), a `--runtime-path` relative to the generated crate's folder (or absolute when given
//! so), the license and repository given, quotes and backslashes escaped. Read back with
//! `cargo metadata`, cargo's own manifest parser. Packaging the crate against the packaged
//! runtime is `.ci/package`.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A fresh scratch folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("defc-gen")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `defc gen` in `cwd` on the workspace's sample data, with `extra` arguments.
fn defc_gen(cwd: &Path, out: &str, extra: &[&str]) {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../protocol-defs/data");
    let status = Command::new(env!("CARGO_BIN_EXE_defc"))
        .current_dir(cwd)
        .arg("gen")
        .arg("--defs")
        .arg(data.join("definitions"))
        .arg("--map")
        .arg(data.join("maps/protocol.1.map"))
        .args(["--out", out])
        .args(extra)
        .status()
        .unwrap();
    assert!(status.success());
}

/// The generated crate's package as `cargo metadata` reads it.
fn package(manifest: &Path) -> serde_json::Value {
    let out = Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .arg("--manifest-path")
        .arg(manifest)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["packages"][0].clone()
}

/// A stand-in def-runtime crate at `dir` (cargo reads a path dependency's manifest).
fn fake_runtime(dir: &Path) {
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"def-runtime\"\nversion = \"{}\"\nedition = \"2024\"\n",
            env!("CARGO_PKG_VERSION")
        ),
    )
    .unwrap();
    std::fs::write(dir.join("src/lib.rs"), "").unwrap();
}

fn runtime_dep(package: &serde_json::Value) -> &serde_json::Value {
    package["dependencies"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == "def-runtime")
        .expect("a def-runtime dependency")
}

#[test]
fn by_version_by_default() {
    let dir = scratch("version");
    defc_gen(&dir, "crate", &[]);
    let p = package(&dir.join("crate/Cargo.toml"));
    assert_eq!(p["name"], "tera-protocol-1");
    assert_eq!(p["license"], "MIT OR Apache-2.0");
    assert_eq!(p["documentation"], "https://docs.rs/tera-protocol-1");
    assert_eq!(p["publish"], serde_json::Value::Null, "publishable");
    let dep = runtime_dep(&p);
    assert_eq!(dep["req"], format!("^{}", env!("CARGO_PKG_VERSION")));
    assert_eq!(dep["path"], serde_json::Value::Null);
}

#[test]
fn a_relative_runtime_path_stays_relative_to_the_crate() {
    // cwd/vendor/def-runtime from cwd/gen/crate is ../../vendor/def-runtime.
    let dir = scratch("relative");
    fake_runtime(&dir.join("vendor/def-runtime"));
    defc_gen(
        &dir,
        "gen/crate",
        &["--runtime-path", "vendor/def-runtime", "--license", "MIT"],
    );
    let toml = std::fs::read_to_string(dir.join("gen/crate/Cargo.toml")).unwrap();
    assert!(
        toml.contains(&format!(
            "def-runtime = {{ version = \"{}\", path = \"../../vendor/def-runtime\" }}",
            env!("CARGO_PKG_VERSION")
        )),
        "{toml}"
    );
    let p = package(&dir.join("gen/crate/Cargo.toml"));
    assert_eq!(p["license"], "MIT");
    let dep = runtime_dep(&p);
    assert_eq!(
        Path::new(dep["path"].as_str().unwrap()),
        dir.join("vendor/def-runtime").canonicalize().unwrap()
    );
    assert_eq!(dep["req"], format!("^{}", env!("CARGO_PKG_VERSION")));
}

#[test]
fn an_absolute_runtime_path_stays_absolute_and_text_is_escaped() {
    let dir = scratch("absolute");
    let runtime = dir.join("def-runtime");
    fake_runtime(&runtime);
    let repository = r#"https://example.org/a "quoted" \ path"#;
    defc_gen(
        &dir,
        "crate",
        &[
            "--runtime-path",
            runtime.to_str().unwrap(),
            "--repository",
            repository,
        ],
    );
    let toml = std::fs::read_to_string(dir.join("crate/Cargo.toml")).unwrap();
    assert!(
        toml.contains(&format!("path = \"{}\"", runtime.display())),
        "{toml}"
    );
    let p = package(&dir.join("crate/Cargo.toml"));
    assert_eq!(p["repository"], repository);
    assert_eq!(
        Path::new(runtime_dep(&p)["path"].as_str().unwrap()),
        runtime
    );
}
