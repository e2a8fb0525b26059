//! Hostile NBT beyond `nbt/limits.rs` (which covers 100 000 Java levels, huge Java lengths and the
//! bomb cap for each compression): every flavour and root form, both readers, exact error kinds,
//! configurable limits, and malformed (Modified) UTF-8. Figures in docs/reliability.md.
#![cfg(feature = "nbt")]

use def_runtime::nbt::borrow::{BorrowedNbt, StrRef, TagRef};
use def_runtime::nbt::{
    Compound, Compression, Edition, FileOptions, MAX_DEPTH_CAP, Nbt, NbtError, NbtErrorKind,
    NbtFile, ReadOptions, RootForm, compress, decode,
};

const FLAVOURS: [Edition; 3] = [Edition::Java, Edition::Bedrock, Edition::BedrockNetwork];

/// A string length in `ed`.
fn str_len(ed: Edition, n: usize) -> Vec<u8> {
    match ed {
        Edition::Java => (n as u16).to_be_bytes().to_vec(),
        Edition::Bedrock => (n as u16).to_le_bytes().to_vec(),
        _ => {
            assert!(n < 128);
            vec![n as u8]
        }
    }
}

/// A list or array length in `ed` (zigzag varint in the network flavour).
fn seq_len(ed: Edition, n: i32) -> Vec<u8> {
    match ed {
        Edition::Java => n.to_be_bytes().to_vec(),
        Edition::Bedrock => n.to_le_bytes().to_vec(),
        _ => {
            let mut z = ((n << 1) ^ (n >> 31)) as u32;
            let mut v = Vec::new();
            loop {
                let b = (z & 0x7f) as u8;
                z >>= 7;
                if z == 0 {
                    v.push(b);
                    return v;
                }
                v.push(b | 0x80);
            }
        }
    }
}

/// The start of a root compound (named "" or nameless).
fn root(ed: Edition, form: RootForm) -> Vec<u8> {
    let mut v = vec![10];
    if form == RootForm::Named {
        v.extend(str_len(ed, 0));
    }
    v
}

/// A named entry head: type id and a one-letter name.
fn entry(ed: Edition, id: u8) -> Vec<u8> {
    let mut v = vec![id];
    v.extend(str_len(ed, 1));
    v.push(b'x');
    v
}

fn read_both(data: &[u8], o: ReadOptions) -> (NbtError, NbtError) {
    let a = decode(data, o).map(|_| ()).unwrap_err();
    let b = BorrowedNbt::decode(data, o).map(|_| ()).unwrap_err();
    (a, b)
}

/// 100 000 nested compounds, or lists of lists, in every flavour and root form.
fn deep(ed: Edition, form: RootForm, lists: bool, levels: usize) -> Vec<u8> {
    let mut v = root(ed, form);
    if lists {
        v.extend(entry(ed, 9));
        for _ in 0..levels {
            v.push(9);
            v.extend(seq_len(ed, 1));
        }
    } else {
        for _ in 0..levels {
            v.extend(entry(ed, 10));
        }
    }
    v
}

