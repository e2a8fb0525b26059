//! Test definitions of the project's own, generated at build time; the tests compare this
//! generated code with the dynamic codec on random packets.
#![allow(missing_docs)]

include!(concat!(env!("OUT_DIR"), "/_defs.rs"));
