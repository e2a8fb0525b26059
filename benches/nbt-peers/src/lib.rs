//! Benchmark-only crate; see benches/peers.rs.
