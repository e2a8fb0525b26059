//! `tera::spans` over every golden vector: the reference writer reads each byte of its packets
//! once, so the spans cover every byte exactly once; every value and string span names a path
//! of the vector's golden object, and a string span's bytes are that string in UTF-16LE with its
//! terminator. A hand-made packet checks the labels and kinds one by one.

#![cfg(feature = "dynamic")]

use crate::support;

use std::collections::HashMap;

use def_runtime::PathSegment;
use def_runtime::tera::Options;
use def_runtime::tera::dynamic::Definition;
use def_runtime::tera::spans::{SpanKind, path_text, spans};
use hex::decode as from_hex;
use serde_json::Value;

#[test]
fn spans_cover_every_golden_packet_once() {
    let Some((text, defs_dir)) = support::public_vectors() else {
        return;
    };
    let mut defs: HashMap<String, Definition> = HashMap::new();
    let mut checked = 0;
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let name = v["def"].as_str().unwrap().to_string();
        let def = defs.entry(name.clone()).or_insert_with(|| {
            Definition::from_file(&defs_dir.join(&name), def_parser::Mode::Compatible).unwrap()
        });
        let opts = Options::new()
            .padding(v["padding"].as_bool().unwrap())
            .strict(true);
        let bytes = from_hex(v["hex"].as_str().unwrap()).unwrap();
        let ss = spans(def.layout(), &bytes, opts).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut seen = vec![0u8; bytes.len()];
        for s in &ss {
            for b in &mut seen[s.start..s.end] {
                *b += 1;
            }
            match s.kind {
                SpanKind::Value(_) | SpanKind::Text | SpanKind::Bytes => {
                    let want = s.json_value(&v["object"]).unwrap_or_else(|| {
                        panic!("{name}: no `{}` in the object", path_text(&s.path))
                    });
                    if s.kind == SpanKind::Text {
                        let mut units: Vec<u8> = want
                            .as_str()
                            .unwrap()
                            .encode_utf16()
                            .flat_map(u16::to_le_bytes)
                            .collect();
                        units.extend([0, 0]);
                        assert_eq!(&bytes[s.start..s.end], &units[..], "{name} {:?}", s.path);
                    }
                    if s.kind == SpanKind::Bytes {
                        assert_eq!(want.as_str().unwrap(), hex::encode(&bytes[s.start..s.end]));
                    }
                }
                _ => {}
            }
        }
        assert!(
            seen.iter().all(|&n| n == 1),
            "{name}: bytes covered {:?} times",
            seen
        );
        checked += 1;
    }
    assert!(checked > 16_000, "{checked} vectors");
}

#[test]
fn hand_made_packet() {
    let def = Definition::from_text(
        "S_HAND.1.def",
        "int32 level\nstring name\narray items\n- uint16 id\n",
        def_parser::Mode::Compatible,
    )
    .unwrap();
    // Header (len 27, opcode 7); body: name offset, items count/offset, level; "A" + 0; two
    // bytes nothing reads; one element at 20: here 20, next 0, id 0x0102; one trailing byte.
    let bytes = [
        27, 0, 7, 0, // header
        14, 0, // name offset (14)
        1, 0, 20, 0, // items: count 1, offset 20
        5, 0, 0, 0, // level
        b'A', 0, 0, 0, // "A"
        0xee, 0xee, // not read
        20, 0, 0, 0, 2, 1,    // element: here 20, next 0, id
        0xff, // not read
    ];
    let want = [
        (0, 2, "header", SpanKind::Length),
        (2, 4, "header", SpanKind::Opcode),
        (4, 6, "name", SpanKind::Offset),
        (6, 8, "items", SpanKind::Count),
        (8, 10, "items", SpanKind::Offset),
        (
            10,
            14,
            "level",
            SpanKind::Value(def_parser::ast::Scalar::Int32),
        ),
        (14, 18, "name", SpanKind::Text),
        (20, 22, "items[0]", SpanKind::Here),
        (22, 24, "items[0]", SpanKind::Next),
        (
            24,
            26,
            "items[0].id",
            SpanKind::Value(def_parser::ast::Scalar::UInt16),
        ),
    ];
    let ss = spans(def.layout(), &bytes, Options::new()).unwrap();
    let got: Vec<_> = ss
        .iter()
        .map(|s| (s.start, s.end, path_text(&s.path), s.kind))
        .collect();
    let want: Vec<_> = want
        .into_iter()
        .map(|(a, b, p, k)| (a, b, p.to_string(), k))
        .collect();
    assert_eq!(got, want);
    // Strict: the last byte is read by nothing.
    assert!(spans(def.layout(), &bytes, Options::new().strict(true)).is_err());
    assert!(spans(def.layout(), &bytes[..3], Options::new()).is_err());
}

