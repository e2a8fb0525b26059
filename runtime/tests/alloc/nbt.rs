//! Allocation guard: reading hostile input never allocates more than a small multiple of the
//! input size (a counting global allocator tracks the peak of live bytes).
#![cfg(feature = "nbt")]

use crate::counting;

use counting::serial;
use def_runtime::nbt::borrow::BorrowedNbt;
use def_runtime::nbt::{Edition, ReadOptions, decode};

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
                let _ = decode(&data, o);
                let _ = BorrowedNbt::decode(&data, o);
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
        let _ = decode(&data, o).unwrap();
    });
    let borrowed = peak_during(|| {
        let _ = BorrowedNbt::decode(&data, o).unwrap();
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
    let peak = peak_during(|| err = decode(&data, o).err());
    match err.as_ref().map(|e| (e.kind(), e.path())) {
        Some((def_runtime::nbt::NbtErrorKind::MemoryLimit { limit: l }, path)) => {
            assert_eq!(*l, limit);
            assert!(path.to_string().starts_with("l["), "{path}");
        }
        other => panic!("{other:?}"),
    }
    assert!(
        peak <= limit + (1 << 20),
        "peak {peak} for a limit of {limit}"
    );

    // The default (1 GiB) reads ordinary data, and the same list when it is small.
    assert_eq!(def_runtime::nbt::DEFAULT_MAX_MEMORY, 1 << 30);
    let (small, _) = decode(&empty_compounds(1000), ReadOptions::default()).unwrap();
    let list = small.get_path("l").unwrap();
    assert_eq!(list.as_list().map(|l| l.len()), Some(1000));
}

/// `n` bytes that compress well but not to nothing (a period of 251), so that inflating them is
/// real work and the stream is a few KB.
fn patterned(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 7 % 251) as u8).collect()
}

/// What decompression may hold besides the bytes it returns: the decoder's state and window,
/// a scratch buffer, the small output of a first pass.
const DECOMPRESS_SLACK: usize = 1 << 20;

#[test]
fn decompression_holds_its_output_and_a_constant() {
    let _g = serial();
    use def_runtime::nbt::{Compression, compress};
    // Not a power of two: a buffer that grows by doubling would hold 4 MiB, and 2 + 4 MiB
    // while it moves.
    let n = (3 << 20) + 12_345;
    let plain = patterned(n);
    for how in [Compression::Gzip, Compression::Zlib, Compression::Lz4] {
        let packed = compress::compress(&plain, how).unwrap();
        for limit in [n, 2 * n, usize::MAX] {
            let mut out = None;
            let peak = peak_during(|| out = Some(compress::decompress(&packed, how, limit)));
            let d = out.unwrap().unwrap();
            assert!(d.complete, "{how:?}");
            assert!(d.data == plain, "{how:?}: other bytes");
            assert_eq!(d.data.capacity(), n, "{how:?}: spare capacity");
            assert!(
                peak <= n + DECOMPRESS_SLACK,
                "{how:?}, limit {limit}: peak {peak} for {n} bytes out"
            );
        }
        // One byte under: the limit error, having held at most the constant (the counting
        // pass keeps nothing).
        let mut out = None;
        let peak = peak_during(|| out = Some(compress::decompress(&packed, how, n - 1)));
        assert!(
            matches!(
                out.as_ref().map(|r| r.as_ref().map_err(|e| e.kind())),
                Some(Err(def_runtime::nbt::NbtErrorKind::DecompressLimit { limit })) if *limit == n - 1
            ),
            "{how:?}: {out:?}"
        );
        let bound = match how {
            // LZ4 reads its sizes from the block headers and allocates what the blocks under
            // the limit hold, then stops at the block that passes it.
            Compression::Lz4 => n + DECOMPRESS_SLACK,
            _ => DECOMPRESS_SLACK,
        };
        assert!(peak <= bound, "{how:?} over the limit: peak {peak}");
    }
}

