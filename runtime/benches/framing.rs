//! Criterion benchmark of `tera::framing` alone, without a protocol crate (which takes minutes
//! to build in release): the public vectors as one stream, in cache (880 kB) and repeated to
//! 64 MiB (past a 32 MiB last-level cache), split (`packets`), relayed (`relay`, with a hook
//! that reads each opcode) and copied in one `memcpy`, in the same run.
//!
//! `cargo bench -p def-runtime --bench framing`. The proxy loop with views is
//! `cargo bench -p protocol-defs --bench proxy`.

mod common;

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use def_runtime::tera::framing::{Verdict, packets, relay};

fn bench(c: &mut Criterion) {
    let small = common::public_stream();
    let big = small.repeat((64 << 20) / small.len() + 1);
    for (name, stream) in [("framing/stream", small), ("framing/stream64m", big)] {
        let mut input = stream.clone();
        let mut out = Vec::with_capacity(stream.len());
        let n = relay(&mut input, &mut out, |_| Verdict::Forward);
        assert!(n == Ok(stream.len()) && out == stream);
        let mut g = c.benchmark_group(name);
        g.throughput(Throughput::Bytes(stream.len() as u64));
        g.sample_size(10);
        g.bench_function("memcpy", |b| {
            b.iter(|| {
                out.clear();
                out.extend_from_slice(black_box(&stream));
                black_box(out.len())
            })
        });
        g.bench_function("relay", |b| {
            b.iter(|| {
                out.clear();
                let mut seen = 0u32;
                let n = relay(&mut input, &mut out, |p| {
                    seen += u32::from(p[2] == 0x34);
                    Verdict::Forward
                });
                black_box((n, seen))
            })
        });
        g.bench_function("split_only", |b| {
            b.iter(|| {
                packets(black_box(&stream))
                    .map(|p| p.unwrap().len())
                    .sum::<usize>()
            })
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
