//! A crate for one protocol version: every definition, the opcode map both ways, the current
//! version of each message for a patch, and a `Packet` enum that dispatches on the opcode.
//!
//! [`generate`] writes the code into a folder (`protocol.rs`, which includes `defs/_defs.rs` and
//! one file per definition); `defc gen` wraps it in a complete crate, and the workspace's
//! `protocol-defs` build script includes it from `OUT_DIR`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use def_parser::ast::{PatchRange, Platform};

use crate::config::{Config, Error, Generated};
use crate::naming;

/// What to generate.
#[derive(Debug, Clone)]
pub struct ProtocolOptions {
    /// The definitions folder.
    pub defs: PathBuf,
    /// The opcode map (`protocol.N.map`: `NAME = OPCODE` lines; see [`read_map`]).
    pub map: PathBuf,
    /// `deprecated.json`, if any.
    pub deprecated: Option<PathBuf>,
    /// The patch whose current versions to choose; `None`: the newest patch the data knows.
    pub patch: Option<u32>,
    /// The platform whose platform-specific files override the plain ones.
    pub platform: Platform,
    /// Opcodes whose packets carry 8 bytes of padding after the header.
    pub padding_opcodes: Vec<u16>,
    /// The runtime's path in generated code.
    pub runtime: String,
    /// Print `cargo:` lines (from a build script).
    pub cargo_output: bool,
    /// Zero-copy view types for every definition ([`Config::views`]; default on).
    pub views: bool,
}

impl ProtocolOptions {
    /// Options with the defaults: no deprecations, the newest patch, `pc`, no padding.
    pub fn new(defs: impl Into<PathBuf>, map: impl Into<PathBuf>) -> Self {
        ProtocolOptions {
            defs: defs.into(),
            map: map.into(),
            deprecated: None,
            patch: None,
            platform: Platform::Pc,
            padding_opcodes: Vec::new(),
            runtime: "::def_runtime".into(),
            cargo_output: false,
            views: true,
        }
    }
}

/// What was generated.
#[derive(Debug, Clone)]
pub struct Protocol {
    /// The protocol version from the map's file name (`protocol.387463.map`).
    pub version: u32,
    /// Definitions compiled.
    pub definitions: usize,
    /// Variants of the `Packet` enum.
    pub messages: usize,
    /// Bytes of code written.
    pub code_bytes: usize,
}

/// Reads `NAME = OPCODE` lines with [`def_parser::protocol::parse_map`]: every error says
/// `FILE:LINE`. Only a regular file is read.
pub fn read_map(path: &Path) -> Result<BTreeMap<String, u16>, Error> {
    let text = crate::input::read_text(path)?;
    def_parser::protocol::parse_map(&text)
        .map_err(|m| Error::Map(format!("{}:{m}", path.display())))
}

fn read_deprecated(
    path: &Path,
    known: &std::collections::BTreeSet<(String, u32)>,
) -> Result<BTreeMap<(String, u32), def_parser::protocol::Deprecation>, Error> {
    // The JSON reader skips a leading byte-order mark and leaves it out of columns.
    let text = crate::input::read_text(path)?;
    def_parser::protocol::parse_deprecated(&text, known)
        .map_err(|m| Error::Map(format!("{}:{m}", path.display())))
}

