//! Hostile TERA packets through generated code: every case fails with the same error kind at the
//! same offset as the dynamic codec (`runtime/tests/tera/hostile.rs` has the dynamic-only cases
//! on a small inline definition). Figures in docs/reliability.md.

use def_runtime::tera::DecodeErrorKind as K;
use def_runtime::tera::dynamic::{Definition, Missing};
use def_runtime::{DecodeError, Options, Packet};
use def_tests::c_every_type::v1::CEveryType;
use def_tests::i_fixed_after_var::v1::IFixedAfterVar;
use serde_json::{Value, json};

fn definition(file: &str) -> Definition {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("defs")
        .join(file);
    Definition::from_file(&path, def_parser::Mode::Strict).unwrap()
}

fn encode(file: &str, v: &Value) -> Vec<u8> {
    definition(file)
        .encode(v, 1, Options::new(), Missing::Default)
        .unwrap()
}

fn put16(b: &mut [u8], at: usize, v: u16) {
    b[at..at + 2].copy_from_slice(&v.to_le_bytes());
}

/// Both codecs refuse `b`, in lenient and strict mode, with the same kind at the same offset.
fn both_fail<P: Packet + std::fmt::Debug>(file: &str, b: &[u8]) -> DecodeError {
    let d = definition(file);
    for opts in [Options::new(), Options::new().strict(true)] {
        let typed = P::decode(b, opts).unwrap_err();
        let dynamic = d.decode_json(b, opts).unwrap_err();
        assert_eq!(
            (typed.kind(), typed.offset(), typed.path()),
            (dynamic.kind(), dynamic.offset(), dynamic.path()),
            "{typed} / {dynamic}"
        );
    }
    P::decode(b, Options::new()).unwrap_err()
}

const EVERY: &str = "C_EVERY_TYPE.1.def";

/// `entries` (count @24, offset @26) of two elements at 126 and 168; the first holds one `marks`
/// element (its count @132) and one `sub` element.
fn every() -> Vec<u8> {
    let v = json!({"name": "N", "entries": [
        {"id": 1, "text": "a", "marks": [7], "sub": [{"on": true, "data": "ab"}]},
        {"id": 2, "text": "", "marks": [], "sub": []}]});
    let b = encode(EVERY, &v);
    assert_eq!(&b[24..28], &[2, 0, 126, 0], "{b:02x?}");
    assert_eq!(&b[126..130], &[126, 0, 168, 0]);
    assert_eq!(&b[132..134], &[1, 0]);
    assert_eq!(&b[168..172], &[168, 0, 0, 0]);
    b
}

#[test]
fn element_chain_loops() {
    let mut b = every();
    put16(&mut b, 24, 3);
    put16(&mut b, 170, 126);
    let e = both_fail::<CEveryType>(EVERY, &b);
    assert_eq!(
        *e.kind(),
        K::ElementLoop {
            next: 126,
            from: 168
        },
        "{e}"
    );
    assert_eq!(e.path().to_string(), "entries[2]");
}

#[test]
fn element_chain_points_outside() {
    let mut b = every();
    put16(&mut b, 128, 0xfff0);
    let e = both_fail::<CEveryType>(EVERY, &b);
    assert!(
        matches!(e.kind(), K::OffsetOutOfBounds { offset: 0xfff0, .. }),
        "{e}"
    );
}

#[test]
fn counts_of_65535() {
    for at in [24, 132] {
        let mut b = every();
        put16(&mut b, at, 0xffff);
        let e = both_fail::<CEveryType>(EVERY, &b);
        assert!(
            matches!(e.kind(), K::CountTooLarge { count: 65535, .. }),
            "@{at}: {e}"
        );
    }
}

#[test]
fn element_checks_in_the_chains_order() {
    // `ints` (count @10, offset @12) of two elements: the first at 168 (over `entries[1]`, read
    // later), the second 6 bytes before the end, where its `here` and `next` fit but its value
    // does not, and its `here` is wrong. Strict mode reports the `here`, lenient mode the
    // truncation, in both codecs (the generated `array<T>` loop once reported the truncation
    // in both modes: found by fuzzing).
    let mut b = every();
    let last = b.len() - 6;
    assert!(last > 172, "{}", b.len());
    put16(&mut b, 10, 2);
    put16(&mut b, 12, 168);
    put16(&mut b, 168, 168);
    put16(&mut b, 170, last as u16);
    put16(&mut b, last, 0x4ce4);
    put16(&mut b, last + 2, 0);
    let d = definition(EVERY);
    for (opts, kind, at) in [
        (
            Options::new().strict(true),
            K::HereMismatch {
                here: 0x4ce4,
                offset: last,
            },
            last,
        ),
        (
            Options::new(),
            K::Truncated {
                needed: 4,
                available: 2,
            },
            last + 4,
        ),
    ] {
        let typed = CEveryType::decode(&b, opts).unwrap_err();
        let dynamic = d.decode_json(&b, opts).unwrap_err();
        for e in [&typed, &dynamic] {
            assert_eq!((e.kind(), e.offset()), (&kind, at), "{e}");
            assert_eq!(e.path().to_string(), "ints[1]");
        }
    }
}

