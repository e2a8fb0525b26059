//! Hostile input: depth limits (Minecraft's 512, root included), huge declared lengths,
//! decompression bombs, truncated streams, and random corruption that must never panic.
#![cfg(feature = "nbt")]

use crate::support;

use std::io::Write;

use def_runtime::nbt::borrow::BorrowedNbt;
use def_runtime::nbt::{
    Compression, Edition, FileOptions, NbtError, NbtErrorKind, NbtFile, ReadOptions, compress,
    decode, snbt,
};

/// `depth` compounds nested in a named root compound chain (root included).
fn nested_compounds(depth: usize) -> Vec<u8> {
    let mut v = vec![10, 0, 0];
    for _ in 1..depth {
        v.extend_from_slice(&[10, 0, 1, b'c']);
    }
    v.extend(std::iter::repeat_n(0, depth));
    v
}

/// A root compound holding `lists` nested lists (so depth = lists + 1).
fn nested_lists(lists: usize) -> Vec<u8> {
    let mut v = vec![10, 0, 0, 9, 0, 1, b'l'];
    for _ in 1..lists {
        v.extend_from_slice(&[9, 0, 0, 0, 1]);
    }
    v.extend_from_slice(&[0, 0, 0, 0, 0]); // innermost: empty list of End
    v.push(0); // end of root compound
    v
}

fn both(data: &[u8]) -> (Result<(), NbtError>, Result<(), NbtError>) {
    let o = ReadOptions::default();
    (
        decode(data, o).map(|_| ()),
        BorrowedNbt::decode(data, o).map(|_| ()),
    )
}

#[test]
fn depth_512_accepted_513_rejected() {
    for (data, ok) in [
        (nested_compounds(512), true),
        (nested_compounds(513), false),
        (nested_lists(511), true),
        (nested_lists(512), false),
    ] {
        let (a, b) = both(&data);
        assert_eq!(a.is_ok(), ok, "{a:?}");
        assert_eq!(b.is_ok(), ok, "{b:?}");
        if !ok {
            assert!(
                matches!(
                    a.as_ref().map_err(NbtError::kind),
                    Err(NbtErrorKind::TooDeep { max: 512 })
                ),
                "{a:?}"
            );
            assert!(
                matches!(
                    b.as_ref().map_err(NbtError::kind),
                    Err(NbtErrorKind::TooDeep { max: 512 })
                ),
                "{b:?}"
            );
        }
    }
}

