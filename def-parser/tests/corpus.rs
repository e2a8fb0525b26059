//! Every definition of the real corpus compiles in compatible mode.

use std::path::PathBuf;

fn tera_data() -> Option<PathBuf> {
    let dir = std::env::var_os("TERA_DATA_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../shared/tera-data"
            ))
        });
    if dir.join("definitions").is_dir() {
        Some(dir)
    } else if std::env::var_os("CI").is_some() {
        panic!("tera-data not found at {}", dir.display());
    } else {
        eprintln!(
            "SKIPPED: tera-data not found at {} (set TERA_DATA_DIR)",
            dir.display()
        );
        None
    }
}

#[test]
fn whole_corpus_compiles() {
    let Some(dir) = tera_data() else { return };
    let mut n = 0;
    let mut failures = Vec::new();
    for entry in std::fs::read_dir(dir.join("definitions")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "def") {
            continue;
        }
        n += 1;
        if let Err(e) = def_parser::load(&path, def_parser::Mode::Compatible) {
            failures.push(e.to_string());
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {n} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(n, 836);
}
