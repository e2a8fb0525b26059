//! Every definition of the real corpus compiles in compatible mode.

#[path = "../../runtime/tests/support/mod.rs"]
mod support;

#[test]
fn whole_corpus_compiles() {
    let Some(dir) = support::tera_data("definitions") else {
        return;
    };
    let mut n = 0;
    let mut failures = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
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
