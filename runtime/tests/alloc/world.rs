//! `region::scan_world` within its memory budget, counted by the global allocator: a world of
//! real chunks at budgets from plenty to a sliver, and a world of zlib bombs.
#![cfg(feature = "nbt-world")]

use crate::world_support::region_bytes;
use crate::{counting, support};

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use def_runtime::nbt::region::{ScanOptions, scan_world};
use def_runtime::nbt::{Compression, compress};

/// What the scan holds besides what the budget covers: for each of the two threads the
/// inflater's constant (under 1 MiB, docs/reliability.md "Decompression"), and the rayon pool's
/// bookkeeping, the error list and the `Chunk` values.
const SLACK: usize = 2 << 20;

struct Dir(PathBuf);

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn world(tag: &str, files: &[(&str, Vec<Vec<u8>>)]) -> Dir {
    let dir = std::env::temp_dir().join(format!("alloc_world_{tag}_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for (rel, stored) in files {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        // Zlib (id 2) at slots 0, 1, 2, …
        let chunks: Vec<_> = stored
            .iter()
            .enumerate()
            .map(|(i, s)| (i, 2, s.clone()))
            .collect();
        std::fs::write(path, region_bytes(&chunks)).unwrap();
    }
    Dir(dir)
}

/// Scans `dir` on two threads within `budget`: the peak of live bytes and the chunks read.
fn scan(dir: &Path, budget: usize) -> (usize, usize) {
    let mut opts = ScanOptions::default();
    opts.threads = 2;
    opts.budget = budget;
    let ok = AtomicUsize::new(0);
    let used = counting::measure(|| {
        let s = scan_world(dir, opts, |_, ch| {
            ok.fetch_add(ch.nbt().is_some() as usize, Ordering::Relaxed);
        })
        .unwrap();
        drop(s);
    });
    (used.peak, ok.into_inner())
}

#[test]
fn a_world_scan_stays_within_its_budget() {
    let _g = counting::serial();
    let Some(samples) = support::shared("nbt-samples") else {
        return;
    };
    let names = [
        "fastanvil__21w44a-test1.nbt",
        "fastanvil__1.17.1.chunk",
        "fastanvil__unicode.chunk",
        "fastnbt__chunk.nbt",
    ];
    let stored: Vec<Vec<u8>> = names
        .iter()
        .map(|n| {
            let raw = std::fs::read(samples.join(n)).unwrap();
            compress::compress(&raw, Compression::Zlib).unwrap()
        })
        .collect();
    let chunks = |n: usize| {
        (0..n)
            .map(|i| stored[i % stored.len()].clone())
            .collect::<Vec<_>>()
    };
    let w = world(
        "real",
        &[
            ("region/r.0.0.mca", chunks(128)),
            ("DIM-1/region/r.0.0.mca", chunks(64)),
        ],
    );
    for budget in [64 << 20, 4 << 20, 1 << 20, 256 << 10] {
        let (peak, ok) = scan(&w.0, budget);
        println!("real chunks, budget {budget}: peak {peak}, {ok} of 192 read");
        assert!(
            peak < budget + SLACK,
            "peak {peak} over the budget {budget}"
        );
        if budget == 64 << 20 {
            assert_eq!(ok, 192);
        }
    }
    // 64 zlib bombs (64 MiB of zeros each, about 64 KB stored) in one region: each fails at its
    // thread's share, holding no more than that.
    let zeros = vec![0u8; 64 << 20];
    let bomb = compress::compress(&zeros, Compression::Zlib).unwrap();
    drop(zeros);
    let w = world("bombs", &[("region/r.0.0.mca", vec![bomb; 64])]);
    for budget in [32 << 20, 8 << 20] {
        let (peak, ok) = scan(&w.0, budget);
        println!("zlib bombs, budget {budget}: peak {peak}");
        assert_eq!(ok, 0);
        assert!(
            peak < budget + SLACK,
            "peak {peak} over the budget {budget}"
        );
    }
}
