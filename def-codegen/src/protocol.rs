//! A crate for one protocol version: every definition, the opcode map both ways, the current
//! version of each message for a patch, and a `Packet` enum that dispatches on the opcode.
//!
//! [`generate`] writes the code into a folder (`protocol.rs`, which includes `defs/_defs.rs` and
//! one file per definition); `defc gen` wraps it in a complete crate, and the workspace's
//! `protocol-defs` build script includes it from `OUT_DIR`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use def_parser::ast::{DefName, PatchRange, Platform};

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
    /// Zero-copy view types for every definition ([`Config::views`]; default on), behind the
    /// crate's `views` feature.
    pub views: bool,
    /// serde in the tera-vectors JSON form and JSON entry points (default on), behind the crate's
    /// `serde` feature.
    pub serde: bool,
    /// The messages to generate: names, or patterns with `*` for any run of characters
    /// (`S_PARTY_*`); empty for every message. A pattern that selects no message is an error.
    pub messages: Vec<String>,
    /// Which versions of them ([`Versions::Current`] by default).
    pub versions: Versions,
}

impl ProtocolOptions {
    /// Options with the defaults: no deprecations, the newest patch, `pc`, no padding, every
    /// message in its current version, views and serde.
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
            serde: true,
            messages: Vec::new(),
            versions: Versions::Current,
        }
    }

    /// What is selected, as the generated crate's `SELECTION` constant and README say it:
    /// `messages: S_CHAT, S_PARTY_*; versions: current; views; serde`.
    pub fn selection(&self) -> String {
        let messages = if self.messages.is_empty() {
            "*".to_string()
        } else {
            self.messages
                .iter()
                .map(|m| naming::doc_text(m))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut s = format!("messages: {messages}; versions: {}", self.versions.as_str());
        if self.views {
            s.push_str("; views");
        }
        if self.serde {
            s.push_str("; serde");
        }
        s
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

/// Generates the protocol's code into `out` (created if needed): `protocol.rs`, which includes
/// `defs/_defs.rs` and one file per generated definition.
///
/// In order: the map, the definitions folder and `deprecated.json` are read; every definition
/// is resolved; each message's current version is chosen, and what the options select; the
/// selected definitions are emitted; the crate's data (opcode map, version table, opcode
/// constants, the `Packet` enum and its views) is written.
pub fn generate(o: &ProtocolOptions, out: &Path) -> Result<Protocol, Error> {
    let inputs = read_inputs(o)?;
    let resolved = resolve_all(&inputs)?;
    let selection = select(o, &inputs, &resolved)?;
    let definitions = emit_definitions(o, &inputs, &resolved, &selection, &out.join("defs"))?;
    let tables = Tables::new(o, &inputs, &resolved, &selection, &definitions);
    let code = tables.render();
    crate::config::write_if_changed(&out.join("protocol.rs"), &code)?;
    let code_bytes = code.len()
        + definitions
            .iter()
            .filter_map(|d| std::fs::metadata(&d.generated.file).ok())
            .map(|m| m.len() as usize)
            .sum::<usize>();
    Ok(Protocol {
        version: inputs.version,
        definitions: definitions.len(),
        messages: tables.variants.len(),
        code_bytes,
    })
}

/// What [`generate`] reads before compiling anything.
struct Inputs {
    /// The protocol version, from the map's file name.
    version: u32,
    /// Message name to opcode.
    map: BTreeMap<String, u16>,
    /// For each name and version, the file that applies on the platform.
    files: BTreeMap<(String, u32), PathBuf>,
    /// `deprecated.json`'s entries.
    deprecated: BTreeMap<(String, u32), def_parser::protocol::Deprecation>,
}

fn read_inputs(o: &ProtocolOptions) -> Result<Inputs, Error> {
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
        crate::config::print_cargo(&format!("cargo:rerun-if-changed={}", o.defs.display()));
        if let Some(d) = &o.deprecated {
            crate::config::print_cargo(&format!("cargo:rerun-if-changed={}", d.display()));
        }
    }
    // Platform files override plain ones: only the files that apply are read.
    let def_parser::protocol::DefinitionFiles { files, known } =
        def_parser::protocol::scan_definitions(&o.defs, o.platform).map_err(|e| match e {
            def_parser::protocol::ScanError::Io(p, e) => Error::Io(p, e),
            def_parser::protocol::ScanError::FileName(p) => Error::FileName(p),
        })?;
    let deprecated = match &o.deprecated {
        Some(p) => read_deprecated(p, &known)?,
        None => BTreeMap::new(),
    };
    Ok(Inputs {
        version,
        map,
        files,
        deprecated,
    })
}

/// One definition file, resolved (or the diagnostics that stopped it).
struct Resolved {
    name: DefName,
    source: PathBuf,
    result: Result<def_parser::Compiled, def_parser::Report>,
}

/// Resolves every definition that applies (in parallel): the patch ranges of all versions are
/// needed to choose the current ones, whatever is generated.
fn resolve_all(inputs: &Inputs) -> Result<Vec<Resolved>, Error> {
    let files: Vec<&PathBuf> = inputs.files.values().collect();
    let results = crate::config::parallel_map(&files, |path| -> Result<Resolved, Error> {
        let base = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        let name = DefName::parse(base).ok_or_else(|| Error::FileName(path.to_path_buf()))?;
        let text = crate::input::read_text(path)?;
        let result = def_parser::compile_str(
            &path.display().to_string(),
            &text,
            def_parser::Mode::Compatible,
        );
        Ok(Resolved {
            name,
            source: path.to_path_buf(),
            result,
        })
    });
    results.into_iter().collect()
}

/// Which versions of the selected messages a generated crate holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Versions {
    /// The current version of each message that has an opcode: the messages of the `Packet`
    /// enum. The default.
    #[default]
    Current,
    /// Every version readable at the patch (the current one, and those `deprecated.json` keeps
    /// readable), the older ones behind the crate's `history` feature.
    Readable,
    /// Every version, the non-current ones behind the crate's `history` feature.
    All,
}

