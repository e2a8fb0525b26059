//! `defc`: check, decode, encode and generate from TERA `.def` files; Godot and NBT tools.
#![forbid(unsafe_code)]

use std::process::ExitCode;

use std::path::PathBuf;

use clap::{Parser, Subcommand};

mod annotate;
mod codec;
mod diff;
mod explain;
mod forced;
mod guess;
mod out;
mod proxy;
mod tera;

#[cfg(feature = "godot")]
mod godot;
#[cfg(feature = "nbt")]
mod nbt;

/// Command-line front end of the toolkit.
#[derive(Parser)]
#[command(name = "defc", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse and resolve .def files or folders; print diagnostics and a summary.
    Check {
        /// Files or folders.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Every warning is an error.
        #[arg(long)]
        strict: bool,
    },
    /// Decode a packet (hex, header included) to JSON.
    Decode {
        /// The definition.
        #[arg(long = "def")]
        def: PathBuf,
        /// Eight bytes of padding after the header.
        #[arg(long)]
        padding: bool,
        /// Reject trailing bytes, wrong lengths and wrong `here` values.
        #[arg(long)]
        strict: bool,
        /// The packet as hex, or `-` for standard input.
        hex: String,
    },
    /// Encode JSON to a packet, printed as hex.
    Encode {
        /// The definition.
        #[arg(long = "def")]
        def: PathBuf,
        /// Eight bytes of padding after the header.
        #[arg(long)]
        padding: bool,
        /// The opcode to put in the header.
        #[arg(long, default_value = "0", value_parser = parse_u16)]
        opcode: u16,
        /// Write defaults (0, empty) for fields the JSON leaves out instead of failing.
        #[arg(long)]
        fill_missing: bool,
        /// The packet as JSON, or `-` for standard input.
        json: String,
    },
    /// Write a crate for one protocol version: the chosen messages, the opcode map, the Packet enum.
    Gen {
        #[command(flatten)]
        protocol: ProtocolArgs,
        /// Also depend on the runtime by path (its folder; a relative path is written relative
        /// to the crate's folder), for development. The dependency always has a version, that
        /// of this defc, so the crate can be packaged and published as it is.
        #[arg(long)]
        runtime_path: Option<PathBuf>,
        /// The crate's license (an SPDX expression); choose what fits your definitions.
        #[arg(long, default_value = "MIT OR Apache-2.0")]
        license: String,
        /// The crate's repository URL.
        #[arg(long)]
        repository: Option<String>,
        /// The messages to generate, comma-separated: names, or patterns with `*` for any run
        /// of characters (`S_PARTY_*`). Default: every message.
        #[arg(long, value_delimiter = ',')]
        messages: Vec<String>,
        /// Which versions: `current` (the messages of the `Packet` enum), `readable` (also the
        /// older versions still readable at the patch) or `all`; the non-current ones are behind
        /// the crate's `history` feature.
        #[arg(long, default_value = "current", value_parser = ["current", "readable", "all"])]
        versions: String,
        /// Generate no zero-copy views.
        #[arg(long)]
        no_views: bool,
        /// Generate no serde support.
        #[arg(long)]
        no_serde: bool,
        /// The crate's folder.
        #[arg(long)]
        out: PathBuf,
    },
    /// Check vectors in the tera-vectors form through the dynamic codec, both ways.
    Vectors {
        /// The definitions folder.
        #[arg(long)]
        defs: PathBuf,
        /// The JSON Lines file, or `-` for standard input.
        file: String,
    },
    /// A packet as a hex dump, each byte range labelled with its field path.
    Annotate {
        /// The definition.
        #[arg(long = "def")]
        def: PathBuf,
        /// Eight bytes of padding after the header.
        #[arg(long)]
        padding: bool,
        /// Reject trailing bytes, wrong lengths and wrong `here` values.
        #[arg(long)]
        strict: bool,
        /// The ranges as JSON.
        #[arg(long)]
        json: bool,
        /// Colour: on a terminal (auto), always or never.
        #[arg(long, value_enum, default_value = "auto")]
        color: annotate::Color,
        /// The packet as hex, or `-` for standard input.
        hex: String,
    },
    /// The layout of a definition as a table; `--svg FILE` draws it.
    Explain {
        /// The definition.
        def: PathBuf,
        /// Also write a picture of a packet's regions as SVG.
        #[arg(long)]
        svg: Option<PathBuf>,
    },
    /// Field-level differences of two packets of one message (exit 1 when they differ).
    Diff {
        /// The definition.
        #[arg(long = "def")]
        def: PathBuf,
        /// Eight bytes of padding after the header.
        #[arg(long)]
        padding: bool,
        /// The first packet as hex (`-`: standard input).
        a: String,
        /// The second packet as hex.
        b: String,
    },
    /// Name the message each opcode of a capture carries; prints a map (`NAME = OPCODE`).
    Guess {
        /// The definitions folder (every version of every message is tried).
        #[arg(long)]
        defs: PathBuf,
        /// Claim only messages this map names (e.g. the previous patch's `protocol.N.map`).
        #[arg(long)]
        names: Option<PathBuf>,
        /// Claim only each message's current version, chosen as `defc gen` does.
        #[arg(long)]
        current: bool,
        /// With `--current`: `deprecated.json` (default: the one beside the definitions folder).
        #[arg(long, requires = "current")]
        deprecated: Option<PathBuf>,
        /// With `--current`: the patch whose versions are current (default: the newest).
        #[arg(long, requires = "current")]
        patch: Option<u32>,
        /// Also write, for every opcode, its ranked candidates and why, as JSON.
        #[arg(long)]
        report: Option<PathBuf>,
        /// With `--report`: the best-ranked candidates listed per opcode; the rest are counted
        /// (`more_candidates`).
        #[arg(long, default_value_t = guess::REPORT_CANDIDATES, requires = "report")]
        report_candidates: usize,
        /// The capture: one hex packet per line (header included) or JSON lines with `hex`
        /// (and optionally `direction`: "client" or "server"); `#` comments. `-`: standard input.
        capture: String,
    },
    /// A TERA proxy: carries each client's connection to the server through the handshake and
    /// cipher, packet by packet, byte for byte; `--log FILE` writes every packet as a JSON line
    /// (`dir`, `opcode`, `name`, `version`, `object` or `error`, `len`), in arrival order.
    Proxy {
        /// Where clients connect (`127.0.0.1:7801`; port 0: any free port, printed at start).
        #[arg(long)]
        listen: String,
        /// The server's address.
        #[arg(long)]
        upstream: String,
        #[command(flatten)]
        protocol: ProtocolArgs,
        /// No handshake and no cipher (emulators, tests).
        #[arg(long)]
        plaintext: bool,
        /// Write one JSON line per packet to this file.
        #[arg(long)]
        log: Option<PathBuf>,
    },
    /// Godot binary Variant tools.
    #[cfg(feature = "godot")]
    #[command(subcommand)]
    Godot(godot::Cmd),
    /// Minecraft NBT tools.
    #[cfg(feature = "nbt")]
    #[command(subcommand)]
    Nbt(nbt::Cmd),
}

