//! Allocation guard: reading hostile input never allocates more than a small multiple of the
//! input size (a counting global allocator tracks the peak of live bytes).
#![cfg(feature = "nbt")]

use crate::counting;

use counting::serial;
use def_runtime::nbt::borrow::BorrowedNbt;
use def_runtime::nbt::{Edition, ReadOptions, read_root};

/// Peak extra bytes allocated while running `f`.
fn peak_during(f: impl FnOnce()) -> usize {
    counting::measure(f).peak
}

fn hostile_inputs() -> Vec<Vec<u8>> {
    let mut v = Vec::new();
    // Lists of every element type declaring 2^31-1 elements, a few bytes behind.
    for elem in 0u8..=12 {
        v.push(vec![
            10, 0, 0, 9, 0, 1, b'l', elem, 0x7f, 0xff, 0xff, 0xff, 1, 2, 3, 4, 0,
        ]);
    }
    // Arrays declaring 2^31-1 elements.
    for ty in [7u8, 11, 12] {
        v.push(vec![
            10, 0, 0, ty, 0, 1, b'a', 0x7f, 0xff, 0xff, 0xff, 1, 2, 3, 0,
        ]);
    }
    // 1 KiB of nested "list of 255 compounds" whose first compound holds the next such list:
    // each level declares far more than it holds, and pre-allocating per level would add up.
    let mut nest = vec![10, 0, 0];
    while nest.len() < 1024 {
        nest.extend_from_slice(&[9, 0, 1, b'l', 10, 0, 0, 0, 0xff]);
    }
    v.push(nest);
    v
}

#[test]
fn hostile_lengths_allocate_little() {
    let _g = serial();
    for data in hostile_inputs() {
        for ed in [Edition::Java, Edition::Bedrock, Edition::BedrockNetwork] {
            let o = ReadOptions::new(ed);
            let peak = peak_during(|| {
                let _ = read_root(&data, &o);
                let _ = BorrowedNbt::read(&data, &o);
            });
            assert!(
                peak <= 64 * data.len() + (64 << 10),
                "{ed:?}: {peak} bytes allocated for {} bytes of input",
                data.len()
            );
        }
    }
}

#[test]
fn valid_input_allocates_a_small_multiple() {
    let _g = serial();
    // 10 000 small compounds in a list: the tree is the allocation.
    let mut data = vec![10, 0, 0, 9, 0, 1, b'l', 10, 0, 0, 0x27, 0x10];
    for i in 0..10_000u32 {
        data.extend_from_slice(&[3, 0, 1, b'i']);
        data.extend_from_slice(&i.to_be_bytes());
        data.push(0);
    }
    data.push(0);
    let o = ReadOptions::default();
    let owned = peak_during(|| {
        let _ = read_root(&data, &o).unwrap();
    });
    let borrowed = peak_during(|| {
        let _ = BorrowedNbt::read(&data, &o).unwrap();
    });
    assert!(
        owned <= 16 * data.len(),
        "owned: {owned} for {}",
        data.len()
    );
    // The tape: 12 bytes per compound (9 bytes each here), times a Vec's growth.
    assert!(
        borrowed <= 4 * data.len(),
        "borrowed: {borrowed} for {}",
        data.len()
    );
}