impl Versions {
    /// The name `defc gen --versions` takes (`current`, `readable`, `all`).
    pub fn as_str(self) -> &'static str {
        match self {
            Versions::Current => "current",
            Versions::Readable => "readable",
            Versions::All => "all",
        }
    }

    /// The value of a name [`Versions::as_str`] gives.
    pub fn parse(s: &str) -> Option<Self> {
        [Versions::Current, Versions::Readable, Versions::All]
            .into_iter()
            .find(|v| v.as_str() == s)
    }
}

/// Whether message `name` matches `pattern`: the name itself, or a pattern with `*` standing for
/// any run of characters (`S_PARTY_*`, `*_CHAT`, `*`). Linear in both lengths.
pub fn matches_pattern(pattern: &str, name: &str) -> bool {
    let (p, n) = (pattern.as_bytes(), name.as_bytes());
    // The classic greedy match with one backtrack point: the last `*` seen.
    let (mut i, mut j) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while j < n.len() {
        if i < p.len() && p[i] == b'*' {
            star = Some((i, j));
            i += 1;
        } else if i < p.len() && p[i] == n[j] {
            i += 1;
            j += 1;
        } else if let Some((si, sj)) = star {
            i = si + 1;
            j = sj + 1;
            star = Some((si, sj + 1));
        } else {
            return false;
        }
    }
    p[i..].iter().all(|&c| c == b'*')
}

/// One version of a message as the crate sees it.
struct VersionPlan {
    /// Index into the resolved definitions.
    index: usize,
    version: u32,
    status: def_parser::protocol::Status,
    current: bool,
    /// Whether its code is written (behind `history` unless current).
    generated: bool,
}

/// The versions of one message and its current version.
struct MessagePlan {
    versions: Vec<VersionPlan>,
    current: Option<u32>,
}

/// What [`select`] chose: every message, with what is generated of it.
struct Selection {
    messages: BTreeMap<String, MessagePlan>,
}

