//! Criterion benchmark of the hook dispatcher in the proxy loop: the public vectors as one
//! stream (880 kB) relayed by `framing::relay` with a hook that only forwards, and the same
//! relay with each packet handed to a `Dispatch` holding 0, 1 and 50 hooks on opcodes the
//! stream does not have, in the same run.
//!
//! `cargo bench -p def-runtime --bench dispatch` (needs `../shared`, or `WIRE_SHARED_DIR`).

mod common;

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use def_runtime::Options;
use def_runtime::tera::dispatch::{Action, Direction, Dispatch, Handled, HookOptions};
use def_runtime::tera::framing::{Verdict, packets, relay};

fn bench(c: &mut Criterion) {
    let stream = common::public_stream();
    assert!(
        packets(&stream).all(|p| p.is_ok_and(|p| u16::from_le_bytes([p[2], p[3]]) < 65000)),
        "the hooked opcodes are not in the stream"
    );
    let mut g = c.benchmark_group("dispatch");
    g.throughput(Throughput::Bytes(stream.len() as u64));
    let mut input = stream.clone();
    let mut out = Vec::with_capacity(stream.len());
    g.bench_function("relay", |b| {
        b.iter(|| {
            out.clear();
            let n = relay(&mut input, &mut out, |p| {
                black_box(&*p);
                Verdict::Forward
            });
            black_box((n.expect("whole packets"), &out));
        })
    });
    for hooks in [0usize, 1, 50] {
        let map = common::hooked_map();
        let mut d = Dispatch::new(map, Options::new());
        for &(name, _) in map.by_name().iter().take(hooks) {
            d.raw(name, HookOptions::new(), |_, _| Action::Silence)
                .unwrap();
        }
        g.bench_function(format!("relay_dispatch_{hooks}_hooks"), |b| {
            b.iter(|| {
                out.clear();
                let n = relay(&mut input, &mut out, |p| {
                    match d.handle(Direction::ToClient, p) {
                        Handled::Forward => Verdict::Forward,
                        Handled::Replace(_) | Handled::Silence => Verdict::Drop,
                    }
                });
                black_box((n.expect("whole packets"), &out));
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