#[test]
fn hundred_thousand_levels_in_every_flavour_stop_at_the_limit() {
    std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(|| {
            for ed in FLAVOURS {
                for form in [RootForm::Named, RootForm::Nameless] {
                    for lists in [false, true] {
                        let data = deep(ed, form, lists, 100_000);
                        let o = ReadOptions::new(ed).root(form);
                        let (a, b) = read_both(&data, o);
                        for e in [&a, &b] {
                            assert!(
                                matches!(e.kind(), NbtErrorKind::TooDeep { max: 512, .. }),
                                "{ed:?} {form:?} lists={lists}: {e:?}"
                            );
                        }
                        assert_eq!(a.offset(), b.offset(), "{ed:?} {form:?}");
                    }
                }
            }
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn depth_limit_is_configurable_and_capped() {
    let data = deep(Edition::Java, RootForm::Named, false, 100_000);
    let o = ReadOptions::new(Edition::Java).max_depth(16);
    let (a, b) = read_both(&data, o);
    assert!(
        matches!(a.kind(), NbtErrorKind::TooDeep { max: 16, .. }),
        "{a:?}"
    );
    assert!(
        matches!(b.kind(), NbtErrorKind::TooDeep { max: 16, .. }),
        "{b:?}"
    );
    // A limit above the cap is lowered to it: the stack stays bounded whatever the caller asks.
    let o = ReadOptions::new(Edition::Java).max_depth(usize::MAX);
    let (a, b) = read_both(&data, o);
    assert!(
        matches!(a.kind(), NbtErrorKind::TooDeep { max, .. } if *max == MAX_DEPTH_CAP),
        "{a:?}"
    );
    assert!(
        matches!(b.kind(), NbtErrorKind::TooDeep { max, .. } if *max == MAX_DEPTH_CAP),
        "{b:?}"
    );
}

#[test]
fn declared_length_of_2_pow_31_fails_before_allocating() {
    // i32::MAX (2^31 - 1) is the largest length NBT can declare; 2^31 itself is negative.
    for ed in FLAVOURS {
        for (what, head, per) in [
            ("byte array", vec![7u8], 1u64),
            ("int array", vec![11], 4),
            ("long array", vec![12], 8),
            ("list of ints", vec![9, 3], 4),
            ("list of longs", vec![9, 4], 8),
            ("list of compounds", vec![9, 10], 1),
            ("list of strings", vec![9, 8], 2),
        ] {
            let mut data = root(ed, RootForm::Named);
            data.extend(entry(ed, head[0]));
            data.extend(&head[1..]);
            data.extend(seq_len(ed, i32::MAX));
            data.extend([1, 2, 3, 4, 5, 6, 7, 8]);
            let (a, b) = read_both(&data, ReadOptions::new(ed));
            for e in [&a, &b] {
                match e.kind() {
                    NbtErrorKind::LengthTooLarge {
                        len,
                        needed,
                        remaining,
                        ..
                    } => {
                        assert_eq!(*len, i32::MAX as i64, "{ed:?} {what}");
                        // At least a byte per element (varint flavour), else the element size.
                        let least = if ed == Edition::BedrockNetwork {
                            1
                        } else {
                            per
                        };
                        assert!(*needed >= least * i32::MAX as u64, "{ed:?} {what}: {e}");
                        assert_eq!(*remaining, 8, "{ed:?} {what}: {e}");
                    }
                    _ => panic!("{ed:?} {what}: {e:?}"),
                }
            }
            // 2^31 wraps to a negative i32: refused as such.
            let mut data = root(ed, RootForm::Named);
            data.extend(entry(ed, head[0]));
            data.extend(&head[1..]);
            data.extend(seq_len(ed, i32::MIN));
            data.extend([1, 2, 3, 4]);
            let (a, b) = read_both(&data, ReadOptions::new(ed));
            for e in [&a, &b] {
                assert!(
                    matches!(e.kind(), NbtErrorKind::NegativeLength { len, .. } if *len == i32::MIN as i64),
                    "{ed:?} {what}: {e:?}"
                );
            }
        }
    }
}

/// A Java file holding one byte array of `n` zeros.
fn zeros_nbt(n: usize) -> Vec<u8> {
    let mut v = vec![10, 0, 0, 7, 0, 1, b'z'];
    v.extend((n as i32).to_be_bytes());
    v.resize(v.len() + n, 0);
    v.push(0);
    v
}

#[test]
fn gzip_bomb_stops_at_the_configured_limit() {
    let plain = zeros_nbt(4 << 20);
    for how in [Compression::Gzip, Compression::Zlib, Compression::Lz4] {
        let bomb = compress::compress(&plain, how).unwrap();
        assert!(bomb.len() * 100 < plain.len(), "{how:?}: {}", bomb.len());
        for limit in [4 << 10, 64 << 10, 1 << 20] {
            let o = FileOptions {
                compression: Some(how), // LZ4 has no autodetected magic
                read: ReadOptions::default().max_decompressed(limit),
                ..FileOptions::default()
            };
            let e = NbtFile::decode(&bomb, o).unwrap_err();
            assert!(
                matches!(e.kind(), NbtErrorKind::DecompressLimit { limit: l } if *l == limit),
                "{how:?} {limit}: {e:?}"
            );
            let e = compress::decompress(&bomb, how, limit).unwrap_err();
            assert!(
                matches!(e.kind(), NbtErrorKind::DecompressLimit { .. }),
                "{e:?}"
            );
        }
        // At the exact size it reads.
        let o = FileOptions {
            compression: Some(how),
            read: ReadOptions::default().max_decompressed(plain.len()),
            ..FileOptions::default()
        };
        let f = NbtFile::decode(&bomb, o).unwrap();
        assert_eq!(f.encode_uncompressed().unwrap(), plain);
    }
}

/// A Java or Bedrock root holding one string entry of raw bytes `s`.
/// The first entry of a document whose root is a compound.
fn first_entry<'d, 'a>(doc: &'d BorrowedNbt<'a>) -> (StrRef<'a>, TagRef<'d, 'a>) {
    doc.root()
        .value
        .as_compound()
        .unwrap()
        .iter()
        .next()
        .unwrap()
}

fn string_nbt(ed: Edition, s: &[u8]) -> Vec<u8> {
    let mut v = root(ed, RootForm::Named);
    v.extend(entry(ed, 8));
    v.extend(str_len(ed, s.len()));
    v.extend(s);
    v.push(0);
    v
}

#[test]
fn invalid_modified_utf8_and_utf8() {
    let java = ReadOptions::new(Edition::Java);
    for bad in [
        &[0xc0u8][..],                 // truncated 2-byte sequence
        &[0xe0, 0x80][..],             // truncated 3-byte sequence
        &[0x80][..],                   // continuation byte first
        &[0xff][..],                   // never valid
        &[0xf0, 0x9f, 0x98, 0x80][..], // 4-byte UTF-8: Java writes surrogate pairs instead
    ] {
        let data = string_nbt(Edition::Java, bad);
        let (a, b) = read_both(&data, java);
        for e in [&a, &b] {
            assert!(
                matches!(e.kind(), NbtErrorKind::InvalidString),
                "{bad:x?}: {e:?}"
            );
        }
    }
    // Lenient mode keeps 4-byte UTF-8 as it is.
    let data = string_nbt(Edition::Java, &[0xf0, 0x9f, 0x98, 0x80]);
    assert!(decode(&data, java.lenient_utf8(true)).is_ok());
    // Modified UTF-8's own forms are valid: NUL as C0 80, a lone surrogate as 3 bytes.
    for ok in [&[0xc0u8, 0x80][..], &[0xed, 0xa0, 0x80][..]] {
        let data = string_nbt(Edition::Java, ok);
        assert!(decode(&data, java).is_ok(), "{ok:x?}");
    }
    // Bedrock strings are plain UTF-8: overlong NUL and encoded surrogates are refused.
    for bad in [&[0xc0u8, 0x80][..], &[0xed, 0xa0, 0x80][..], &[0xff][..]] {
        let data = string_nbt(Edition::Bedrock, bad);
        let (a, b) = read_both(&data, ReadOptions::new(Edition::Bedrock));
        for e in [&a, &b] {
            assert!(
                matches!(e.kind(), NbtErrorKind::InvalidString),
                "{bad:x?}: {e:?}"
            );
        }
    }
}

/// Malformed string contents: a lone MUTF-8 lead byte, a byte no encoding allows, plain 4-byte
/// UTF-8 (which Java rejects), and for Bedrock a MUTF-8 NUL and a bad byte.
const BAD_STRINGS: &[(Edition, &[u8])] = &[
    (Edition::Java, &[0xc0]),
    (Edition::Java, &[b'a', 0xff, b'b']),
    (Edition::Java, &[0xf0, 0x9f, 0x98, 0x80]),
    (Edition::Bedrock, &[0xc0, 0x80]),
    (Edition::Bedrock, &[b'a', 0xff]),
];

/// With `check_strings(false)` the owned reader keeps malformed Java strings as their raw
/// bytes (found on use: `to_str` is `None` unless they are plain UTF-8) and writes them back
/// byte-identical; Bedrock strings, converted from UTF-8, are still checked.
#[test]
fn unchecked_owned_read_keeps_bad_strings() {
    for &(ed, bad) in BAD_STRINGS {
        let strict = ReadOptions::new(ed);
        let data = string_nbt(ed, bad);
        assert!(matches!(
            decode(&data, strict).map_err(NbtError::into_kind),
            Err(NbtErrorKind::InvalidString)
        ));
        let unchecked = decode(&data, strict.check_strings(false));
        if ed != Edition::Java {
            assert!(matches!(
                unchecked.map_err(NbtError::into_kind),
                Err(NbtErrorKind::InvalidString)
            ));
            continue;
        }
        let (nbt, used) = unchecked.unwrap();
        assert_eq!(used, data.len());
        let s = nbt.tag.as_compound().unwrap().iter().next().unwrap().1;
        let s = s.as_string().unwrap();
        assert_eq!(s.as_mutf8(), bad);
        // Decoding is as lenient as `lenient_utf8` reading: plain 4-byte UTF-8 decodes.
        let text = std::str::from_utf8(bad).ok();
        assert_eq!(s.to_str().as_deref(), text, "{bad:x?}");
        assert_eq!(nbt.encode(ed).unwrap(), data);
    }
    // Structure is checked as always.
    let mut cut = string_nbt(Edition::Java, b"abc");
    cut.truncate(cut.len() - 3);
    let o = ReadOptions::default().check_strings(false);
    assert!(decode(&cut, o).is_err());
}

/// The lazy zero-copy read accepts malformed string contents (structure still checked) and
/// reports them on demand: per string from `StrRef::check`, for the document from
/// `validate_strings` / `try_to_owned_roots` with the owned reader's error.
#[test]
fn lazy_borrowed_read_reports_bad_strings_on_demand() {
    for &(ed, bad) in BAD_STRINGS {
        let o = ReadOptions::new(ed);
        let data = string_nbt(ed, bad);
        let owned = decode(&data, o).map(|_| ()).unwrap_err();
        let doc = BorrowedNbt::decode_lazy(&data, o).unwrap();
        assert_eq!(doc.consumed(), data.len());
        let (key, value) = first_entry(&doc);
        assert!(key.check().is_ok());
        let s = value.as_str_ref().unwrap();
        assert_eq!(s.as_bytes(), bad);
        let e = s.check().unwrap_err();
        match e.kind() {
            NbtErrorKind::InvalidString => assert_eq!(e.offset(), owned.offset()),
            _ => panic!("{ed:?} {bad:x?}: {e:?}"),
        }
        let e = doc.validate_strings().unwrap_err();
        assert_eq!(e.to_string(), owned.to_string());
        assert_eq!(
            doc.try_to_owned_roots().unwrap_err().to_string(),
            owned.to_string()
        );
        let e = BorrowedNbt::decode_all_lazy(&data, o)
            .unwrap()
            .validate_strings()
            .unwrap_err();
        assert!(matches!(e.kind(), NbtErrorKind::InvalidString), "{e:?}");
    }
    // Lenient Java accepts 4-byte UTF-8 in both modes.
    let o = ReadOptions::new(Edition::Java).lenient_utf8(true);
    let data = string_nbt(Edition::Java, "\u{1F600}".as_bytes());
    let doc = BorrowedNbt::decode_lazy(&data, o).unwrap();
    assert!(doc.validate_strings().is_ok());
    let (_, v) = first_entry(&doc);
    assert!(v.as_str_ref().unwrap().check().is_ok());
    assert_eq!(
        doc.try_to_owned_roots().unwrap(),
        vec![decode(&data, o).unwrap().0]
    );
    // Structure is checked as always: a string running past the end fails the lazy read too.
    let mut cut = string_nbt(Edition::Java, b"abc");
    cut.truncate(cut.len() - 3);
    assert!(BorrowedNbt::decode_lazy(&cut, ReadOptions::default()).is_err());
}

#[test]
fn string_length_past_the_end() {
    for ed in [Edition::Java, Edition::Bedrock] {
        let mut data = root(ed, RootForm::Named);
        data.extend(entry(ed, 8));
        data.extend(str_len(ed, 0xffff));
        data.extend(b"ab");
        let (a, b) = read_both(&data, ReadOptions::new(ed));
        for e in [&a, &b] {
            assert!(
                matches!(
                    e.kind(),
                    NbtErrorKind::UnexpectedEof { .. } | NbtErrorKind::LengthTooLarge { .. }
                ),
                "{ed:?}: {e:?}"
            );
        }
    }
}

#[test]
fn non_canonical_varints_read_leniently_and_write_canonically() {
    // Found by the `nbt_decode` fuzz target (round trip, not a crash): the network flavour reads
    // a 5-byte varint whose last byte has bits above the 32 (ignored, as the game does) and
    // overlong forms, and the writer emits the canonical form, so read -> write is byte-identical
    // only for canonical input. The fuzz invariant checks the canonical form is a fixed point.
    let o = ReadOptions::new(Edition::BedrockNetwork);
    let input = [11, 0, 4, 0x2c, 0xff, 0xfd, 0xff, 0xff, 0x6c];
    let (t, used) = decode(&input, o).unwrap();
    assert_eq!(used, input.len());
    let b = BorrowedNbt::decode(&input, o).unwrap();
    assert_eq!(b.to_owned_roots()[0], t);
    let written = t.encode(Edition::BedrockNetwork).unwrap();
    assert_eq!(written, [11, 0, 4, 0x2c, 0xff, 0xfd, 0xff, 0xff, 0x0c]);
    assert_eq!(decode(&written, o).unwrap().0, t);
    // Overlong zero (0x80 0x00) as the array length.
    let overlong = [11, 0, 0x80, 0x00];
    let (t, _) = decode(&overlong, o).unwrap();
    assert_eq!(t.encode(Edition::BedrockNetwork).unwrap(), [11, 0, 0]);
}

#[test]
fn snbt_escape_before_a_multi_byte_character() {
    // Found by the `snbt_parse` fuzz target: `\` followed by a non-ASCII character made the error
    // position land inside the character, and building the message panicked (byte index not a
    // char boundary). Now: an SNBT error with its line and column.
    for text in ["'singl\\\u{5e6}'", "\"\\é\"", "{a:\"\\\u{1f600}\"}"] {
        let e = def_runtime::nbt::snbt::parse(text).unwrap_err();
        assert!(
            matches!(e.kind(), NbtErrorKind::Snbt { line: 1, message, .. } if message == "unknown escape"),
            "{text}: {e:?}"
        );
    }
}

#[test]
fn snbt_named_escape_starting_with_a_hyphen() {
    // Found by the `snbt_parse` fuzz target (a 25-s smoke run in CI): `\N{-...}` made
    // unicode_names2 subtract 1 from index 0, a panic where overflow is checked (this test's debug
    // build). Now: the unknown-name error; a name with a medial hyphen still resolves.
    for text in [
        "'\\N{-1S1}'",
        "\"\\N{-}\"",
        "{a:'\\N{- LATIN SMALL LETTER A}'}",
    ] {
        let e = def_runtime::nbt::snbt::parse(text).unwrap_err();
        assert!(
            matches!(e.kind(), NbtErrorKind::Snbt { message, .. } if message.starts_with("unknown Unicode character name")),
            "{text}: {e:?}"
        );
    }
    let ok = def_runtime::nbt::snbt::parse("'\\N{HYPHEN-MINUS}'").expect("a known name");
    assert_eq!(def_runtime::nbt::snbt::to_snbt(&ok), "\"-\"");
}

/// A dump's error names the root (its place in `roots`) and the tag path of the node that is
/// wrong, as a region dump's names its chunk: never "at byte 0" for a node deep in the third
/// root.
#[test]
fn dump_errors_name_the_root_and_the_tag_path() {
    use def_runtime::nbt::dump::{Json, roots_from_json};
    let good = r#"{"name":"","type":"compound","value":{}}"#;
    let cases = [
        (
            // The third root: Level.Sections[1].y holds 300 as a byte.
            format!(
                r#"{{"roots":[{good},{good},{{"name":"","type":"compound","value":{{"Level":
                {{"type":"compound","value":{{"Sections":{{"type":"list","element_type":"compound",
                "value":[{{"type":"compound","value":{{}}}},{{"type":"compound","value":{{"y":
                {{"type":"byte","value":300}}}}}}]}}}}}}}}}}]}}"#
            ),
            Some(2),
            "Level.Sections[1].y",
            "integer 300 out of range",
        ),
        (
            // An int array's third element.
            r#"{"name":null,"type":"compound","value":{"a":{"type":"int_array","value":[1,2,1.5]}}}"#
                .to_string(),
            None,
            "a[2]",
            "integer 1.5 out of range",
        ),
        (
            // A list element of another type than the list's.
            r#"{"name":null,"type":"compound","value":{"l":{"type":"list","element_type":"int",
                "value":[{"type":"int","value":1},{"type":"byte","value":1}]}}}"#
                .to_string(),
            None,
            "l[1]",
            "list element of the wrong type",
        ),
        (
            // A key that holds a dot and a bracket is one key, quoted.
            format!(
                r#"{{"roots":[{good},{{"name":"","type":"compound","value":{{"a.b[0]":{{"type":"nope","value":1}}}}}}]}}"#
            ),
            Some(1),
            "\"a.b[0]\"",
            "unknown tag type name",
        ),
        (
            // The root itself.
            format!(r#"{{"roots":[{good},{{"name":""}}]}}"#),
            Some(1),
            "(root)",
            "missing \"type\"",
        ),
    ];
    for (text, root, path, reason) in cases {
        let e = roots_from_json(&Json::parse(&text).unwrap()).unwrap_err();
        match e.kind() {
            NbtErrorKind::DumpEntry {
                root: r,
                reason: why,
            } => {
                assert_eq!(*r, root, "{e}");
                assert_eq!(e.path().to_string(), path, "{e}");
                assert!(why.contains(reason), "{e}");
            }
            _ => panic!("{text}: {e}"),
        }
        let shown = e.to_string();
        let place = match (root, path) {
            (Some(i), "(root)") => format!("NBT: roots[{i}] of the dump: "),
            (Some(i), _) => format!("NBT in `{path}`: roots[{i}] of the dump: "),
            (None, "(root)") => "NBT: the dump: ".to_string(),
            (None, _) => format!("NBT in `{path}`: the dump: "),
        };
        assert!(shown.starts_with(&place), "{shown}");
        assert!(!shown.contains("byte 0"), "{shown}");
    }
    // A hostile key is shown escaped in the path.
    let text = r#"{"name":null,"type":"compound","value":{"\u001b]0;t\u0007":{"type":"int","value":1e99}}}"#;
    let e = roots_from_json(&Json::parse(text).unwrap()).unwrap_err();
    let shown = e.to_string();
    assert!(!shown.contains(['\u{1b}', '\u{7}']), "{shown:?}");
    assert!(shown.contains(r"\u{1b}]0;t\u{7}"), "{shown:?}");
}

