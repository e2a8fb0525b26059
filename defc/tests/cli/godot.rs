//! `defc godot` end to end: what `decode` prints, `encode` takes back to the same bytes, at the
//! engine's full depth (1025 nested containers; serde_json's own limit of 128 levels used to
//! refuse 64) and for strings beyond Unicode that Godot 3.2.3 keeps; `--godot 4.2` writes a
//! typed array as the plain one a 4.2 engine writes.
#![cfg(feature = "godot")]

/// `defc args` with `stdin`, as text.
fn defc(args: &[&str], stdin: &str) -> (bool, String, String) {
    crate::run::text(args, stdin.as_bytes())
}

fn round_trip(godot: &str, hex: &str) {
    let (ok, json, err) = defc(&["godot", "decode", "--godot", godot, "-"], hex);
    assert!(ok, "decode: {err}");
    let (ok, back, err) = defc(&["godot", "encode", "--godot", godot, "-"], &json);
    assert!(ok, "encode: {err}");
    assert_eq!(back.trim(), hex);
}

#[test]
fn decode_output_encodes_back_at_every_depth() {
    // Godot 3 Array of one Array …, 1025 arrays (SPEC §4.1: id 19, count).
    let deep = format!("{}1300000000000000", "1300000001000000".repeat(1024));
    round_trip("3", &deep);
    // One level more is the engine's "too deep".
    let too_deep = format!("1300000001000000{deep}");
    let (ok, _, err) = defc(&["godot", "decode", "--godot", "3", "-"], &too_deep);
    assert!(!ok && err.contains("1024"), "{err}");
}

#[test]
fn strings_beyond_unicode_come_back_byte_exact() {
    // A CESU-8 surrogate pair and a 6-byte form, as Godot 3.2.3 writes them back.
    round_trip("3", "040000000c000000eda080edb080fdbfbfbfbfbf");
}

#[test]
fn older_godot_4_targets_get_what_they_read() {
    let typed = r#"{"type": "Array", "element_type": {"builtin": "int"}, "value": [{"type": "int", "value": 5}]}"#;
    // SPEC §5 / §9.3: 4.2 writes the element type, 4.0 writes a plain array.
    for (godot, want) in [
        ("4.2", "1c00010002000000010000000200000005000000"),
        ("4.0", "1c000000010000000200000005000000"),
    ] {
        let (ok, out, err) = defc(&["godot", "encode", "--godot", godot, "-"], typed);
        assert!(ok, "{err}");
        assert_eq!(out.trim(), want, "--godot {godot}");
    }
    let pv4 = r#"{"type": "PackedVector4Array", "value": [["1", "2", "3", "4"]]}"#;
    let (ok, _, err) = defc(&["godot", "encode", "--godot", "4.2", "-"], pv4);
    assert!(!ok && err.contains("4.2"), "{err}");
    let (ok, out, err) = defc(&["godot", "encode", "--godot", "4.3", "-"], pv4);
    assert!(ok, "{err}");
    assert!(out.starts_with("26000000"), "{out}");
}
