//! Allocation bound: decoding hostile input of every format allocates at most a small multiple
//! of the input's size. A counting global allocator records, per decode, the peak of live bytes
//! above the baseline and the total of all allocations. The multiples asserted here are the
//! ones stated in docs/reliability.md (run with `--nocapture` to see each case's figures).
//!
//! Formats: TERA through the dynamic codec (JSON values), Godot 3 and 4, NBT owned and borrowed
//! in every flavour, NBT files (decompression limit), SNBT. Generated TERA code has the same
//! test in `def-tests/tests/alloc_bound.rs`.
#![cfg(all(feature = "dynamic", feature = "godot", feature = "nbt"))]

use crate::counting;

use counting::serial;

/// Runs `f` (a decode whose result it drops; hold [`serial`]) and checks peak ≤ `multiple` × `len` + 64 KiB.
fn bounded(format: &str, case: &str, len: usize, multiple: usize, f: impl FnOnce()) {
    let counting::Usage { peak, total, .. } = counting::measure(f);
    eprintln!(
        "{format:8} {case:42} input {len:>8} B  peak {peak:>9} B ({:>6.1}x)  total {total:>9} B ({:>6.1}x)",
        peak as f64 / len as f64,
        total as f64 / len as f64
    );
    let bound = multiple * len + (64 << 10);
    assert!(
        peak <= bound,
        "{format} {case}: peak {peak} B for {len} B of input (bound {multiple}x + 64 KiB)"
    );
}

fn le16(v: usize) -> [u8; 2] {
    (v as u16).to_le_bytes()
}

/// An element's `here` (`at`) and `next` (the element `size` bytes on, or 0 after the last).
fn link(b: &mut Vec<u8>, at: usize, size: usize, last: bool) {
    b.extend(le16(at));
    b.extend(le16(if last { 0 } else { at + size }));
}

fn fix_len(b: &mut [u8]) {
    let n = b.len();
    b[..2].copy_from_slice(&le16(n));
}

/// TERA: a JSON value per field, so the bound is the JSON tree's (a map per element, about 50
/// bytes of tree per byte of a 5-byte element).
const TERA_MULTIPLE: usize = 64;
/// TERA with aliased offsets: the reader follows offsets for at most `READ_FACTOR` (4) times the
/// packet's length, so at most 4x the canonical bound.
const TERA_ALIASED_MULTIPLE: usize = 4 * TERA_MULTIPLE;

