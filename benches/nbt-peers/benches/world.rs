//! A whole world read by `region::scan_world` (1 and 2 threads) against fastanvil + fastnbt
//! (fastanvil has no parallel reader: one thread), on the same files in the same run.
//!
//! The world is built in a temporary folder from the sample chunks (12 real chunks, 1.12 to
//! 1.20), zlib-compressed as Minecraft stores them, 768 chunks in four region files of
//! `region/`, `DIM-1/region/` and `entities/`. Every library decompresses and parses every
//! chunk into an owned tree (ours: `NbtFile`; fastnbt: `fastnbt::Value`). fastanvil gets its
//! fastest setup, each region file read whole into memory first (inside the timing, as our
//! scan reads its files inside it). Time is wall time: threads are what is measured. Our scans
//! run in rayon pools of 1 and 2 threads built once (`threads: 0` inside `install`, as on the
//! global pool by default); `ours_2_threads_new_pool` is `threads: 2`, a pool per call.

use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use criterion::{Criterion, black_box, criterion_group, criterion_main};
use def_runtime::nbt::region::{ScanOptions, scan_world};
use def_runtime::nbt::{Compression, compress};

// The sample chunks and the hand-written region layout, shared with the runtime's world tests.
#[path = "../../../runtime/tests/support/world.rs"]
mod world_support;
use world_support::{CHUNKS, region_bytes};

/// Region files of the world: folder and chunk count.
const LAYOUT: [(&str, usize); 4] = [
    ("region/r.0.0.mca", 256),
    ("region/r.0.1.mca", 256),
    ("DIM-1/region/r.0.0.mca", 128),
    ("entities/r.0.0.mca", 128),
];

fn samples() -> PathBuf {
    let base = std::env::var_os("WIRE_SHARED_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared")));
    base.join("nbt-samples")
}

/// Writes the world; gives its folder and its region files.
fn build_world() -> (PathBuf, Vec<PathBuf>) {
    let dir = std::env::temp_dir().join(format!("nbt_peers_world_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let raw: Vec<Vec<u8>> = CHUNKS
        .iter()
        .map(|n| std::fs::read(samples().join(n)).expect("sample"))
        .collect();
    let mut files = Vec::new();
    for (k, (rel, n)) in LAYOUT.iter().enumerate() {
        // Zlib (id 2), as Minecraft stores chunks, at slots 0, 1, 2, …
        let chunks: Vec<(usize, u8, Vec<u8>)> = (0..*n)
            .map(|i| {
                let stored = compress::compress(&raw[(i + k) % raw.len()], Compression::Zlib);
                (i, 2, stored.unwrap())
            })
            .collect();
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, region_bytes(&chunks)).unwrap();
        files.push(path);
    }
    (dir, files)
}

/// fastanvil + fastnbt: every chunk of every file, decompressed and parsed; the chunk count.
fn peer(files: &[PathBuf]) -> usize {
    let mut n = 0;
    for f in files {
        let bytes = std::fs::read(f).unwrap();
        let mut region = fastanvil::Region::from_stream(Cursor::new(bytes)).unwrap();
        for c in region.iter() {
            let c = c.unwrap();
            let v: fastnbt::Value = fastnbt::from_bytes(&c.data).unwrap();
            black_box(v);
            n += 1;
        }
    }
    n
}

/// Ours: the chunk count. `threads` is [`ScanOptions::threads`]: 0 runs on the rayon pool the
/// call is made in.
fn ours(dir: &Path, threads: usize) -> usize {
    let mut opts = ScanOptions::default();
    opts.threads = threads;
    let n = AtomicUsize::new(0);
    let scan = scan_world(dir, opts, |_, ch| {
        black_box(ch.nbt().expect("every chunk reads"));
        n.fetch_add(1, Ordering::Relaxed);
    })
    .unwrap();
    assert_eq!(scan.error_count, 0);
    n.into_inner()
}

/// User + system CPU time of this process, in milliseconds.
fn process_cpu_ms() -> f64 {
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `u` is a valid rusage to fill in.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let ms = |t: libc::timeval| t.tv_sec as f64 * 1000.0 + t.tv_usec as f64 / 1000.0;
    ms(u.ru_utime) + ms(u.ru_stime)
}

fn bench(c: &mut Criterion) {
    let (dir, files) = build_world();
    let total: usize = LAYOUT.iter().map(|l| l.1).sum();
    // Same files, same chunks for both.
    assert_eq!(peer(&files), total);
    assert_eq!(ours(&dir, 1), total);
    // Our scans run in pools of 1 and 2 threads built once, as a program scanning more than
    // one world (or the default `threads: 0`, on rayon's global pool) runs them; a nonzero
    // `threads` builds a pool of its own on every call, measured apart below.
    let pools = [1, 2].map(|n| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
    });
    let in_pool = |threads: usize| pools[threads - 1].install(|| ours(&dir, 0));
    // CPU time of the whole process per scan, beside criterion's wall time: on a shared machine
    // the wall time of two threads depends on the neighbours, the CPU time on our own overhead.
    for threads in [1, 2] {
        let (cpu0, wall0) = (process_cpu_ms(), std::time::Instant::now());
        for _ in 0..20 {
            in_pool(threads);
        }
        let cpu = (process_cpu_ms() - cpu0) / 20.0;
        let wall = wall0.elapsed().as_secs_f64() * 1000.0 / 20.0;
        eprintln!(
            "world/{total}_chunks ours {threads} thread(s): {cpu:.1} ms CPU, {wall:.1} ms wall per scan"
        );
    }
    let mut g = c.benchmark_group(format!("world/{total}_chunks"));
    g.measurement_time(Duration::from_secs(6))
        .warm_up_time(Duration::from_secs(1))
        .sample_size(10);
    g.bench_function("fastanvil_fastnbt", |b| b.iter(|| peer(&files)));
    // The machine's own scaling for this kind of work: the peer on two threads, one region
    // file of each size per thread.
    g.bench_function("fastanvil_fastnbt_2_threads", |b| {
        b.iter(|| {
            let (a, z): (Vec<_>, Vec<_>) = files
                .iter()
                .cloned()
                .enumerate()
                .partition(|(i, _)| i % 2 == 0);
            let strip = |v: Vec<(usize, PathBuf)>| v.into_iter().map(|p| p.1).collect::<Vec<_>>();
            let (a, z) = (strip(a), strip(z));
            std::thread::scope(|s| {
                let t = s.spawn(|| peer(&a));
                peer(&z) + t.join().unwrap()
            })
        })
    });
    g.bench_function("ours_1_thread", |b| b.iter(|| in_pool(1)));
    g.bench_function("ours_2_threads", |b| b.iter(|| in_pool(2)));
    // `threads: 2` from outside any pool: a pool started and stopped on every call.
    g.bench_function("ours_2_threads_new_pool", |b| b.iter(|| ours(&dir, 2)));
    g.bench_function("ours_headers_only_1_thread", |b| {
        b.iter(|| {
            let mut opts = ScanOptions::default();
            opts.headers_only = true;
            pools[0].install(|| {
                scan_world(&dir, opts, |_, ch| {
                    black_box(ch.length);
                })
                .unwrap()
            })
        })
    });
    g.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, bench);
criterion_main!(benches);
