//! Hostile TERA packets through the dynamic codec: every case must fail with a clear error of
//! the expected kind, at the expected offset, without panicking or allocating for what the packet
//! only claims (the allocation side is measured in `alloc_bound.rs`). The same cases through
//! generated code are in `def-tests/tests/hostile_generated.rs`; the figures are in
//! docs/reliability.md.
#![cfg(feature = "dynamic")]

use def_runtime::tera::DecodeErrorKind as K;
use def_runtime::tera::dynamic::{Definition, Missing};
use def_runtime::{DecodeError, Options};
use serde_json::json;

/// `items` (count @4, offset @6) then `title` (offset @8); elements are `here, next, v` (8 bytes).
const DEF: &str = "array items\n- uint32 v\nstring title\n";

fn def() -> Definition {
    Definition::from_text("S_HOSTILE.1.def", DEF, def_parser::Mode::Strict).unwrap()
}

const TITLE: usize = 34;

/// A valid packet of 52 bytes: three elements at 10, 18 and 26, then the title `abcdefgh` at 34.
fn valid() -> Vec<u8> {
    let v = json!({"items": [{"v": 1}, {"v": 2}, {"v": 3}], "title": "abcdefgh"});
    let b = def()
        .encode(&v, 0x1234, Options::new(), Missing::Error)
        .unwrap();
    // Pin the layout the cases below patch.
    assert_eq!(&b[4..10], &[3, 0, 10, 0, 34, 0], "{b:02x?}");
    assert_eq!(&b[10..14], &[10, 0, 18, 0]);
    assert_eq!(&b[18..22], &[18, 0, 26, 0]);
    assert_eq!(&b[26..30], &[26, 0, 0, 0]);
    assert_eq!(b.len(), 52);
    assert_eq!(&b[TITLE..TITLE + 4], &[b'a', 0, b'b', 0]);
    b
}

fn put16(b: &mut [u8], at: usize, v: u16) {
    b[at..at + 2].copy_from_slice(&v.to_le_bytes());
}

/// Sets the header length to the buffer's length.
fn fix_len(b: &mut [u8]) {
    let n = b.len() as u16;
    put16(b, 0, n);
}

fn fail(b: &[u8]) -> DecodeError {
    let lenient = def().decode_json(b, Options::new()).unwrap_err();
    let strict = def()
        .decode_json(b, Options::new().strict(true))
        .unwrap_err();
    assert_eq!(lenient.kind(), strict.kind(), "{lenient} / {strict}");
    lenient
}

#[test]
fn valid_packet_decodes() {
    let v = def()
        .decode_json(&valid(), Options::new().strict(true))
        .unwrap();
    assert_eq!(
        v,
        json!({"items": [{"v": 1}, {"v": 2}, {"v": 3}], "title": "abcdefgh"})
    );
}

#[test]
fn element_chain_that_loops_back() {
    // Four declared; the third element's next goes back to the first, to itself, or into the
    // header (an offset before the element is a loop whatever it points at).
    for target in [10u16, 26, 1] {
        let mut b = valid();
        put16(&mut b, 4, 4);
        put16(&mut b, 28, target);
        let e = fail(&b);
        assert_eq!(
            *e.kind(),
            K::ElementLoop {
                next: target as usize,
                from: 26
            },
            "{e}"
        );
        assert_eq!(e.path().to_string(), "items[3]", "{e}");
        assert!(e.to_string().contains("S_HOSTILE v1"), "{e}");
    }
}