#[test]
fn hundred_thousand_levels_fail_cleanly() {
    // Run on a small stack to prove the readers do not recurse with the input.
    std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(|| {
            for data in [nested_compounds(100_000), nested_lists(100_000)] {
                let (a, b) = both(&data);
                assert!(matches!(
                    a.map_err(NbtError::into_kind),
                    Err(NbtErrorKind::TooDeep { .. })
                ));
                assert!(matches!(
                    b.map_err(NbtError::into_kind),
                    Err(NbtErrorKind::TooDeep { .. })
                ));
            }
            let text = "[".repeat(100_000);
            assert!(snbt::parse(&text).is_err());
            let text = "{a:".repeat(100_000);
            assert!(snbt::parse(&text).is_err());
            let json = "[".repeat(1_000_000);
            assert!(def_runtime::nbt::dump::Json::parse(&json).is_err());
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn huge_declared_lengths_fail_before_allocating() {
    let cases: Vec<Vec<u8>> = vec![
        // list of 2^31-1 ints with 8 bytes behind it
        vec![
            10, 0, 0, 9, 0, 1, b'l', 3, 0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 1, 0, 0, 0, 2, 0,
        ],
        // byte array of 2^31-1
        vec![10, 0, 0, 7, 0, 1, b'b', 0x7f, 0xff, 0xff, 0xff, 1, 2, 3, 0],
        // int array, long array
        vec![10, 0, 0, 11, 0, 1, b'i', 0x40, 0, 0, 0, 1, 2, 3, 0],
        vec![10, 0, 0, 12, 0, 1, b'i', 0x40, 0, 0, 0, 1, 2, 3, 0],
        // list of 2^31-1 compounds / lists / strings
        vec![10, 0, 0, 9, 0, 1, b'l', 10, 0x7f, 0xff, 0xff, 0xff, 0, 0],
        vec![10, 0, 0, 9, 0, 1, b'l', 9, 0x7f, 0xff, 0xff, 0xff, 0, 0],
        vec![10, 0, 0, 9, 0, 1, b'l', 8, 0x7f, 0xff, 0xff, 0xff, 0, 0],
        // negative lengths
        vec![10, 0, 0, 7, 0, 1, b'b', 0xff, 0xff, 0xff, 0xff, 0],
        // string of 65535 bytes with 2 behind it
        vec![10, 0, 0, 8, 0, 1, b's', 0xff, 0xff, b'a', b'b'],
    ];
    for data in cases {
        let (a, b) = both(&data);
        assert!(
            matches!(
                a.as_ref().map_err(NbtError::kind),
                Err(NbtErrorKind::LengthTooLarge { .. }
                    | NbtErrorKind::NegativeLength { .. }
                    | NbtErrorKind::UnexpectedEof { .. })
            ),
            "{a:?}"
        );
        assert!(b.is_err());
    }
    // The same in the varint flavour: a list of 2^31-1 longs.
    let data = [10, 0, 9, 1, b'l', 4, 0xfe, 0xff, 0xff, 0xff, 0x0f, 1, 2];
    let o = ReadOptions::new(Edition::BedrockNetwork);
    assert!(matches!(
        decode(&data, o).map_err(NbtError::into_kind),
        Err(NbtErrorKind::LengthTooLarge { .. })
    ));
    assert!(BorrowedNbt::decode(&data, o).is_err());
}

/// A Java named compound entry: type, name, payload.
fn java_entry(id: u8, name: &str, payload: &[u8]) -> Vec<u8> {
    let mut v = vec![id];
    v.extend_from_slice(&(name.len() as u16).to_be_bytes());
    v.extend_from_slice(name.as_bytes());
    v.extend_from_slice(payload);
    v
}

#[test]
fn every_way_an_entry_can_fail_names_its_key() {
    // The reader builds an entry in place at the end of its working vector: the key first, then
    // the value; a container's entry is counted before its own entries are read. Whichever part
    // fails, the error names the path as written here by hand, the entries read before it are
    // dropped, and the zero-copy reader says the same.
    let ok = java_entry(3, "ok", &7i32.to_be_bytes());
    let long_key = "k".repeat(40); // longer than a key kept inline
    let long_path = format!("a.{long_key}");
    let cases: Vec<(Vec<u8>, &str, &str)> = vec![
        // An int cut short after the key.
        (java_entry(3, "n", &[0, 0]), "a.n", "end of input"),
        // A string value whose bytes are not Modified UTF-8 (a lone continuation byte).
        (java_entry(8, "s", &[0, 1, 0x80]), "a.s", "malformed string"),
        // A long string value cut short.
        (java_entry(8, "t", &[0, 40, b'x']), "a.t", "end of input"),
        // A long key before a value cut short.
        (java_entry(6, &long_key, &[0]), &long_path, "end of input"),
        // An entry of a compound in a compound.
        (
            java_entry(10, "c", &[&ok[..], &java_entry(1, "b", &[])].concat()),
            "a.c.b",
            "end of input",
        ),
        // A list element, after a container entry.
        (
            [
                java_entry(10, "e", &[0]),
                java_entry(9, "l", &[10, 0, 0, 0, 2, 0, 1]),
            ]
            .concat(),
            "a.l[1]",
            "end of input",
        ),
        // A key whose type byte is not a tag type.
        ([ok.clone(), vec![13, 0, 1, b'z']].concat(), "a", "type"),
    ];
    for (body, path, reason) in cases {
        let mut v = vec![10, 0, 0, 10, 0, 1, b'a'];
        v.extend_from_slice(&ok);
        v.extend_from_slice(&body);
        let e = decode(&v, ReadOptions::default()).unwrap_err();
        assert_eq!(e.path().to_string(), path, "{e}");
        assert!(e.to_string().contains(reason), "{e}");
        let b = BorrowedNbt::decode(&v, ReadOptions::default()).unwrap_err();
        assert_eq!(b.to_string(), e.to_string());
    }
}

#[test]
fn a_memory_limit_met_between_entries_names_the_next_key() {
    // A thread's first read collects a compound's entries in a vector of 8 places, one of them
    // a placeholder: the 8th entry grows it, which is charged (16 places) before that entry's
    // key is read. Ints cost nothing more, so a limit under that growth stops the read at `k7`.
    let mut v = vec![10, 0, 0];
    for i in 0..10 {
        v.extend_from_slice(&java_entry(3, &format!("k{i}"), &[0, 0, 0, 1]));
    }
    v.push(0);
    let o = ReadOptions::default().max_memory(512);
    let e = std::thread::spawn(move || decode(&v, o).unwrap_err())
        .join()
        .unwrap();
    assert!(
        matches!(e.kind(), NbtErrorKind::MemoryLimit { limit: 512 }),
        "{e}"
    );
    assert_eq!(e.path().to_string(), "k7", "{e}");
}

#[test]
fn error_carries_offset_and_path() {
    // {Level:{Sections:[{},{},{},{Palette:<truncated list>}]}}
    let mut v = vec![10, 0, 0, 10, 0, 5];
    v.extend_from_slice(b"Level");
    v.extend_from_slice(&[9, 0, 8]);
    v.extend_from_slice(b"Sections");
    v.extend_from_slice(&[10, 0, 0, 0, 4, 0, 0, 0, 9, 0, 7]);
    v.extend_from_slice(b"Palette");
    v.extend_from_slice(&[8, 0, 0, 0, 2, 0, 1, b'a', 0, 5, b'b']);
    let e = decode(&v, ReadOptions::default()).unwrap_err();
    assert_eq!(e.path().to_string(), "Level.Sections[3].Palette[1]");
    assert_eq!(e.offset(), Some(v.len() - 1));
    let msg = e.to_string();
    assert!(msg.contains("Level.Sections[3].Palette[1]"), "{msg}");
    // The zero-copy reader reports the same error.
    let b = BorrowedNbt::decode(&v, ReadOptions::default()).unwrap_err();
    assert_eq!(b.to_string(), msg);
}

#[test]
fn decompression_bomb_is_capped() {
    let zeros = vec![0u8; 32 << 20];
    for how in [Compression::Gzip, Compression::Zlib, Compression::Lz4] {
        let bomb = compress::compress(&zeros, how).unwrap();
        assert!(bomb.len() < 1 << 20);
        let mut o = FileOptions::default();
        o.read.max_decompressed = 1 << 20;
        o.compression = Some(how);
        assert!(matches!(
            NbtFile::decode(&bomb, o).map_err(NbtError::into_kind),
            Err(NbtErrorKind::DecompressLimit { limit }) if limit == 1 << 20
        ));
    }
}

#[test]
fn zlib_without_checksum_is_accepted_when_the_nbt_is_complete() {
    let nbt = nested_compounds(3);
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(&nbt).unwrap();
    let mut z = e.finish().unwrap();
    z.truncate(z.len() - 4); // drop the Adler-32
    let f = NbtFile::decode(&z, FileOptions::default()).unwrap();
    assert_eq!(f.compression, Compression::Zlib);
    assert!(!f.stream_complete);
    assert_eq!(f.encode_uncompressed().unwrap(), nbt);
    // Cut into the deflate data itself: the NBT is incomplete, so it is an error.
    z.truncate(z.len() / 2);
    assert!(NbtFile::decode(&z, FileOptions::default()).is_err());
}

#[test]
fn trailing_bytes_are_the_callers_choice() {
    let mut data = nested_compounds(2);
    data.extend_from_slice(&[1, 2, 3]);
    let f = NbtFile::decode(&data, FileOptions::default()).unwrap();
    assert_eq!(f.trailing, 3);
    let strict = FileOptions {
        strict_trailing: true,
        ..FileOptions::default()
    };
    assert!(matches!(
        NbtFile::decode(&data, strict).map_err(NbtError::into_kind),
        Err(NbtErrorKind::TrailingBytes { count: 3 })
    ));
    assert!(def_runtime::nbt::decode_exact(&data, ReadOptions::default()).is_err());
}

/// xorshift64*: deterministic corruption without a dependency.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn corrupt(rng: &mut Rng, data: &[u8]) -> Vec<u8> {
    let mut v = data.to_vec();
    match rng.below(4) {
        0 => v.truncate(rng.below(v.len() + 1)),
        1 => {
            for _ in 0..1 + rng.below(4) {
                let i = rng.below(v.len());
                if let Some(b) = v.get_mut(i) {
                    *b ^= 1 << rng.below(8);
                }
            }
        }
        2 => {
            let i = rng.below(v.len());
            if let Some(b) = v.get_mut(i) {
                *b = [0x00, 0x7f, 0x80, 0xff, 0x0d, 0x0c][rng.below(6)];
            }
        }
        _ => {
            let i = rng.below(v.len() + 1);
            let junk: Vec<u8> = (0..rng.below(8)).map(|_| rng.next() as u8).collect();
            v.splice(i..i, junk);
        }
    }
    v
}

#[test]
fn corrupted_input_never_panics_and_both_readers_agree() {
    let mut seeds: Vec<Vec<u8>> = vec![nested_compounds(5), nested_lists(4)];
    // And the small and mid-size samples.
    let Some(dir) = support::shared("nbt-samples") else {
        return;
    };
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "json" || x == "md") {
            continue;
        }
        let raw = std::fs::read(&p).unwrap();
        if let Ok(d) = compress::decompress(&raw, Compression::detect(&raw), 1 << 26)
            && d.data.len() < 64 << 10
        {
            seeds.push(d.data);
        }
    }
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut cases = 0;
    for seed in &seeds {
        for _ in 0..60 {
            let bad = corrupt(&mut rng, seed);
            for ed in [Edition::Java, Edition::Bedrock, Edition::BedrockNetwork] {
                let o = ReadOptions::new(ed);
                let a = decode(&bad, o);
                let b = BorrowedNbt::decode(&bad, o);
                assert_eq!(a.is_ok(), b.is_ok(), "readers disagree ({ed:?})");
                if let (Ok((t, used)), Ok(b)) = (&a, &b) {
                    assert_eq!(*used, b.consumed());
                    assert_eq!(b.to_owned_roots()[0], *t);
                }
                // The lazy read plus string validation accepts and rejects alike.
                let lazy = BorrowedNbt::decode_lazy(&bad, o)
                    .and_then(|l| l.try_to_owned_roots().map(|r| (r, l.consumed())));
                assert_eq!(a.is_ok(), lazy.is_ok(), "lazy reader disagrees ({ed:?})");
                if let (Ok((t, used)), Ok((r, n))) = (&a, &lazy) {
                    assert_eq!((&r[0], n), (t, used));
                }
                cases += 1;
            }
            // Compressed and text paths too.
            let _ = NbtFile::decode(&bad, FileOptions::default());
            let _ = def_runtime::nbt::region::RegionFile::decode(&bad);
            let text = String::from_utf8_lossy(&bad);
            let _ = snbt::parse(&text);
            let _ = def_runtime::nbt::dump::Json::parse(&text);
        }
    }
    assert!(cases > 500);
}
