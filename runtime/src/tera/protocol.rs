//! What every generated protocol crate shares: the opcode map, the table of definition versions,
//! the raw packet kept for opcodes without a current definition, and the table of compiled
//! definitions with their entry points.
//!
//! A crate written by `defc gen` (or `def_codegen::protocol`) holds data of these types and the
//! `Packet` enum of its messages; the types and the lookups over them live here, once.

use alloc::boxed::Box;
use alloc::vec::Vec;

use super::error::DecodeError;
use super::packet::{DynPacket, Packet};
use super::wire::Options;

/// A protocol's opcode map both ways and its padded opcodes.
///
/// Made only by [`OpcodeMap::new`] in a constant: it checks at compile time that each table is
/// sorted with no key twice, so that every lookup is a binary search that cannot miss.
#[derive(Debug, Clone, Copy)]
pub struct OpcodeMap {
    by_name: &'static [(&'static str, u16)],
    by_opcode: &'static [(u16, &'static str)],
    padded: &'static [u16],
}

/// `a < b` for strings, byte by byte (`str`'s `Ord` is not `const`).
const fn str_less(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut i = 0;
    while i < a.len() && i < b.len() {
        if a[i] != b[i] {
            return a[i] < b[i];
        }
        i += 1;
    }
    a.len() < b.len()
}

impl OpcodeMap {
    /// The map of `by_name` (sorted by name) and `by_opcode` (sorted by opcode: the same pairs),
    /// with the opcodes whose packets carry 8 bytes of padding after the header (`padded`,
    /// sorted).
    ///
    /// # Panics
    ///
    /// When a table is not strictly sorted or the two tables differ in length; in a `const` or
    /// `static` that is a compile-time error.
    pub const fn new(
        by_name: &'static [(&'static str, u16)],
        by_opcode: &'static [(u16, &'static str)],
        padded: &'static [u16],
    ) -> Self {
        assert!(
            by_name.len() == by_opcode.len(),
            "both tables hold the same pairs"
        );
        let mut i = 1;
        while i < by_name.len() {
            assert!(
                str_less(by_name[i - 1].0, by_name[i].0),
                "names sorted, once each"
            );
            i += 1;
        }
        let mut i = 1;
        while i < by_opcode.len() {
            assert!(
                by_opcode[i - 1].0 < by_opcode[i].0,
                "opcodes sorted, once each"
            );
            i += 1;
        }
        let mut i = 1;
        while i < padded.len() {
            assert!(
                padded[i - 1] < padded[i],
                "padded opcodes sorted, once each"
            );
            i += 1;
        }
        OpcodeMap {
            by_name,
            by_opcode,
            padded,
        }
    }

    /// The opcode of a message name.
    pub fn opcode(&self, name: &str) -> Option<u16> {
        let i = self
            .by_name
            .binary_search_by(|(n, _)| (*n).cmp(name))
            .ok()?;
        Some(self.by_name[i].1)
    }

    /// The message name of an opcode.
    pub fn name(&self, opcode: u16) -> Option<&'static str> {
        let i = self
            .by_opcode
            .binary_search_by(|(c, _)| c.cmp(&opcode))
            .ok()?;
        Some(self.by_opcode[i].1)
    }

    /// Whether packets with this opcode carry 8 bytes of padding after the header.
    pub fn has_padding(&self, opcode: u16) -> bool {
        self.padded.binary_search(&opcode).is_ok()
    }

    /// The options to read or write packets of `opcode` with: `opts` with the map's padding for
    /// it (what the protocol's `Packet::decode` and `Packet::view` apply).
    pub fn options(&self, opcode: u16, opts: Options) -> Options {
        opts.padding(self.has_padding(opcode))
    }

    /// Every `(name, opcode)` pair, sorted by name.
    pub fn by_name(&self) -> &'static [(&'static str, u16)] {
        self.by_name
    }

    /// Every `(opcode, name)` pair, sorted by opcode.
    pub fn by_opcode(&self) -> &'static [(u16, &'static str)] {
        self.by_opcode
    }

    /// The padded opcodes, sorted.
    pub fn padded(&self) -> &'static [u16] {
        self.padded
    }
}

/// One version of a message, and whether it is usable at the crate's patch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VersionStatus {
    /// The message name.
    pub name: &'static str,
    /// The definition version.
    pub version: u32,
    /// The `.def` file.
    pub file: &'static str,
    /// Whether this is the current version.
    pub current: bool,
    /// Whether packets of this version can be read at this patch.
    pub readable: bool,
    /// Whether packets of this version should be written at this patch.
    pub writable: bool,
    /// Why it is not current, when it is not.
    pub reason: Option<&'static str>,
    /// The patch range of its header comment (`majorPatchVersion >= 100`).
    pub patches: Option<&'static str>,
    /// Whether the crate holds code for it (the generator's selection; a version held but behind
    /// the crate's `history` feature counts as held).
    pub generated: bool,
}

