//! Typed TERA packets generated from a tera-data checkout: one module per definition version
//! (`s_login::v14::SLogin`), each type implementing [`def_runtime::Packet`].
//!
//! The build script reads the folder that `TERA_DATA_DIR` names, else the shared tera-data beside
//! the repository, else the few definitions of this crate's own `defs/` folder, so that a clone
//! without the corpus still builds.
#![allow(clippy::all)]

#[allow(missing_docs)]
mod generated {
    include!(concat!(env!("OUT_DIR"), "/_defs.rs"));
}
pub use generated::*;

/// One compiled definition, with JSON entry points for tools and tests.
#[derive(Debug, Clone, Copy)]
pub struct Definition {
    /// The `.def` file name.
    pub file: &'static str,
    /// The message name.
    pub name: &'static str,
    /// The definition version.
    pub version: u32,
    /// Decodes a packet of this definition to the tera-vectors JSON form.
    #[cfg(feature = "serde")]
    pub decode_json: fn(&[u8], def_runtime::Options) -> Result<serde_json::Value, String>,
    /// Encodes the tera-vectors JSON form to a packet with an opcode.
    #[cfg(feature = "serde")]
    pub encode_json: fn(&serde_json::Value, u16, def_runtime::Options) -> Result<Vec<u8>, String>,
}

include!(concat!(env!("OUT_DIR"), "/definitions.rs"));

/// The definition compiled from the file `file` (`S_LOGIN.14.def`).
pub fn definition(file: &str) -> Option<&'static Definition> {
    DEFINITIONS
        .binary_search_by(|d| d.file.cmp(file))
        .ok()
        .map(|i| &DEFINITIONS[i])
}

#[cfg(feature = "serde")]
mod json {
    use def_runtime::{Options, Packet};

    pub fn decode<P: Packet + serde::Serialize>(
        bytes: &[u8],
        opts: Options,
    ) -> Result<serde_json::Value, String> {
        let p = P::decode(bytes, opts).map_err(|e| e.to_string())?;
        serde_json::to_value(&p).map_err(|e| e.to_string())
    }

    pub fn encode<P: Packet + serde::de::DeserializeOwned>(
        v: &serde_json::Value,
        opcode: u16,
        opts: Options,
    ) -> Result<Vec<u8>, String> {
        let p: P = P::deserialize(v).map_err(|e| e.to_string())?;
        p.encode(opcode, opts).map_err(|e| e.to_string())
    }
}
