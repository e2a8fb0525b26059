//! Generates the protocol crate for the newest opcode map of a tera-data checkout:
//! `TERA_DATA_DIR`, else the shared tera-data beside the repository, else `data/` (a tiny
//! tera-data of the project's own, so that a clone without the corpus still builds). A packaged
//! copy has no `data/` and fails without tera-data.

use std::path::{Path, PathBuf};

fn newest_map(maps: &Path) -> Option<PathBuf> {
    std::fs::read_dir(maps)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter_map(|p| {
            let v: u32 = p
                .file_name()?
                .to_str()?
                .strip_prefix("protocol.")?
                .strip_suffix(".map")?
                .parse()
                .ok()?;
            Some((v, p))
        })
        .max()
        .map(|(_, p)| p)
}

fn main() {
    println!("cargo:rerun-if-env-changed=TERA_DATA_DIR");
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let candidates = [
        std::env::var_os("TERA_DATA_DIR").map(PathBuf::from),
        Some(manifest.join("../../shared/tera-data")),
    ];
    let data = match candidates
        .into_iter()
        .flatten()
        .find(|d| d.join("definitions").is_dir())
    {
        Some(d) => d,
        // Only in the repository: a packaged copy has no data/ (Cargo.toml `exclude`), and must
        // not pass its two samples off as the protocol.
        None if manifest.join("data/definitions").is_dir() => {
            println!(
                "cargo:warning=tera-data not found (set TERA_DATA_DIR); building the crate's own definitions in data/"
            );
            manifest.join("data")
        }
        None => {
            eprintln!(
                "protocol-defs is generated from a tera-data checkout, and none was found: set \
                 TERA_DATA_DIR to a folder with definitions/ and maps/ (this copy of the crate \
                 has no sample data; protocol-defs is not published: use `defc gen` for a \
                 protocol crate of your own)"
            );
            std::process::exit(1);
        }
    };
    let Some(map) = newest_map(&data.join("maps")) else {
        println!("cargo::error=no maps/protocol.N.map in {}", data.display());
        return;
    };
    let mut o = def_codegen::protocol::ProtocolOptions::new(data.join("definitions"), map);
    let dep = data.join("deprecated.json");
    o.deprecated = dep.is_file().then_some(dep);
    o.cargo_output = true;
    // Every version (the non-current ones behind `history`): the tests read every vector.
    o.versions = def_codegen::protocol::Versions::All;
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets it"));
    // On a bad definition: each diagnostic as cargo's own error, with the line and a caret.
    def_codegen::protocol::generate(&o, &out).unwrap_or_else(|e| e.exit_build_script());
}
