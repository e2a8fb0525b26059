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

/// A root compound holding a list `l` of `n` empty compounds: one byte each on the wire.
fn empty_compounds(n: u32) -> Vec<u8> {
    let mut data = vec![10, 0, 0, 9, 0, 1, b'l', 10];
    data.extend_from_slice(&n.to_be_bytes());
    data.resize(data.len() + n as usize, 0);
    data.push(0);
    data
}

#[test]
fn a_plain_file_cannot_build_a_tree_past_its_memory_limit() {
    let _g = serial();
    // 8 Mi empty compounds: 8 MiB on the wire, hundreds of MiB as a tree.
    let data = empty_compounds(8 << 20);
    let limit = 4 << 20;
    let o = ReadOptions::default().max_memory(limit);
    let mut err = None;
    let peak = peak_during(|| err = read_root(&data, &o).err());
    match err.as_ref().map(|e| (e.kind(), e.path())) {
        Some((def_runtime::nbt::NbtErrorKind::MemoryLimit { limit: l }, path)) => {
            assert_eq!(*l, limit);
            assert_eq!(path.to_string(), "l");
        }
        other => panic!("{other:?}"),
    }
    assert!(
        peak <= limit + (1 << 20),
        "peak {peak} for a limit of {limit}"
    );

    // The default (1 GiB) reads ordinary data, and the same list when it is small.
    assert_eq!(def_runtime::nbt::DEFAULT_MAX_MEMORY, 1 << 30);
    let (small, _) = read_root(&empty_compounds(1000), &ReadOptions::default()).unwrap();
    let list = small.get_path("l").unwrap();
    assert_eq!(list.as_list().map(|l| l.len()), Some(1000));
}
