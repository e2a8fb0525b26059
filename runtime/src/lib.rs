//! Runtime support for wire formats of games.
//!
//! * The crate root and [`tera`] hold what code generated from TERA `.def` files links against:
//!   the little-endian wire reader and writer, the value types (`Vec3`, `Angle`, `SkillId`, …),
//!   the [`Packet`] trait and the decode/encode errors.
//! * [`godot`] (feature `godot`) is Godot's binary Variant format.
//! * [`nbt`] (feature `nbt`) is Minecraft's NBT in its Java and Bedrock flavours.
#![warn(missing_docs)]
#![cfg_attr(not(feature = "std"), no_std)]

extern crate alloc;

mod clip;

pub mod tera;

pub use tera::{
    Angle, Customize, DecodeError, EncodeError, Options, Packet, SkillId, SkillId32, TeraString,
    Vec3, Vec3fa,
};

/// The small-string crate behind [`TeraString`], re-exported so that its API (and version) is at
/// hand.
pub use compact_str;

/// What generated code calls; not a public API.
#[doc(hidden)]
pub mod __private {
    #[cfg(feature = "serde")]
    pub use crate::tera::json::{bytes_hex, f32_as_f64, vec_f32_as_f64};
    pub use crate::tera::wire::{
        Chain, Filled, Fixed, Level, Meta, Place, Reader, Slot, Writer, array_len, get, put,
        string_len, strings_len,
    };
    pub use ::alloc::boxed::Box;
    pub use ::alloc::string::String;
    pub use ::alloc::vec::Vec;
    pub use ::core;
    #[cfg(feature = "serde")]
    pub use ::serde;

    /// The Godot dictionary-key hash, for the tests that check it spreads every key type.
    #[cfg(feature = "godot")]
    pub fn godot_key_hash(v: &crate::godot::Variant, version: crate::godot::Version) -> u64 {
        crate::godot::value::key_hash(v, version)
    }
}

#[cfg(feature = "godot")]
pub mod godot;

#[cfg(feature = "nbt")]
pub mod nbt;
