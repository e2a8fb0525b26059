//! Criterion benchmarks of the NBT codec: owned parse, zero-copy parse and write over the
//! largest samples of the shared sample set (decompressed first; decompression is not timed
//! there), and decompression on its own (`nbt_decompress`) for the compressed samples.

use std::path::PathBuf;
use std::time::Duration;

use criterion::{Criterion, Throughput, black_box, criterion_group, criterion_main};
use def_runtime::nbt::borrow::BorrowedNbt;
use def_runtime::nbt::{Compression, Edition, ReadOptions, compress, decode, decode_all};

/// (file, edition, several roots)
const FILES: &[(&str, Edition, bool)] = &[
    (
        "pumpkin__bedrock_biome_definitions.nbt",
        Edition::Java,
        false,
    ),
    (
        "pumpkin__structure_ancient_city_center_2.nbt",
        Edition::Java,
        false,
    ),
    ("fastanvil__21w44a-test1.nbt", Edition::Java, false),
    ("fastanvil__unicode.chunk", Edition::Java, false),
    ("simdnbt__complex_player.dat", Edition::Java, false),
    (
        "prismarine__block_states.lev.nbt",
        Edition::BedrockNetwork,
        true,
    ),
];

fn samples() -> Option<PathBuf> {
    let base = std::env::var_os("WIRE_SHARED_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared")));
    let d = base.join("nbt-samples");
    d.is_dir().then_some(d)
}

fn bench(c: &mut Criterion) {
    let Some(dir) = samples() else {
        eprintln!("*** SKIPPED: NBT samples not found (set WIRE_SHARED_DIR) ***");
        return;
    };
    let mut g = c.benchmark_group("nbt");
    g.measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1))
        .sample_size(20);
    for &(name, edition, multi) in FILES {
        let raw = std::fs::read(dir.join(name)).unwrap();
        let data = compress::decompress(&raw, Compression::detect(&raw), usize::MAX)
            .unwrap()
            .data;
        let opts = ReadOptions::new(edition);
        g.throughput(Throughput::Bytes(data.len() as u64));
        let owned = |d: &[u8]| {
            if multi {
                decode_all(d, opts).unwrap()
            } else {
                vec![decode(d, opts).unwrap().0]
            }
        };
        g.bench_function(format!("{name}/owned_parse"), |b| {
            b.iter(|| owned(black_box(&data)))
        });
        g.bench_function(format!("{name}/borrowed_parse"), |b| {
            b.iter(|| {
                if multi {
                    BorrowedNbt::decode_all(black_box(&data), opts).unwrap()
                } else {
                    BorrowedNbt::decode(black_box(&data), opts).unwrap()
                }
            })
        });
        let roots = owned(&data);
        g.bench_function(format!("{name}/write"), |b| {
            b.iter(|| {
                let mut out = Vec::with_capacity(data.len());
                for r in black_box(&roots) {
                    r.encode_into(&mut out, edition).unwrap();
                }
                out
            })
        });
    }
    g.finish();

    // Decompression alone: gzip files inflate in one pass into a buffer their size field sizes.
    let mut g = c.benchmark_group("nbt_decompress");
    g.measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1))
        .sample_size(20);
    for &(name, ..) in FILES {
        let raw = std::fs::read(dir.join(name)).unwrap();
        let how = Compression::detect(&raw);
        if how == Compression::None {
            continue;
        }
        let out = compress::decompress(&raw, how, usize::MAX)
            .unwrap()
            .data
            .len();
        g.throughput(Throughput::Bytes(out as u64));
        g.bench_function(format!("{name}/ours"), |b| {
            b.iter(|| compress::decompress(black_box(&raw), how, usize::MAX).unwrap())
        });
        // The yardstick: flate2 inflating into a growing Vec, one pass, no limit.
        g.bench_function(format!("{name}/flate2_read_to_end"), |b| {
            b.iter(|| {
                use std::io::Read;
                let mut out = Vec::new();
                match how {
                    Compression::Gzip => flate2::bufread::GzDecoder::new(black_box(&raw[..]))
                        .read_to_end(&mut out)
                        .unwrap(),
                    _ => flate2::bufread::ZlibDecoder::new(black_box(&raw[..]))
                        .read_to_end(&mut out)
                        .unwrap(),
                };
                out
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
