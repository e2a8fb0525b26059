//! What the reference's writer made of a few definitions of def-parser's grammar table
//! (docs/grammar.md), as bytes: the shapes where the wire order depends on how the grammar is
//! read (an `array<int32>` written with spaces inside its brackets, interleaved arrays at one
//! level, in one object, in an object declared twice, beside an object). Each packet was written
//! by tera-data-parser's compiled writer from the JSON beside it (opcode 0); we must write the
//! same bytes and read the same JSON back.

#![cfg(feature = "dynamic")]

use def_parser::Mode;
use def_runtime::tera::Options;
use def_runtime::tera::dynamic::{Definition, Missing};
use hex::{decode as from_hex, encode as to_hex};

/// (definition, JSON, the reference writer's packet)
const WRITTEN: &[(&str, &str, &str)] = &[
    (
        "array< int32 >[ interleaved ] a\nint32 b\n",
        r#"{"a":[11],"b":7}"#,
        "1400000001000800080000000b00000007000000",
    ),
    (
        "array[interleaved] a\n- int32 x\narray<int16>[interleaved] b\n",
        r#"{"a":[{"x":1},{"x":2}],"b":[3]}"#,
        "2200000002000c00010014000c001a00010000001400000003001a00000002000000",
    ),
    (
        // Interleaved arrays of the level and of an object stand in different lists: the
        // reference writes them one after the other.
        "array[interleaved] a\n- int32 x\nobject o\n- array[interleaved] b\n-- int16 z\n",
        r#"{"a":[{"x":1},{"x":2}],"o":{"b":[{"z":3},{"z":4}]}}"#,
        "2800000002000c0002001c000c0014000100000014000000020000001c0022000300220000000400",
    ),
    (
        "object o\n- array[interleaved] a\n-- int32 x\n- array[interleaved] b\n-- int16 z\n",
        r#"{"o":{"a":[{"x":1},{"x":2}],"b":[{"z":3},{"z":4}]}}"#,
        "2800000002000c00020014000c001a00010000001400220003001a00000002000000220000000400",
    ),
    (
        // One object declared twice is two lists to the reference's writer.
        "object o\n- array[interleaved] a\n-- int32 x\nobject o\n- array[interleaved] b\n-- int16 z\n",
        r#"{"o":{"a":[{"x":1},{"x":2}],"b":[{"z":3},{"z":4}]}}"#,
        "2800000002000c0002001c000c0014000100000014000000020000001c0022000300220000000400",
    ),
    (
        // A dropped `count` line and a skipped line leave the arrays neighbours.
        "array[interleaved] a\n- int32 x\ncount b\nnot a field line\narray[interleaved] b\n- int16 z\n",
        r#"{"a":[{"x":1},{"x":2}],"b":[{"z":3},{"z":4}]}"#,
        "2800000002000c00020014000c001a00010000001400220003001a00000002000000220000000400",
    ),
    (
        "array[interleaved] a\n- int32 x\nint16 y\n",
        r#"{"a":[{"x":1},{"x":2}],"y":5}"#,
        "1a00000002000800080010000100000010000000020000000500",
    ),
];

#[test]
fn we_write_what_the_reference_writes() {
    for (text, json, hex) in WRITTEN {
        let def = Definition::from_text("T_WIRE.1.def", text, Mode::Compatible)
            .unwrap_or_else(|e| panic!("{text}\n{e}"));
        let value: serde_json::Value = serde_json::from_str(json).unwrap();
        let want = from_hex(hex).unwrap();
        let got = def
            .encode(&value, 0, Options::new(), Missing::Error)
            .unwrap();
        assert_eq!(to_hex(&got), *hex, "{text}");
        assert_eq!(
            def.decode_json(&want, Options::new()).unwrap(),
            value,
            "{text}"
        );
    }
}
