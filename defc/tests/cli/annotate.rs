//! `defc annotate`, `explain` and `diff` on packets made by hand from LAYOUT.md's rules for
//! `S_EXAMPLE.1.def` (`int32 level`, `string name`, `array items` of `uint32 id`, `int16
//! amount`), and `annotate` on golden vectors (values against the vectors' objects).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::run::defc;
use crate::support;

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../protocol-defs/data/definitions/S_EXAMPLE.1.def")
}

/// An S_EXAMPLE packet by hand: the body holds the name's offset, the items' count and offset,
/// then `level`; then the name (UTF-16LE, 0-terminated), then each element (here, next, id,
/// amount).
fn packet(level: i32, name: &str, items: &[(u32, i16)], trailing: &[u8]) -> String {
    let text: Vec<u8> = name
        .encode_utf16()
        .chain([0])
        .flat_map(u16::to_le_bytes)
        .collect();
    let name_at = 14u16;
    let first = if items.is_empty() {
        0
    } else {
        name_at + text.len() as u16
    };
    let mut b = vec![0, 0, 0x34, 0x12];
    b.extend(name_at.to_le_bytes());
    b.extend((items.len() as u16).to_le_bytes());
    b.extend(first.to_le_bytes());
    b.extend(level.to_le_bytes());
    b.extend(&text);
    for (i, (id, amount)) in items.iter().enumerate() {
        let here = b.len() as u16;
        let next = if i + 1 < items.len() { here + 10 } else { 0 };
        b.extend(here.to_le_bytes());
        b.extend(next.to_le_bytes());
        b.extend(id.to_le_bytes());
        b.extend(amount.to_le_bytes());
    }
    b.extend(trailing);
    let len = (b.len() as u16).to_le_bytes();
    b[..2].copy_from_slice(&len);
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[test]
fn annotate_labels_every_range() {
    let hex = packet(7, "Al", &[(1, -2)], &[]);
    // Worked out by hand: header, name offset 14, one item at 20, level 7, "Al", the element.
    assert_eq!(
        hex,
        "1e003412\
         0e00\
         0100\
         1400\
         07000000\
         41006c000000\
         1400\
         0000\
         01000000\
         feff"
    );
    let out = defc(&[
        "annotate",
        "--def",
        example().to_str().unwrap(),
        "--strict",
        "--json",
        &hex,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let got: Vec<(u64, u64, String, String, Value)> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["start"].as_u64().unwrap(),
                r["end"].as_u64().unwrap(),
                r["path"].as_str().unwrap_or("").to_string(),
                r["kind"].as_str().unwrap().to_string(),
                r["value"].clone(),
            )
        })
        .collect();
    let n = Value::Null;
    let want: Vec<(u64, u64, String, String, Value)> = [
        (0, 2, "header", "length", n.clone()),
        (2, 4, "header", "opcode", n.clone()),
        (4, 6, "name", "offset", n.clone()),
        (6, 8, "items", "count", n.clone()),
        (8, 10, "items", "offset", n.clone()),
        (10, 14, "level", "int32", 7.into()),
        (14, 20, "name", "string", "Al".into()),
        (20, 22, "items[0]", "here", n.clone()),
        (22, 24, "items[0]", "next", n.clone()),
        (24, 28, "items[0].id", "uint32", 1.into()),
        (28, 30, "items[0].amount", "int16", (-2).into()),
    ]
    .into_iter()
    .map(|(a, b, p, k, v)| (a, b, p.to_string(), k.to_string(), v))
    .collect();
    assert_eq!(got, want);
}