#[test]
fn a_gzip_size_field_that_lies_changes_neither_the_bytes_nor_the_bound() {
    let _g = serial();
    use def_runtime::nbt::{Compression, compress};
    let n = (3 << 20) + 12_345;
    let plain = patterned(n);
    let packed = compress::compress(&plain, Compression::Gzip).unwrap();
    let at = packed.len() - 4;
    // Too small (the stream runs past the room it gives), too large, and true.
    for claimed in [300 << 10, n + 4096, n] {
        let mut lying = packed.clone();
        lying[at..].copy_from_slice(&(claimed as u32).to_le_bytes());
        let mut out = None;
        let peak =
            peak_during(|| out = Some(compress::decompress(&lying, Compression::Gzip, usize::MAX)));
        let d = out.unwrap().unwrap();
        // Every byte of the deflate stream comes out; the trailer's check fails unless true.
        assert!(d.data == plain, "claimed {claimed}: other bytes");
        assert_eq!(d.complete, claimed == n, "claimed {claimed}: {:?}", d.error);
        assert!(
            peak <= n.max(claimed) + DECOMPRESS_SLACK,
            "claimed {claimed}: peak {peak} for {n} bytes out"
        );
    }
}

#[test]
fn a_broken_stream_gives_what_it_decoded_within_its_size() {
    let _g = serial();
    use def_runtime::nbt::{Compression, compress};
    // Pseudo-random bytes (xorshift), so that half the stream is about half the output.
    let n = 3 << 20;
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let plain: Vec<u8> = (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 59) as u8 // 32 values: compressible, not trivially
        })
        .collect();
    for how in [Compression::Gzip, Compression::Zlib] {
        let packed = compress::compress(&plain, how).unwrap();
        let cut = &packed[..packed.len() / 2];
        let mut out = None;
        let peak = peak_during(|| out = Some(compress::decompress(cut, how, usize::MAX)));
        let d = out.unwrap().unwrap();
        assert!(!d.complete && d.error.is_some(), "{how:?}");
        // What came out is the start of the data, most of its first half.
        assert!(
            d.data.len() > n / 4 && d.data.len() < n,
            "{how:?}: {}",
            d.data.len()
        );
        assert!(plain.starts_with(&d.data), "{how:?}: not a prefix");
        // The documented bound: the output and the constant, except that a gzip stream whose
        // last four bytes make a believable size (over 256 KiB, at most 1,032 times the input)
        // was given a buffer of that size and keeps it when it ends early.
        let claimed = u32::from_le_bytes(cut[cut.len() - 4..].try_into().unwrap()) as usize;
        let room = match how {
            Compression::Gzip if claimed > 256 << 10 && claimed / 1032 <= cut.len() => claimed,
            _ => 0,
        };
        assert!(
            peak <= d.data.len().max(room) + DECOMPRESS_SLACK,
            "{how:?}: peak {peak} for {} bytes out (room {room})",
            d.data.len()
        );
    }
}

#[test]
fn a_region_chunk_near_its_limit_holds_its_bytes_and_its_tree() {
    let _g = serial();
    use def_runtime::nbt::region::RegionFile;
    use def_runtime::nbt::{FileOptions, ReadOptions, compress};
    // One chunk: a compound holding a byte array of `n` bytes; zlib, in slot 0.
    // 6 MiB and a bit: a buffer that grows by doubling would hold 8 MiB beside the tree.
    let n = (6 << 20) + 12_345;
    let mut nbt = vec![10, 0, 0, 7, 0, 1, b'a'];
    nbt.extend((n as i32).to_be_bytes());
    nbt.extend(patterned(n));
    nbt.push(0);
    let packed = compress::compress(&nbt, def_runtime::nbt::Compression::Zlib).unwrap();
    let sectors = (packed.len() + 5).div_ceil(4096);
    let mut file = vec![0u8; 8192];
    file[..4].copy_from_slice(&((2u32 << 8) | sectors as u32).to_be_bytes());
    file.extend(((packed.len() + 1) as u32).to_be_bytes());
    file.push(2);
    file.extend(&packed);
    file.resize((2 + sectors) * 4096, 0);
    // The chunk's limit is its exact size.
    let opts = FileOptions {
        read: ReadOptions::default().max_decompressed(nbt.len()),
        ..FileOptions::default()
    };
    let mut ok = false;
    let peak = peak_during(|| {
        let r = RegionFile::decode_with_budget(&file, opts, 64 << 20).unwrap();
        ok = r.chunks[0].nbt().is_some();
    });
    assert!(ok);
    // Held at once: the inflated bytes, the tree's copy of the array, the stored bytes.
    let held = nbt.len() + n + packed.len();
    assert!(
        peak <= held + DECOMPRESS_SLACK,
        "peak {peak}, {held} bytes held"
    );
}

