//! Our NBT codec against simdnbt (owned and borrowed), valence_nbt and fastnbt, on the largest
//! real mixed Java samples, in one run. Inputs are decompressed first; only parsing and
//! writing are timed. `table.py` turns criterion's estimates into `docs/nbt-bench.md`.

use std::io::Cursor;
use std::path::PathBuf;
use std::time::Duration;

use criterion::{Criterion, Throughput, black_box, criterion_group, criterion_main};
use def_runtime::nbt::borrow::BorrowedNbt;
use def_runtime::nbt::{Compression, Edition, ReadOptions, compress, read_root};

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

fn bench(c: &mut Criterion) {
    let dir = samples();
    let opts = ReadOptions::new(Edition::Java);
    for &name in FILES {
        let raw = std::fs::read(dir.join(name)).expect("sample");
        let data = compress::decompress(&raw, Compression::detect(&raw), usize::MAX)
            .unwrap()
            .data;
        let mut g = c.benchmark_group(format!("parse/{name}"));
        g.measurement_time(Duration::from_secs(2))
            .warm_up_time(Duration::from_millis(500))
            .sample_size(15)
            .throughput(Throughput::Bytes(data.len() as u64));
        g.bench_function("ours_owned", |b| {
            b.iter(|| read_root(black_box(&data), &opts).unwrap())
        });
        g.bench_function("ours_borrowed", |b| {
            b.iter(|| BorrowedNbt::read(black_box(&data), &opts).unwrap())
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

        let ours = read_root(&data, &opts).unwrap().0;
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
                let mut out = Vec::with_capacity(data.len());
                black_box(&ours).write_to(&mut out, Edition::Java).unwrap();
                out
            })
        });
        g.bench_function("simdnbt_owned", |b| {
            b.iter(|| {
                let mut out = Vec::with_capacity(data.len());
                black_box(&simd_owned).write(&mut out);
                out
            })
        });
        g.bench_function("simdnbt_borrowed", |b| {
            b.iter(|| {
                let mut out = Vec::with_capacity(data.len());
                black_box(&simd_borrowed).write(&mut out);
                out
            })
        });
        g.bench_function("valence_nbt", |b| {
            b.iter(|| {
                let mut out = Vec::with_capacity(data.len());
                valence_nbt::to_binary(black_box(&valence), &mut out, &valence_name).unwrap();
                out
            })
        });
        g.bench_function("fastnbt", |b| {
            b.iter(|| fastnbt::to_bytes(black_box(&fast)).unwrap())
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