/// The protocol a command reads: definitions, map, and how the current versions are chosen
/// (`gen`, `proxy`).
#[derive(clap::Args, Debug)]
struct ProtocolArgs {
    /// The definitions folder.
    #[arg(long)]
    defs: PathBuf,
    /// The opcode map (`protocol.N.map`).
    #[arg(long)]
    map: PathBuf,
    /// `deprecated.json` (none is read without it).
    #[arg(long)]
    deprecated: Option<PathBuf>,
    /// The patch whose current versions to choose (default: the newest); for `proxy` also the
    /// cipher's key mixing (before or from patch 45; default: from 45).
    #[arg(long)]
    patch: Option<u32>,
    /// The platform whose files override the plain ones: `pc`, `ps4` or `xb1`.
    #[arg(long, default_value = "pc", value_parser = parse_platform)]
    platform: def_parser::ast::Platform,
    /// Opcodes with 8 bytes of padding after the header, comma-separated (their packets are
    /// read past the padding).
    #[arg(long, value_delimiter = ',', value_parser = parse_u16)]
    padding_opcodes: Vec<u16>,
}

/// `pc`, `ps4` or `xb1`.
fn parse_platform(s: &str) -> Result<def_parser::ast::Platform, String> {
    def_parser::ast::Platform::parse(s).ok_or_else(|| "not pc, ps4 or xb1".to_string())
}

