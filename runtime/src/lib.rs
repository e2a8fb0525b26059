//! Runtime support for wire formats of games.
//!
//! * The crate root and [`tera`] hold what code generated from TERA `.def` files links against:
//!   the little-endian wire reader and writer, the value types (`Vec3`, `Angle`, `SkillId`, …),
//!   the [`Packet`](tera::Packet) trait and the decode/encode errors.
//! * [`godot`] (feature `godot`) is Godot's binary Variant format.
//! * [`nbt`] (feature `nbt`) is Minecraft's NBT in its Java and Bedrock flavours.
#![warn(missing_docs)]

pub mod tera;

#[cfg(feature = "godot")]
pub mod godot;

#[cfg(feature = "nbt")]
pub mod nbt;