/// A packet whose opcode has no current definition in the protocol, kept byte for byte.
///
/// Its serde form is `{"opcode": 1234, "name": "S_X" or null, "bytes": "0c00d204..."}` (the whole
/// packet, header included, as lowercase hex).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawPacket {
    /// The opcode of its header.
    pub opcode: u16,
    /// The message name, when the opcode map knows it.
    pub name: Option<&'static str>,
    /// The whole packet, header included.
    pub bytes: Vec<u8>,
}

#[cfg(feature = "serde")]
impl serde::Serialize for RawPacket {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct as _;
        let mut st = s.serialize_struct("RawPacket", 3)?;
        st.serialize_field("opcode", &self.opcode)?;
        st.serialize_field("name", &self.name)?;
        st.serialize_field("bytes", &crate::hex::encode(&self.bytes))?;
        st.end()
    }
}

/// Decodes a packet of one definition, boxed.
pub type DecodeFn = fn(&[u8], Options) -> Result<Box<dyn DynPacket>, DecodeError>;

/// Decodes a packet of one definition and drops it.
pub type ValidateFn = fn(&[u8], Options) -> Result<(), DecodeError>;

/// Decodes a packet of one definition to its JSON form (the tera-vectors form); the error is the
/// decoder's, as text.
#[cfg(feature = "serde")]
pub type DecodeJsonFn = fn(&[u8], Options) -> Result<serde_json::Value, alloc::string::String>;

/// Encodes one definition's JSON form to a packet with an opcode; the error as text.
#[cfg(feature = "serde")]
pub type EncodeJsonFn =
    fn(&serde_json::Value, u16, Options) -> Result<Vec<u8>, alloc::string::String>;

/// One compiled definition of a protocol crate, with entry points for tools and tests that pick
/// a definition by file name at run time.
#[derive(Debug, Clone, Copy)]
pub struct Definition {
    /// The `.def` file name.
    pub file: &'static str,
    /// The message name.
    pub name: &'static str,
    /// The definition version.
    pub version: u32,
    /// Decodes a packet of this definition, boxed.
    pub decode: DecodeFn,
    /// Decodes a packet of this definition and drops it.
    pub validate: ValidateFn,
    #[cfg(feature = "serde")]
    decode_json: Option<DecodeJsonFn>,
    #[cfg(feature = "serde")]
    encode_json: Option<EncodeJsonFn>,
}

impl Definition {
    /// The entry of the message type `P` compiled from the file `file`, without JSON entry points
    /// (a crate built without its `serde` feature).
    pub const fn of<P: Packet + core::fmt::Debug + 'static>(file: &'static str) -> Self {
        Definition {
            file,
            name: P::NAME,
            version: P::VERSION,
            decode: super::packet::decode_boxed::<P>,
            validate: super::packet::validate::<P>,
            #[cfg(feature = "serde")]
            decode_json: None,
            #[cfg(feature = "serde")]
            encode_json: None,
        }
    }

    /// The entry of the message type `P` compiled from the file `file`, with JSON entry points.
    #[cfg(feature = "serde")]
    pub const fn with_json<P>(file: &'static str) -> Self
    where
        P: Packet + core::fmt::Debug + serde::Serialize + serde::de::DeserializeOwned + 'static,
    {
        Definition {
            decode_json: Some(decode_json::<P>),
            encode_json: Some(encode_json::<P>),
            ..Definition::of::<P>(file)
        }
    }
}

#[cfg(feature = "serde")]
impl Definition {
    /// Decodes a packet of this definition to its JSON form (the tera-vectors form); the error
    /// as text (also when the crate was built without its `serde` feature).
    pub fn decode_json(
        &self,
        bytes: &[u8],
        opts: Options,
    ) -> Result<serde_json::Value, alloc::string::String> {
        match self.decode_json {
            Some(f) => f(bytes, opts),
            None => Err(self.no_json()),
        }
    }

    /// Encodes the JSON form of this definition to a packet with `opcode`; the error as text.
    pub fn encode_json(
        &self,
        value: &serde_json::Value,
        opcode: u16,
        opts: Options,
    ) -> Result<Vec<u8>, alloc::string::String> {
        match self.encode_json {
            Some(f) => f(value, opcode, opts),
            None => Err(self.no_json()),
        }
    }

    fn no_json(&self) -> alloc::string::String {
        alloc::format!(
            "{}: the protocol crate was built without its `serde` feature",
            self.file
        )
    }
}