#[test]
fn tera_dynamic() {
    let _serial = serial();
    use def_runtime::Options;
    use def_runtime::tera::dynamic::Definition;
    let def =
        |t: &str| Definition::from_text("S_ALLOC.1.def", t, def_parser::Mode::Strict).unwrap();
    let run = |case: &str, d: &Definition, b: &[u8]| {
        let multiple = if case.contains("shar") {
            TERA_ALIASED_MULTIPLE
        } else {
            TERA_MULTIPLE
        };
        bounded("tera", case, b.len(), multiple, || {
            let _ = d.decode(b, Options::new());
        })
    };
    // Counts of 65535 in a 12-byte packet, for each kind of array.
    for t in [
        "array a\n- byte x\n",
        "array<uint64> a\n",
        "array<string> a\n",
        "bytes a\n",
    ] {
        let b = [12, 0, 1, 0, 0xff, 0xff, 8, 0, 8, 0, 0, 0];
        run(
            &format!("count 65535: {}", t.trim().replace('\n', "; ")),
            &def(t),
            &b,
        );
    }
    // The most elements a packet can hold: 13 106 one-byte elements.
    let d = def("array a\n- byte x\n");
    let n = (0xffff - 8) / 5;
    let mut b = vec![0, 0, 1, 0];
    b.extend(le16(n));
    b.extend(le16(8));
    for i in 0..n {
        let at = 8 + 5 * i;
        link(&mut b, at, 5, i + 1 == n);
        b.push(7);
    }
    fix_len(&mut b);
    run("13 106 one-byte elements (valid)", &d, &b);
    // 32 765 empty strings in an array<string>.
    let d = def("array<string> a\n");
    let n = (0xffff - 8) / 8;
    let mut b = vec![0, 0, 1, 0];
    b.extend(le16(n));
    b.extend(le16(8));
    for i in 0..n {
        let at = 8 + 8 * i;
        link(&mut b, at, 8, i + 1 == n);
        b.extend(le16(at + 6));
        b.extend([0, 0]);
    }
    fix_len(&mut b);
    run("8 190 empty strings (valid)", &d, &b);
    // Aliased offsets: 5 000 elements sharing one 32 KB string; nested shared chains.
    let d = def("array items\n- string s\n");
    let (n, first) = (5000, 8);
    let text = first + n * 6;
    let mut b = vec![0, 0, 1, 0];
    b.extend(le16(n));
    b.extend(le16(first));
    for i in 0..n {
        let at = first + i * 6;
        link(&mut b, at, 6, i + 1 == n);
        b.extend(le16(text));
    }
    for _ in 0..16_000 {
        b.extend([b'a', 0]);
    }
    b.extend([0, 0]);
    fix_len(&mut b);
    run("5 000 offsets sharing one 32 KB string", &d, &b);
    let d = def("array a\n- array a\n- - array a\n- - - byte x\n");
    let n = 300;
    let firsts = [8, 8 + n * 8, 8 + 2 * n * 8];
    let mut b = vec![0, 0, 1, 0];
    b.extend(le16(n));
    b.extend(le16(8));
    for l in 0..3 {
        let size = if l < 2 { 8 } else { 5 };
        for k in 0..n {
            let at = firsts[l] + k * size;
            link(&mut b, at, size, k + 1 == n);
            if l < 2 {
                b.extend(le16(n));
                b.extend(le16(firsts[l + 1]));
            } else {
                b.push(1);
            }
        }
    }
    fix_len(&mut b);
    run("3 levels x 300 elements sharing chains", &d, &b);
}

/// Godot: a `Variant` per value (24 bytes, larger ones boxed) for at least 4 bytes of input.
const GODOT_MULTIPLE: usize = 40;

