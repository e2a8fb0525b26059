//! Allocations per parse of each sample file, printed as a table (`cargo test -p def-runtime
//! --all-features --test alloc per_sample -- --nocapture`) and checked against the owned tree's
//! model, counted on the sample's independent JSON dump: one allocation per string, key,
//! compound, list or array of more than 64 KiB; the first 8 containers and
//! strings of a read of under 1 KiB have allocations of their own, and the entries, elements and bytes of
//! the others (strings over the 22 bytes `NbtString` keeps inline) share blocks, whose number
//! grows with the logarithm of their bytes (the first 2 KiB, the next 4, …, up to 64 KiB a
//! block).
#![cfg(feature = "nbt")]

use crate::{counting, nbt_samples, support};

use def_runtime::nbt::borrow::BorrowedNbt;
use def_runtime::nbt::dump::Json;
use def_runtime::nbt::{Compression, NbtFile, compress};

/// Bytes of the Modified UTF-8 form of UTF-16 `units`.
fn mutf8_len(units: &[u16]) -> usize {
    units
        .iter()
        .map(|&u| match u {
            1..=0x7F => 1,
            0 | 0x80..=0x7FF => 2,
            _ => 3,
        })
        .sum()
}

fn text(j: &Json) -> &[u16] {
    match j {
        Json::String(s) => s,
        _ => &[],
    }
}

/// The bytes a block holds at most.
const MAX_BLOCK: usize = 64 << 10;
/// The bytes of a compound entry.
const ENTRY: usize = 56;

/// The bytes `n` elements of `size` take in a block, or `None` if they get a vector of their own
/// (more than a block holds).
fn pooled(n: usize, size: usize) -> Option<usize> {
    let bytes = (n * size).next_multiple_of(8);
    (bytes <= MAX_BLOCK).then_some(bytes)
}

/// The model for one dumped value (`{"type": …, "value": …}`): allocations of its own, and the
/// bytes of its compounds and lists of numbers that go to blocks.
fn model(j: &Json) -> (usize, usize) {
    let ty: String = j.get("type").and_then(Json::as_str).unwrap_or_default();
    let value = j.get("value");
    // A key or string over 22 bytes: in a block up to 64 KiB, an allocation of its own above.
    let long = |s: &[u16]| match mutf8_len(s) {
        0..=22 => (0, 0),
        n @ 23..=65536 => (0, n.next_multiple_of(8)),
        _ => (1, 0),
    };
    let sum = |it: &mut dyn Iterator<Item = (usize, usize)>| {
        it.fold((0, 0), |(a, e), (x, y)| (a + x, e + y))
    };
    match (ty.as_str(), value) {
        ("compound", Some(Json::Object(m))) => {
            let (a, e) = sum(&mut m.iter().map(|(k, v)| {
                let (a, e) = model(v);
                let (ka, ke) = long(k);
                (a + ka, e + ke)
            }));
            match pooled(m.len(), ENTRY) {
                Some(b) => (a, e + b),
                None => (a + 1, e),
            }
        }
        ("list", Some(Json::Array(v))) => match number_size(v.first()) {
            Some(size) => numbers(v.len(), size),
            None => {
                let (a, e) = sum(&mut v.iter().map(model));
                let (own, pooled) = numbers(v.len(), element_size(v.first()));
                (a + own, e + pooled)
            }
        },
        ("byte_array", Some(Json::Array(v))) => numbers(v.len(), 1),
        ("int_array", Some(Json::Array(v))) => numbers(v.len(), 4),
        ("long_array", Some(Json::Array(v))) => numbers(v.len(), 8),
        ("string", Some(s)) => long(text(s)),
        _ => (0, 0),
    }
}

/// The size of a number, if the dumped value `e` (a list's first element) is one.
fn number_size(e: Option<&Json>) -> Option<usize> {
    let ty: String = e?.get("type").and_then(Json::as_str)?;
    Some(match ty.as_str() {
        "byte" => 1,
        "short" => 2,
        "int" | "float" => 4,
        "long" | "double" => 8,
        _ => return None,
    })
}

/// A list or array of `n` numbers of `size` bytes: in a block, or a vector of its own.
fn numbers(n: usize, size: usize) -> (usize, usize) {
    match (n, pooled(n, size)) {
        (0, _) => (0, 0),
        (_, Some(b)) => (0, b),
        (_, None) => (1, 0),
    }
}

/// The size in the tree of a list element that is not a number (`NbtVec`, `NbtString`, `List`,
/// `Compound`).
fn element_size(e: Option<&Json>) -> usize {
    match e
        .and_then(|e| e.get("type"))
        .and_then(Json::as_str)
        .as_deref()
    {
        Some("list") => 32,
        _ => 24,
    }
}

