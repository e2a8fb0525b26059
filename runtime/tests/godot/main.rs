//! The Godot tests of the runtime (feature `godot`), one binary: the engine's own vectors and
//! those made by the real Godot 3.2.3 engine, the engine run live, every version's differences,
//! the typed JSON at depth, serde, properties, and hostile input.
#![cfg(feature = "godot")]

#[path = "../support/mod.rs"]
mod support;

mod common;

mod checks;
mod depth;
mod engine;
mod hostile;
mod props;
mod serde;
mod vectors;
mod versions;