#[test]
fn godot() {
    let _serial = serial();
    use def_runtime::godot::{DecodeOptions, Version, decode};
    let words = |w: &[u32]| -> Vec<u8> { w.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let repeat = |unit: &[u8], n: usize| unit.repeat(n);
    for version in [Version::Godot3, Version::GODOT_4_4] {
        let (array, dict, packed) = match version {
            Version::Godot3 => (0x13, 0x12, 0x14),
            Version::Godot4 { .. } => (0x1c, 0x1b, 0x1d),
        };
        let n = 100_000;
        let cases: Vec<(&str, Vec<u8>)> = vec![
            ("array count 2^31-1", words(&[array, 0x7fff_ffff, 0])),
            ("dictionary count 2^31-1", words(&[dict, 0x7fff_ffff, 0, 0])),
            ("packed bytes 2^31-1", words(&[packed, 0x7fff_ffff, 0])),
            ("string 2^31-1", words(&[4, 0x7fff_fff0, 0])),
            (
                "5 000 nested arrays of 2^31-1",
                repeat(&words(&[array, 0x7fff_ffff]), 5000),
            ),
            (
                "array of 100 000 nils",
                [words(&[array, n]), repeat(&words(&[0]), n as usize)].concat(),
            ),
            (
                "array of 100 000 empty arrays",
                [words(&[array, n]), repeat(&words(&[array, 0]), n as usize)].concat(),
            ),
        ];
        for (case, b) in &cases {
            for allow in [false, true] {
                let o = DecodeOptions::new(version).allow_objects(allow);
                let name = format!("{case} ({version:?}, objects {allow})");
                bounded("godot", &name, b.len(), GODOT_MULTIPLE, || {
                    let _ = decode(b, o);
                });
            }
        }
    }
}

/// NBT: tags of 24 bytes or so, at least 1 byte of input each (an empty compound in a list).
const NBT_MULTIPLE: usize = 64;

#[test]
fn nbt() {
    let _serial = serial();
    use def_runtime::nbt::borrow::BorrowedNbt;
    use def_runtime::nbt::{Edition, ReadOptions, decode};
    let mut cases: Vec<(String, Vec<u8>)> = Vec::new();
    for elem in [1u8, 3, 4, 8, 9, 10] {
        cases.push((
            format!("list of 2^31-1 (type {elem})"),
            vec![
                10, 0, 0, 9, 0, 1, b'l', elem, 0x7f, 0xff, 0xff, 0xff, 1, 2, 3, 4, 0,
            ],
        ));
    }
    for ty in [7u8, 11, 12] {
        cases.push((
            format!("array of 2^31-1 (type {ty})"),
            vec![10, 0, 0, ty, 0, 1, b'a', 0x7f, 0xff, 0xff, 0xff, 1, 2, 3, 0],
        ));
    }
    // 100 000 empty compounds in a list: one byte of input per tag.
    let mut v = vec![10, 0, 0, 9, 0, 1, b'l', 10];
    v.extend(100_000i32.to_be_bytes());
    v.extend(std::iter::repeat_n(0, 100_000));
    v.push(0);
    cases.push(("list of 100 000 empty compounds (valid)".into(), v));
    // 100 000 levels: fails at 512.
    let mut v = vec![10, 0, 0];
    for _ in 0..100_000 {
        v.extend([10, 0, 1, b'c']);
    }
    cases.push(("100 000 nested compounds".into(), v));
    for (case, b) in &cases {
        for ed in [Edition::Java, Edition::Bedrock, Edition::BedrockNetwork] {
            let o = ReadOptions::new(ed);
            bounded(
                "nbt",
                &format!("{case} ({ed:?}, owned)"),
                b.len(),
                NBT_MULTIPLE,
                || {
                    let _ = decode(b, o);
                },
            );
            bounded(
                "nbt",
                &format!("{case} ({ed:?}, borrowed)"),
                b.len(),
                NBT_MULTIPLE,
                || {
                    let _ = BorrowedNbt::decode(b, o);
                },
            );
        }
    }
}

#[test]
fn nbt_decompression_stops_at_the_limit() {
    let _serial = serial();
    use def_runtime::nbt::{Compression, FileOptions, NbtFile, compress};
    // 32 MiB of zeros in a byte array, gzipped to a few KB: the peak stays under the 1 MiB limit.
    let mut plain = vec![10, 0, 0, 7, 0, 1, b'z'];
    plain.extend((32i32 << 20).to_be_bytes());
    plain.resize(plain.len() + (32 << 20), 0);
    plain.push(0);
    let limit = 1 << 20;
    for how in [Compression::Gzip, Compression::Zlib] {
        let bomb = compress::compress(&plain, how).unwrap();
        let o = FileOptions {
            read: def_runtime::nbt::ReadOptions::default().max_decompressed(limit),
            ..FileOptions::default()
        };
        // The bound is relative to the limit here, not the (tiny) input: a bomb is counted,
        // not held, so under the limit itself.
        bounded(
            "nbt-file",
            &format!("{how:?} bomb, 1 MiB limit"),
            limit,
            1,
            || {
                let _ = NbtFile::decode(&bomb, o);
            },
        );
    }
}

/// SNBT: text is at least one character per tag.
const SNBT_MULTIPLE: usize = 64;

#[test]
fn snbt() {
    let _serial = serial();
    use def_runtime::nbt::snbt;
    let cases: Vec<(&str, String)> = vec![
        ("100 000 open lists", "[".repeat(100_000)),
        ("100 000 open compounds", "{a:".repeat(100_000)),
        (
            "list of 50 000 empty compounds",
            format!("[{}{{}}]", "{},".repeat(49_999)),
        ),
        (
            "int array of 100 000",
            format!("[I;{}0]", "0,".repeat(99_999)),
        ),
        (
            "unterminated 1 MB string",
            format!("\"{}", "a".repeat(1 << 20)),
        ),
    ];
    for (case, text) in &cases {
        bounded("snbt", case, text.len(), SNBT_MULTIPLE, || {
            let _ = snbt::parse(text);
        });
    }
}
