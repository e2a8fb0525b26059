//! Text from the input never reaches defc's output raw: every output path (check, explain's
//! table and `--svg`, annotate and `--json`, diff, decode and its errors, map and
//! `deprecated.json` errors, nbt dump and its errors, godot decode and its errors) is fed names,
//! keys and strings holding terminal escapes (ESC, BEL, a C1 CSI), bidirectional overrides and
//! zero-width characters, and its standard output and error are checked character by character
//! against a list written here (not the rule's own); the SVG is parsed as XML.

use std::path::{Path, PathBuf};

/// A field name that clears the screen and retitles the terminal.
const NAME_A: &str = "a\u{1b}[2J\u{1b}]0;title\u{7}b";
/// A field name with a C0 control (not allowed in XML even as a reference) and a bidi override.
const NAME_C: &str = "c\u{1}\u{202e}d";
/// An array and its element's field, with a C1 CSI and a zero-width space.
const NAME_E: &str = "e\u{9b}31m\u{200b}";
const NAME_G: &str = "g\u{2066}h\u{7f}";
/// A packet string: every kind of hidden character.
const TEXT: &str = "x\u{1b}[31m\u{9b}2J\u{202e}evil\u{2069}\u{200b}\u{feff}\u{ad}\u{2028}y";

/// Whether `c` must never appear raw: control characters but the line feed (which ends lines of
/// output) and the format, bidirectional and separator characters this test feeds in.
fn forbidden(c: char) -> bool {
    (c.is_control() && c != '\n')
        || matches!(c,
            '\u{ad}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
            | '\u{feff}' | '\u{2028}' | '\u{2029}')
}

#[track_caller]
fn assert_inert(what: &str, out: &str) {
    if let Some((i, c)) = out.char_indices().find(|&(_, c)| forbidden(c)) {
        panic!(
            "{what}: raw {c:?} at byte {i}: {:?}",
            &out[i.saturating_sub(80)..(i + 80).min(out.len())]
        );
    }
}

struct Run {
    ok: bool,
    stdout: String,
    stderr: String,
}

fn defc(args: &[&str], stdin: &[u8]) -> Run {
    let (ok, stdout, stderr) = crate::run::text(args, stdin);
    Run { ok, stdout, stderr }
}

/// Runs defc and checks both streams; returns them.
#[track_caller]
fn inert(what: &str, args: &[&str], stdin: &[u8]) -> Run {
    let r = defc(args, stdin);
    assert_inert(&format!("{what}, standard output"), &r.stdout);
    assert_inert(&format!("{what}, standard error"), &r.stderr);
    r
}

fn dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A definition whose every field name is hostile.
fn hostile_def(d: &Path) -> PathBuf {
    let p = d.join("S_HOSTILE.1.def");
    std::fs::write(
        &p,
        format!(
            "string {NAME_A}\nstring {NAME_C}\narray {NAME_E}\n- int32 {NAME_G}\n- string {NAME_A}\nint32 {NAME_G}\n"
        ),
    )
    .unwrap();
    p
}

/// A packet of the hostile definition, made by `defc encode` from JSON.
fn packet(def: &Path, text: &str, n: i32) -> String {
    let json = serde_json::json!({
        // The text under the name without `[` or `.`: annotate finds a span's value by its path.
        NAME_A: "plain",
        NAME_C: text,
        NAME_E: [{NAME_G: n, NAME_A: text}, {NAME_G: 2, NAME_A: "z"}],
        NAME_G: 7,
    });
    let r = inert(
        "encode",
        &["encode", "--def", def.to_str().unwrap(), &json.to_string()],
        b"",
    );
    assert!(r.ok, "{}", r.stderr);
    r.stdout.trim().to_string()
}