#[test]
fn offsets_into_the_header() {
    for (at, off) in [(26, 2u16), (4, 1), (4, 3)] {
        let mut b = every();
        put16(&mut b, at, off);
        let e = both_fail::<CEveryType>(EVERY, &b);
        assert_eq!(
            *e.kind(),
            K::OffsetInHeader {
                offset: off as usize
            },
            "@{at}: {e}"
        );
    }
}

const FIXED: &str = "I_FIXED_AFTER_VAR.1.def";

/// `command` @8, `parameter` @14 (offsets @4, @6), then the `unk` byte @20.
fn fixed() -> Vec<u8> {
    let b = encode(
        FIXED,
        &json!({"command": "ab", "parameter": "cd", "unk": true}),
    );
    assert_eq!(&b[4..8], &[8, 0, 14, 0], "{b:02x?}");
    assert_eq!(b.len(), 21);
    b
}

#[test]
fn string_without_terminator() {
    let mut b = fixed();
    put16(&mut b, 6, 19); // `parameter`: one code unit (0x0100) before the end
    let e = both_fail::<IFixedAfterVar>(FIXED, &b);
    assert_eq!(*e.kind(), K::UnterminatedString, "{e}");
    assert_eq!(e.path().to_string(), "parameter");
}

#[test]
fn invalid_utf16() {
    for (unit, at) in [(0xd800u16, 8), (0xdfff, 10), (0xdbff, 16)] {
        let mut b = fixed();
        put16(&mut b, at, unit);
        let e = both_fail::<IFixedAfterVar>(FIXED, &b);
        assert_eq!(*e.kind(), K::InvalidUtf16 { unit }, "{e}");
    }
}

#[test]
fn every_prefix_and_every_byte() {
    // Truncation anywhere, and each byte set to 0x00 / 0xff / 0x80: never a panic, and the two
    // codecs always agree on accept/refuse (and on the error).
    let full = every();
    let d = definition(EVERY);
    let mut cases: Vec<Vec<u8>> = (0..full.len()).map(|n| full[..n].to_vec()).collect();
    for i in 0..full.len() {
        for v in [0u8, 0xff, 0x80] {
            let mut b = full.clone();
            b[i] = v;
            cases.push(b);
        }
    }
    for b in cases {
        let typed = CEveryType::decode(&b, Options::new());
        let dynamic = d.decode_json(&b, Options::new());
        match (typed, dynamic) {
            (Ok(_), Ok(_)) => {}
            (Err(a), Err(b)) => assert_eq!((a.kind(), a.offset()), (b.kind(), b.offset())),
            (a, b) => panic!("{a:?} / {b:?}"),
        }
    }
}

#[test]
fn shared_strings_hit_the_read_limit_in_both_codecs() {
    // 1 500 entries whose `text` offsets all point at one 12 000-unit string appended at the end:
    // 60 KB that would decode to 18 MB of text. Both codecs stop at 4x the packet's length.
    let n = 1500;
    let entries: Vec<Value> = (0..n)
        .map(|i| json!({"id": i, "text": "", "marks": [], "sub": []}))
        .collect();
    let mut b = encode(EVERY, &json!({ "entries": entries }));
    let text = b.len();
    for _ in 0..12_000 {
        b.extend([b'x', 0]);
    }
    b.extend([0, 0]);
    let len = b.len() as u16;
    put16(&mut b, 0, len);
    let mut at = u16::from_le_bytes([b[26], b[27]]) as usize;
    for _ in 0..n {
        put16(&mut b, at + 4, text as u16);
        at = u16::from_le_bytes([b[at + 2], b[at + 3]]) as usize;
    }
    assert_eq!(at, 0);
    let e = both_fail::<CEveryType>(EVERY, &b);
    assert_eq!(*e.kind(), K::ReadLimit { limit: 4 * b.len() }, "{e}");
}
