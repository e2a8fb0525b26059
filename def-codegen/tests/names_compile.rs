//! The naming pass, proved by compiling: random definitions, file names and opcode maps, with
//! names from a hostile alphabet (case variants, `_`, digits, keywords, the generator's own
//! names, non-ASCII letters) at random nesting and comments holding CR, NUL and bidirectional
//! controls, are either refused with a located diagnostic or generate code that `rustc` accepts
//! with `-D warnings`.
//!
//! Compiling is the expensive part, so a batch of cases becomes the modules of ONE temporary
//! crate (under `CARGO_TARGET_TMPDIR`, with a target folder kept between runs) checked by one
//! `cargo check --offline`. `NAMES_CASES` (default 96 definitions and 24 protocols) and
//! `NAMES_SEED` (default fixed, so CI is reproducible) change the batch.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use def_codegen::protocol::{ProtocolOptions, generate};
use def_codegen::{Config, Error};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{RngAlgorithm, TestRng, TestRunner};

#[path = "support/hostile_names.rs"]
mod hostile_names;
use hostile_names::{COMMENT_PIECES, FIELD_PIECES, MESSAGE_PIECES, TYPES};

fn piece_name(pieces: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(pieces), 1..4).prop_map(|v| v.concat())
}

/// One line: depth choice, type, name, comment, line end.
type Line = (u8, &'static str, String, Option<String>, &'static str);

fn line() -> impl Strategy<Value = Line> {
    (
        any::<u8>(),
        prop::sample::select(TYPES),
        piece_name(FIELD_PIECES),
        prop::option::of(
            prop::collection::vec(prop::sample::select(COMMENT_PIECES), 1..4)
                .prop_map(|v| v.concat()),
        ),
        // A bare CR is refused (one in 16 lines), so most files have none.
        prop::sample::select(
            &[
                "\n", "\n", "\n", "\n", "\n", "\n", "\r\n", "\r\n", "\n", "\n", "\n", "\n", "\n",
                "\n", "\n", "\r",
            ][..],
        ),
    )
}

/// `.def` text: depths only grow one level at a time below an array or object.
fn def_text() -> impl Strategy<Value = String> {
    (any::<bool>(), prop::collection::vec(line(), 0..10)).prop_map(|(bom, lines)| {
        let mut s = String::new();
        if bom {
            s.push('\u{feff}');
        }
        let mut open = 0usize;
        for (d, ty, name, comment, end) in lines {
            let d = d as usize % (open + 1);
            s.push_str(&"- ".repeat(d));
            write!(s, "{ty} {name}").unwrap();
            if let Some(c) = comment {
                write!(s, " # {c}").unwrap();
            }
            s.push_str(end);
            open = if ty == "object" || ty.starts_with("array") && !ty.contains('<') {
                d + 1
            } else {
                d
            };
        }
        s
    })
}

/// A file name: message name, version, platform.
fn file_name() -> impl Strategy<Value = (String, String)> {
    (
        piece_name(MESSAGE_PIECES),
        prop::sample::select(&["1", "2", "1", "3"][..]),
        prop::sample::select(&["", "", "", ".pc", ".ps4"][..]),
    )
        .prop_map(|(m, v, p)| (m.clone(), format!("{m}.{v}{p}.def")))
}

/// A protocol: definitions, and a map line per message (opcodes from a small range, so that
/// some collide and are refused).
fn protocol() -> impl Strategy<Value = (Vec<(String, String)>, String)> {
    (
        prop::collection::vec((file_name(), def_text()), 1..5),
        prop::collection::vec(0u16..40, 5),
        any::<bool>(),
    )
        .prop_map(|(defs, codes, bom)| {
            let mut map = String::new();
            if bom {
                map.push('\u{feff}');
            }
            let mut seen = std::collections::HashSet::new();
            for (((m, _), _), c) in defs.iter().zip(codes) {
                if seen.insert(m.clone()) {
                    writeln!(map, "{m} = {c}").unwrap();
                }
            }
            (defs.into_iter().map(|((_, f), t)| (f, t)).collect(), map)
        })
}

