//! TERA packet runtime: what code generated from `.def` files links against.
//!
//! * [`Packet`]: a whole message, header included, read and written with [`Options`];
//!   [`TeraString`]: the string field type;
//! * the value types of `.def` fields: [`Angle`], [`Vec3`], [`Vec3fa`], [`SkillId`],
//!   [`SkillId32`], [`Customize`];
//! * [`DecodeError`] / [`EncodeError`];
//! * [`framing`]: a byte stream split into whole packets (a `tokio` codec with feature `tokio`);
//! * [`protocol`]: what generated protocol crates share (opcode map, version table, raw packet);
//! * [`session`]: the key exchange and the stream cipher of a TERA connection;
//! * [`dispatch`] (feature `std`): hooks on a connection's packets, in TERA Toolbox's manner;
//! * `proxy` (feature `proxy`): a TERA proxy over tokio's TCP, carrying each connection's
//!   handshake and cipher and running its packets through a `Dispatch`;
//! * [`view`]: zero-copy views over a packet's bytes, what generated view types are made of;
//! * `dynamic` (feature `dynamic`): definitions and whole protocols loaded at run time, compiled
//!   to execution plans; packets to and from a compact record or JSON;
//! * `spans` (feature `dynamic`): the byte range of every field of a packet, for tools.

#[cfg(feature = "std")]
pub mod dispatch;
mod error;
pub mod framing;
mod packet;
pub mod protocol;
#[cfg(feature = "proxy")]
pub mod proxy;
pub mod session;
pub(crate) mod utf16;
mod values;
pub mod view;
pub(crate) mod wire;

#[cfg(feature = "serde")]
pub(crate) mod fields;
#[cfg(feature = "serde")]
pub(crate) mod json;

#[cfg(feature = "dynamic")]
pub mod dynamic;
#[cfg(feature = "dynamic")]
pub mod spans;

pub use error::{DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind};
pub use packet::{DynPacket, Packet, decode_boxed, opcode, validate, whole_opcode};
pub use values::{Angle, Customize, SkillId, SkillId32, Vec3, Vec3fa};
pub use wire::Options;

/// The type of `string` fields in generated packets: a [`compact_str::CompactString`], which
/// keeps strings of up to 24 bytes inline (no heap allocation) and derefs to `&str`.
///
/// Decoding allocated once per string with `String`; most strings of real packets (names,
/// short texts) fit inline, and decoding them is then allocation-free. It converts from `&str`
/// and `String` with `.into()`, compares with `&str` and `String`, and gives its `String` back
/// with `into_string()`.
///
/// Generated structs read and write it as a JSON string themselves. `TeraString` itself
/// implements serde's traits only with `compact_str`'s `serde` feature, which this crate leaves
/// off (it would build serde's derive macro for every user): a crate that puts a `TeraString` in
/// its own serde types turns it on in its own `Cargo.toml`.
pub type TeraString = compact_str::CompactString;
