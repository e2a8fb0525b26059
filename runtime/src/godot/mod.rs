//! Godot's binary Variant format (`var2bytes`, `PacketPeer.put_var`, `File.store_var`), for
//! Godot 3.x and 4.x, byte-exact with the engine's `encode_variant` / `decode_variant`.
//!
//! * [`Variant`]: the model (every type of both versions, with the math types [`Vector2`] …
//!   [`Projection`]) and [`Version`] (Godot 3, or Godot 4 by minor version: 4.0–4.1, 4.2, 4.3,
//!   4.4+).
//! * [`GString`]: the string type, lossless for every string Godot 3 accepts.
//! * [`decode()`] / [`encode()`]: the bare encoding, with [`DecodeOptions`] (`allow_objects`)
//!   and [`EncodeOptions`] (`full_objects`, double-precision builds).
//! * [`framing`]: what `File.store_var`, `StreamPeer.put_var`, `PacketPeerStream` and
//!   `Marshalls.variant_to_base64` add, and a [`FrameDecoder`] for incremental stream reading.
//! * [`json`]: a lossless typed JSON form (every value tagged with its type, floats exact),
//!   at every depth the engine allows.
//! * [`variant_serde`] (features `godot` + `serde`): [`to_bytes`] / [`from_bytes`] for Rust
//!   types in one call ([`to_variant`] / [`from_variant`] for the step between); the math types, [`GString`] and [`Variant`] implement `Serialize`/`Deserialize`.
//!   (Not named `serde`, so that `use def_runtime::godot::*` cannot shadow the serde crate.)
//!
//! Nothing on the wire says which engine generation wrote it: the caller picks the [`Version`].
//!
//! ```
//! use def_runtime::godot::{decode, encode, DecodeOptions, EncodeOptions, Variant, Version};
//! let bytes = encode(&Variant::Int(42), EncodeOptions::new(Version::Godot3)).unwrap();
//! assert_eq!(bytes, [2, 0, 0, 0, 42, 0, 0, 0]);
//! let (value, used) = decode(&bytes, DecodeOptions::new(Version::Godot3)).unwrap();
//! assert_eq!((value, used), (Variant::Int(42), 8));
//! ```

mod classes;
mod decode;
mod encode;
mod error;
pub mod framing;
mod gstring;
pub mod json;
pub(crate) mod value;
#[cfg(feature = "serde")]
pub mod variant_serde;

pub use decode::{DecodeOptions, MAX_DEPTH, decode, decode_exact, godot3_class_check};
pub use encode::{EncodeOptions, encode, encode_into};
pub use error::{DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind, EngineError};
pub use framing::{FrameDecoder, FrameError, Framing};
pub use gstring::GString;
pub use value::*;
#[cfg(feature = "serde")]
pub use variant_serde::{from_bytes, from_variant, to_bytes, to_variant};
