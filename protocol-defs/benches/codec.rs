//! Decode and encode every public vector through the generated code and through the dynamic
//! codec; and the same over the largest packets. Packets/s for the whole set, bytes/s for the
//! largest (criterion prints both as throughput). The dynamic codec is timed four ways:
//! `dynamic/decode` (bytes to its compact `Record`), `dynamic/encode` (a `Record` to bytes, into
//! one reused `Vec`), `dynamic/decode_json` and `dynamic/encode_json` (the same through
//! `serde_json::Value`). `protocol/dynamic/load` times `Protocol::load_newest` over the whole
//! corpus (every definition read and compiled, the map and deprecated.json).
//!
//! `cargo bench -p protocol-defs --bench codec` (the system allocator, glibc's malloc) and
//! `--bench codec_mimalloc` (the same with mimalloc as the global allocator: decoding allocates
//! for every string that does not fit inline and every array, so the allocator is part of the
//! figure, and a proxy is free to choose a fast one).
//!
//! The packets lie one after another in one buffer, as they come off a connection, in the order
//! of the vectors file; the decoded values each test encodes are made in one pass after loading,
//! so that they too lie together in memory.
//!
//! Time is the benchmark thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`), not wall time, so that
//! other work on the machine does not count against us.

mod common;

fn bench(c: &mut criterion::Criterion<common::CpuTime>) {
    common::bench(c, "system");
}

criterion::criterion_group! {
    name = benches;
    config = common::config();
    targets = bench
}
criterion::criterion_main!(benches);