/// Generates the protocol's code into `out` (created if needed).
pub fn generate(o: &ProtocolOptions, out: &Path) -> Result<Protocol, Error> {
    let version = o
        .map
        .file_name()
        .and_then(|f| f.to_str())
        .and_then(def_parser::protocol::map_version)
        .ok_or_else(|| {
            Error::Map(format!(
                "{}: the map's file name is not protocol.VERSION.map (VERSION: the protocol \
                 version, a decimal number without leading zeros)",
                o.map.display()
            ))
        })?;
    let map = read_map(&o.map)?;
    if o.cargo_output {
        crate::config::print_cargo(&format!("cargo:rerun-if-changed={}", o.map.display()));
        if let Some(d) = &o.deprecated {
            crate::config::print_cargo(&format!("cargo:rerun-if-changed={}", d.display()));
        }
    }
    // Platform files override plain ones: compile only the files that apply.
    let def_parser::protocol::DefinitionFiles { files, known } =
        def_parser::protocol::scan_definitions(&o.defs, o.platform).map_err(|e| match e {
            def_parser::protocol::ScanError::Io(p, e) => Error::Io(p, e),
            def_parser::protocol::ScanError::FileName(p) => Error::FileName(p),
        })?;
    let dep = match &o.deprecated {
        Some(p) => read_deprecated(p, &known)?,
        None => BTreeMap::new(),
    };
    let defs_out = out.join("defs");
    let mut config = Config::new();
    config
        .inputs(files.values().cloned())
        .out_dir(&defs_out)
        .serde_feature("serde")
        .runtime_path(&o.runtime)
        .views(o.views)
        .cargo_output(o.cargo_output);
    if o.cargo_output {
        crate::config::print_cargo(&format!("cargo:rerun-if-changed={}", o.defs.display()));
    }
    // Padding is per opcode; give each padded message's types PADDING = true.
    let padded: Vec<String> = map
        .iter()
        .filter(|(_, c)| o.padding_opcodes.contains(c))
        .map(|(n, _)| n.clone())
        .collect();
    config.padding_messages(padded);
    let generated = config.compile()?;

    // Patch ranges of each version, for the status table.
    let mut ranges = BTreeMap::new();
    for g in &generated {
        let text = crate::input::read_text(&g.source)?;
        let parsed = def_parser::parse("x.1.def", &text, def_parser::Mode::Compatible);
        ranges.insert(
            (g.name.name.clone(), g.name.version),
            parsed.file.and_then(|f| f.patch_range),
        );
    }
    let mut by_name: BTreeMap<&str, Vec<&Generated>> = BTreeMap::new();
    for g in &generated {
        by_name.entry(&g.name.name).or_default().push(g);
    }

    let rt = &o.runtime;
    let mut s = String::new();
    let patch_doc = o
        .patch
        .map_or("the newest patch the definitions know".to_string(), |p| {
            format!("patch {p}")
        });
    writeln!(
        s,
        "// @generated by def-codegen (protocol {version}); do not edit."
    )
    .ok();
    writeln!(s, "include!(\"defs/_defs.rs\");\n").ok();
    writeln!(s, "/// The protocol version this crate speaks (the opcode map's number).\npub const PROTOCOL_VERSION: u32 = {version};").ok();
    writeln!(s, "/// The patch the current versions were chosen for (`None`: {patch_doc}).\npub const PATCH: ::core::option::Option<u32> = {};", o.patch.map_or("::core::option::Option::None".into(), |p| format!("::core::option::Option::Some({p})"))).ok();
    writeln!(
        s,
        "/// Message name to opcode, sorted by name.\npub static OPCODES: &[(&str, u16)] = &["
    )
    .ok();
    for (n, c) in &map {
        writeln!(s, "    ({n:?}, {c}),").ok();
    }
    writeln!(s, "];").ok();
    let mut by_code: Vec<(u16, &str)> = map.iter().map(|(n, c)| (*c, n.as_str())).collect();
    by_code.sort();
    writeln!(
        s,
        "/// Opcode to message name, sorted by opcode.\npub static NAMES: &[(u16, &str)] = &["
    )
    .ok();
    for (c, n) in &by_code {
        writeln!(s, "    ({c}, {n:?}),").ok();
    }
    writeln!(s, "];").ok();
    writeln!(s, "/// Opcodes whose packets carry 8 bytes of padding after the header.\npub static PADDING_OPCODES: &[u16] = &{:?};", {
        let mut p = o.padding_opcodes.clone();
        p.sort();
        p
    }).ok();
    s.push_str(
        r#"
/// The opcode of a message name.
pub fn opcode_of(name: &str) -> ::core::option::Option<u16> {
    OPCODES.binary_search_by(|(n, _)| (*n).cmp(name)).ok().map(|i| OPCODES[i].1)
}

/// The message name of an opcode.
pub fn name_of(opcode: u16) -> ::core::option::Option<&'static str> {
    NAMES.binary_search_by(|(c, _)| c.cmp(&opcode)).ok().map(|i| NAMES[i].1)
}

/// Whether packets with this opcode carry padding.
pub fn has_padding(opcode: u16) -> bool {
    PADDING_OPCODES.binary_search(&opcode).is_ok()
}

/// One version of a message, and whether it is usable at [`PATCH`].
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
    pub reason: ::core::option::Option<&'static str>,
    /// The patch range of its header comment.
    pub patches: ::core::option::Option<&'static str>,
}

