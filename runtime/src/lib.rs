//! Runtime for game wire formats: what code generated from TERA `.def` files links against, a
//! TERA codec for definitions loaded at run time, and codecs for Godot's binary Variant format
//! and Minecraft's NBT.
//!
//! | feature | default | what it adds |
//! | --- | --- | --- |
//! | `std` | yes | `std::error::Error` for the errors; without it the TERA part is `no_std` + `alloc` |
//! | `serde` | no | `Serialize`/`Deserialize` of the value types, for generated code with serde on |
//! | `dynamic` | no | [`tera::dynamic`]: a `.def` loaded at run time, packets to and from JSON |
//! | `godot` | no | [`godot`]: Godot 3 and 4 binary Variants, framings, typed JSON |
//! | `nbt` | no | [`nbt`]: Java and Bedrock NBT, compressed files, region files, SNBT |
//! | `nbt-world` | no | `nbt` and [`nbt::region::scan_world`]: every region file of a world, read in parallel (rayon) |
//! | `tokio` | no | `tera::framing::TeraCodec`: a `tokio_util::codec` Decoder/Encoder of TERA packets |
//!
//! Each section below is a complete program: read bytes, change a value, write bytes back.
//!
//! # TERA packets
//!
//! You do not write TERA types by hand: `def-codegen` (from build.rs) or `def-macro` (`def!`)
//! generates one struct per message from its `.def` file, with a [`Packet`] impl over this
//! crate's wire reader and writer. This is the definition `S_EXAMPLE.1.def` of the repository's
//! README:
//!
//! ```text
//! int32  level
//! string name
//! array  items
//! - uint32 id
//! - int16  amount
//! ```
//!
//! and a proxy that raises `level` of a packet it forwards:
//!
//! ```
//! # mod s_example { def_macro::def!("../protocol-defs/data/definitions/S_EXAMPLE.1.def"); }
//! use def_runtime::{Options, Packet};
//! use s_example::SExample;
//!
//! // Header (length 0x28, opcode 0x1234), then the fields as LAYOUT.md places them.
//! let bytes = [
//!     0x28, 0x00, 0x34, 0x12, 0x0e, 0x00, 0x02, 0x00, 0x14, 0x00, 0x07, 0x00, 0x00, 0x00,
//!     0x48, 0x00, 0x69, 0x00, 0x00, 0x00, 0x14, 0x00, 0x1e, 0x00, 0x01, 0x00, 0x00, 0x00,
//!     0xfe, 0xff, 0x1e, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x04, 0x00,
//! ];
//! let opcode = def_runtime::tera::opcode(&bytes).unwrap();
//! let mut packet = SExample::decode(&bytes, Options::new())?;
//! assert_eq!((packet.level, packet.name.as_str()), (7, "Hi"));
//! assert_eq!((packet.items[1].id, packet.items[1].amount), (3, 4));
//!
//! packet.level = 8;
//! let out = packet.encode(opcode, Options::new())?;
//! assert_eq!(out[10], 8); // `level` sits at offset 10; every other byte is unchanged
//! assert_eq!((&out[..10], &out[11..]), (&bytes[..10], &bytes[11..]));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [`Options`] chooses strict decoding (trailing bytes and wrong element offsets are errors)
//! and the 8 padding bytes some opcodes carry after the header. A [`DecodeError`] gives the
//! byte offset and the field path (`items[1].amount`); an [`EncodeError`] the field path.
//!
//! # The dynamic codec (feature `dynamic`)
//!
//! When definitions are known only at run time (a sniffer that reads tera-data at start-up),
//! [`tera::dynamic::Definition`] compiles `.def` text to an execution plan and converts packets
//! to and from a compact [`tera::dynamic::Record`] (`decode`, `encode_record`) or JSON in the form
//! of the JavaScript reference (tera-data-parser); [`tera::dynamic::Protocol`] loads a whole
//! tera-data folder and decodes by opcode:
//!
//! ```
//! # #[cfg(feature = "dynamic")] {
//! use def_parser::Mode;
//! use def_runtime::Options;
//! use def_runtime::tera::dynamic::{Definition, Missing};
//!
//! let def = Definition::from_text("S_PING.1.def", "uint32 seq\nstring note\n", Mode::Strict)?;
//! // Header, the offset of `note`, `seq`, then "ok" in UTF-16 with its terminator.
//! let bytes = [0x10, 0x00, 0x01, 0x01, 0x0a, 0x00, 0x05, 0x00, 0x00, 0x00, 0x6f, 0x00, 0x6b, 0x00, 0x00, 0x00];
//! let mut json = def.decode_json(&bytes, Options::new())?;
//! assert_eq!(json, serde_json::json!({ "seq": 5, "note": "ok" }));
//!
//! json["seq"] = 6.into();
//! json["note"] = "okay".into();
//! let out = def.encode(&json, 0x0101, Options::new(), Missing::Error)?;
//! assert_eq!(out, [
//!     0x14, 0x00, 0x01, 0x01, 0x0a, 0x00, 0x06, 0x00, 0x00, 0x00,
//!     0x6f, 0x00, 0x6b, 0x00, 0x61, 0x00, 0x79, 0x00, 0x00, 0x00,
//! ]);
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Godot Variants (feature `godot`)
//!
//! [`godot::decode()`] and [`godot::encode()`] read and write the bytes of `var2bytes` (Godot 3) and
//! `var_to_bytes` (Godot 4); nothing on the wire says which version wrote them, so the options
//! name it. [`godot::framing`] adds the length prefixes of `PacketPeer`, `StreamPeer` and
//! `File.store_var`, and base64; [`godot::json`] a lossless typed JSON form.
//!
//! ```
//! # #[cfg(feature = "godot")] {
//! use def_runtime::godot::{self, DecodeOptions, EncodeOptions, Variant, Version};
//!
//! // var2bytes({"z": 1, "a": 2, "m": 3}) from Godot 3.2.3.
//! let bytes = [
//!     0x12, 0, 0, 0, 3, 0, 0, 0, // Dictionary, 3 entries
//!     4, 0, 0, 0, 1, 0, 0, 0, b'z', 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, // "z": 1
//!     4, 0, 0, 0, 1, 0, 0, 0, b'a', 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, // "a": 2
//!     4, 0, 0, 0, 1, 0, 0, 0, b'm', 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, // "m": 3
//! ];
//! let mut value = godot::decode_exact(&bytes, DecodeOptions::new(Version::Godot3))?;
//! let Variant::Dictionary(dict) = &mut value else { panic!("not a dictionary") };
//! assert_eq!(dict.get("a"), Some(&Variant::Int(2)));
//!
//! dict.entries[1].1 = Variant::Int(20); // insertion order is kept
//! let out = godot::encode(&value, EncodeOptions::new(Version::Godot3))?;
//! let mut expected = bytes;
//! expected[44] = 20; // the int of "a"
//! assert_eq!(out, expected);
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Decoding never trusts a length: counts are checked against the remaining input before
//! anything is allocated, depth is limited as in the engine, and errors say the byte offset and
//! the path (`[3]["key"]`). The repository's `docs/godot.md` lists every decision.
//!
//! # NBT (feature `nbt`)
//!
//! [`nbt::NbtFile::decode`] detects gzip, zlib or no compression and Bedrock's `level.dat`
//! header; [`nbt::NbtFile::encode`] writes the file back the way it was stored. The tree
//! ([`nbt::Tag`], [`nbt::Compound`], typed [`nbt::List`]s) keeps entry order, duplicate keys and
//! float bits, so an unchanged file writes back byte for byte. Any value is reached by a path
//! (`Level.Sections[1].Palette[0].Name`) with [`nbt::Tag::get_path`] / `get_path_mut`, without
//! copying. [`nbt::borrow`] is a zero-copy reader, [`nbt::region`] reads and writes `.mca`
//! files (every compression scheme, external chunks), [`nbt::snbt`] prints and parses SNBT, classic
//! and 1.21.5+.
//!
//! ```
//! # #[cfg(feature = "nbt")] {
//! use def_runtime::nbt::{Edition, FileOptions, NbtFile, Tag};
//!
//! // hello_world.nbt of the NBT specification: {"name": "Bananrama"} in a root "hello world".
//! let mut bytes = vec![0x0a, 0x00, 0x0b];
//! bytes.extend_from_slice(b"hello world");
//! bytes.extend_from_slice(&[0x08, 0x00, 0x04]);
//! bytes.extend_from_slice(b"name");
//! bytes.extend_from_slice(&[0x00, 0x09]);
//! bytes.extend_from_slice(b"Bananrama");
//! bytes.push(0x00);
//!
//! let mut file = NbtFile::decode(&bytes, FileOptions::new(Edition::Java))?;
//! assert_eq!(file.get_path("name")?.as_str(), Some("Bananrama"));
//!
//! *file.get_path_mut("name")? = Tag::from("Banana"); // paths as errors print them
//! let out = file.encode()?;
//! assert_eq!(out.len(), bytes.len() - 3);
//! assert_eq!(&out[out.len() - 9..], b"\x00\x06Banana\x00");
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Every declared length is checked against the remaining bytes before allocating,
//! decompression has a budget, depth is limited to Minecraft's 512, and errors carry the byte
//! offset and the tag path (`Level.Sections[3].Palette`). The repository's `docs/nbt.md` lists
//! every decision.
#![warn(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]
// Links to items of other features resolve in the documentation built with all features (as
// docs.rs builds it, see Cargo.toml); a build with fewer features would only warn about them.
#![cfg_attr(
    not(all(
        feature = "dynamic",
        feature = "godot",
        feature = "nbt",
        feature = "serde"
    )),
    allow(rustdoc::broken_intra_doc_links)
)]
#![cfg_attr(not(feature = "std"), no_std)]

