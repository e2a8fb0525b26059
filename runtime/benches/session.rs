//! Criterion benchmark of the TERA session cipher: one direction's keystream applied to 64 KiB
//! in one call (the proxy's case: a socket read at a time) and in 1,460-byte chunks (one TCP
//! segment each), and the cost of keying a session (two SHA-0 key expansions).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use def_runtime::tera::session::{KeyMixing, Session};
use std::hint::black_box;

fn keys() -> [[u8; 128]; 4] {
    let mut k = [[0u8; 128]; 4];
    let mut x = 0x9e37_79b9u32;
    for b in k.iter_mut().flatten() {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        *b = x as u8;
    }
    k
}

fn bench(c: &mut Criterion) {
    let k = keys();
    let session = Session::new([&k[0], &k[2]], [&k[1], &k[3]], KeyMixing::FromPatch45);
    let mut g = c.benchmark_group("session");
    let mut data = vec![0x5au8; 64 * 1024];
    g.throughput(Throughput::Bytes(data.len() as u64));
    for chunk in [data.len(), 1460] {
        let mut cipher = session.client_to_server.clone();
        g.bench_with_input(BenchmarkId::new("apply", chunk), &chunk, |b, &chunk| {
            b.iter(|| {
                for part in data.chunks_mut(chunk) {
                    cipher.apply(part);
                }
                black_box(&data);
            })
        });
    }
    g.throughput(Throughput::Elements(1));
    g.bench_function("new", |b| {
        b.iter(|| {
            black_box(Session::new(
                [black_box(&k[0]), &k[2]],
                [&k[1], &k[3]],
                KeyMixing::FromPatch45,
            ))
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
