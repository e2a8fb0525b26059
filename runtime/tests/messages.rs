//! Error messages point at the fault and stay short: base64 and hex errors give the byte offset
//! in the caller's text; a name, key or value of megabytes from the input is shown by its start
//! and its length, never whole.

use def_runtime::godot::framing::from_base64;
use def_runtime::godot::{DecodeOptions, Version};
use def_runtime::nbt::{Edition, snbt};
use def_runtime::tera::dynamic::{Definition, Missing};

#[test]
fn base64_errors_give_the_byte_offset() {
    let o = DecodeOptions::new(Version::GODOT_4_4);
    let e = from_base64("  AAAA!AAA", o)
        .expect_err("bad symbol")
        .to_string();
    assert_eq!(
        e,
        "invalid base64: at byte 6: '!' is not a base64 character"
    );
    let e = from_base64("AAAA\u{e9}AAA", o)
        .expect_err("non-ASCII")
        .to_string();
    assert_eq!(
        e,
        "invalid base64: at byte 4: byte 0xc3 is not a base64 character"
    );
    let e = from_base64(" AAAAA ", o)
        .expect_err("cut group")
        .to_string();
    assert_eq!(
        e,
        "invalid base64: at byte 6: the text ends inside a 4-character group (5 base64 characters)"
    );
    let e = from_base64("AAB=", o).expect_err("last symbol").to_string();
    assert!(
        e.starts_with("invalid base64: at byte 2: last symbol 'B'"),
        "{e}"
    );
}