/// A Java document: a root compound holding one list of `n` compounds, each of the entries
/// `entries` (Java bytes, without the compound's end).
fn list_of_compounds(n: usize, entries: &[u8]) -> Vec<u8> {
    let mut v = vec![10, 0, 0, 9, 0, 1, b'l', 10];
    v.extend_from_slice(&(n as i32).to_be_bytes());
    for _ in 0..n {
        v.extend_from_slice(entries);
        v.push(0);
    }
    v.push(0);
    v
}

/// What a thread keeps between reads is bounded: up to 16 MiB of freed blocks and one block
/// whose references wait to be taken off (`block.rs`), up to 1 MiB of the reader's working
/// vectors (`read.rs`, `KEPT_MAX`) and up to 64 KiB of a zero-copy document's tape
/// (`borrow.rs`, `TAPE_KEPT_MAX`). A pile of 1 Mi compounds (24 MiB) and its tape (12 MiB) are
/// not kept; a pile of 16 Ki (384 KiB) is, and the next read of that document allocates only
/// its tree's one vector over 64 KiB; the tape of 2,000 compounds (24 kB) is, and the next
/// zero-copy read of that document allocates nothing.
#[test]
fn a_thread_keeps_a_bounded_amount_between_reads() {
    let _g = serial();
    let large = list_of_compounds(1 << 20, &[]);
    let small = list_of_compounds(16 << 10, &[]);
    let packet = list_of_compounds(2000, &[]);
    let o = ReadOptions::new(Edition::Java);
    let (kept, later, zero_copy) = std::thread::scope(|s| {
        s.spawn(|| {
            let kept = counting::left(|| {
                for data in [&large, &small, &large] {
                    drop(decode(data, o).unwrap());
                }
                for data in [&packet, &large] {
                    drop(BorrowedNbt::decode(data, o).unwrap());
                }
            });
            drop(decode(&small, o).unwrap());
            let later = counting::measure(|| drop(decode(&small, o).unwrap()));
            drop(BorrowedNbt::decode(&packet, o).unwrap());
            let zero_copy = counting::measure(|| drop(BorrowedNbt::decode(&packet, o).unwrap()));
            (kept, later, zero_copy)
        })
        .join()
        .unwrap()
    });
    // Of blocks, these documents fill one at most (the 2,000 compounds' list; the other lists
    // are longer than a block), kept spare or waiting for its references to be taken off.
    assert!(
        kept <= (1 << 20) + (64 << 10) + 2 * (65 << 10),
        "{kept} bytes kept by the thread"
    );
    assert!(later.allocs <= 2, "{} allocations", later.allocs);
    assert_eq!(zero_copy.allocs, 0, "allocations of a zero-copy read");
}

/// A thread that exits frees what it kept (spare blocks, the blocks whose references it
/// deferred, working vectors): documents read on one thread and dropped on another, both of
/// which exit, leave nothing allocated.
#[test]
fn an_exiting_thread_frees_what_it_kept() {
    let _g = serial();
    // 2,000 compounds of one entry each: their entries and the list go to blocks.
    let doc = list_of_compounds(2000, &[1, 0, 1, b'b', 7]);
    let o = ReadOptions::new(Edition::Java);
    let before = counting::live();
    std::thread::scope(|s| {
        let trees = s
            .spawn(|| {
                for _ in 0..3 {
                    drop(decode(&doc, o).unwrap());
                }
                (0..3).map(|_| decode(&doc, o).unwrap()).collect::<Vec<_>>()
            })
            .join()
            .unwrap();
        s.spawn(move || drop(trees)).join().unwrap();
    });
    // The count is the process's: the test harness's own threads move it by a few bytes.
    let after = counting::live();
    assert!(
        after.abs_diff(before) < 4 << 10,
        "{before} bytes live before the two threads, {after} after"
    );
}