/// Chooses the current version of every message and what to generate (the options' message
/// patterns and [`Versions`]); a pattern that selects nothing is an error, as is a definition
/// of a selected message that does not compile. Definitions of messages not selected are not
/// reported.
fn select(o: &ProtocolOptions, inputs: &Inputs, resolved: &[Resolved]) -> Result<Selection, Error> {
    let mut by_name: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, r) in resolved.iter().enumerate() {
        by_name.entry(&r.name.name).or_default().push(i);
    }
    for p in &o.messages {
        if !by_name.keys().any(|n| matches_pattern(p, n)) {
            return Err(Error::Selection(format!(
                "`{}` selects no message of {}",
                crate::naming::doc_text(p),
                o.defs.display()
            )));
        }
    }
    let selected =
        |name: &str| o.messages.is_empty() || o.messages.iter().any(|p| matches_pattern(p, name));
    let mut reports = Vec::new();
    let mut messages = BTreeMap::new();
    for (name, indices) in by_name {
        let chosen = selected(name);
        let versions: Vec<(u32, Option<PatchRange>)> = indices
            .iter()
            .map(|&i| {
                let r = &resolved[i];
                let range = r.result.as_ref().ok().and_then(|c| c.layout.patch_range);
                (r.name.version, range)
            })
            .collect();
        let (current, statuses) =
            def_parser::protocol::choose(name, &versions, &inputs.deprecated, o.patch);
        let has_opcode = inputs.map.contains_key(name);
        let mut plans = Vec::new();
        for (&index, status) in indices.iter().zip(statuses) {
            let version = resolved[index].name.version;
            let is_current = Some(version) == current;
            let generated = chosen
                && match o.versions {
                    Versions::Current => is_current && has_opcode,
                    Versions::Readable => status.readable,
                    Versions::All => true,
                };
            if generated && let Err(r) = &resolved[index].result {
                reports.push(r.clone());
            }
            plans.push(VersionPlan {
                index,
                version,
                status,
                current: is_current,
                generated,
            });
        }
        messages.insert(
            name.to_string(),
            MessagePlan {
                versions: plans,
                current,
            },
        );
    }
    if !reports.is_empty() {
        return Err(Error::Defs(reports));
    }
    Ok(Selection { messages })
}

/// A generated definition and where it stands in the crate.
struct Emitted {
    generated: Generated,
    /// Behind the `history` feature (not the current version).
    history: bool,
}

/// Emits the selected definitions into `dir` (in parallel) with the include file `_defs.rs`,
/// whose modules of non-current versions are behind the `history` feature.
fn emit_definitions(
    o: &ProtocolOptions,
    inputs: &Inputs,
    resolved: &[Resolved],
    selection: &Selection,
    dir: &Path,
) -> Result<Vec<Emitted>, Error> {
    let mut config = Config::new();
    config
        .runtime_path(&o.runtime)
        .views(o.views)
        .views_feature("views")
        .cargo_output(false);
    if o.serde {
        config.serde_feature("serde");
    }
    // Padding is per opcode: the protocol fixes it for every message.
    config.padding_messages(
        inputs
            .map
            .iter()
            .filter(|(_, c)| o.padding_opcodes.contains(c))
            .map(|(n, _)| n.clone()),
    );
    let modules = naming::module_names(selection.messages.keys().map(String::as_str));
    let chosen: Vec<(&str, &VersionPlan)> = selection
        .messages
        .iter()
        .flat_map(|(n, m)| m.versions.iter().map(move |v| (n.as_str(), v)))
        .filter(|(_, v)| v.generated)
        .collect();
    let codes = crate::config::parallel_map(&chosen, |(_, v)| {
        let r = &resolved[v.index];
        let compiled = r.result.as_ref().expect("select refused the failures");
        let base = r
            .source
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        config.emit_layout(base, &compiled.layout)
    });
    let mut emitted = Vec::with_capacity(chosen.len());
    for ((name, v), code) in chosen.iter().zip(codes) {
        let r = &resolved[v.index];
        if o.cargo_output {
            let compiled = r.result.as_ref().expect("select refused the failures");
            for line in crate::config::cargo_report(&compiled.warnings) {
                crate::config::print_cargo(&line);
            }
        }
        let module = crate::config::module_in(&modules[*name], &r.name);
        let file = dir.join(format!("{}.rs", module.replace("::", ".")));
        crate::config::write_if_changed(&file, &code?)?;
        emitted.push(Emitted {
            generated: Generated {
                name: r.name.clone(),
                source: r.source.clone(),
                module,
                type_name: naming::type_name(name),
                file,
            },
            history: !v.current,
        });
    }
    let include = crate::config::include_tree(emitted.iter().map(|e| {
        let cfg = e.history.then_some("#[cfg(feature = \"history\")]");
        (&e.generated, cfg)
    }));
    crate::config::write_if_changed(&dir.join("_defs.rs"), &include)?;
    Ok(emitted)
}