/// Java bytes of `compounds` nested compounds (the root one of them) whose innermost holds a
/// list of `ints` ints: `compounds + 1` levels.
fn compounds_around_a_list(compounds: usize, ints: i32) -> Vec<u8> {
    let mut d = vec![10, 0, 0];
    for _ in 1..compounds {
        d.extend([10, 0, 1, b'c']);
    }
    d.extend([9, 0, 1, b'l', 3]);
    d.extend(ints.to_be_bytes());
    for i in 0..ints {
        d.extend(i.to_be_bytes());
    }
    d.extend(std::iter::repeat_n(0u8, compounds));
    d
}

#[test]
fn the_writer_writes_what_the_reader_reads_at_the_depth_cap_and_refuses_one_level_more() {
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(|| {
            let o = ReadOptions::new(Edition::Java).max_depth(usize::MAX);
            // A short list (written with the entry) and a long one (written on its own).
            for ints in [3, 40] {
                let data = compounds_around_a_list(MAX_DEPTH_CAP - 1, ints);
                let nbt = decode(&data, o).expect("at the cap").0;
                assert_eq!(nbt.encode(Edition::Java).unwrap(), data, "{ints} ints");
                // One level deeper the reader refuses it, and so does the writer.
                let deeper = compounds_around_a_list(MAX_DEPTH_CAP, ints);
                assert!(matches!(
                    decode(&deeper, o).unwrap_err().kind(),
                    NbtErrorKind::TooDeep { .. }
                ));
                let wrapped = Nbt::named("", Compound::new().with("c", nbt.tag));
                assert!(matches!(
                    wrapped.encode(Edition::Java).unwrap_err().kind(),
                    NbtErrorKind::Unwritable { .. }
                ));
            }
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn a_buffer_sized_to_the_output_is_not_grown() {
    // Every entry of the sample written into a buffer of exactly its size: the writer's fast
    // path needs more room than the last entries leave, and must not reserve it.
    let Some(dir) = crate::support::shared("nbt-samples") else {
        return;
    };
    let raw = std::fs::read(dir.join("simdnbt__complex_player.dat")).expect("sample");
    let data = compress::decompress(&raw, Compression::detect(&raw), usize::MAX)
        .unwrap()
        .data;
    let nbt = decode(&data, ReadOptions::new(Edition::Java)).unwrap().0;
    let mut out = Vec::with_capacity(data.len());
    nbt.encode_into(&mut out, Edition::Java).unwrap();
    assert_eq!(out, data);
    assert_eq!(out.capacity(), data.len());
}

/// A root compound of nine Java strings of `len` bytes (names `a` to `i`), string `which` with
/// the byte `bad` at `at`; the input and the offset of that byte.
fn nine_strings(len: usize, which: usize, at: usize, bad: &[u8]) -> (Vec<u8>, usize) {
    let mut data = root(Edition::Java, RootForm::Named);
    let mut offset = 0;
    for k in 0..9 {
        data.extend([8, 0, 1, b'a' + k as u8]);
        data.extend((len as u16).to_be_bytes());
        let mut s = vec![b'q'; len];
        if k == which {
            s[at..at + bad.len()].copy_from_slice(bad);
            offset = data.len() + at;
        }
        data.extend(s);
    }
    data.push(0);
    (data, offset)
}

/// Java strings longer than the inline 22 bytes, whether they go to the read's blocks or to
/// allocations of their own (the first eight of a read of under 1 KiB): a malformed byte
/// anywhere in one is reported at its offset by both readers, kept as it is when strings are not
/// checked, and Modified UTF-8's own forms in one read back as they are.
#[test]
fn long_strings_are_checked_wherever_they_are_kept() {
    let java = ReadOptions::new(Edition::Java);
    for len in [23, 100, 1024, 1025, 20_000, 65_535] {
        for at in [0, len / 2, len - 1] {
            for which in [0, 8] {
                let (data, offset) = nine_strings(len, which, at, &[0xff]);
                let (a, b) = read_both(&data, java);
                for e in [&a, &b] {
                    assert!(
                        matches!(e.kind(), NbtErrorKind::InvalidString),
                        "{len} {at} {which}: {e:?}"
                    );
                    assert_eq!(e.offset(), Some(offset), "{len} {at} {which}");
                }
                let kept = decode(&data, java.check_strings(false)).unwrap().0;
                let key = char::from(b'a' + which as u8).to_string();
                let s = kept.tag.as_compound().unwrap().get(&key).unwrap();
                assert_eq!(s.as_string().unwrap().as_mutf8()[at], 0xff);
            }
        }
    }
    // NUL as C0 80 and a lone surrogate are Modified UTF-8; plain 4-byte UTF-8 only when lenient.
    for (bad, strict_ok) in [
        (&[0xc0u8, 0x80][..], true),
        (&[0xed, 0xa0, 0x80], true),
        (&[0xf0, 0x9f, 0x98, 0x80], false),
    ] {
        for len in [100, 2000] {
            let (data, offset) = nine_strings(len, 8, len / 2, bad);
            match decode(&data, java) {
                Ok((t, _)) => {
                    assert!(strict_ok);
                    let s = t
                        .tag
                        .as_compound()
                        .unwrap()
                        .get("i")
                        .unwrap()
                        .as_string()
                        .unwrap();
                    assert_eq!(&s.as_mutf8()[len / 2..len / 2 + bad.len()], bad);
                }
                Err(e) => {
                    assert!(!strict_ok, "{bad:x?}: {e:?}");
                    assert_eq!(e.offset(), Some(offset));
                }
            }
            assert!(decode(&data, java.lenient_utf8(true)).is_ok());
        }
    }
}