/// Every definition version, sorted by name and version.
pub static VERSIONS: &[VersionStatus] = &[
"#,
    );
    let mut variants = Vec::new();
    // Variant names for every message with a definition (naming::variant_names).
    let variant_names = naming::variant_names(by_name.keys().copied());
    for (name, gens) in &by_name {
        let versions: Vec<(u32, Option<PatchRange>)> = gens
            .iter()
            .map(|g| {
                let key = (g.name.name.clone(), g.name.version);
                (g.name.version, ranges.get(&key).cloned().flatten())
            })
            .collect();
        let (current, st) = def_parser::protocol::choose(name, &versions, &dep, o.patch);
        for (g, st) in gens.iter().zip(&st) {
            let file = g
                .source
                .file_name()
                .and_then(|f| f.to_str())
                .unwrap_or_default();
            let reason = st
                .reason
                .as_ref()
                .map_or("::core::option::Option::None".into(), |r| {
                    format!("::core::option::Option::Some({r:?})")
                });
            let patches = ranges
                .get(&(g.name.name.clone(), g.name.version))
                .cloned()
                .flatten()
                .map_or("::core::option::Option::None".into(), |r| {
                    format!("::core::option::Option::Some({:?})", r.to_string())
                });
            writeln!(
                s,
                "    VersionStatus {{ name: {name:?}, version: {}, file: {file:?}, current: {}, readable: {}, writable: {}, reason: {reason}, patches: {patches} }},",
                g.name.version,
                Some(g.name.version) == current,
                st.readable,
                st.writable
            )
            .ok();
        }
        if let (Some(cur), Some(&code)) = (current, map.get(*name)) {
            let g = gens
                .iter()
                .find(|g| g.name.version == cur)
                .expect("current is one of them");
            variants.push((
                variant_names[*name].clone(),
                format!("{}::{}", g.module, g.type_name),
                name.to_string(),
                code,
                cur,
            ));
        }
    }
    s.push_str("];\n");
    s.push_str(&format!(
        r#"
/// A packet whose opcode has no current definition in this protocol, kept byte for byte.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawPacket {{
    /// The opcode of its header.
    pub opcode: u16,
    /// The message name, when the opcode map knows it.
    pub name: ::core::option::Option<&'static str>,
    /// The whole packet, header included.
    pub bytes: {rt}::__private::Vec<u8>,
}}

/// Every current message of this protocol that has an opcode, decoded by opcode.
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)]
pub enum Packet {{
"#
    ));
    for (v, ty, name, code, cur) in &variants {
        writeln!(
            s,
            "    /// `{name}` (opcode {code}), version {cur}: [`{ty}`].\n    {v}({ty}),"
        )
        .ok();
    }
    s.push_str("    /// An opcode without a current definition; forwarded unchanged.\n    Raw(RawPacket),\n}\n\n");
    packet_impl(&mut s, rt, &variants);

    // Every definition with JSON entry points (tools, tests).
    s.push_str(&format!(
        r#"
/// One compiled definition, with JSON entry points for tools and tests.
#[derive(Debug, Clone, Copy)]
#[allow(clippy::type_complexity)] // the entry points' types, spelled out for the reader
pub struct Definition {{
    /// The `.def` file name.
    pub file: &'static str,
    /// The message name.
    pub name: &'static str,
    /// The definition version.
    pub version: u32,
    /// Decodes a packet of this definition, boxed.
    pub decode: fn(&[u8], {rt}::Options) -> ::core::result::Result<{rt}::__private::Box<dyn {rt}::tera::DynPacket>, {rt}::DecodeError>,
    /// Decodes a packet of this definition and drops it.
    pub validate: fn(&[u8], {rt}::Options) -> ::core::result::Result<(), {rt}::DecodeError>,
    /// Decodes a packet of this definition to the tera-vectors JSON form.
    #[cfg(feature = "serde")]
    pub decode_json: fn(&[u8], {rt}::Options) -> ::core::result::Result<::serde_json::Value, {rt}::__private::String>,
    /// Encodes the tera-vectors JSON form to a packet with an opcode.
    #[cfg(feature = "serde")]
    pub encode_json: fn(&::serde_json::Value, u16, {rt}::Options) -> ::core::result::Result<{rt}::__private::Vec<u8>, {rt}::__private::String>,
}}

/// The definition compiled from the file `file` (`S_LOGIN.14.def`).
pub fn definition(file: &str) -> ::core::option::Option<&'static Definition> {{
    DEFINITIONS.binary_search_by(|d| d.file.cmp(file)).ok().map(|i| &DEFINITIONS[i])
}}