/// The most blocks a read of `bytes` pooled bytes takes: rooms doubling from 2 KiB up to
/// [`MAX_BLOCK`], and a container that does not fit the room left opens the next block (so at
/// most twice the blocks that would hold the bytes end to end).
fn blocks_bound(bytes: usize) -> usize {
    let (mut room, mut held, mut n) = (2 << 10, 0, 0);
    while held < bytes {
        held += room;
        room = (2 * room).min(MAX_BLOCK);
        n += 1;
    }
    2 * n
}

#[test]
fn allocations_per_parse_of_each_sample() {
    let _g = counting::serial();
    let Some(dir) = support::shared("nbt-samples") else {
        return;
    };
    let names = nbt_samples::dump_names(&dir);
    println!(
        "{:<52} {:>9} {:>12} {:>7} {:>7} {:>9} {:>8}",
        "sample (decompressed first)",
        "bytes",
        "model+blocks",
        "owned",
        "later",
        "borrowed",
        "peak kB"
    );
    let mut rows = 0;
    for json_name in names {
        let j = Json::parse(&std::fs::read_to_string(dir.join(&json_name)).unwrap()).unwrap();
        let meta = j.get("meta").unwrap();
        let kind: String = meta.get("kind").and_then(Json::as_str).unwrap_or_default();
        if meta.get("result").and_then(Json::as_str).as_deref() != Some("ok") {
            continue;
        }
        let Some(opts) = nbt_samples::options_for(&kind) else {
            continue;
        };
        let name = json_name.trim_end_matches(".json");
        let raw = std::fs::read(dir.join(name)).unwrap();
        let plain = match Compression::detect(&raw) {
            Compression::None => raw,
            c => compress::decompress(&raw, c, usize::MAX).unwrap().data,
        };
        let roots: Vec<&Json> = match j.get("roots") {
            Some(Json::Array(r)) => r.iter().collect(),
            _ => vec![&j],
        };
        // The tree's allocations, plus the root names' and the vector of roots'; the blocks.
        let (mut want, mut entries) = (1, 0);
        for r in &roots {
            let (a, e) = model(r);
            want += a + usize::from(mutf8_len(r.get("name").map_or(&[], text)) > 22);
            entries += e;
        }
        let blocks = blocks_bound(entries);
        let mut file = None;
        // On a thread of its own, which has no spare blocks from an earlier read: every block
        // the tree takes is counted.
        let (owned, later) = std::thread::scope(|s| {
            s.spawn(|| {
                let first =
                    counting::measure(|| file = Some(NbtFile::decode(&plain, opts).unwrap()));
                // A thread reading one document after another: its later reads take the blocks
                // and working vectors the earlier ones gave back.
                for _ in 0..3 {
                    drop(NbtFile::decode(&plain, opts).unwrap());
                }
                let later = counting::measure(|| drop(NbtFile::decode(&plain, opts).unwrap()));
                (first, later)
            })
            .join()
            .unwrap()
        });
        let body = &plain[if file.unwrap().header.is_some() { 8 } else { 0 }..];
        let borrowed = counting::measure(|| {
            let b = if opts.all_roots {
                BorrowedNbt::decode_all(body, opts.read)
            } else {
                BorrowedNbt::decode(body, opts.read)
            };
            drop(b.unwrap());
        });
        println!(
            "{name:<52} {:>9} {:>12} {:>7} {:>7} {:>9} {:>8}",
            plain.len(),
            format!("{want}+{blocks}"),
            owned.allocs,
            later.allocs,
            borrowed.allocs,
            owned.peak / 1000
        );
        // The reader's own on top: its scratch vector's and piles' growth (by doubling, shared
        // by the roots of a multi-root file), the NbtFile, the vector of roots' growth; and the
        // first 8 containers' vectors of a read of under 1 KiB. Nothing of the reader's is
        // allocated per root.
        let roots_growth = (usize::BITS - roots.len().leading_zeros()) as usize;
        assert!(
            owned.allocs >= want && owned.allocs <= want + blocks + 8 + roots_growth + 40,
            "{name}: {} allocations, the model says {want} and at most {blocks} blocks",
            owned.allocs
        );
        // A later read of 1 KiB or more allocates what the model gives its own allocations
        // (and the vector of roots growing by doubling in a multi-root file): its blocks and
        // working vectors are the ones the first read gave back. A smaller document is read
        // as on a new thread.
        let later_bound = if plain.len() >= 1024 {
            want + roots_growth
        } else {
            owned.allocs
        };
        assert!(
            later.allocs <= later_bound,
            "{name}: {} allocations on a later read of the thread, the model says {want}",
            later.allocs
        );
        rows += 1;
    }
    assert!(rows > 50, "{rows} samples");
}
