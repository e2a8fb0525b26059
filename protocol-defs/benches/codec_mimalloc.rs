//! The `codec` benchmark with mimalloc as the global allocator (see `codec.rs`).
//!
//! `cargo bench -p protocol-defs --bench codec_mimalloc`

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod common;

fn bench(c: &mut criterion::Criterion<common::CpuTime>) {
    common::bench(c, "mimalloc");
}

criterion::criterion_group! {
    name = benches;
    config = common::config();
    targets = bench
}
criterion::criterion_main!(benches);
