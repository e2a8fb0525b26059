//! Code generation for TERA `.def` files: typed Rust structs with decode and encode.
//!
//! * [`emit`](mod@emit) turns a resolved layout into items (tokens, or a formatted file);
//! * [`naming`] makes Rust names from `.def` names;
//! * [`Config`] is the build.rs API.
#![warn(missing_docs)]

pub mod emit;
pub mod naming;

pub use emit::{EmitOptions, Serde, emit, generate};
pub mod config;
mod input;
pub mod protocol;

pub use config::{Config, Error, Generated, compile_defs};