/// Every definition compiled into this crate, sorted by file name.
pub static DEFINITIONS: &[Definition] = &[
"#
    ));
    let mut sorted: Vec<&Generated> = generated.iter().collect();
    sorted.sort_by(|a, b| a.source.file_name().cmp(&b.source.file_name()));
    for g in sorted {
        let file = g
            .source
            .file_name()
            .and_then(|f| f.to_str())
            .unwrap_or_default();
        let ty = format!("{}::{}", g.module, g.type_name);
        writeln!(
            s,
            "    Definition {{ file: {file:?}, name: {:?}, version: {}, decode: {rt}::tera::decode_boxed::<{ty}>, validate: {rt}::tera::validate::<{ty}>, #[cfg(feature = \"serde\")] decode_json: json::decode::<{ty}>, #[cfg(feature = \"serde\")] encode_json: json::encode::<{ty}> }},",
            g.name.name, g.name.version
        )
        .ok();
    }
    s.push_str("];\n");
    // The JSON helpers only when some definition uses them (unused functions warn).
    if !generated.is_empty() {
        s.push_str(&format!(
            r#"
#[cfg(feature = "serde")]
mod json {{
    use {rt}::Packet;

    pub fn decode<P: Packet + ::serde::Serialize>(bytes: &[u8], opts: {rt}::Options) -> ::core::result::Result<::serde_json::Value, {rt}::__private::String> {{
        let p = P::decode(bytes, opts).map_err(|e| e.to_string())?;
        ::serde_json::to_value(&p).map_err(|e| e.to_string())
    }}

    pub fn encode<P: Packet + ::serde::de::DeserializeOwned>(v: &::serde_json::Value, opcode: u16, opts: {rt}::Options) -> ::core::result::Result<{rt}::__private::Vec<u8>, {rt}::__private::String> {{
        let p: P = P::deserialize(v).map_err(|e| e.to_string())?;
        p.encode(opcode, opts).map_err(|e| e.to_string())
    }}

    /// A message in the serde form of the `Packet` enum.
    #[allow(dead_code)]
    pub fn message<S: ::serde::Serializer, P: ::serde::Serialize>(s: S, name: &'static str, version: u32, data: &P) -> ::core::result::Result<S::Ok, S::Error> {{
        use ::serde::ser::SerializeStruct as _;
        let mut st = s.serialize_struct("Packet", 3)?;
        st.serialize_field("name", name)?;
        st.serialize_field("version", &version)?;
        st.serialize_field("data", data)?;
        st.end()
    }}

    /// The `data` of a message in the serde form of the `Packet` enum.
    #[allow(dead_code)]
    pub fn data<P: ::serde::de::DeserializeOwned>(name: &str, data: &::serde_json::Value) -> ::core::result::Result<P, {rt}::__private::String> {{
        // Through `&Value`, as `encode` above: one instantiation per message, not two.
        P::deserialize(data).map_err(|e| ::std::format!("{{name}}.data: {{e}}"))
    }}
}}
"#
        ));
    }
    // Written already formatted: this file is mostly tables, and parsing it back only to print it
    // again took a fifth of the generation time.
    let code = s;
    crate::config::write_if_changed(&out.join("protocol.rs"), &code)?;
    let code_bytes = code.len()
        + generated
            .iter()
            .filter_map(|g| std::fs::metadata(&g.file).ok())
            .map(|m| m.len() as usize)
            .sum::<usize>();
    Ok(Protocol {
        version,
        definitions: generated.len(),
        messages: variants.len(),
        code_bytes,
    })
}

/// One variant of the `Packet` enum: its Rust name, type path, message name, opcode and version.
type Variant = (String, String, String, u16, u32);