/// A `u16` in decimal or `0x` hex.
fn parse_u16(s: &str) -> Result<u16, String> {
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u16::from_str_radix(h, 16),
        None => s.parse(),
    }
    .map_err(|e| format!("{s}: {e}"))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Check { paths, strict } => tera::check(&paths, strict),
        Command::Decode {
            def,
            padding,
            strict,
            hex,
        } => tera::decode(&def, padding, strict, &hex),
        Command::Encode {
            def,
            padding,
            opcode,
            fill_missing,
            json,
        } => tera::encode(&def, padding, opcode, fill_missing, &json),
        Command::Vectors { defs, file } => tera::vectors(&defs, &file),
        Command::Annotate {
            def,
            padding,
            strict,
            json,
            color,
            hex,
        } => annotate::run(&def, padding, strict, json, color, &hex),
        Command::Explain { def, svg } => explain::run(&def, svg.as_deref()),
        Command::Diff { def, padding, a, b } => diff::run(&def, padding, &a, &b),
        Command::Guess {
            defs,
            names,
            current,
            deprecated,
            patch,
            report,
            report_candidates,
            capture,
        } => guess::run(&guess::Args {
            defs: &defs,
            capture: &capture,
            names: names.as_deref(),
            current,
            deprecated: deprecated.as_deref(),
            patch,
            report: report.as_deref(),
            report_candidates,
        }),
        Command::Gen {
            protocol:
                ProtocolArgs {
                    defs,
                    map,
                    deprecated,
                    patch,
                    platform,
                    padding_opcodes,
                },
            runtime_path,
            license,
            repository,
            messages,
            versions,
            no_views,
            no_serde,
            out,
        } => {
            let mut o = def_codegen::protocol::ProtocolOptions::new(defs, map);
            o.messages = messages;
            o.versions = def_codegen::protocol::Versions::parse(&versions).unwrap_or_default();
            o.views = !no_views;
            o.serde = !no_serde;
            o.deprecated = deprecated;
            o.patch = patch;
            o.platform = platform;
            o.padding_opcodes = padding_opcodes;
            let c = def_codegen::protocol::CrateOptions {
                runtime: def_codegen::protocol::RuntimeDep {
                    path: runtime_path,
                    ..Default::default()
                },
                license,
                repository,
            };
            let start = std::time::Instant::now();
            match def_codegen::protocol::write_crate(&o, &c, &out) {
                Ok(p) => {
                    println!(
                        "protocol {}: {} definitions, {} messages, {} bytes of code in {} ({:.0} ms)",
                        p.version,
                        p.definitions,
                        p.messages,
                        p.code_bytes,
                        out.display(),
                        start.elapsed().as_secs_f64() * 1000.0
                    );
                    ExitCode::SUCCESS
                }
                Err(e) => tera::fail(e),
            }
        }
        Command::Proxy {
            listen,
            upstream,
            protocol,
            plaintext,
            log,
        } => proxy::run(&proxy::Args {
            listen: &listen,
            upstream: &upstream,
            defs: &protocol.defs,
            map: &protocol.map,
            deprecated: protocol.deprecated.as_deref(),
            patch: protocol.patch,
            platform: protocol.platform,
            padding_opcodes: protocol.padding_opcodes,
            plaintext,
            log: log.as_deref(),
        }),
        #[cfg(feature = "godot")]
        Command::Godot(cmd) => godot::run(cmd),
        #[cfg(feature = "nbt")]
        Command::Nbt(cmd) => nbt::run(cmd),
    }
}