#[test]
fn element_chain_pointing_outside_the_packet() {
    let mut b = valid();
    put16(&mut b, 12, 0xfff0); // first element's next
    let e = fail(&b);
    assert!(
        matches!(
            e.kind(),
            K::OffsetOutOfBounds {
                offset: 0xfff0,
                len: 52,
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(e.path().to_string(), "items[1]", "{e}");
    // The first element outside the packet: no room for the declared count there.
    for off in [0xffffu16, 52, 50] {
        let mut b = valid();
        put16(&mut b, 6, off);
        let e = fail(&b);
        assert!(
            matches!(
                e.kind(),
                K::CountTooLarge {
                    count: 3,
                    element_size: 8,
                    ..
                }
            ),
            "{off}: {e}"
        );
    }
    // The title outside the packet.
    let mut b = valid();
    put16(&mut b, 8, 0x8000);
    let e = fail(&b);
    assert!(
        matches!(
            e.kind(),
            K::OffsetOutOfBounds {
                offset: 0x8000,
                len: 52,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn chain_ending_before_count() {
    let mut b = valid();
    put16(&mut b, 4, 4); // four declared, three linked
    let e = fail(&b);
    assert_eq!(*e.kind(), K::ChainEndsEarly { read: 3, count: 4 }, "{e}");
}

#[test]
fn count_of_65535_in_a_tiny_packet() {
    let mut b = valid();
    put16(&mut b, 4, 0xffff);
    let e = fail(&b);
    assert!(
        matches!(
            e.kind(),
            K::CountTooLarge {
                count: 65535,
                element_size: 8,
                ..
            }
        ),
        "{e}"
    );
    // array<T> and array<string> too.
    for text in [
        "array<uint64> xs\n",
        "array<string> xs\n",
        "array<vec3> xs\n",
    ] {
        let d = Definition::from_text("S_HOSTILE.1.def", text, def_parser::Mode::Strict).unwrap();
        let b = [12, 0, 0x34, 0x12, 0xff, 0xff, 8, 0, 8, 0, 0, 0];
        let e = d.decode_json(&b, Options::new()).unwrap_err();
        assert!(
            matches!(e.kind(), K::CountTooLarge { count: 65535, .. }),
            "{text}: {e}"
        );
    }
}

#[test]
fn offsets_into_the_header() {
    // The first element's offset (@6) and the title's (@8). (A `next` into the header is a loop,
    // see above.)
    for (at, off) in [(6, 0u16), (6, 2), (8, 3), (8, 0)] {
        let mut b = valid();
        put16(&mut b, at, off);
        let e = fail(&b);
        assert_eq!(
            *e.kind(),
            K::OffsetInHeader {
                offset: off as usize
            },
            "at {at}: {e}"
        );
    }
    // With padding, the 8 padding bytes count as header.
    let d = def();
    let v = json!({"items": [], "title": ""});
    let mut b = d
        .encode(&v, 1, Options::new().padding(true), Missing::Error)
        .unwrap();
    put16(&mut b, 16, 11); // title offset into the padding
    let e = d.decode_json(&b, Options::new().padding(true)).unwrap_err();
    assert_eq!(*e.kind(), K::OffsetInHeader { offset: 11 }, "{e}");
}

#[test]
fn string_without_terminator() {
    let mut b = valid();
    b.truncate(b.len() - 2); // drop the 0 terminator
    fix_len(&mut b);
    let e = fail(&b);
    assert_eq!(*e.kind(), K::UnterminatedString, "{e}");
    assert_eq!(e.path().to_string(), "title");
    // Odd length: half a code unit at the end.
    let mut b = valid();
    b.truncate(b.len() - 1);
    fix_len(&mut b);
    assert_eq!(*fail(&b).kind(), K::UnterminatedString);
}

#[test]
fn invalid_utf16() {
    for (units, bad) in [
        (&[0xd800u16, b'a' as u16][..], 0xd800u16), // high surrogate without its low half
        (&[0xdc00, 0][..], 0xdc00),                 // lone low surrogate
        (&[b'a' as u16, 0xdbff][..], 0xdbff),       // high surrogate right before the terminator
    ] {
        let mut b = valid();
        for (i, u) in units.iter().enumerate() {
            put16(&mut b, TITLE + 2 * i, *u);
        }
        let e = fail(&b);
        assert_eq!(*e.kind(), K::InvalidUtf16 { unit: bad }, "{units:x?}: {e}");
    }
}

#[test]
fn truncated_everywhere() {
    // Every prefix of a valid packet (header length fixed up) fails cleanly, none panics.
    let full = valid();
    for n in 0..full.len() {
        let mut b = full[..n].to_vec();
        if n >= 2 {
            fix_len(&mut b);
        }
        assert!(def().decode_json(&b, Options::new()).is_err(), "prefix {n}");
    }
}

#[test]
fn skill_id_reserved_bits_do_not_survive_a_re_encode() {
    // Found by the `tera_dynamic` fuzz target (round trip, not a crash): a `skillid` keeps only
    // the low bit of `reserved` when written, as the reference's writer does, so bits 34..64 of
    // the input are dropped. The fuzz invariant compares through that rule (`canonical`).
    let d =
        Definition::from_text("S_SKILL.1.def", "skillid s\n", def_parser::Mode::Strict).unwrap();
    let raw: u64 = (1 << 40) | (1 << 33) | 42;
    let mut b = vec![12, 0, 1, 0];
    b.extend(raw.to_le_bytes());
    let v = d.decode_json(&b, Options::new().strict(true)).unwrap();
    assert_eq!(v["s"]["reserved"], json!(129));
    let again = d.encode(&v, 1, Options::new(), Missing::Error).unwrap();
    assert_eq!(again[4..], ((1u64 << 33) | 42).to_le_bytes());
    assert_eq!(
        d.decode_json(&again, Options::new()).unwrap()["s"]["reserved"],
        json!(1)
    );
}

/// Elements holding one string (`here`, `next`, string offset: 6 bytes).
pub const SHARED: &str = "array items\n- string s\n";

/// 5 000 elements whose string offsets all point at one string of 16 000 units: 62 KB that
/// would decode to 80 MB of text.
pub fn shared_string_packet() -> Vec<u8> {
    let (n, units, first) = (5000usize, 16000usize, 8usize);
    let text = first + n * 6;
    let mut b = vec![0, 0, 0x34, 0x12];
    b.extend((n as u16).to_le_bytes());
    b.extend((first as u16).to_le_bytes());
    for i in 0..n {
        let at = first + i * 6;
        let next = if i + 1 < n { at + 6 } else { 0 };
        for x in [at, next, text] {
            b.extend((x as u16).to_le_bytes());
        }
    }
    for _ in 0..units {
        b.extend([b'a', 0]);
    }
    b.extend([0, 0]);
    fix_len(&mut b);
    b
}

/// `levels` nested arrays of `n` elements where every element's inner array is the same chain:
/// n^levels values from a few KB.
pub fn shared_chain_packet(levels: usize, n: usize) -> (String, Vec<u8>) {
    let mut def = String::new();
    for d in 0..levels {
        def.push_str(&"- ".repeat(d));
        def.push_str("array a\n");
    }
    def.push_str(&"- ".repeat(levels));
    def.push_str("byte x\n");
    let mut b = vec![0, 0, 0x34, 0x12];
    let firsts: Vec<usize> = (0..=levels).map(|l| 8 + l * n * 8).collect();
    b.extend((n as u16).to_le_bytes());
    b.extend((firsts[0] as u16).to_le_bytes());
    for l in 0..levels {
        let inner = l + 1 < levels;
        let size = if inner { 8 } else { 5 };
        for k in 0..n {
            let at = firsts[l] + k * size;
            let next = if k + 1 < n { at + size } else { 0 };
            b.extend((at as u16).to_le_bytes());
            b.extend((next as u16).to_le_bytes());
            if inner {
                b.extend((n as u16).to_le_bytes());
                b.extend((firsts[l + 1] as u16).to_le_bytes());
            } else {
                b.push(1);
            }
        }
    }
    fix_len(&mut b);
    (def, b)
}

#[test]
fn shared_data_is_read_at_most_four_times_the_packet() {
    // Found while writing the allocation bound: offsets may alias, and before the read limit
    // these decoded (80 MB in 9 s; 27 million values). Now: ReadLimit, after at most 4x the
    // packet's length of data.
    let b = shared_string_packet();
    let limit = 4 * b.len();
    let d = Definition::from_text("S_HOSTILE.1.def", SHARED, def_parser::Mode::Strict).unwrap();
    let Err(e) = d.decode_json(&b, Options::new()) else {
        panic!("decoded")
    };
    assert_eq!(*e.kind(), K::ReadLimit { limit }, "{e}");
    assert!(e.path().to_string().starts_with("items["), "{e}");
    for (levels, n) in [(2, 300), (3, 300)] {
        let (text, b) = shared_chain_packet(levels, n);
        let d = Definition::from_text("S_HOSTILE.1.def", &text, def_parser::Mode::Strict).unwrap();
        let Err(e) = d.decode_json(&b, Options::new()) else {
            panic!("decoded")
        };
        assert_eq!(
            *e.kind(),
            K::ReadLimit { limit: 4 * b.len() },
            "{levels}: {e}"
        );
    }
    // Shared data within the limit still decodes in lenient mode (the reference reads it).
    let (text, b) = shared_chain_packet(2, 3);
    let d = Definition::from_text("S_HOSTILE.1.def", &text, def_parser::Mode::Strict).unwrap();
    let v = d.decode_json(&b, Options::new()).unwrap();
    assert_eq!(v["a"][2]["a"].as_array().unwrap().len(), 3);
}