#[test]
fn check_explain_annotate_diff_and_decode_show_no_raw_control_or_bidi_character() {
    let d = dir("hostile-text-tera");
    let def = hostile_def(&d);
    let defp = def.to_str().unwrap();

    let r = inert("check", &["check", defp], b"");
    assert!(
        r.stderr.contains("\\u{1b}[2J\\u{1b}]0;title\\u{7}b"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("\\u{202e}"), "{}", r.stderr);
    // The caret still points under the name: the escapes are counted in its column.
    let lines: Vec<&str> = r.stderr.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.ends_with("| string a\\u{1b}[2J\\u{1b}]0;title\\u{7}b"))
        .expect("the snippet of line 1");
    let caret = lines[at + 1];
    assert_eq!(caret.find('^'), lines[at].find("a\\u{1b}"), "{caret}");
    assert_eq!(
        caret.trim_start_matches([' ', '|']).len(),
        "a\\u{1b}[2J\\u{1b}]0;title\\u{7}b".len()
    );

    let svg = d.join("h.svg");
    let r = inert(
        "explain",
        &["explain", defp, "--svg", svg.to_str().unwrap()],
        b"",
    );
    assert!(r.ok, "{}", r.stderr);
    assert!(r.stdout.contains("c\\u{1}\\u{202e}d"), "{}", r.stdout);
    let svg = std::fs::read_to_string(&svg).unwrap();
    assert_inert("explain --svg", &svg);
    let doc = roxmltree::Document::parse(&svg).expect("the SVG is well-formed XML");
    let titles: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("title"))
        .filter_map(|n| n.text())
        .collect();
    assert!(
        titles.iter().any(|t| t.starts_with("c\\u{1}\\u{202e}d: ")),
        "{titles:?}"
    );

    let hex = packet(&def, TEXT, 1);
    let r = inert(
        "annotate",
        &["annotate", "--def", defp, "--color", "never", &hex],
        b"",
    );
    assert!(r.ok, "{}", r.stderr);
    assert!(r.stdout.contains("\\u{9b}2J\\u{202e}evil"), "{}", r.stdout);
    let r = inert(
        "annotate --json",
        &["annotate", "--def", defp, "--json", &hex],
        b"",
    );
    assert!(r.ok, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert!(
        v.as_array().unwrap().iter().any(|s| s["value"] == TEXT),
        "the JSON keeps the text: {}",
        r.stdout
    );

    let r = inert("decode", &["decode", "--def", defp, &hex], b"");
    assert!(r.ok, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v[NAME_C], TEXT);

    let other = packet(&def, "y\u{202d}\u{85}", 5);
    let r = inert("diff", &["diff", "--def", defp, &hex, &other], b"");
    assert!(!r.ok);
    assert!(
        r.stdout
            .contains("\"e\\u{9b}31m\\u{200b}\"[0].\"g\\u{2066}h\\u{7f}\": 1 -> 5"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("\\u{202d}\\u{85}"), "{}", r.stdout);

    // A decode error names the field path.
    let cut = &hex[..hex.len() - 8];
    let r = inert(
        "decode error",
        &["decode", "--def", defp, "--strict", cut],
        b"",
    );
    assert!(!r.ok);
    let r = inert("annotate error", &["annotate", "--def", defp, cut], b"");
    assert!(!r.ok);
    // Not hex: the character is named, escaped.
    let r = inert("bad hex", &["decode", "--def", defp, "00\u{1b}[2J"], b"");
    assert!(!r.ok && r.stderr.contains("\\u{1b}"), "{}", r.stderr);
}

#[test]
fn map_and_deprecated_json_errors_show_no_raw_control_and_no_megabyte() {
    let d = dir("hostile-text-map");
    let defs = d.join("definitions");
    std::fs::create_dir_all(&defs).unwrap();
    std::fs::write(defs.join("S_A.1.def"), "int32 x\n").unwrap();
    let out = d.join("out");
    let gen_with = |map: &str, deprecated: Option<&str>| {
        let m = d.join("protocol.1.map");
        std::fs::write(&m, map).unwrap();
        let mut args = vec![
            "gen".to_string(),
            "--defs".into(),
            defs.to_str().unwrap().into(),
            "--map".into(),
            m.to_str().unwrap().into(),
            "--out".into(),
            out.to_str().unwrap().into(),
        ];
        if let Some(text) = deprecated {
            let p = d.join("deprecated.json");
            std::fs::write(&p, text).unwrap();
            args.extend(["--deprecated".into(), p.to_str().unwrap().into()]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        inert("gen", &args, b"")
    };
    for map in [
        "S_A = 1\u{1b}[2J\u{7}\n",
        "S_\u{1b}]0;x\u{7} = 1\n",
        "S_A \u{9b}\u{202e} 1\n",
    ] {
        let r = gen_with(map, None);
        assert!(!r.ok, "{map:?}");
        assert!(r.stderr.contains("\\u{"), "{}", r.stderr);
    }
    // A file in the definitions folder named with terminal escapes.
    let bad = defs.join("S_\u{1b}]0;x\u{7}\u{202e}.1.def");
    std::fs::write(&bad, "int32 x\n").unwrap();
    let r = gen_with("S_A = 1\n", None);
    assert!(
        !r.ok && r.stderr.contains("S_\\u{1b}]0;x\\u{7}\\u{202e}.1.def"),
        "{}",
        r.stderr
    );
    std::fs::remove_file(&bad).unwrap();
    let digits = "9".repeat(1_000_000);
    let r = gen_with(
        "S_A = 1\n",
        Some(&format!("{{\"S_A\": {{\"1\": {{\"max\": {digits}}}}}}}")),
    );
    assert!(!r.ok);
    assert!(r.stderr.len() < 1000, "{} bytes of message", r.stderr.len());
    assert!(r.stderr.contains("(1000000 bytes)"), "{}", r.stderr);
    let r = gen_with(
        "S_A = 1\n",
        Some("{\"S_A\": {\"1\": {\"max\": 1, \"\\u001b]0;t\\u0007\": 2}}}"),
    );
    assert!(
        !r.ok && r.stderr.contains("\\u{1b}]0;t\\u{7}"),
        "{}",
        r.stderr
    );
}

#[cfg(feature = "nbt")]
#[test]
fn nbt_dump_and_its_errors_show_no_raw_control_character() {
    let d = dir("hostile-text-nbt");
    // Java NBT, uncompressed: a root compound with a string entry named NAME_A holding TEXT.
    let mut b = vec![0x0a, 0, 0, 8];
    b.extend((NAME_A.len() as u16).to_be_bytes());
    b.extend(NAME_A.as_bytes());
    b.extend((TEXT.len() as u16).to_be_bytes());
    b.extend(TEXT.as_bytes());
    let mut whole = b.clone();
    whole.push(0);
    let good = d.join("good.nbt");
    std::fs::write(&good, &whole).unwrap();
    let r = inert("nbt dump", &["nbt", "dump", good.to_str().unwrap()], b"");
    assert!(r.ok, "{}", r.stderr);
    assert!(r.stdout.contains("\\u009b"), "{}", r.stdout);
    let r = inert(
        "nbt dump --snbt",
        &["nbt", "dump", "--snbt", good.to_str().unwrap()],
        b"",
    );
    assert!(r.ok, "{}", r.stderr);
    // Cut inside the string: the error's path is the hostile key.
    let cut = d.join("cut.nbt");
    std::fs::write(&cut, &b[..b.len() - 3]).unwrap();
    let r = inert(
        "nbt dump error",
        &["nbt", "dump", cut.to_str().unwrap()],
        b"",
    );
    assert!(!r.ok);
    assert!(r.stderr.contains("a\\u{1b}[2J"), "{}", r.stderr);
}

#[cfg(feature = "godot")]
#[test]
fn godot_decode_and_its_errors_show_no_raw_control_character() {
    let words = |ws: &[u32]| ws.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>();
    let string = |s: &str| {
        let mut b = words(&[4, s.len() as u32]);
        b.extend(s.as_bytes());
        b.resize(b.len().next_multiple_of(4), 0);
        b
    };
    let hex = hex::encode(string(TEXT));
    let r = inert(
        "godot decode",
        &["godot", "decode", "--godot", "4", &hex],
        b"",
    );
    assert!(r.ok, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["value"], TEXT, "{}", r.stdout);
    // A Dictionary whose one key is a hostile String, its value missing.
    let mut b = words(&[27, 1]);
    b.extend(string(NAME_A));
    let r = inert(
        "godot decode error",
        &["godot", "decode", "--godot", "4", &hex::encode(b)],
        b"",
    );
    assert!(!r.ok);
    assert!(r.stderr.contains("a\\u{1b}[2J"), "{}", r.stderr);
}
