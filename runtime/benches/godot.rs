//! Throughput of the Godot Variant codec (placeholder, filled in below).
fn main() {}
