//! The NBT tests of the runtime (feature `nbt`), one binary: real files against their dumps,
//! region files, editing, SNBT, serde, properties, limits and hostile input.
#![cfg(feature = "nbt")]

#[path = "../support/nbt_samples.rs"]
mod nbt_samples;
#[path = "../support/mod.rs"]
mod support;
#[cfg(feature = "nbt-world")]
#[path = "../support/world.rs"]
mod world_support;

mod blocks;
mod edit;
mod hostile;
mod limits;
mod props;
mod region;
mod samples;
mod serde;
mod shapes;
mod snbt;
mod world;