/// The `impl Packet` block (decode, encode, opcode, name, version) and, behind the `serde`
/// feature, its Serialize/Deserialize.
///
/// Decisions written into the generated docs: `decode` takes exactly one packet (fewer than 4
/// bytes, or a header length other than the slice's, is an error in every mode, for typed and raw
/// packets alike); the padding of the caller's options is replaced by the per-opcode rule
/// (`has_padding`); the JSON form is `{"name", "version", "data"}` for a typed packet and
/// `{"opcode", "name", "bytes"}` for a raw one.
fn packet_impl(s: &mut String, rt: &str, variants: &[Variant]) {
    // Without variants a match with only the `_` arm trips clippy's match_single_binding, and the
    // options would be unused.
    let empty = variants.is_empty();
    s.push_str(&format!(
        r#"impl Packet {{
    /// Reads one whole packet, choosing the message by the opcode of its header. An unknown
    /// opcode, or a message without a current definition, gives [`Packet::Raw`] with the bytes
    /// unchanged.
    ///
    /// `bytes` must be exactly one packet: fewer than 4 bytes (no header) is an error
    /// (`Truncated` at offset 0), and so is a header length other than `bytes.len()`
    /// (`LengthMismatch` at offset 0, in every mode, raw packets included: a stream must be split
    /// into packets first). `opts.strict` applies as for the message types; `opts.padding` is
    /// replaced by the protocol's rule for the opcode ([`has_padding`]).
    pub fn decode(bytes: &[u8], opts: {rt}::Options) -> ::core::result::Result<Self, {rt}::DecodeError> {{
        let opcode = {rt}::tera::whole_opcode(bytes)?;
"#
    ));
    if empty {
        s.push_str("        let _ = opts;\n        ::core::result::Result::Ok(Packet::Raw(RawPacket { opcode, name: name_of(opcode), bytes: bytes.to_vec() }))\n    }\n\n");
    } else {
        s.push_str("        let opts = opts.padding(has_padding(opcode));\n        ::core::result::Result::Ok(match opcode {\n");
        for (v, ty, _, code, _) in variants {
            writeln!(
                s,
                "            {code} => Packet::{v}(<{ty} as {rt}::Packet>::decode(bytes, opts)?),"
            )
            .ok();
        }
        s.push_str("            _ => Packet::Raw(RawPacket { opcode, name: name_of(opcode), bytes: bytes.to_vec() }),\n        })\n    }\n\n");
    }
    let encode_opts = if empty {
        String::new()
    } else {
        format!(
            "        let opcode = self.opcode();\n        let opts = {rt}::Options::new().padding(has_padding(opcode));\n"
        )
    };
    s.push_str(&format!("    /// Writes the packet with its opcode (a raw packet: its bytes unchanged).\n    pub fn encode(&self) -> ::core::result::Result<{rt}::__private::Vec<u8>, {rt}::EncodeError> {{\n{encode_opts}        match self {{\n"));
    for (v, ty, _, _, _) in variants {
        writeln!(
            s,
            "            Packet::{v}(p) => <{ty} as {rt}::Packet>::encode(p, opcode, opts),"
        )
        .ok();
    }
    s.push_str("            Packet::Raw(r) => ::core::result::Result::Ok(r.bytes.clone()),\n        }\n    }\n\n    /// The opcode.\n    pub fn opcode(&self) -> u16 {\n        match self {\n");
    for (v, _, _, code, _) in variants {
        writeln!(s, "            Packet::{v}(_) => {code},").ok();
    }
    s.push_str("            Packet::Raw(r) => r.opcode,\n        }\n    }\n\n    /// The message name (`None` for a raw packet whose opcode the map does not know).\n    pub fn name(&self) -> ::core::option::Option<&'static str> {\n        match self {\n");
    for (v, _, name, _, _) in variants {
        writeln!(
            s,
            "            Packet::{v}(_) => ::core::option::Option::Some({name:?}),"
        )
        .ok();
    }
    s.push_str("            Packet::Raw(r) => r.name,\n        }\n    }\n\n    /// The definition version of the message (`S_LOGIN.14.def`: 14); `None` for a raw packet.\n    pub fn version(&self) -> ::core::option::Option<u32> {\n        match self {\n");
    for (v, _, _, _, cur) in variants {
        writeln!(
            s,
            "            Packet::{v}(_) => ::core::option::Option::Some({cur}),"
        )
        .ok();
    }
    s.push_str(
        "            Packet::Raw(_) => ::core::option::Option::None,\n        }\n    }\n}\n",
    );

    // serde: hand-written (the generated crate's serde has no derive feature).
    s.push_str(&format!(
        r#"
/// JSON form: `{{"opcode": 1234, "name": "S_X" or null, "bytes": "0c00d204..."}}` (the whole
/// packet, header included, as lowercase hex).
#[cfg(feature = "serde")]
impl ::serde::Serialize for RawPacket {{
    fn serialize<S: ::serde::Serializer>(&self, s: S) -> ::core::result::Result<S::Ok, S::Error> {{
        use ::serde::ser::SerializeStruct as _;
        let mut st = s.serialize_struct("RawPacket", 3)?;
        st.serialize_field("opcode", &self.opcode)?;
        st.serialize_field("name", &self.name)?;
        st.serialize_field("bytes", &{rt}::tera::json::to_hex(&self.bytes))?;
        st.end()
    }}
}}

/// JSON form: a message as `{{"name": "S_LOGIN", "version": 14, "data": {{...}}}}`, where `data`
/// is the object TERA Toolbox gives its hooks (field names as in the `.def`, the tera-vectors
/// form); a raw packet as [`RawPacket`]'s form. Deserializing reads the same forms (through
/// `serde_json` values, so from a self-describing format): `version`, when given, must be the
/// current version of that message; `name` must be a current message of this protocol; a raw
/// packet's bytes must be one whole packet whose header has its `opcode`, and its `name`, when
/// not null, must be the map's name for that opcode. Any other key is an error.
#[cfg(feature = "serde")]
impl ::serde::Serialize for Packet {{
    fn serialize<S: ::serde::Serializer>(&self, s: S) -> ::core::result::Result<S::Ok, S::Error> {{
        match self {{
"#
    ));
    for (v, _, name, _, cur) in variants {
        writeln!(
            s,
            "            Packet::{v}(p) => json::message(s, {name:?}, {cur}, p),"
        )
        .ok();
    }
    s.push_str(&format!(
        r#"            Packet::Raw(r) => ::serde::Serialize::serialize(r, s),
        }}
    }}
}}

#[cfg(feature = "serde")]
impl<'de> ::serde::Deserialize<'de> for Packet {{
    fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> ::core::result::Result<Self, D::Error> {{
        let m = <::serde_json::Map<{rt}::__private::String, ::serde_json::Value> as ::serde::Deserialize>::deserialize(d)?;
        packet_from_json(m).map_err(<D::Error as ::serde::de::Error>::custom)
    }}
}}

/// The [`Packet`] of a JSON object in its serde form.
#[cfg(feature = "serde")]
fn packet_from_json(mut m: ::serde_json::Map<{rt}::__private::String, ::serde_json::Value>) -> ::core::result::Result<Packet, {rt}::__private::String> {{
    use {rt}::__private::String;
    use ::serde_json::Value;
    let raw = m.contains_key("opcode") || m.contains_key("bytes");
    let name = m.remove("name");
    let p = if raw {{
        let opcode = m.remove("opcode").as_ref().and_then(Value::as_u64).and_then(|o| u16::try_from(o).ok()).ok_or_else(|| String::from("a raw packet needs \"opcode\", an integer up to 65535"))?;
        let bytes = m.remove("bytes").as_ref().and_then(Value::as_str).and_then({rt}::tera::json::from_hex).ok_or_else(|| String::from("a raw packet needs \"bytes\", a hex string"))?;
        if {rt}::tera::opcode(&bytes) != ::core::option::Option::Some(opcode) || usize::from(u16::from_le_bytes([bytes[0], bytes[1]])) != bytes.len() {{
            return ::core::result::Result::Err(::std::format!("\"bytes\" is not one whole packet with opcode {{opcode}} in its header"));
        }}
        match name {{
            ::core::option::Option::None | ::core::option::Option::Some(Value::Null) => {{}}
            ::core::option::Option::Some(n) if n.as_str() == name_of(opcode) => {{}}
            ::core::option::Option::Some(n) => return ::core::result::Result::Err(::std::format!("\"name\" {{n}} is not the name of opcode {{opcode}}")),
        }}
        Packet::Raw(RawPacket {{ opcode, name: name_of(opcode), bytes }})
    }} else {{
        let name = match name {{
            ::core::option::Option::Some(Value::String(n)) => n,
            _ => return ::core::result::Result::Err(String::from("a packet needs \"name\" (a string) and \"data\", or \"opcode\" and \"bytes\"")),
        }};
        let data = m.remove("data").ok_or_else(|| ::std::format!("{{name}}: \"data\" is missing"))?;
        let version = m.remove("version");
        let p = packet_from_data(&name, data)?;
        if let ::core::option::Option::Some(v) = version.filter(|v| v.as_u64() != p.version().map(u64::from)) {{
            return ::core::result::Result::Err(::std::format!("{{name}}: version {{v}} is not the current one here"));
        }}
        p
    }};
    match m.keys().next() {{
        ::core::option::Option::Some(k) => ::core::result::Result::Err(::std::format!("unknown key {{k:?}}")),
        ::core::option::Option::None => ::core::result::Result::Ok(p),
    }}
}}

/// The message `name` with the fields `data` (its `.def` names).
#[cfg(feature = "serde")]
fn packet_from_data(name: &str, data: ::serde_json::Value) -> ::core::result::Result<Packet, {rt}::__private::String> {{
"#
    ));
    if empty {
        s.push_str("    let _ = data;\n    ::core::result::Result::Err(::std::format!(\"no current message {name:?} in this protocol\"))\n}\n");
    } else {
        s.push_str("    ::core::result::Result::Ok(match name {\n");
        for (v, _, name, _, _) in variants {
            writeln!(
                s,
                "        {name:?} => Packet::{v}(json::data(name, &data)?),"
            )
            .ok();
        }
        s.push_str("        _ => return ::core::result::Result::Err(::std::format!(\"no current message {name:?} in this protocol\")),\n    })\n}\n");
    }
}

/// The version of def-runtime that code from this generator is written for: def-codegen, defc and
/// def-runtime are released together, under one version number.
pub const RUNTIME_VERSION: &str = env!("CARGO_PKG_VERSION");

/// How a generated crate depends on def-runtime.
///
/// Always by version, so that the crate can be published as it is: `def-runtime = "0.1.0"` means
/// that version or a later compatible one (a caret requirement; the items generated code calls
/// only grow within a minor version). A path, for development against a checkout of the runtime,
/// is written beside the version (`{ version = "0.1.0", path = "../runtime" }`): cargo builds from
/// the path, and `cargo package`/`cargo publish` keep only the version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeDep {
    /// The version requirement.
    pub version: String,
    /// The runtime crate's folder. A relative path is taken from the working directory and
    /// written relative to the generated crate's folder; an absolute path is written as it is.
    pub path: Option<PathBuf>,
}

impl Default for RuntimeDep {
    /// [`RUNTIME_VERSION`] from crates.io.
    fn default() -> Self {
        RuntimeDep {
            version: RUNTIME_VERSION.to_string(),
            path: None,
        }
    }
}

/// Package metadata of a generated crate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrateOptions {
    /// The def-runtime dependency.
    pub runtime: RuntimeDep,
    /// The `license` field, an SPDX expression. The generated code is made from your definitions
    /// and map: choose what fits them. Default: `MIT OR Apache-2.0`, this generator's own.
    pub license: String,
    /// The `repository` field, if any. `documentation` is always the crate's page on docs.rs.
    pub repository: Option<String>,
}

impl Default for CrateOptions {
    fn default() -> Self {
        CrateOptions {
            runtime: RuntimeDep::default(),
            license: "MIT OR Apache-2.0".to_string(),
            repository: None,
        }
    }
}

/// `s` as a TOML basic string (quoted, escaped).
fn toml_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The path from the folder `from` to `to`, both absolute and without `..` or symbolic links
/// (canonical); `None` when they share no root (another drive on Windows).
fn relative_path(from: &Path, to: &Path) -> Option<PathBuf> {
    use std::path::Component;
    let a: Vec<Component> = from.components().collect();
    let b: Vec<Component> = to.components().collect();
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    if common == 0 || !matches!(a[0], Component::RootDir | Component::Prefix(_)) {
        return None;
    }
    let mut out = PathBuf::new();
    for _ in common..a.len() {
        out.push("..");
    }
    for c in &b[common..] {
        out.push(c);
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    Some(out)
}

/// How the generated crate's `Cargo.toml` names the runtime's folder: an absolute `path` as it
/// is, a relative one (from the working directory) relative to `crate_dir`, with `/` between
/// components on every system.
fn runtime_path_in(path: &Path, crate_dir: &Path) -> Result<String, Error> {
    let written = if path.is_absolute() {
        path.to_path_buf()
    } else {
        let runtime = std::fs::canonicalize(path).map_err(|e| Error::Io(path.to_path_buf(), e))?;
        let dir =
            std::fs::canonicalize(crate_dir).map_err(|e| Error::Io(crate_dir.to_path_buf(), e))?;
        relative_path(&dir, &runtime).unwrap_or(runtime)
    };
    let text = written.to_str().ok_or_else(|| {
        Error::Map(format!(
            "{}: the runtime path is not UTF-8 and cannot be written into Cargo.toml",
            path.display()
        ))
    })?;
    Ok(if written.is_absolute() {
        text.to_string()
    } else {
        text.replace(std::path::MAIN_SEPARATOR, "/")
    })
}

/// Writes a complete crate into `out`: `Cargo.toml`, `README.md`, `src/lib.rs`, the code. The
/// crate is named `tera-protocol-<version>` and can be packaged and published as it is (`cargo
/// package` passes without warnings).
pub fn write_crate(o: &ProtocolOptions, c: &CrateOptions, out: &Path) -> Result<Protocol, Error> {
    let src = out.join("src");
    let p = generate(o, &src)?;
    let name = format!("tera-protocol-{}", p.version);
    let mut dep = format!("version = {}", toml_string(&c.runtime.version));
    if let Some(path) = &c.runtime.path {
        let _ = write!(
            dep,
            ", path = {}",
            toml_string(&runtime_path_in(path, out)?)
        );
    }
    let repository = c.repository.as_ref().map_or(String::new(), |r| {
        format!("repository = {}\n", toml_string(r))
    });
    let patch = o
        .patch
        .map_or("the newest patch".to_string(), |p| format!("patch {p}"));
    let cargo = format!(
        r#"# @generated by defc gen; do not edit.
[package]
name = "{name}"
version = "0.1.0+protocol.{v}"
edition = "2024"
rust-version = "{msrv}"
description = "TERA protocol {v}: typed packets for {patch}"
license = {license}
documentation = "https://docs.rs/{name}"
{repository}readme = "README.md"
keywords = ["tera", "protocol", "packets"]
categories = ["encoding", "network-programming"]

[features]
default = ["serde"]
serde = ["def-runtime/serde", "dep:serde", "dep:serde_json"]

[dependencies]
def-runtime = {{ {dep} }}
serde = {{ version = "1", optional = true }}
serde_json = {{ version = "1", optional = true, features = ["float_roundtrip"] }}

[package.metadata.docs.rs]
all-features = true

# A crate of its own, not a member of an enclosing workspace.
[workspace]
"#,
        v = p.version,
        license = toml_string(&c.license),
        // The runtime's minimum Rust version, which the generated code does not raise.
        msrv = env!("CARGO_PKG_RUST_VERSION"),
    );
    let lib = format!(
        "//! TERA protocol {v}: every definition of the corpus, the opcode map, the current version of\n//! each message for {patch}, and the `Packet` enum that decodes by opcode.\n//! Generated by `defc gen`; do not edit.\n\ninclude!(\"protocol.rs\");\n",
        v = p.version
    );
    let readme = format!(
        "# {name}\n\nTyped packets of TERA protocol {v} ({patch}), generated by `defc gen` from a tera-data checkout:\n{} definitions, {} messages in the `Packet` enum, on def-runtime {rt}.\n\n```toml\n[dependencies]\n{name} = \"0.1\" # feature `serde` (default): Serialize/Deserialize and JSON entry points\n```\n\n```rust,ignore\nlet packet = {crate_ident}::Packet::decode(&bytes, def_runtime::Options::new())?; // one whole packet; unknown opcodes give Packet::Raw\nlet json = serde_json::to_string(&packet)?; // {{\"name\":\"S_LOGIN\",\"version\":14,\"data\":{{...}}}}\nlet again = packet.encode()?;\n```\n",
        p.definitions,
        p.messages,
        v = p.version,
        rt = c.runtime.version,
        crate_ident = name.replace('-', "_")
    );
    crate::config::write_if_changed(&out.join("Cargo.toml"), &cargo)?;
    crate::config::write_if_changed(&src.join("lib.rs"), &lib)?;
    crate::config::write_if_changed(&out.join("README.md"), &readme)?;
    Ok(p)
}