/// The walk accepts exactly what the dynamic codec accepts: every golden packet of a sample, with
/// each byte in turn changed (and cut short at each length), strict and lenient.
#[test]
fn spans_and_the_codec_agree_on_damaged_packets() {
    let Some((text, defs_dir)) = support::public_vectors() else {
        return;
    };
    let mut defs: HashMap<String, Definition> = HashMap::new();
    let mut tried = 0;
    for line in text.lines().step_by(40) {
        let v: Value = serde_json::from_str(line).unwrap();
        let name = v["def"].as_str().unwrap().to_string();
        let def = defs.entry(name.clone()).or_insert_with(|| {
            Definition::from_file(&defs_dir.join(&name), def_parser::Mode::Compatible).unwrap()
        });
        let bytes = from_hex(v["hex"].as_str().unwrap()).unwrap();
        let padding = v["padding"].as_bool().unwrap();
        let mut cases: Vec<Vec<u8>> = (0..bytes.len().min(96))
            .map(|i| {
                let mut b = bytes.clone();
                b[i] = b[i].wrapping_add(0x41);
                b
            })
            .collect();
        cases.extend((0..bytes.len().min(96)).map(|n| bytes[..n].to_vec()));
        for b in &cases {
            for strict in [false, true] {
                let opts = Options::new().padding(padding).strict(strict);
                let codec = def.decode(b, opts);
                let walk = spans(def.layout(), b, opts);
                assert_eq!(
                    walk.is_ok(),
                    codec.is_ok(),
                    "{name} strict={strict} {}: codec {:?}, spans {:?}",
                    hex::encode(b),
                    codec.err().map(|e| e.to_string()),
                    walk.err().map(|e| e.to_string())
                );
                tried += 1;
            }
        }
    }
    assert!(tried > 10_000, "{tried}");
}

/// Field names holding `.` and `[` (the reference cannot read them; compatible mode can) are one
/// step each: every value span finds its own value in the decoded object, and the path text
/// quotes such names so that it reads back as the same steps.
#[test]
fn names_holding_dots_and_brackets_are_one_step() {
    let def = Definition::from_text(
        "S_DOT.1.def",
        "int32 a.b\nint32 c[1]\nstring s.t[0]\narray x.y\n- int16 q[2].r\nobject o.p\n- int32 z.w\n",
        def_parser::Mode::Compatible,
    )
    .unwrap();
    // {"a.b": 7, "c[1]": 8, "s.t[0]": "hi", "x.y": [{"q[2].r": 3}, {"q[2].r": 4}],
    // "o.p": {"z.w": 9}}, as `defc encode` writes it.
    let bytes = from_hex(
        "28000000120002001800070000000800000068006900000018001e0003001e000000040009000000",
    )
    .unwrap();
    let decoded = def.decode_json(&bytes, Options::new()).unwrap();
    let ss = spans(def.layout(), &bytes, Options::new()).unwrap();
    let mut values = Vec::new();
    for s in &ss {
        if matches!(s.kind, SpanKind::Value(_) | SpanKind::Text) {
            let v = s.json_value(&decoded);
            values.push((path_text(&s.path), v.cloned()));
        }
    }
    let field = |n: &str| PathSegment::Field(n.to_string().into());
    let want = [
        ("\"a.b\"", serde_json::json!(7)),
        ("\"c[1]\"", serde_json::json!(8)),
        ("\"s.t[0]\"", serde_json::json!("hi")),
        ("\"x.y\"[0].\"q[2].r\"", serde_json::json!(3)),
        ("\"x.y\"[1].\"q[2].r\"", serde_json::json!(4)),
        ("\"o.p\".\"z.w\"", serde_json::json!(9)),
    ];
    for (path, value) in want {
        assert!(
            values.contains(&(path.to_string(), Some(value.clone()))),
            "{path} = {value} not in {values:?}"
        );
    }
    assert_eq!(values.len(), 6, "{values:?}");
    // The steps themselves: a field in an object is two, an element one more.
    let q = ss
        .iter()
        .find(|s| s.kind == SpanKind::Value(def_parser::ast::Scalar::Int16))
        .unwrap();
    assert_eq!(
        q.path,
        [field("x.y"), PathSegment::Index(0), field("q[2].r")]
    );
    assert_eq!(
        path_text(&[field(""), field(r#"a"b\c"#)]),
        r#"""."a\"b\\c""#
    );
}