/// Regression cases, always in the batch: each once broke the build or drew a warning.
const REGRESSIONS: &[(&str, &str)] = &[
    // Types that collide after flattening or case conversion.
    (
        "S_T.1.def",
        "array barBaz\n- int32 x\nobject bar\n- array baz\n- - int32 y\n",
    ),
    (
        "S_T.1.def",
        "array fooBar\n- int32 x\narray foo_bar\n- int32 y\n",
    ),
    ("S_T.1.def", "array a\n- int32 x\narray A\n- int32 y\n"),
    (
        "S_T.1.def",
        "array ä\n- int32 x\narray ö\n- int32 y\narray Ä\n- int32 z\n",
    ),
    // Fields and locals with warnings the user could not silence.
    (
        "S_T.1.def",
        "int32 self\nint32 Self\nint32 self_\nstring __slot__r\nstring r\n",
    ),
    (
        "S_T.1.def",
        "object o\n- string self\nstring o_self\nstring oSelf\n",
    ),
    // Names of the generator's own locals and items.
    (
        "PADDING.1.def",
        "string __r\nstring __w\nint32 __out\nbytes __b0\nstring __slot0\nstring e\n",
    ),
    (
        "SELF.1.def",
        "int32 type\nint32 r#type\nobject crate\n- int32 super\n",
    ),
    // Doc comments: bidirectional controls and other control characters.
    (
        "S_T.1.def",
        "int32 a # \u{202e}evil\u{2066} \u{200f}\u{61c}\u{0}\u{7f}\u{85}\u{2028}\n",
    ),
    ("S_T.1.def", "# majorPatchVersion >= 1\nint32 `a` # ``x``\n"),
];

