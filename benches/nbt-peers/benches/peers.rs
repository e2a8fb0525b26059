//! Our NBT codec against simdnbt (owned and borrowed), valence_nbt and fastnbt, on the largest
//! real mixed Java samples, in one run. Inputs are decompressed first; only parsing and
//! writing are timed. Every writer (and the copy floor) writes into one buffer of the file's
//! size, cleared before each write, so that no writer's time counts the allocator growing and
//! trimming its heap around a fresh buffer (page faults and a TLB flush, a third of a 104 kB
//! write where it happens, which depends on where the buffer lands). `table.py` turns
//! criterion's estimates into `docs/nbt-bench.md`.
//!
//! Time is the benchmark thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`), not wall time: the
//! machine is shared with other builds, and CPU time does not count the slices in which the
//! thread was descheduled, so every library is measured on the same footing.

use std::io::Cursor;
use std::path::PathBuf;
use std::time::Duration;

use criterion::measurement::{Measurement, ValueFormatter};
use criterion::{Criterion, Throughput, black_box, criterion_group, criterion_main};
use def_runtime::nbt::borrow::BorrowedNbt;
use def_runtime::nbt::{Compression, Edition, ReadOptions, compress, decode};

/// Largest real mixed Java files of the sample set (simdnbt reads only Java compound roots).
const FILES: &[&str] = &[
    "pumpkin__bedrock_biome_definitions.nbt",
    "pumpkin__structure_ancient_city_center_2.nbt",
    "fastanvil__21w44a-test1.nbt",
    "fastanvil__unicode.chunk",
    "misc__servers.dat",
    "simdnbt__complex_player.dat",
];

fn samples() -> PathBuf {
    let base = std::env::var_os("WIRE_SHARED_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared")));
    base.join("nbt-samples")
}

/// Thread CPU time in nanoseconds.
struct CpuTime;

fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime only writes the timespec we pass.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

impl Measurement for CpuTime {
    type Intermediate = u64;
    type Value = u64;
    fn start(&self) -> u64 {
        thread_cpu_ns()
    }
    fn end(&self, i: u64) -> u64 {
        thread_cpu_ns() - i
    }
    fn add(&self, a: &u64, b: &u64) -> u64 {
        a + b
    }
    fn zero(&self) -> u64 {
        0
    }
    fn to_f64(&self, v: &u64) -> f64 {
        *v as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        &NsFormatter
    }
}

struct NsFormatter;

impl ValueFormatter for NsFormatter {
    fn scale_values(&self, _typical: f64, _values: &mut [f64]) -> &'static str {
        "ns (cpu)"
    }
    fn scale_throughputs(&self, _typical: f64, t: &Throughput, values: &mut [f64]) -> &'static str {
        if let Throughput::Bytes(b) = t {
            for v in values.iter_mut() {
                *v = *b as f64 * 1e3 / *v; // bytes per ns * 1e3 = MB/s
            }
        }
        "MB/s"
    }
    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "ns"
    }
}