/// The entry for `file` in `table` (sorted by file name, as a generated `DEFINITIONS` is).
pub fn find_definition(table: &'static [Definition], file: &str) -> Option<&'static Definition> {
    let i = table.binary_search_by(|d| d.file.cmp(file)).ok()?;
    Some(&table[i])
}

#[cfg(feature = "serde")]
fn decode_json<P: Packet + serde::Serialize>(
    bytes: &[u8],
    opts: Options,
) -> Result<serde_json::Value, alloc::string::String> {
    use alloc::string::ToString as _;
    let p = P::decode(bytes, opts).map_err(|e| e.to_string())?;
    serde_json::to_value(&p).map_err(|e| e.to_string())
}

#[cfg(feature = "serde")]
fn encode_json<P: Packet + serde::de::DeserializeOwned>(
    v: &serde_json::Value,
    opcode: u16,
    opts: Options,
) -> Result<Vec<u8>, alloc::string::String> {
    use alloc::string::ToString as _;
    let p = P::deserialize(v).map_err(|e| e.to_string())?;
    p.encode(opcode, opts)
        .map_err(|e: super::error::EncodeError| e.to_string())
}

/// What generated `Packet` enums call for their serde form (through `__private`).
#[cfg(feature = "serde")]
pub(crate) mod serde_form {
    use alloc::format;
    use alloc::string::String;

    use serde_json::{Map, Value};

    use super::{OpcodeMap, RawPacket};

    /// A message as `{"name", "version", "data"}`.
    pub fn serialize_message<S: serde::Serializer, P: serde::Serialize>(
        s: S,
        name: &'static str,
        version: u32,
        data: &P,
    ) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct as _;
        let mut st = s.serialize_struct("Packet", 3)?;
        st.serialize_field("name", name)?;
        st.serialize_field("version", &version)?;
        st.serialize_field("data", data)?;
        st.end()
    }

    /// The `data` of a message, its error prefixed with `NAME.data`.
    pub fn deserialize_data<P: serde::de::DeserializeOwned>(
        name: &str,
        data: &Value,
    ) -> Result<P, String> {
        // Through `&Value`, as the JSON entry points: one instantiation per message, not two.
        P::deserialize(data).map_err(|e| format!("{name}.data: {e}"))
    }

    /// The error for a name that is no current message of the crate.
    pub fn unknown_message<P>(name: &str) -> Result<P, String> {
        Err(format!("no current message {name:?} in this protocol"))
    }

    /// A packet in its serde form: `{"name", "version"?, "data"}` through `from_data`, or
    /// `{"opcode", "name"?, "bytes"}` through `raw`, checked as the generated docs say.
    pub fn deserialize_packet<'de, D, P>(
        d: D,
        map: &OpcodeMap,
        from_data: fn(&str, &Value) -> Result<P, String>,
        raw: fn(RawPacket) -> P,
        version_of: fn(&P) -> Option<u32>,
    ) -> Result<P, D::Error>
    where
        D: serde::Deserializer<'de>,
    {
        let m = <Map<String, Value> as serde::Deserialize>::deserialize(d)?;
        packet_from_json(m, map, from_data, raw, version_of)
            .map_err(<D::Error as serde::de::Error>::custom)
    }

    fn packet_from_json<P>(
        mut m: Map<String, Value>,
        map: &OpcodeMap,
        from_data: fn(&str, &Value) -> Result<P, String>,
        raw: fn(RawPacket) -> P,
        version_of: fn(&P) -> Option<u32>,
    ) -> Result<P, String> {
        let is_raw = m.contains_key("opcode") || m.contains_key("bytes");
        let name = m.remove("name");
        let p = if is_raw {
            let opcode = m
                .remove("opcode")
                .as_ref()
                .and_then(Value::as_u64)
                .and_then(|o| u16::try_from(o).ok())
                .ok_or_else(|| {
                    String::from("a raw packet needs \"opcode\", an integer up to 65535")
                })?;
            let bytes = m
                .remove("bytes")
                .as_ref()
                .and_then(Value::as_str)
                .and_then(|s| crate::hex::decode(s).ok())
                .ok_or_else(|| String::from("a raw packet needs \"bytes\", a hex string"))?;
            if crate::tera::whole_opcode(&bytes).ok() != Some(opcode) {
                return Err(format!(
                    "\"bytes\" is not one whole packet with opcode {opcode} in its header"
                ));
            }
            match name {
                None | Some(Value::Null) => {}
                Some(n) if n.as_str() == map.name(opcode) => {}
                Some(n) => return Err(format!("\"name\" {n} is not the name of opcode {opcode}")),
            }
            raw(RawPacket {
                opcode,
                name: map.name(opcode),
                bytes,
            })
        } else {
            let name = match name {
                Some(Value::String(n)) => n,
                _ => {
                    return Err(String::from(
                        "a packet needs \"name\" (a string) and \"data\", or \"opcode\" and \"bytes\"",
                    ));
                }
            };
            let data = m
                .remove("data")
                .ok_or_else(|| format!("{name}: \"data\" is missing"))?;
            let version = m.remove("version");
            let p = from_data(&name, &data)?;
            if let Some(v) = version.filter(|v| v.as_u64() != version_of(&p).map(u64::from)) {
                return Err(format!("{name}: version {v} is not the current one here"));
            }
            p
        };
        match m.keys().next() {
            Some(k) => Err(format!("unknown key {k:?}")),
            None => Ok(p),
        }
    }
}
