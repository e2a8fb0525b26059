//! Allocations per parse of each sample file, printed as a table (`cargo test -p def-runtime
//! --all-features --test alloc per_sample -- --nocapture`) and checked against the owned tree's
//! model, counted on the sample's independent JSON dump: one allocation per non-empty compound,
//! list and array, and per string or key longer than the 22 bytes `NbtString` keeps inline.
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

/// The model's allocations for one dumped value (`{"type": …, "value": …}`).
fn model(j: &Json) -> usize {
    let ty: String = j.get("type").and_then(Json::as_str).unwrap_or_default();
    let value = j.get("value");
    let long = |s: &[u16]| usize::from(mutf8_len(s) > 22);
    match (ty.as_str(), value) {
        ("compound", Some(Json::Object(m))) => {
            usize::from(!m.is_empty()) + m.iter().map(|(k, v)| long(k) + model(v)).sum::<usize>()
        }
        ("list", Some(Json::Array(v))) => {
            usize::from(!v.is_empty()) + v.iter().map(model).sum::<usize>()
        }
        ("byte_array" | "int_array" | "long_array", Some(Json::Array(v))) => {
            usize::from(!v.is_empty())
        }
        ("string", Some(s)) => long(text(s)),
        _ => 0,
    }
}

#[test]
fn allocations_per_parse_of_each_sample() {
    let _g = counting::serial();
    let Some(dir) = support::shared("nbt-samples") else {
        return;
    };
    let names = nbt_samples::dump_names(&dir);
    println!(
        "{:<52} {:>9} {:>7} {:>7} {:>9} {:>8}",
        "sample (decompressed first)", "bytes", "model", "owned", "borrowed", "peak kB"
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
        // The tree's allocations, plus the root names' and the vector of roots'.
        let want: usize = roots
            .iter()
            .map(|r| model(r) + usize::from(mutf8_len(r.get("name").map_or(&[], text)) > 22))
            .sum::<usize>()
            + 1;
        let mut file = None;
        let owned = counting::measure(|| file = Some(NbtFile::decode(&plain, opts).unwrap()));
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
            "{name:<52} {:>9} {:>7} {:>7} {:>9} {:>8}",
            plain.len(),
            want,
            owned.allocs,
            borrowed.allocs,
            owned.peak / 1000
        );
        // The reader's own on top: its scratch vectors' growth (by doubling), the NbtFile, a
        // couple per root of a multi-root file.
        assert!(
            owned.allocs >= want && owned.allocs <= want + want / 50 + 2 * roots.len() + 40,
            "{name}: {} allocations, the model says {want}",
            owned.allocs
        );
        rows += 1;
    }
    assert!(rows > 50, "{rows} samples");
}