fn bench(c: &mut Criterion<CpuTime>) {
    let dir = samples();
    let opts = ReadOptions::new(Edition::Java);
    for &name in FILES {
        let raw = std::fs::read(dir.join(name)).expect("sample");
        let data = compress::decompress(&raw, Compression::detect(&raw), usize::MAX)
            .unwrap()
            .data;
        // The floor of any owned reader or writer of this file: one copy of its bytes into a
        // fresh buffer (an owned tree must copy every string byte it keeps, a writer must
        // produce every output byte). Where a peer runs near this floor, no code can be 1.5×
        // faster than that peer.
        let mut g = c.benchmark_group(format!("floor/{name}"));
        g.measurement_time(Duration::from_secs(2))
            .warm_up_time(Duration::from_millis(500))
            .sample_size(15)
            .throughput(Throughput::Bytes(data.len() as u64));
        // Into a buffer of the file's size made once, as for the writers below.
        let mut out = Vec::with_capacity(data.len());
        g.bench_function("memcpy", |b| {
            b.iter(|| {
                out.clear();
                out.extend_from_slice(black_box(&data));
                black_box(&mut out);
            })
        });
        g.finish();

        let mut g = c.benchmark_group(format!("parse/{name}"));
        g.measurement_time(Duration::from_secs(2))
            .warm_up_time(Duration::from_millis(500))
            .sample_size(15)
            .throughput(Throughput::Bytes(data.len() as u64));
        g.bench_function("ours_owned", |b| {
            b.iter(|| decode(black_box(&data), opts).unwrap())
        });
        // Like simdnbt's owned reader, string contents are checked on access only.
        let unchecked = opts.check_strings(false);
        g.bench_function("ours_owned_unchecked", |b| {
            b.iter(|| decode(black_box(&data), unchecked).unwrap())
        });
        // Like simdnbt's borrowed reader, string contents are checked on access only.
        g.bench_function("ours_borrowed", |b| {
            b.iter(|| BorrowedNbt::decode_lazy(black_box(&data), opts).unwrap())
        });
        // Every check of the owned reader, string contents included.
        g.bench_function("ours_borrowed_checked", |b| {
            b.iter(|| BorrowedNbt::decode(black_box(&data), opts).unwrap())
        });
        g.bench_function("simdnbt_owned", |b| {
            b.iter(|| simdnbt::owned::read(&mut Cursor::new(black_box(&data[..]))).unwrap())
        });
        g.bench_function("simdnbt_borrowed", |b| {
            b.iter(|| simdnbt::borrow::read(&mut Cursor::new(black_box(&data[..]))).unwrap())
        });
        g.bench_function("valence_nbt", |b| {
            b.iter(|| {
                let mut s = black_box(&data[..]);
                valence_nbt::from_binary::<String>(&mut s).unwrap()
            })
        });
        g.bench_function("fastnbt", |b| {
            b.iter(|| fastnbt::from_bytes::<fastnbt::Value>(black_box(&data)).unwrap())
        });
        g.finish();

        let ours = decode(&data, opts).unwrap().0;
        let simd_owned = simdnbt::owned::read(&mut Cursor::new(&data[..])).unwrap();
        let simd_borrowed = simdnbt::borrow::read(&mut Cursor::new(&data[..])).unwrap();
        let (valence, valence_name) = valence_nbt::from_binary::<String>(&mut &data[..]).unwrap();
        let fast: fastnbt::Value = fastnbt::from_bytes(&data).unwrap();
        let mut g = c.benchmark_group(format!("write/{name}"));
        g.measurement_time(Duration::from_secs(2))
            .warm_up_time(Duration::from_millis(500))
            .sample_size(15)
            .throughput(Throughput::Bytes(data.len() as u64));
        g.bench_function("ours_owned", |b| {
            b.iter(|| {
                out.clear();
                black_box(&ours)
                    .encode_into(&mut out, Edition::Java)
                    .unwrap();
                black_box(&mut out);
            })
        });
        g.bench_function("simdnbt_owned", |b| {
            b.iter(|| {
                out.clear();
                black_box(&simd_owned).write(&mut out);
                black_box(&mut out);
            })
        });
        g.bench_function("simdnbt_borrowed", |b| {
            b.iter(|| {
                out.clear();
                black_box(&simd_borrowed).write(&mut out);
                black_box(&mut out);
            })
        });
        g.bench_function("valence_nbt", |b| {
            b.iter(|| {
                out.clear();
                valence_nbt::to_binary(black_box(&valence), &mut out, &valence_name).unwrap();
                black_box(&mut out);
            })
        });
        g.bench_function("fastnbt", |b| {
            b.iter(|| {
                out.clear();
                fastnbt::to_writer(&mut out, black_box(&fast)).unwrap();
                black_box(&mut out);
            })
        });
        g.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_measurement(CpuTime);
    targets = bench
}
criterion_main!(benches);