/// One variant of the `Packet` enum: a current message with an opcode.
struct Variant {
    /// The variant's name (`SLogin`).
    ident: String,
    /// The definition's module (`s_login::v14`).
    module: String,
    /// The message type's name in it (`SLogin`).
    type_name: String,
    /// The message name (`S_LOGIN`).
    name: String,
    opcode: u16,
    version: u32,
}

impl Variant {
    /// The message type's path (`s_login::v14::SLogin`).
    fn ty(&self) -> String {
        format!("{}::{}", self.module, self.type_name)
    }
}

/// The data of a generated crate beside its definitions, and how it is written.
struct Tables<'a> {
    o: &'a ProtocolOptions,
    version: u32,
    map: &'a BTreeMap<String, u16>,
    /// `VersionStatus` rows as Rust, sorted by name and version.
    statuses: Vec<String>,
    variants: Vec<Variant>,
    /// `(file, type path, behind history)`, sorted by file name.
    definitions: Vec<(String, String, bool)>,
}

/// `Some(x)` or `None` as Rust source.
fn option_code(v: Option<String>) -> String {
    v.map_or("::core::option::Option::None".into(), |x| {
        format!("::core::option::Option::Some({x})")
    })
}

impl<'a> Tables<'a> {
    fn new(
        o: &'a ProtocolOptions,
        inputs: &'a Inputs,
        resolved: &[Resolved],
        selection: &Selection,
        emitted: &[Emitted],
    ) -> Self {
        let by_key: BTreeMap<(&str, u32), &Emitted> = emitted
            .iter()
            .map(|e| {
                (
                    (e.generated.name.name.as_str(), e.generated.name.version),
                    e,
                )
            })
            .collect();
        let variant_names = naming::variant_names(selection.messages.keys().map(String::as_str));
        let mut statuses = Vec::new();
        let mut variants = Vec::new();
        for (name, m) in &selection.messages {
            for v in &m.versions {
                let r = &resolved[v.index];
                let file = r
                    .source
                    .file_name()
                    .and_then(|f| f.to_str())
                    .unwrap_or_default();
                let patches = r
                    .result
                    .as_ref()
                    .ok()
                    .and_then(|c| c.layout.patch_range.as_ref())
                    .map(|p| format!("{:?}", p.to_string()));
                let reason = v.status.reason.as_ref().map(|r| format!("{r:?}"));
                statuses.push(format!(
                    "    VersionStatus {{ name: {name:?}, version: {}, file: {file:?}, current: {}, readable: {}, writable: {}, reason: {}, patches: {}, generated: {} }},",
                    v.version,
                    v.current,
                    v.status.readable,
                    v.status.writable,
                    option_code(reason),
                    option_code(patches),
                    v.generated,
                ));
            }
            let current = m.current.and_then(|c| by_key.get(&(name.as_str(), c)));
            if let (Some(e), Some(&opcode)) = (current, inputs.map.get(name)) {
                let g = &e.generated;
                variants.push(Variant {
                    ident: variant_names[name.as_str()].clone(),
                    module: g.module.clone(),
                    type_name: g.type_name.clone(),
                    name: name.clone(),
                    opcode,
                    version: g.name.version,
                });
            }
        }
        let mut definitions: Vec<(String, String, bool)> = emitted
            .iter()
            .map(|e| {
                let g = &e.generated;
                let file = g
                    .source
                    .file_name()
                    .and_then(|f| f.to_str())
                    .unwrap_or_default()
                    .to_string();
                (file, format!("{}::{}", g.module, g.type_name), e.history)
            })
            .collect();
        definitions.sort();
        Tables {
            o,
            version: inputs.version,
            map: &inputs.map,
            statuses,
            variants,
            definitions,
        }
    }

    /// The whole `protocol.rs`: written already formatted (it is mostly tables, and parsing it
    /// back only to print it again took a fifth of the generation time).
    fn render(&self) -> String {
        let mut s = String::new();
        self.header(&mut s);
        self.opcodes(&mut s);
        self.versions(&mut s);
        self.packet(&mut s);
        if self.o.views {
            self.packet_view(&mut s);
        }
        self.definitions(&mut s);
        if self.o.serde {
            self.packet_serde(&mut s);
        }
        s
    }

