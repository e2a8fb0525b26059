//! Test definitions of the project's own, generated at build time; the tests compare this
//! generated code with the dynamic codec on random packets.
#![allow(missing_docs)]

include!(concat!(env!("OUT_DIR"), "/_defs.rs"));

/// A protocol of two messages with the same fields, `S_PADDED_MONEY` (opcode 100, padded) and
/// `S_PLAIN_MONEY` (101), as `def_codegen::protocol` writes it (tests/padding.rs).
#[allow(clippy::all)]
pub mod protocol {
    include!(concat!(env!("OUT_DIR"), "/protocol/protocol.rs"));
}
