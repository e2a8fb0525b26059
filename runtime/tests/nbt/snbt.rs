//! SNBT of both dialects: examples of the 1.21.5 language (from the snapshot notes of 25w09a and
//! 25w10a and the wiki's description of the format, written here as facts: text → the tree
//! Minecraft makes of it), the classic language unchanged, and writing in the dialect asked.
#![cfg(feature = "nbt")]

use crate::support;

use def_runtime::nbt::snbt::{self, Dialect};
use def_runtime::nbt::{Compound, List, NbtError, NbtErrorKind, NbtFile, Tag, nbt};

fn modern(text: &str) -> Tag {
    snbt::parse_in(text, Dialect::Modern).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn modern_err(text: &str) -> (usize, String) {
    match snbt::parse_in(text, Dialect::Modern).map_err(NbtError::into_kind) {
        Err(NbtErrorKind::Snbt {
            line: 1,
            column,
            message,
        }) => (column, message),
        other => panic!("{text}: {other:?}"),
    }
}

#[test]
fn numbers_of_the_new_language() {
    let cases: &[(&str, Tag)] = &[
        // Hexadecimal and binary integers; `_` between digits.
        ("0xbad", Tag::Int(0xbad)),
        ("0b101", Tag::Int(5)),
        ("0B1_0", Tag::Int(2)),
        ("1_000_000", Tag::Int(1_000_000)),
        ("0x7FFF_FFFF", Tag::Int(i32::MAX)),
        // `s` / `u` before the type letter; hexadecimal and binary are unsigned by default.
        ("255ub", Tag::Byte(-1)),
        ("-1sb", Tag::Byte(-1)),
        ("0xFFub", Tag::Byte(-1)),
        ("0x7fsb", Tag::Byte(127)),
        ("0xFFFFFFFF", Tag::Int(-1)),
        ("0xFFFFus", Tag::Short(-1)),
        ("65535us", Tag::Short(-1)),
        ("0b1111_1111ub", Tag::Byte(-1)),
        ("0xFFFFFFFFFFFFFFFFL", Tag::Long(-1)),
        ("-9223372036854775808L", Tag::Long(i64::MIN)),
        ("-2147483648", Tag::Int(i32::MIN)),
        ("12i", Tag::Int(12)),
        ("12I", Tag::Int(12)),
        ("12S", Tag::Short(12)),
        ("12uL", Tag::Long(12)),
        // `b` is a hexadecimal digit: `0x1b` is an int.
        ("0x1b", Tag::Int(27)),
        ("0xFFb", Tag::Int(0xFFB)),
        ("0b", Tag::Byte(0)),
        ("0", Tag::Int(0)),
        // Floats: `.1`, `1.`, exponents, `_`.
        (".5", Tag::Double(0.5)),
        ("1.", Tag::Double(1.0)),
        ("-.25f", Tag::Float(-0.25)),
        ("1.5e3f", Tag::Float(1500.0)),
        ("1e-2", Tag::Double(0.01)),
        ("2E+2d", Tag::Double(200.0)),
        ("1_0.2_5", Tag::Double(10.25)),
        ("3f", Tag::Float(3.0)),
        ("3D", Tag::Double(3.0)),
        ("+7", Tag::Int(7)),
    ];
    for (text, want) in cases {
        assert_eq!(&modern(text), want, "{text}");
    }
}

#[test]
fn numbers_that_the_new_language_refuses() {
    for (text, column, what) in [
        ("01", 1, "start with 0"),
        ("1_", 2, "between digits"),
        ("1__", 3, "between digits"),
        ("-1ub", 1, "cannot be negative"),
        ("256ub", 1, "out of range"),
        ("128b", 1, "out of range"),
        ("0x100ub", 1, "out of range"),
        ("-0x10", 1, "cannot be negative"),
        ("2147483648", 1, "out of range"),
        ("123abc", 1, "may not start with a digit"),
        ("+foo", 1, "may not start with a digit"),
        ("1u", 1, "may not start with a digit"),
        ("0x", 3, "digits after the base prefix"),
        ("1.5.2", 1, "may not start"),
    ] {
        let (col, msg) = modern_err(text);
        assert!(msg.contains(what), "{text}: {msg}");
        assert_eq!(col, column, "{text}: {msg}");
    }
}

#[test]
fn strings_booleans_and_operations() {
    assert_eq!(
        modern(r#""\x41\u00e9\U0001F525\N{SNOWMAN}\N{latin small letter a}\t\s""#),
        Tag::from("Aé🔥☃a\t ")
    );
    assert_eq!(modern(r"'it\'s'"), Tag::from("it's"));
    assert_eq!(modern("Abc-def.g+h_9"), Tag::from("Abc-def.g+h_9"));
    assert!(
        snbt::parse_in("minecraft:stone", Dialect::Modern).is_err(),
        "':' needs quotes"
    );
    assert_eq!(modern("_1"), Tag::from("_1"));
    assert_eq!(modern("true"), Tag::Byte(1));
    assert_eq!(modern("false"), Tag::Byte(0));
    assert_eq!(modern("bool(1)"), Tag::Byte(1));
    assert_eq!(modern("bool(0)"), Tag::Byte(0));
    assert_eq!(modern("bool(true)"), Tag::Byte(1));
    assert_eq!(modern("bool( 0.5d )"), Tag::Byte(1));
    assert_eq!(
        modern("uuid(f81d4fae-7dec-11d0-a765-00a0c91e6bf6)"),
        Tag::IntArray(
            vec![
                0xf81d4fae_u32 as i32,
                0x7dec11d0,
                0xa76500a0_u32 as i32,
                0xc91e6bf6_u32 as i32
            ]
            .into()
        )
    );
    assert_eq!(
        modern(r#"uuid("00000000-0000-0000-0000-000000000001")"#),
        Tag::IntArray(vec![0, 0, 0, 1].into())
    );
    for (text, what) in [
        (
            r#""\N{NO SUCH CHARACTER NAME}""#,
            "unknown Unicode character name",
        ),
        (r#""\N{SNOWMAN""#, "character name and '}'"),
        ("bool(\"x\")", "takes a number"),
        ("uuid(1)", "takes a UUID"),
        ("uuid(abc)", "takes a UUID"),
        ("frobnicate(1)", "unknown operation"),
        (r#""\q""#, "unknown escape"),
    ] {
        let (_, msg) = modern_err(text);
        assert!(msg.contains(what), "{text}: {msg}");
    }
}

#[test]
fn mixed_lists_become_what_minecraft_stores() {
    // Elements of different types: every element is a compound; one that is not is wrapped as
    // {"": value}, and a compound that already has that shape is wrapped again.
    assert_eq!(
        modern(r#"[1, "a", {b: 3}, {"": 4b}, [5]]"#),
        Tag::List(List::Compound(
            vec![
                Compound::new().with("", 1i32),
                Compound::new().with("", "a"),
                Compound::new().with("b", 3i32),
                Compound::new().with("", Compound::new().with("", 4i8)),
                Compound::new().with("", List::Int(vec![5].into())),
            ]
            .into()
        ))
    );
    // Same type: a plain typed list, as before.
    assert_eq!(modern("[1b, 2b]"), nbt!([1i8, 2i8]));
    assert_eq!(modern("[[1], [\"x\"]]"), nbt!([[1i32], ["x"]]));
    // A byte and an int differ: wrapped, not widened.
    assert_eq!(
        modern("[1b, 2]"),
        Tag::List(List::Compound(
            vec![
                Compound::new().with("", 1i8),
                Compound::new().with("", 2i32),
            ]
            .into()
        ))
    );
    // Trailing commas.
    assert_eq!(
        modern("{a: [1, 2,], b: 1,}"),
        nbt!({"a": [1i32, 2i32], "b": 1i32})
    );
}

#[test]
fn arrays_take_their_type() {
    assert_eq!(modern("[B; 1, 2, 3]"), Tag::ByteArray(vec![1, 2, 3].into()));
    assert_eq!(
        modern("[I; 1b, 2s, 3]"),
        Tag::IntArray(vec![1, 2, 3].into())
    );
    assert_eq!(
        modern("[L; 1b, 0xFF, -3L, true]"),
        Tag::LongArray(vec![1, 255, -3, 1].into())
    );
    assert_eq!(
        modern("[B; 0xFFub, 255ub,]"),
        Tag::ByteArray(vec![-1, -1].into())
    );
    assert_eq!(modern("[I;]"), Tag::IntArray(vec![].into()));
    for (text, what) in [
        ("[B; 1s]", "wider type"),
        ("[I; 1L]", "wider type"),
        ("[B; 128]", "out of range"),
        ("[I; 1.5]", "wrong type"),
        ("[I; \"a\"]", "wrong type"),
    ] {
        let (_, msg) = modern_err(text);
        assert!(msg.contains(what), "{text}: {msg}");
    }
}

#[test]
fn classic_snbt_is_unchanged() {
    let classic = |t: &str| snbt::parse(t).unwrap_or_else(|e| panic!("{t}: {e}"));
    // What the old language reads differently: these are strings there.
    for word in ["123abc", "0x10", "1_000", "1ub", "123456789012"] {
        assert_eq!(classic(word), Tag::from(word), "{word}");
    }
    assert_eq!(classic("1.5"), Tag::Double(1.5));
    assert_eq!(classic("[B;1b,2b]"), Tag::ByteArray(vec![1, 2].into()));
    assert!(snbt::parse("[1, \"a\"]").is_err(), "no mixed lists");
    assert!(snbt::parse("bool(1)").is_err());
    assert!(snbt::parse("[1,]").is_err(), "no trailing comma");
    assert_eq!(
        snbt::parse_in("[1,2]", Dialect::Classic).unwrap(),
        classic("[1,2]")
    );
}

#[test]
fn writing_picks_the_dialect() {
    let t = nbt!({
        "1st": "line\nbreak",
        "-x": 1i8,
        "plain": [(f64::INFINITY), (f64::NEG_INFINITY)],
        "f": (f32::INFINITY),
        "ctl": "\u{1}",
    });
    let classic = snbt::to_snbt(&t);
    assert_eq!(
        classic,
        // Control characters are escapes our parser reads (`def_text`'s rule: never raw).
        "{1st:\"line\\u000Abreak\",-x:1b,plain:[Infinityd,-Infinityd],f:Infinityf,ctl:\"\\u0001\"}"
    );
    assert_eq!(snbt::to_snbt_in(&t, Dialect::Classic).unwrap(), classic);
    let new = snbt::to_snbt_in(&t, Dialect::Modern).unwrap();
    assert_eq!(
        new,
        r#"{"1st":"line\nbreak","-x":1b,plain:[1e999d,-1e999d],f:1e999f,ctl:"\x01"}"#
    );
    assert_eq!(modern(&new), t);
    assert_eq!(snbt::parse(&classic).unwrap(), t);
    assert!(matches!(
        snbt::to_snbt_in(&Tag::Float(f32::NAN), Dialect::Modern).map_err(NbtError::into_kind),
        Err(NbtErrorKind::Unwritable { .. })
    ));
}

#[test]
fn real_files_round_trip_through_the_new_language() {
    // Every tree of these samples prints in the 1.21.5 dialect and reads back the same.
    for name in [
        "simdnbt__bigtest.nbt",
        "simdnbt__complex_player.dat",
        "simdnbt__hypixel.nbt",
        "fastanvil__unicode.chunk",
        "valence__registry_codec.dat",
        "crabnbt__adversarial.dat",
    ] {
        let Some(path) = support::shared(&format!("nbt-samples/{name}")) else {
            return;
        };
        let f = NbtFile::decode(&std::fs::read(path).unwrap(), Default::default()).unwrap();
        let tag = &f.root().unwrap().tag;
        let text = snbt::to_snbt_in(tag, Dialect::Modern).unwrap();
        let back = modern(&text);
        // Empty lists lose their element type in any SNBT; compare with that in mind.
        assert_eq!(
            snbt::to_snbt_in(&back, Dialect::Modern).unwrap(),
            text,
            "{name}"
        );
    }
}

#[test]
fn the_classic_sample_reads_the_same_in_both_dialects() {
    // Amulet's bigtest.snbt uses nothing the two languages read differently.
    let Some(path) = support::shared("nbt-samples/amulet__bigtest.snbt") else {
        return;
    };
    let text = std::fs::read_to_string(path).unwrap();
    assert_eq!(modern(&text), snbt::parse(&text).unwrap());
}

#[test]
fn hostile_text_fails_cleanly() {
    // Deep operations count as nesting, like lists and compounds.
    let deep = format!("{}1{}", "bool(".repeat(100_000), ")".repeat(100_000));
    let (_, msg) = modern_err(&deep);
    assert!(msg.contains("nested too deeply"), "{msg}");
    let deep = format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000));
    assert!(snbt::parse_in(&deep, Dialect::Modern).is_err());
    // Huge numbers and long digit runs: an error, not a panic.
    let long = "9".repeat(100_000);
    assert!(modern_err(&long).1.contains("too large"));
    assert!(modern_err(&format!("0x{long}")).1.contains("too large"));
    let (_, msg) = modern_err(&format!("\"\\N{{{}}}\"", "A".repeat(10_000)));
    assert!(msg.contains("character name"), "{msg}");
}

#[test]
fn pretty_printing_indents_by_hand_written_examples() {
    let t = nbt!({
        "name": "Steve",
        "Pos": [1.5f64, 64.0f64],
        "inv": [{"id": "minecraft:stone", "n": 3i8}, {}],
        "grid": [[1i32, 2i32], []],
        "arrs": (vec![1i32, -2i32]),
        "none": [],
        "1st": "tab\tend",
    });
    let classic = "{
    name: \"Steve\",
    Pos: [1.5d, 64.0d],
    inv: [
        {
            id: \"minecraft:stone\",
            n: 3b
        },
        {}
    ],
    grid: [
        [1, 2],
        []
    ],
    arrs: [I; 1, -2],
    none: [],
    1st: \"tab\\u0009end\"
}";
    assert_eq!(snbt::to_snbt_pretty(&t, Dialect::Classic).unwrap(), classic);
    // The 1.21.5 dialect: a key that starts like a number is quoted, controls take short escapes.
    let modern_text = classic.replace("1st: \"tab\\u0009end\"", "\"1st\": \"tab\\tend\"");
    assert_eq!(
        snbt::to_snbt_pretty(&t, Dialect::Modern).unwrap(),
        modern_text
    );
    assert_eq!(
        snbt::to_snbt_pretty(&nbt!({}), Dialect::Classic).unwrap(),
        "{}"
    );
    // Indentation stops growing at 16 levels: 500 levels of compounds stay a small text.
    let mut deep = nbt!({"x": 1i8});
    for _ in 0..499 {
        deep = Tag::Compound(Compound::from_entries(vec![("a".into(), deep)]));
    }
    let text = snbt::to_snbt_pretty(&deep, Dialect::Classic).unwrap();
    let widest = text.lines().map(|l| l.len() - l.trim_start().len()).max();
    assert_eq!(widest, Some(64));
    assert!(text.len() < 80 * 1000, "{} bytes", text.len());
    assert_eq!(snbt::parse(&text).unwrap(), deep);
    assert_eq!(
        snbt::to_snbt_pretty(&Tag::Int(7), Dialect::Classic).unwrap(),
        "7"
    );
    // Keys and strings go through the same escaping as the compact form: no raw control,
    // format or bidirectional character reaches a terminal.
    let hostile = nbt!({"\u{1b}[2J\u{202e}": "\u{7}\r"});
    for d in [Dialect::Classic, Dialect::Modern] {
        let text = snbt::to_snbt_pretty(&hostile, d).unwrap();
        assert!(
            !text.chars().any(|c| def_text::is_hidden(c) && c != '\n'),
            "{text:?}"
        );
        assert_eq!(snbt::parse_in(&text, d).unwrap(), hostile);
    }
    assert!(matches!(
        snbt::to_snbt_pretty(&nbt!({"x": [(f32::NAN)]}), Dialect::Modern)
            .map_err(NbtError::into_kind),
        Err(NbtErrorKind::Unwritable { .. })
    ));
}

/// `tag` with every empty list untyped: SNBT cannot write an empty list's element type.
fn untype_empty_lists(tag: &mut Tag) {
    fn list(l: &mut List) {
        if l.is_empty() {
            *l = List::End;
            return;
        }
        match l {
            List::List(v) => v.iter_mut().for_each(list),
            List::Compound(v) => v.iter_mut().for_each(compound),
            _ => {}
        }
    }
    fn compound(c: &mut Compound) {
        for (_, v) in c.entries_mut() {
            untype_empty_lists(v);
        }
    }
    match tag {
        Tag::List(l) => list(l),
        Tag::Compound(c) => compound(c),
        _ => {}
    }
}

/// `text` without the whitespace outside quoted strings.
fn squeeze(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut quote = None;
    let mut escaped = false;
    for c in text.chars() {
        match quote {
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == q {
                    quote = None;
                }
                out.push(c);
            }
            None if c.is_ascii_whitespace() => {}
            None => {
                if c == '"' || c == '\'' {
                    quote = Some(c);
                }
                out.push(c);
            }
        }
    }
    out
}

#[test]
fn pretty_snbt_of_every_sample_parses_back_to_its_tree() {
    use def_runtime::nbt::dump::{self, Json};
    use def_runtime::nbt::region;
    let Some(dir) = support::shared("nbt-samples") else {
        return;
    };
    let names = crate::nbt_samples::dump_names(&dir);
    let mut trees = 0;
    for name in &names {
        // The trees come from the independent dumps, not from our binary reader.
        let j = Json::parse(&std::fs::read_to_string(dir.join(name)).unwrap()).unwrap();
        let meta = j.get("meta").unwrap();
        if meta.get("result").and_then(Json::as_str).as_deref() != Some("ok") {
            continue;
        }
        let roots: Vec<Tag> =
            if meta.get("kind").and_then(Json::as_str).as_deref() == Some("region") {
                region::from_json(&j)
                    .unwrap()
                    .chunks
                    .iter()
                    .map(|c| c.nbt().unwrap().roots[0].tag.clone())
                    .collect()
            } else {
                dump::roots_from_json(&j)
                    .unwrap_or_else(|e| panic!("{name}: {e}"))
                    .into_iter()
                    .map(|r| r.tag)
                    .collect()
            };
        for tag in roots {
            let mut want = tag.clone();
            untype_empty_lists(&mut want);
            for d in [Dialect::Classic, Dialect::Modern] {
                let text = match snbt::to_snbt_pretty(&tag, d) {
                    Ok(t) => t,
                    Err(e)
                        if d == Dialect::Modern
                            && matches!(e.kind(), NbtErrorKind::Unwritable { .. }) =>
                    {
                        continue;
                    }
                    Err(e) => panic!("{name}: {e}"),
                };
                let mut back =
                    snbt::parse_in(&text, d).unwrap_or_else(|e| panic!("{name} {d:?}: {e}"));
                untype_empty_lists(&mut back);
                assert!(
                    back == want,
                    "{name} {d:?}: the pretty text reads back differently"
                );
                // Only whitespace outside strings differs from the compact form.
                assert_eq!(
                    squeeze(&text),
                    snbt::to_snbt_in(&tag, d).unwrap(),
                    "{name} {d:?}"
                );
            }
            trees += 1;
        }
    }
    assert!(trees > 6000, "{trees} trees checked");
}