    fn header(&self, s: &mut String) {
        let (o, rt, version) = (self.o, &self.o.runtime, self.version);
        let patch_doc = o
            .patch
            .map_or("the newest patch the definitions know".to_string(), |p| {
                format!("patch {p}")
            });
        let _ = writeln!(
            s,
            "// @generated by def-codegen (protocol {version}); do not edit."
        );
        let _ = writeln!(s, "include!(\"defs/_defs.rs\");\n");
        let _ = writeln!(
            s,
            "pub use {rt}::tera::protocol::{{Definition, OpcodeMap, RawPacket, VersionStatus}};\n"
        );
        let _ = writeln!(
            s,
            "/// The protocol version this crate speaks (the opcode map's number).\npub const PROTOCOL_VERSION: u32 = {version};"
        );
        let _ = writeln!(
            s,
            "/// The patch the current versions were chosen for (`None`: {patch_doc}).\npub const PATCH: ::core::option::Option<u32> = {};",
            option_code(o.patch.map(|p| p.to_string()))
        );
        let _ = writeln!(
            s,
            "/// What the generator was asked for: the messages (`*` for all), the versions\n/// (`current`, `readable` or `all`; versions other than the current ones are behind the\n/// `history` feature), and whether views (feature `views`) and serde (feature `serde`) were\n/// generated.\npub const SELECTION: &str = {:?};",
            self.o.selection()
        );
    }

    fn opcodes(&self, s: &mut String) {
        let _ = writeln!(
            s,
            "\n/// The opcode map both ways, and the opcodes whose packets carry 8 bytes of padding.\npub static MAP: OpcodeMap = OpcodeMap::new(\n    &["
        );
        for (n, c) in self.map {
            let _ = writeln!(s, "        ({n:?}, {c}),");
        }
        s.push_str("    ],\n    &[\n");
        let mut by_code: Vec<(u16, &str)> =
            self.map.iter().map(|(n, c)| (*c, n.as_str())).collect();
        by_code.sort();
        for (c, n) in &by_code {
            let _ = writeln!(s, "        ({c}, {n:?}),");
        }
        let mut padded = self.o.padding_opcodes.clone();
        padded.sort();
        padded.dedup();
        let _ = writeln!(s, "    ],\n    &{padded:?},\n);");
        let _ = writeln!(
            s,
            r#"
/// The opcode of a message name ([`MAP`]; the constants of [`opcodes`] spell the same without a
/// lookup).
pub fn opcode_of(name: &str) -> ::core::option::Option<u16> {{
    MAP.opcode(name)
}}

/// The message name of an opcode.
pub fn name_of(opcode: u16) -> ::core::option::Option<&'static str> {{
    MAP.name(opcode)
}}

/// Whether packets with this opcode carry 8 bytes of padding after the header.
pub fn has_padding(opcode: u16) -> bool {{
    MAP.has_padding(opcode)
}}

/// The opcode of every message of the map, by its name: `opcodes::S_LOGIN`.
#[allow(non_upper_case_globals)]
pub mod opcodes {{"#
        );
        for (n, c) in self.map {
            if naming::is_plain_ident(n) {
                let _ = writeln!(s, "    /// `{n}`.\n    pub const {n}: u16 = {c};");
            }
        }
        s.push_str("}\n");
        for v in &self.variants {
            if naming::is_plain_ident(&v.name) {
                let _ = writeln!(
                    s,
                    "\nimpl {} {{\n    /// The opcode of `{}` in this protocol.\n    pub const OPCODE: u16 = opcodes::{};\n}}",
                    v.ty(),
                    v.name,
                    v.name
                );
            }
        }
    }

    fn versions(&self, s: &mut String) {
        s.push_str("\n/// Every definition version of the definitions folder, sorted by name and version, with\n/// whether this crate holds its code.\npub static VERSIONS: &[VersionStatus] = &[\n");
        for row in &self.statuses {
            s.push_str(row);
            s.push('\n');
        }
        s.push_str("];\n");
    }

