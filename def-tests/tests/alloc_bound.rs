//! Allocation bound for generated TERA decoders (the dynamic codec and the other formats are in
//! `runtime/tests/alloc/bound.rs`): decoding hostile packets allocates at most a small multiple
//! of the packet's size. Multiples are stated in docs/reliability.md.

#[path = "../../runtime/tests/support/counting.rs"]
mod counting;

use counting::serial;
use def_runtime::tera::dynamic::{Definition, Missing};
use def_runtime::{Options, Packet};
use def_tests::c_every_type::v1::CEveryType;
use serde_json::{Value, json};

/// Generated types: a struct per element (`CEveryType` entries are 96 bytes for 22 of wire).
const GENERATED_MULTIPLE: usize = 16;
/// With aliased offsets: at most 4x (the reader's `READ_FACTOR`).
const GENERATED_ALIASED_MULTIPLE: usize = 4 * GENERATED_MULTIPLE;

fn bounded(case: &str, b: &[u8], multiple: usize) {
    let _g = serial();
    let peak = counting::measure(|| drop(CEveryType::decode(b, Options::new()))).peak;
    eprintln!(
        "generated {case:44} input {:>6} B  peak {peak:>8} B ({:.1}x)",
        b.len(),
        peak as f64 / b.len() as f64
    );
    assert!(
        peak <= multiple * b.len() + (64 << 10),
        "{case}: peak {peak} B for {} B (bound {multiple}x + 64 KiB)",
        b.len()
    );
}

fn encode(v: &Value) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("defs/C_EVERY_TYPE.1.def");
    let d = Definition::from_file(&path, def_parser::Mode::Strict).unwrap();
    // Built before measuring.
    d.encode(v, 1, Options::new(), Missing::Default).unwrap()
}

fn put16(b: &mut [u8], at: usize, v: usize) {
    b[at..at + 2].copy_from_slice(&(v as u16).to_le_bytes());
}

#[test]
fn generated_decoders_allocate_a_small_multiple() {
    // Counts of 65535 for each array of the root and for bytes. (Before the fix, `entries`
    // reserved 65535 elements before checking the count: 5 MB for this 124-byte packet.)
    let base = encode(&json!({}));
    for (what, at) in [
        ("blob", 8),
        ("ints", 10),
        ("words", 14),
        ("points", 18),
        ("entries", 24),
    ] {
        let mut b = base.clone();
        put16(&mut b, at, 0xffff);
        bounded(&format!("count 65535 in {what}"), &b, GENERATED_MULTIPLE);
    }
    // As many minimal entries as a packet holds (valid).
    let n = 2600;
    let entries: Vec<Value> = (0..n)
        .map(|i| json!({"id": i, "text": "", "marks": [], "sub": []}))
        .collect();
    let many = encode(&json!({ "entries": entries }));
    bounded("2 600 minimal entries (valid)", &many, GENERATED_MULTIPLE);
    // Their `text` offsets all at one 8 000-unit string appended to the packet.
    let n = 1500;
    let entries: Vec<Value> = (0..n)
        .map(|i| json!({"id": i, "text": "", "marks": [], "sub": []}))
        .collect();
    let mut b = encode(&json!({ "entries": entries }));
    let text = b.len();
    for _ in 0..8000 {
        b.extend([b'x', 0]);
    }
    b.extend([0, 0]);
    let len = b.len();
    put16(&mut b, 0, len);
    let mut at = u16::from_le_bytes([b[26], b[27]]) as usize;
    for _ in 0..n {
        put16(&mut b, at + 4, text);
        at = u16::from_le_bytes([b[at + 2], b[at + 3]]) as usize;
    }
    bounded(
        "1 500 offsets sharing one 16 KB string",
        &b,
        GENERATED_ALIASED_MULTIPLE,
    );
    // Every entry's `sub` array pointing at the first entry's (one shared chain).
    let n = 1000;
    let entries: Vec<Value> = (0..n)
        .map(|i| {
            let sub: Vec<Value> = if i == 0 {
                (0..n).map(|_| json!({"on": true, "data": ""})).collect()
            } else {
                vec![]
            };
            json!({"id": i, "text": "", "marks": [], "sub": sub})
        })
        .collect();
    let mut b = encode(&json!({ "entries": entries }));
    let first = u16::from_le_bytes([b[26], b[27]]) as usize;
    let (count, off) = (
        u16::from_le_bytes([b[first + 10], b[first + 11]]) as usize,
        u16::from_le_bytes([b[first + 12], b[first + 13]]) as usize,
    );
    assert_eq!(count, n, "sub meta of the first entry");
    let mut at = u16::from_le_bytes([b[first + 2], b[first + 3]]) as usize;
    while at != 0 {
        put16(&mut b, at + 10, count);
        put16(&mut b, at + 12, off);
        at = u16::from_le_bytes([b[at + 2], b[at + 3]]) as usize;
    }
    bounded(
        "1 000 entries sharing one sub chain",
        &b,
        GENERATED_ALIASED_MULTIPLE,
    );
}