extern crate alloc;

mod clip;
#[cfg(any(feature = "serde", feature = "godot"))]
mod hex;
mod path;

pub mod tera;

pub use path::{PathSegment, ValuePath};
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
    pub use crate::tera::fields::{
        F64, Fields, Hex, Source, Str, bytes_hex, deserialize_struct, f32_as_f64, tera_string,
        vec_f32_as_f64, vec_tera_string,
    };
    #[cfg(feature = "serde")]
    pub use crate::tera::protocol::serde_form::{
        deserialize_data, deserialize_packet, serialize_message, unknown_message,
    };
    pub use crate::tera::wire::{
        Chain, Filled, Fixed, Level, Meta, Place, Reader, Slot, Writer, array_len, get, put,
        string_len, strings_len,
    };

    /// Adds the field `name` to the path of `e` (generated code, as an error travels outwards).
    #[cold]
    pub fn in_field(e: crate::DecodeError, name: &'static str) -> crate::DecodeError {
        e.in_field(name)
    }

    /// The parts of generated view types.
    pub mod view {
        pub use crate::tera::view::parts::{
            At, Element, Elements, ElementsMut, Fixeds, Strings, Utf16Str, check,
        };
    }
    pub use ::alloc::boxed::Box;
    pub use ::alloc::string::String;
    pub use ::alloc::vec::Vec;
    pub use ::core;
    #[cfg(feature = "serde")]
    pub use ::serde;
    #[cfg(feature = "serde")]
    pub use ::serde_json;

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
