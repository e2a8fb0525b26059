//! Typed TERA packets for one protocol version, generated at build time from a tera-data
//! checkout: one module per definition version (`s_login::v14::SLogin`, every version of every
//! message: the non-current ones behind the `history` feature), the opcode map ([`MAP`],
//! [`opcodes`]), the status of every version ([`VERSIONS`]) and the [`Packet`] enum that decodes
//! by opcode and keeps unknown packets as [`RawPacket`]. This is the workspace's test bed of the
//! generator; a protocol crate of your own is written by `defc gen` (current versions only by
//! default).
//!
//! The build script reads the folder that `TERA_DATA_DIR` names, else the shared tera-data beside
//! the repository, else `data/` of this crate, and takes the newest `maps/protocol.N.map`.
#![allow(clippy::all)]
// Generated code must not use a std API newer than the rust-version (README, "MSRV").
#![warn(clippy::incompatible_msrv)]

include!(concat!(env!("OUT_DIR"), "/protocol.rs"));
