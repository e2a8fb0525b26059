//! Tests that count allocations, one binary with a counting global allocator (each test holds
//! its lock while it measures): the allocation bound of every format's decoders, the dynamic
//! codec's drops, region files as untrusted input, and the scaling of work and memory with input
//! size.

#[path = "../support/counting.rs"]
mod counting;
#[cfg(feature = "nbt")]
#[path = "../support/nbt_samples.rs"]
mod nbt_samples;
#[cfg(all(feature = "dynamic", feature = "godot", feature = "nbt"))]
#[path = "../support/scaling.rs"]
mod scaling_support;
#[path = "../support/mod.rs"]
mod support;
#[cfg(feature = "nbt-world")]
#[path = "../support/world.rs"]
mod world_support;

mod bound;
mod godot;
mod nbt;
mod per_sample;
mod region;
#[cfg(all(feature = "dynamic", feature = "godot", feature = "nbt"))]
mod scaling;
mod tera_drop;
mod world;