#[test]
fn hex_errors_give_the_byte_offset() {
    // Hex in the typed JSON form of a PackedByteArray: the offset is within the string.
    let bytes = |hex: &str| {
        let text = format!(r#"{{"type": "PackedByteArray", "value": {hex:?}}}"#);
        def_runtime::godot::json::from_json_str(&text).map_err(|e| e.to_string())
    };
    let e = bytes("00 1g").unwrap_err();
    assert!(e.contains("at byte 4: 'g' is not a hex digit"), "{e}");
    let e = bytes("00 ff\n1").unwrap_err();
    assert!(
        e.contains("at byte 6: odd number of hex digits (this last one has no pair)"),
        "{e}"
    );
    assert_eq!(
        bytes(" 0a FF ").unwrap(),
        def_runtime::godot::Variant::PackedByteArray(vec![0x0a, 0xff])
    );
}

#[test]
fn a_field_name_of_megabytes_is_clipped_in_decode_errors() {
    let name = "n".repeat(2_000_000);
    let def = Definition::from_text(
        "S_BIG.1.def",
        &format!("string {name}\n"),
        def_parser::Mode::Compatible,
    )
    .expect("compiles");
    // The string's offset points past the end of the packet.
    let e = def
        .decode_json(&[6, 0, 0, 0, 0xff, 0x00], Default::default())
        .expect_err("offset out of bounds")
        .to_string();
    assert!(e.contains("…(2000000 bytes)"), "{}", &e[..300.min(e.len())]);
    assert!(e.len() < 600, "{} bytes of message", e.len());
}

#[test]
fn a_json_value_of_megabytes_is_clipped_in_encode_errors() {
    let def = Definition::from_text("S_INT.1.def", "int32 x\n", def_parser::Mode::Compatible)
        .expect("compiles");
    let value = serde_json::json!({ "x": "7".repeat(1_000_000) });
    let e = def
        .encode(&value, 1, Default::default(), Missing::Error)
        .expect_err("a string is no integer")
        .to_string();
    assert!(
        e.starts_with("cannot encode S_INT v1 in `x`: invalid type: string \"777"),
        "{}",
        &e[..100]
    );
    assert!(e.contains(" bytes)"), "{}", &e[..300.min(e.len())]);
    assert!(e.len() < 600, "{} bytes of message", e.len());
}

#[test]
fn an_snbt_key_of_a_megabyte_is_clipped_when_it_cannot_be_written() {
    let key = "k".repeat(1 << 20);
    let root = snbt::parse_root(&format!("{{{key}:1}}")).expect("parses");
    let e = root
        .encode_into(&mut Vec::new(), Edition::Java)
        .expect_err("a key over 65535 bytes")
        .to_string();
    assert!(e.contains("…(1048576 bytes)"), "{}", &e[..300.min(e.len())]);
    assert!(e.len() < 600, "{} bytes of message", e.len());
}

#[test]
fn json_error_paths_name_the_place() {
    // Paths are built only for the error.
    let def = Definition::from_text(
        "S_PATHS.1.def",
        "array items\n- object pos\n-- float x\n- string name\nvec3 v\n",
        def_parser::Mode::Compatible,
    )
    .expect("compiles");
    let encode = |j: serde_json::Value| {
        def.encode(&j, 1, Default::default(), Missing::Error)
            .expect_err("refused")
            .to_string()
    };
    let ok_v = serde_json::json!({"x": 1, "y": 2, "z": 3});
    assert_eq!(
        encode(
            serde_json::json!({"items": [{"pos": {"x": 1}, "name": "a"}, {"pos": {"x": "bad"}, "name": "b"}], "v": ok_v})
        ),
        "cannot encode S_PATHS v1 in `items[1].pos.x`: invalid type: string \"bad\", expected f32"
    );
    assert_eq!(
        encode(serde_json::json!({"items": [{"pos": {}, "name": "a"}], "v": ok_v})),
        "cannot encode S_PATHS v1 in `items[0].pos.x`: missing"
    );
    assert_eq!(
        encode(serde_json::json!({"items": [], "v": {"x": 1, "y": "b", "z": 2}})),
        // The part of a `vec3` is serde's to name (the typed form says the same).
        "cannot encode S_PATHS v1 in `v`: invalid type: string \"b\", expected f64"
    );
    assert_eq!(
        encode(serde_json::json!({"items": 5, "v": ok_v})),
        "cannot encode S_PATHS v1 in `items`: expected an array, got a number"
    );
}

#[test]
fn godot_typed_json_errors_clip_keys_and_values() {
    let big = "v".repeat(1 << 20);
    let text = format!(r#"{{"type": "int", "value": "{big}"}}"#);
    let e = def_runtime::godot::json::from_json_str(&text)
        .expect_err("not an integer")
        .to_string();
    assert!(e.contains("…("), "{}", &e[..200.min(e.len())]);
    assert!(e.len() < 700, "{} bytes of message", e.len());
}

/// Text that would drive a terminal: clear the screen, retitle the window, a C1 CSI, a
/// right-to-left override, a zero-width space, a byte-order mark.
const HOSTILE: &str = "a\u{1b}[2J\u{1b}]0;title\u{7}\u{9b}\u{202e}\u{200b}\u{feff}b";

/// Whether `s` holds a character the workspace's rule escapes.
fn raw_hidden(s: &str) -> Option<char> {
    s.chars().find(|&c| {
        c.is_control()
            || matches!(c, '\u{ad}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}' | '\u{2028}' | '\u{2029}')
    })
}

#[track_caller]
fn assert_inert(e: &str) {
    assert_eq!(raw_hidden(e), None, "{e:?}");
    assert!(
        e.contains("\\u{1b}[2J\\u{1b}]0;title\\u{7}\\u{9b}\\u{202e}\\u{200b}"),
        "{e}"
    );
}

#[test]
fn hidden_characters_of_a_field_name_are_escaped_in_decode_errors() {
    let def = Definition::from_text(
        "S_X.1.def",
        // A byte-order mark separates words in a `.def` line, as a space does.
        &format!("string {}\n", HOSTILE.replace('\u{feff}', "")),
        def_parser::Mode::Compatible,
    )
    .expect("compiles");
    let e = def
        .decode_json(&[6, 0, 0, 0, 0xff, 0x00], Default::default())
        .expect_err("offset out of bounds")
        .to_string();
    assert_inert(&e);
}

#[test]
fn hidden_characters_of_an_nbt_key_are_escaped_in_error_paths() {
    use def_runtime::nbt::{ReadOptions, decode};
    // Java: root compound, an int entry named HOSTILE, its value cut short.
    let mut b = vec![0x0a, 0, 0, 3];
    b.extend((HOSTILE.len() as u16).to_be_bytes());
    b.extend(HOSTILE.as_bytes());
    b.extend([0, 0]);
    let e = decode(&b, ReadOptions::new(Edition::Java))
        .map(|_| ())
        .expect_err("cut short")
        .to_string();
    assert_inert(&e);
}

#[test]
fn hidden_characters_of_a_godot_key_are_escaped_in_error_paths() {
    // Godot 4: a Dictionary of one entry, its key the String HOSTILE, its value missing.
    let mut b: Vec<u8> = Vec::new();
    for w in [27u32, 1, 4, HOSTILE.len() as u32] {
        b.extend(w.to_le_bytes());
    }
    b.extend(HOSTILE.as_bytes());
    b.resize(b.len().next_multiple_of(4), 0);
    let e = def_runtime::godot::decode(&b, DecodeOptions::new(Version::GODOT_4_4))
        .expect_err("value missing")
        .to_string();
    assert_inert(&e);
}

#[test]
fn snbt_escapes_hidden_characters_in_both_dialects_and_reads_them_back() {
    let tag = def_runtime::nbt::Tag::from(format!("{HOSTILE}\u{e0041}"));
    for dialect in [snbt::Dialect::Classic, snbt::Dialect::Modern] {
        let text = snbt::to_snbt_in(&tag, dialect).expect("writes");
        assert_eq!(raw_hidden(&text), None, "{text:?}");
        assert_eq!(
            snbt::parse_in(&text, dialect).expect("reads back"),
            tag,
            "{text}"
        );
    }
    let key = snbt::parse_root(&format!("{{\"{}\":1}}", HOSTILE.replace('\u{7}', "\\x07")))
        .expect("parses");
    let text = snbt::to_snbt(&key.tag);
    assert_eq!(raw_hidden(&text), None, "{text:?}");
}