    fn packet(&self, s: &mut String) {
        let rt = &self.o.runtime;
        s.push_str(
            "\n/// Every current message of this protocol that has an opcode, decoded by opcode.\n#[derive(Debug, Clone, PartialEq)]\n#[allow(clippy::large_enum_variant)]\npub enum Packet {\n",
        );
        for v in &self.variants {
            let _ = writeln!(
                s,
                "    /// `{}` (opcode {}), version {}: [`{}`].\n    {}({}),",
                v.name,
                v.opcode,
                v.version,
                v.ty(),
                v.ident,
                v.ty()
            );
        }
        s.push_str("    /// An opcode without a current definition in this crate; forwarded unchanged.\n    Raw(RawPacket),\n}\n\n");
        let empty = self.variants.is_empty();
        let _ = write!(
            s,
            r#"impl Packet {{
    /// Reads one whole packet, choosing the message by the opcode of its header. An unknown
    /// opcode, or a message without a current definition in this crate, gives [`Packet::Raw`]
    /// with the bytes unchanged.
    ///
    /// `bytes` must be exactly one packet: fewer than 4 bytes (no header) is an error
    /// (`Truncated` at offset 0), and so is a header length other than `bytes.len()`
    /// (`LengthMismatch` at offset 0, in every mode, raw packets included: a stream must be split
    /// into packets first). `opts.strict` applies as for the message types; the padding is the
    /// protocol's for the opcode ([`has_padding`]), whatever `opts.padding` says.
    pub fn decode(bytes: &[u8], opts: {rt}::Options) -> ::core::result::Result<Self, {rt}::DecodeError> {{
        let opcode = {rt}::tera::whole_opcode(bytes)?;
"#
        );
        if empty {
            s.push_str("        let _ = opts;\n");
        } else {
            s.push_str("        let opts = MAP.options(opcode, opts);\n        ::core::result::Result::Ok(match opcode {\n");
            for v in &self.variants {
                let _ = writeln!(
                    s,
                    "            {} => Packet::{}(<{} as {rt}::Packet>::decode(bytes, opts)?),",
                    v.opcode,
                    v.ident,
                    v.ty()
                );
            }
            s.push_str("            _ => Packet::Raw(RawPacket { opcode, name: name_of(opcode), bytes: bytes.to_vec() }),\n        })\n    }\n\n");
        }
        if empty {
            s.push_str("        ::core::result::Result::Ok(Packet::Raw(RawPacket { opcode, name: name_of(opcode), bytes: bytes.to_vec() }))\n    }\n\n");
        }
        let _ = write!(
            s,
            "    /// Writes the packet with its opcode and the protocol's padding for it (a raw packet: its\n    /// bytes unchanged).\n    pub fn encode(&self) -> ::core::result::Result<{rt}::__private::Vec<u8>, {rt}::EncodeError> {{\n        match self {{\n"
        );
        for v in &self.variants {
            let _ = writeln!(
                s,
                "            Packet::{}(p) => <{} as {rt}::Packet>::encode(p, {}, {rt}::Options::new()),",
                v.ident,
                v.ty(),
                v.opcode
            );
        }
        s.push_str("            Packet::Raw(r) => ::core::result::Result::Ok(r.bytes.clone()),\n        }\n    }\n\n    /// The opcode.\n    pub fn opcode(&self) -> u16 {\n        match self {\n");
        for v in &self.variants {
            let _ = writeln!(s, "            Packet::{}(_) => {},", v.ident, v.opcode);
        }
        s.push_str("            Packet::Raw(r) => r.opcode,\n        }\n    }\n\n    /// The message name (`None` for a raw packet whose opcode the map does not know).\n    pub fn name(&self) -> ::core::option::Option<&'static str> {\n        match self {\n");
        for v in &self.variants {
            let _ = writeln!(
                s,
                "            Packet::{}(_) => ::core::option::Option::Some({:?}),",
                v.ident, v.name
            );
        }
        s.push_str("            Packet::Raw(r) => r.name,\n        }\n    }\n\n    /// The definition version of the message (`S_LOGIN.14.def`: 14); `None` for a raw packet.\n    pub fn version(&self) -> ::core::option::Option<u32> {\n        match self {\n");
        for v in &self.variants {
            let _ = writeln!(
                s,
                "            Packet::{}(_) => ::core::option::Option::Some({}),",
                v.ident, v.version
            );
        }
        s.push_str(
            "            Packet::Raw(_) => ::core::option::Option::None,\n        }\n    }\n",
        );
        if self.o.views {
            let _ = write!(
                s,
                r#"
    /// A zero-copy view of one whole packet, chosen by the opcode of its header, with the
    /// protocol's padding for it: what [`Packet::decode`] checks first (a header whose length is
    /// the packet's), then what the message's view checks (the fixed fields fit). An opcode
    /// without a current definition gives [`PacketView::Raw`].
    #[cfg(feature = "views")]
    pub fn view(bytes: &[u8], opts: {rt}::Options) -> ::core::result::Result<PacketView<'_>, {rt}::DecodeError> {{
"#
            );
            if empty {
                let _ = writeln!(
                    s,
                    "        {rt}::tera::whole_opcode(bytes)?;\n        let _ = opts;\n        ::core::result::Result::Ok(PacketView::Raw(bytes))\n    }}"
                );
            } else {
                let _ = writeln!(s, "        let opcode = {rt}::tera::whole_opcode(bytes)?;");
                s.push_str("        ::core::result::Result::Ok(match opcode {\n");
                for v in &self.variants {
                    let _ = writeln!(
                        s,
                        "            {} => PacketView::{}({}::view::{}::new(bytes, MAP.options(opcode, opts))?),",
                        v.opcode, v.ident, v.module, v.type_name
                    );
                }
                s.push_str("            _ => PacketView::Raw(bytes),\n        })\n    }\n");
            }
        }
        s.push_str("}\n");
    }

    fn packet_view(&self, s: &mut String) {
        s.push_str("\n/// A zero-copy view of a packet of this protocol ([`Packet::view`]).\n#[cfg(feature = \"views\")]\n#[derive(Debug, Clone, Copy)]\npub enum PacketView<'a> {\n");
        for v in &self.variants {
            let _ = writeln!(
                s,
                "    /// `{}` (opcode {}).\n    {}({}::view::{}<&'a [u8]>),",
                v.name, v.opcode, v.ident, v.module, v.type_name
            );
        }
        s.push_str("    /// An opcode without a current definition in this crate: the whole packet.\n    Raw(&'a [u8]),\n}\n");
    }

    fn definitions(&self, s: &mut String) {
        let rt = &self.o.runtime;
        let _ = write!(
            s,
            r#"
/// The definition compiled from the file `file` (`S_LOGIN.14.def`), if this crate holds it.
#[cfg(feature = "definitions")]
pub fn definition(file: &str) -> ::core::option::Option<&'static Definition> {{
    {rt}::tera::protocol::find_definition(DEFINITIONS, file)
}}

/// Every definition this crate holds, sorted by file name, with entry points for tools and tests
/// that choose a definition at run time (feature `definitions`; with `serde`, JSON ones too).
#[cfg(feature = "definitions")]
pub static DEFINITIONS: &[Definition] = &[
"#
        );
        for (file, ty, history) in &self.definitions {
            let cfg = if *history {
                "#[cfg(feature = \"history\")] "
            } else {
                ""
            };
            if self.o.serde {
                let _ = writeln!(
                    s,
                    "    {cfg}#[cfg(feature = \"serde\")] Definition::with_json::<{ty}>({file:?}),\n    {cfg}#[cfg(not(feature = \"serde\"))] Definition::of::<{ty}>({file:?}),"
                );
            } else {
                let _ = writeln!(s, "    {cfg}Definition::of::<{ty}>({file:?}),");
            }
        }
        s.push_str("];\n");
    }

    fn packet_serde(&self, s: &mut String) {
        let rt = &self.o.runtime;
        let _ = write!(
            s,
            r#"
/// JSON form: a message as `{{"name": "S_LOGIN", "version": 14, "data": {{...}}}}`, where `data`
/// is the object TERA Toolbox gives its hooks (field names as in the `.def`, the tera-vectors
/// form); a raw packet as [`RawPacket`]'s form. Deserializing reads the same forms (through
/// JSON values, so from a self-describing format): `version`, when given, must be the current
/// version of that message; `name` must be a current message of this crate; a raw packet's
/// bytes must be one whole packet whose header has its `opcode`, and its `name`, when not null,
/// must be the map's name for that opcode. Any other key is an error.
#[cfg(feature = "serde")]
impl {rt}::__private::serde::Serialize for Packet {{
    fn serialize<S: {rt}::__private::serde::Serializer>(&self, s: S) -> ::core::result::Result<S::Ok, S::Error> {{
        match self {{
"#
        );
        for v in &self.variants {
            let _ = writeln!(
                s,
                "            Packet::{}(p) => {rt}::__private::serialize_message(s, {:?}, {}, p),",
                v.ident, v.name, v.version
            );
        }
        let _ = write!(
            s,
            r#"            Packet::Raw(r) => {rt}::__private::serde::Serialize::serialize(r, s),
        }}
    }}
}}

#[cfg(feature = "serde")]
impl<'de> {rt}::__private::serde::Deserialize<'de> for Packet {{
    fn deserialize<D: {rt}::__private::serde::Deserializer<'de>>(d: D) -> ::core::result::Result<Self, D::Error> {{
        {rt}::__private::deserialize_packet(d, &MAP, packet_from_data::<D::Error>, Packet::Raw, Packet::version)
    }}
}}

/// The message `name` with the fields `data` (its `.def` names). Generic over the deserializer's
/// error only so that the code is made where a program deserializes packets, not in this crate.
#[cfg(feature = "serde")]
fn packet_from_data<E>(name: &str, data: &{rt}::__private::serde_json::Value) -> ::core::result::Result<Packet, {rt}::__private::String> {{
"#
        );
        if self.variants.is_empty() {
            s.push_str("    let _ = data;\n");
        } else {
            s.push_str("    ::core::result::Result::Ok(match name {\n");
            for v in &self.variants {
                let _ = writeln!(
                    s,
                    "        {:?} => Packet::{}({rt}::__private::deserialize_data(name, data)?),",
                    v.name, v.ident
                );
            }
            s.push_str(
                "        _ => return {rt}::__private::unknown_message(name),\n    })\n}\n"
                    .replace("{rt}", rt)
                    .as_str(),
            );
        }
        if self.variants.is_empty() {
            let _ = writeln!(s, "    {rt}::__private::unknown_message(name)\n}}");
        }
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
default = ["serde", "views"]
# Serialize/Deserialize in the tera-vectors JSON form.
serde = ["def-runtime/serde"]
# Zero-copy views (`Packet::view`, a `view` module per definition).
views = []
# The versions other than the current ones, when the crate was generated with them.
history = []
# `DEFINITIONS` and `definition(file)`: every definition's entry points by file name, for tools
# and tests that choose a definition at run time (JSON ones with `serde`).
definitions = []

[dependencies]
def-runtime = {{ {dep} }}

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
        "# {name}\n\nTyped packets of TERA protocol {v} ({patch}), generated by `defc gen` from a tera-data checkout:\n{} definitions, {} messages in the `Packet` enum, on def-runtime {rt}.\n\nGenerated for `{selection}` (the constant `SELECTION`).\n\n```toml\n[dependencies]\n{name} = \"0.1\"\n```\n\nFeatures: `serde` (default) for Serialize/Deserialize in the tera-vectors JSON form; `views` (default) for zero-copy views (`Packet::view`); `history` for the versions other than the current ones, when the crate was generated with them; `definitions` for the `DEFINITIONS` table (entry points by file name, JSON ones with `serde`).\n\n```rust,ignore\nlet packet = {crate_ident}::Packet::decode(&bytes, def_runtime::Options::new())?; // one whole packet; unknown opcodes give Packet::Raw\nlet json = serde_json::to_string(&packet)?; // {{\"name\":\"S_LOGIN\",\"version\":14,\"data\":{{...}}}}\nlet again = packet.encode()?;\nlet opcode = {crate_ident}::opcodes::S_LOGIN;\n```\n",
        p.definitions,
        p.messages,
        v = p.version,
        rt = c.runtime.version,
        selection = o.selection(),
        crate_ident = name.replace('-', "_")
    );
    crate::config::write_if_changed(&out.join("Cargo.toml"), &cargo)?;
    crate::config::write_if_changed(&src.join("lib.rs"), &lib)?;
    crate::config::write_if_changed(&out.join("README.md"), &readme)?;
    Ok(p)
}