#[test]
fn annotate_flags_unread_bytes_and_colours_on_request() {
    let hex = packet(7, "Al", &[], &[0xaa, 0xbb]);
    let def = example();
    let def = def.to_str().unwrap();
    let plain = defc(&["annotate", "--def", def, "--color", "never", &hex]);
    assert!(plain.status.success());
    let text = String::from_utf8(plain.stdout).unwrap();
    assert!(!text.contains('\x1b'), "{text}");
    let last = text.lines().last().unwrap();
    assert!(last.starts_with("0014..0016  aa bb"), "{last}");
    assert!(last.contains("unread"), "{last}");
    // Not a terminal: plain by default.
    let auto = defc(&["annotate", "--def", def, &hex]);
    assert_eq!(String::from_utf8(auto.stdout).unwrap(), text);
    let coloured = defc(&["annotate", "--def", def, "--color", "always", &hex]);
    assert!(
        String::from_utf8(coloured.stdout)
            .unwrap()
            .contains("\x1b[31m")
    );
    // Strict: the trailing bytes are an error that says where.
    let strict = defc(&["annotate", "--def", def, "--strict", &hex]);
    assert!(!strict.status.success());
    assert!(String::from_utf8_lossy(&strict.stderr).contains("20"));
}

#[test]
fn annotate_control_characters_are_escaped() {
    let hex = packet(0, "a\u{1b}[31m\u{9b}", &[], &[]);
    let out = defc(&[
        "annotate",
        "--def",
        example().to_str().unwrap(),
        "--color",
        "never",
        &hex,
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains('\x1b') && !text.contains('\u{9b}'), "{text}");
    assert!(
        text.contains("\\u{1b}") || text.contains("\\u001b"),
        "{text}"
    );
}

#[test]
fn annotate_golden_vectors() {
    let Some((text, defs)) = support::public_vectors() else {
        return;
    };
    // One vector out of every 400, all kinds of definitions.
    for line in text.lines().step_by(400) {
        let v: Value = serde_json::from_str(line).unwrap();
        let def = defs.join(v["def"].as_str().unwrap());
        let mut args = vec![
            "annotate",
            "--def",
            def.to_str().unwrap(),
            "--strict",
            "--json",
        ];
        if v["padding"].as_bool().unwrap() {
            args.push("--padding");
        }
        args.push(v["hex"].as_str().unwrap());
        let out = defc(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let ranges: Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut end = 0;
        for r in ranges.as_array().unwrap() {
            assert_ne!(r["kind"], "unread", "{line}");
            assert_eq!(
                r["start"].as_u64().unwrap(),
                end,
                "ranges follow each other"
            );
            end = r["end"].as_u64().unwrap();
            if !r["value"].is_null() {
                let mut want = &v["object"];
                for part in r["path"].as_str().unwrap().split('.') {
                    let (name, idx) = match part.split_once('[') {
                        Some((n, i)) => {
                            (n, Some(i.trim_end_matches(']').parse::<usize>().unwrap()))
                        }
                        None => (part, None),
                    };
                    want = &want[name];
                    if let Some(i) = idx {
                        want = &want[i];
                    }
                }
                assert_eq!(&r["value"], want, "{}", r["path"]);
            }
        }
        assert_eq!(end as usize * 2, v["hex"].as_str().unwrap().len());
    }
}

#[test]
fn diff_reports_changes_and_added_elements() {
    let def = example();
    let def = def.to_str().unwrap();
    let a = packet(7, "Al", &[(1, -2), (3, 4)], &[]);
    let b = packet(8, "Al", &[(1, -2), (9, 9), (3, 4)], &[]);
    let out = defc(&["diff", "--def", def, &a, &b]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "~ level: 7 -> 8\n+ items[1]: {\"id\":9,\"amount\":9}\n"
    );
    let out = defc(&["diff", "--def", def, &b, &a]);
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "~ level: 8 -> 7\n- items[1]: {\"id\":9,\"amount\":9}\n"
    );
    let c = packet(7, "Bo", &[(1, -2), (3, 5)], &[]);
    let out = defc(&["diff", "--def", def, &a, &c]);
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "~ name: \"Al\" -> \"Bo\"\n~ items[1].amount: 4 -> 5\n"
    );
    let same = defc(&["diff", "--def", def, &a, &a]);
    assert_eq!(same.status.code(), Some(0));
    assert!(same.stdout.is_empty());
    let bad = defc(&["diff", "--def", def, &a, "zz"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("second packet"));
}

#[test]
fn annotate_wraps_long_ranges_at_16_bytes() {
    // "abcdefghij": 10 units and the terminator, 22 bytes from offset 14.
    let hex = packet(1, "abcdefghij", &[], &[]);
    let out = defc(&["annotate", "--def", example().to_str().unwrap(), &hex]);
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("000e..0024"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        lines[at].starts_with("000e..0024  61 00 62 00 63 00 64 00 65 00 66 00 67 00 68 00  name")
    );
    assert!(lines[at].ends_with("\"abcdefghij\""), "{}", lines[at]);
    assert_eq!(lines[at + 1], "001e        69 00 6a 00 00 00");
}

/// Field names holding `.` and `[` (compatible mode reads them; the reference cannot) are one
/// step each: `annotate`'s value column finds every value, its path column and `diff`'s paths
/// quote such names, and the JSON form gives the same paths.
#[test]
fn names_holding_dots_and_brackets_show_their_values() {
    let dir = std::env::temp_dir().join(format!("defc_dot_names_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let def = dir.join("S_DOT.1.def");
    std::fs::write(
        &def,
        "int32 a.b\nint32 c[1]\nstring s.t[0]\narray x.y\n- int16 q[2].r\nobject o.p\n- int32 z.w\n",
    )
    .unwrap();
    let def = def.to_str().unwrap();
    let encode = |json: &str| {
        let out = defc(&["encode", "--def", def, json]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    };
    let a = encode(
        r#"{"a.b":7,"c[1]":8,"s.t[0]":"hi","x.y":[{"q[2].r":3},{"q[2].r":4}],"o.p":{"z.w":9}}"#,
    );
    let b = encode(
        r#"{"a.b":7,"c[1]":5,"s.t[0]":"ho","x.y":[{"q[2].r":3},{"q[2].r":6}],"o.p":{"z.w":-9}}"#,
    );
    let out = defc(&["annotate", "--def", def, "--color", "never", &a]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    // Each value line ends in its path (the column as wide as the widest, 17), its type and
    // its value.
    let want = [
        ("\"a.b\"", "int32      7"),
        ("\"c[1]\"", "int32      8"),
        ("\"s.t[0]\"", "string     \"hi\""),
        ("\"x.y\"[0].\"q[2].r\"", "int16      3"),
        ("\"x.y\"[1].\"q[2].r\"", "int16      4"),
        ("\"o.p\".\"z.w\"", "int32      9"),
    ];
    for (path, rest) in want {
        let line = format!("  {path:<17}  {rest}");
        assert_eq!(
            text.lines().filter(|l| l.ends_with(&line)).count(),
            1,
            "{line:?} in\n{text}"
        );
    }
    // The JSON form: the same paths and values.
    let out = defc(&["annotate", "--def", def, "--json", &a]);
    let ranges: Value = serde_json::from_slice(&out.stdout).unwrap();
    let values: Vec<(String, Value)> = ranges
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| !r["value"].is_null())
        .map(|r| (r["path"].as_str().unwrap().to_string(), r["value"].clone()))
        .collect();
    assert_eq!(
        values,
        [
            ("\"a.b\"", 7.into()),
            ("\"c[1]\"", 8.into()),
            ("\"s.t[0]\"", "hi".into()),
            ("\"x.y\"[0].\"q[2].r\"", 3.into()),
            ("\"x.y\"[1].\"q[2].r\"", 4.into()),
            ("\"o.p\".\"z.w\"", 9.into()),
        ]
        .map(|(p, v): (&str, Value)| (p.to_string(), v))
    );
    let out = defc(&["diff", "--def", def, &a, &b]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "~ \"c[1]\": 8 -> 5\n~ \"s.t[0]\": \"hi\" -> \"ho\"\n~ \"x.y\"[1].\"q[2].r\": 4 -> 6\n\
         ~ \"o.p\".\"z.w\": 9 -> -9\n"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