/// Regression protocols: messages whose names collide with each other or with the protocol's
/// own items.
const PROTOCOL_REGRESSIONS: &[&[&str]] = &[
    &["S_FOO", "s_foo", "S_FOO_BAR", "S_FOOBAR", "S_A1", "S_A_1"],
    &[
        "Raw",
        "RAW",
        "json",
        "JSON",
        "Packet",
        "Definition",
        "core",
        "SELF",
        "self",
        "CON",
    ],
    // Nothing for the platform: an empty `Packet` (no unused locals or helpers).
    &["S_ONLY.1.ps4"],
];

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A refusal must say where: a diagnostic at a line, a file name, or a map line. Returns the kind
/// of refusal, for the summary.
fn assert_located(e: &Error, what: &str) -> String {
    let kind = match e {
        Error::Defs(r) => r
            .iter()
            .flat_map(|r| &r.diagnostics)
            .find(|d| d.is_error())
            .map_or("?".into(), |d| format!("{:?}", d.code)),
        Error::Map(m) => m
            .split(": ")
            .nth(1)
            .unwrap_or("map")
            .split(' ')
            .take(3)
            .collect::<Vec<_>>()
            .join(" "),
        other => format!("{other:?}")
            .split('(')
            .next()
            .unwrap_or("?")
            .to_string(),
    };
    match e {
        Error::Defs(reports) => {
            assert!(
                reports
                    .iter()
                    .all(|r| r.diagnostics.iter().any(|d| d.is_error() && d.line >= 1)),
                "{what}: refused without a located error: {e}"
            );
        }
        Error::FileName(_) | Error::Duplicate(..) => {}
        Error::Map(m) => assert!(
            m.contains(".map:") || m.contains("deprecated"),
            "{what}: map error without a line: {m}"
        ),
        other => panic!("{what}: unexpected refusal: {other}"),
    }
    kind
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn random_definitions_compile_warning_free_or_are_refused_at_a_line() {
    let seed: u64 = std::env::var("NAMES_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(14);
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let mut runner = TestRunner::new_with_rng(
        proptest::test_runner::Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &bytes),
    );
    let n_defs = env_usize("NAMES_CASES", 96);
    let n_protocols = n_defs / 4;

    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("names-compile");
    let krate = root.join("crate");
    let _ = std::fs::remove_dir_all(krate.join("src"));
    let runtime = Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime");
    write(
        &krate.join("Cargo.toml"),
        &format!(
            "[package]\nname = \"names-compile\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n[features]\ndefault = [\"serde\", \"views\", \"definitions\"]\nserde = [\"def-runtime/serde\"]\nviews = []\nhistory = []\ndefinitions = []\n\n[dependencies]\ndef-runtime = {{ path = {:?} }}\n\n[workspace]\n",
            runtime.canonicalize().unwrap().display().to_string()
        ),
    );
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.lock"),
        krate.join("Cargo.lock"),
    )
    .unwrap();

    let mut lib = String::from("//! Generated by names_compile.rs.\n");
    // What each module came from, to show a failing case.
    let mut sources: Vec<(String, String)> = Vec::new();
    let (mut compiled, mut refused) = (0, 0);
    let mut reasons: std::collections::BTreeMap<String, usize> = Default::default();

    // Also the widest level def-parser accepts (`MAX_MEMBERS` fields): its derives must compile
    // (10 000 fields overflowed rustc's stack).
    let widest: String = (0..def_parser::layout::MAX_MEMBERS)
        .map(|i| format!("int32 f{i}\n"))
        .collect();
    let regressions: Vec<(String, String, bool)> = REGRESSIONS
        .iter()
        .map(|(f, t)| (f.to_string(), t.to_string(), true))
        .chain([("S_WIDE.1.def".to_string(), widest, true)])
        .collect();
    let n_regressions = regressions.len();
    let random: Vec<_> = {
        let single = (file_name(), def_text(), any::<bool>());
        (0..n_defs)
            .map(|_| {
                let ((_, f), t, serde) = single.new_tree(&mut runner).unwrap().current();
                (f, t, serde)
            })
            .collect()
    };
    for (k, (file, text, serde)) in regressions.into_iter().chain(random).enumerate() {
        let mut config = Config::new();
        config.serde(serde);
        match config.generate_one(&file, &text) {
            Ok(code) => {
                let m = format!("d{k}");
                write(&krate.join("src").join(format!("{m}.rs")), &code);
                // Code made with `serde(true)` uses serde unconditionally: only with the feature.
                let gate = if serde {
                    "#[cfg(feature = \"serde\")]\n"
                } else {
                    ""
                };
                writeln!(lib, "{gate}pub mod {m};").unwrap();
                sources.push((m, format!("{file} (serde {serde}):\n{text:?}")));
                compiled += 1;
            }
            Err(e) if k < n_regressions => panic!("{file}: refused: {e}"),
            Err(e) => {
                *reasons
                    .entry(assert_located(&e, &format!("{file}: {text:?}")))
                    .or_default() += 1;
                refused += 1;
            }
        }
    }
    let strategy = protocol();
    let inputs = root.join("inputs");
    let fixed = PROTOCOL_REGRESSIONS.iter().map(|names| {
        let defs: Vec<(String, String)> = names
            .iter()
            .map(|n| {
                let file = if n.contains('.') {
                    format!("{n}.def")
                } else {
                    format!("{n}.1.def")
                };
                (file, "int32 a\nstring b\n".to_string())
            })
            .collect();
        let map: String = names
            .iter()
            .enumerate()
            .map(|(k, n)| format!("{} = {k}\n", n.split('.').next().unwrap()))
            .collect();
        (defs, map)
    });
    let random: Vec<_> = (0..n_protocols)
        .map(|_| strategy.new_tree(&mut runner).unwrap().current())
        .collect();
    for (k, (defs, map)) in fixed.chain(random).enumerate() {
        let dir = inputs.join(format!("p{k}"));
        let _ = std::fs::remove_dir_all(&dir);
        let defs_dir = dir.join("defs");
        std::fs::create_dir_all(&defs_dir).unwrap();
        for (f, t) in &defs {
            write(&defs_dir.join(f), t);
        }
        let map_path = dir.join("protocol.1.map");
        write(&map_path, &map);
        let m = format!("p{k}");
        let out = krate.join("src").join(&m);
        let what = format!("{defs:?}\nmap {map:?}");
        match generate(&ProtocolOptions::new(&defs_dir, &map_path), &out) {
            Ok(_) => {
                write(
                    &krate.join("src").join(format!("{m}.rs")),
                    &format!("include!(\"{m}/protocol.rs\");\n"),
                );
                writeln!(lib, "pub mod {m};").unwrap();
                sources.push((m, what));
                compiled += 1;
            }
            Err(e) if k < PROTOCOL_REGRESSIONS.len() => panic!("{what}: refused: {e}"),
            Err(e) => {
                *reasons.entry(assert_located(&e, &what)).or_default() += 1;
                refused += 1;
            }
        }
    }
    write(&krate.join("src/lib.rs"), &lib);

    // With the serde feature (the default) and without it: the generated code gates its serde
    // items, and neither side may leave an unused item or import behind.
    for features in [&[][..], &["--no-default-features"][..]] {
        check_crate(&krate, &root, features, &sources);
    }
    eprintln!(
        "names_compile: seed {seed}: {compiled} modules compiled, {refused} cases refused ({reasons:?})"
    );
    assert!(
        compiled > 0 && refused > 0,
        "{compiled} compiled, {refused} refused"
    );
}

/// `cargo check` of the batch crate with `-D warnings`; a failure names the cases it points into.
fn check_crate(krate: &Path, root: &Path, features: &[&str], sources: &[(String, String)]) {
    let started = std::time::Instant::now();
    let output = Command::new(env!("CARGO"))
        .args(["check", "--offline", "--quiet", "--message-format=short"])
        .args(features)
        .current_dir(krate)
        .env("CARGO_TARGET_DIR", root.join("target"))
        .env("RUSTFLAGS", "-D warnings")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    eprintln!(
        "names_compile: cargo check {features:?} took {:.1} s",
        started.elapsed().as_secs_f64()
    );
    if !output.status.success() || stderr.contains("warning") {
        // Name the cases the messages point into.
        let mut shown = String::new();
        for (m, src) in sources {
            if stderr.contains(&format!("src/{m}.rs")) || stderr.contains(&format!("src/{m}/")) {
                writeln!(shown, "--- {m}: {src}").unwrap();
            }
        }
        panic!(
            "generated code does not compile warning-free:\n{}\n{shown}",
            stderr.chars().take(20_000).collect::<String>()
        );
    }
}
