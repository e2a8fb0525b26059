//! `defc godot`: decode Godot Variant bytes to the typed JSON form and encode it back.
//!
//! ```text
//! defc godot decode --godot 3|4.0|4.2|4.3|4 [--allow-objects] [--framing bare|stream|stream-be|base64] [--strict] HEX|-
//! defc godot encode --godot 3|4.0|4.2|4.3|4 [--full-objects] [--double-precision] [--framing …] JSON|-
//! ```
//!
//! `-` reads standard input. Decoding refuses exactly what the engine refuses (exit status 1,
//! the error with its byte offset, path and engine error code on stderr); trailing bytes after
//! the value are reported on stderr but accepted, as the engine does, unless `--strict`. The
//! JSON form is documented in `def_runtime::godot::json`. `--godot` is required: the bytes do not say which engine generation wrote them, and Godot 3
//! bytes read as Godot 4 give other values without an error (`4` is 4.4 and later; 4.1 and 4.4
//! are aliases of 4.0 and 4).

use std::io::Read;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use def_runtime::godot::framing::{self, FrameDecoder, Framing};
use def_runtime::godot::json::{Typed, from_json_str};

use crate::tera::parse_hex;
use def_runtime::godot::{DecodeOptions, EncodeOptions, Variant, Version, decode};

/// `defc godot` subcommands.
#[derive(clap::Subcommand)]
pub enum Cmd {
    /// Decode hex bytes (as `bytes2var` / `get_var`) and print the value as typed JSON.
    Decode(DecodeArgs),
    /// Encode a typed-JSON value (as `var2bytes` / `put_var`) and print the bytes as hex.
    Encode(EncodeArgs),
}

/// Engine generation (`4` is the newest, 4.4+).
#[derive(Clone, Copy, ValueEnum)]
enum GodotVersion {
    /// Godot 3.x.
    #[value(name = "3")]
    V3,
    /// Godot 4.0 and 4.1: no typed containers, no PackedVector4Array.
    #[value(name = "4.0", alias = "4.1")]
    V4_0,
    /// Godot 4.2: typed arrays.
    #[value(name = "4.2")]
    V4_2,
    /// Godot 4.3: typed arrays, PackedVector4Array.
    #[value(name = "4.3")]
    V4_3,
    /// Godot 4.4 and later: typed dictionaries too.
    #[value(name = "4", alias = "4.4")]
    V4,
}

impl From<GodotVersion> for Version {
    fn from(v: GodotVersion) -> Version {
        match v {
            GodotVersion::V3 => Version::Godot3,
            GodotVersion::V4_0 => Version::GODOT_4_0,
            GodotVersion::V4_2 => Version::GODOT_4_2,
            GodotVersion::V4_3 => Version::GODOT_4_3,
            GodotVersion::V4 => Version::GODOT_4_4,
        }
    }
}

/// What surrounds the bare encoding.
#[derive(Clone, Copy, ValueEnum)]
enum FramingArg {
    /// The bare encoding (`var2bytes`, `PacketPeer.put_var`).
    Bare,
    /// Little-endian u32 length prefix per value (`StreamPeer.put_var`, `File.store_var`, `PacketPeerStream`).
    Stream,
    /// Big-endian u32 length prefix (`big_endian` / `endian_swap` streams and files).
    StreamBe,
    /// Base64 text of the bare encoding (`Marshalls.variant_to_base64`).
    Base64,
}

/// Arguments of `defc godot decode`.
#[derive(Args)]
pub struct DecodeArgs {
    /// Engine generation that wrote the bytes.
    #[arg(long = "godot", value_enum, required = true)]
    godot: GodotVersion,
    /// Accept full objects (`bytes2var(bytes, true)`); refused otherwise, as the engine does.
    #[arg(long)]
    allow_objects: bool,
    /// Framing of the input.
    #[arg(long, value_enum, default_value = "bare")]
    framing: FramingArg,
    /// Refuse trailing bytes after the value (the engine ignores them).
    #[arg(long)]
    strict: bool,
    /// Hex bytes (whitespace ignored; base64 text with `--framing base64`), or `-` for stdin.
    input: String,
}

/// Arguments of `defc godot encode`.
#[derive(Args)]
pub struct EncodeArgs {
    /// Engine generation that will read the bytes.
    #[arg(long = "godot", value_enum, required = true)]
    godot: GodotVersion,
    /// As `var2bytes(value, true)`: typed containers keep their class / script names.
    #[arg(long)]
    full_objects: bool,
    /// As a Godot 4 `real_t = double` build: math types with 64-bit components.
    #[arg(long)]
    double_precision: bool,
    /// Framing of the output.
    #[arg(long, value_enum, default_value = "bare")]
    framing: FramingArg,
    /// The value in typed JSON, or `-` for stdin.
    input: String,
}

/// Runs one `defc godot` subcommand.
pub fn run(cmd: Cmd) -> ExitCode {
    let result = match cmd {
        Cmd::Decode(args) => run_decode(args),
        Cmd::Encode(args) => run_encode(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("defc godot: {}", crate::out::message(&msg));
            ExitCode::FAILURE
        }
    }
}

fn read_input(arg: &str) -> Result<String, String> {
    if arg == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .map_err(|e| format!("cannot read stdin: {e}"))?;
        Ok(s)
    } else {
        Ok(arg.to_owned())
    }
}

/// Prints a value's typed JSON as it is serialized, without building the JSON tree (which takes
/// up to 145 times the wire size).
fn print_variant(v: &Variant) -> Result<(), String> {
    use std::io::Write;
    // Strings of the value keep their hidden characters as JSON escapes (`crate::out`).
    let mut out = crate::out::InertJson::new(std::io::BufWriter::new(std::io::stdout().lock()));
    serde_json::to_writer_pretty(&mut out, &Typed(v))
        .map_err(|e| format!("cannot print JSON: {e}"))?;
    let mut out = out
        .finish()
        .map_err(|e| format!("cannot print JSON: {e}"))?;
    writeln!(out)
        .and_then(|()| out.flush())
        .map_err(|e| format!("cannot print JSON: {e}"))
}

fn run_decode(args: DecodeArgs) -> Result<(), String> {
    let text = read_input(&args.input)?;
    let options = DecodeOptions::new(args.godot.into()).allow_objects(args.allow_objects);
    match args.framing {
        FramingArg::Base64 => {
            let v = framing::from_base64(&text, options).map_err(|e| e.to_string())?;
            print_variant(&v)
        }
        FramingArg::Bare => {
            let bytes = parse_hex(&text, "input")?;
            let (v, used) = decode(&bytes, options).map_err(|e| e.to_string())?;
            if used < bytes.len() {
                let msg = format!(
                    "{} trailing bytes after a value of {used} bytes",
                    bytes.len() - used
                );
                if args.strict {
                    return Err(msg);
                }
                eprintln!("defc godot: note: {msg} (ignored, as the engine does)");
            }
            print_variant(&v)
        }
        FramingArg::Stream | FramingArg::StreamBe => {
            let bytes = parse_hex(&text, "input")?;
            let f = Framing::StreamPeer {
                big_endian: matches!(args.framing, FramingArg::StreamBe),
            };
            let mut frames = FrameDecoder::with_framing(options, f).max_frame_len(usize::MAX);
            frames.push(&bytes);
            let mut values = Vec::new();
            while let Some(v) = frames.next_value().map_err(|e| e.to_string())? {
                values.push(v);
            }
            if frames.buffered() > 0 {
                let msg = format!(
                    "{} bytes of an incomplete frame at the end",
                    frames.buffered()
                );
                if args.strict || values.is_empty() {
                    return Err(msg);
                }
                eprintln!("defc godot: note: {msg}");
            }
            for v in &values {
                print_variant(v)?;
            }
            Ok(())
        }
    }
}

fn run_encode(args: EncodeArgs) -> Result<(), String> {
    let text = read_input(&args.input)?;
    let value = from_json_str(&text).map_err(|e| format!("bad typed JSON: {e}"))?;
    let options = EncodeOptions::new(args.godot.into())
        .full_objects(args.full_objects)
        .double_precision(args.double_precision);
    let out = match args.framing {
        FramingArg::Base64 => {
            println!(
                "{}",
                framing::to_base64(&value, options).map_err(|e| e.to_string())?
            );
            return Ok(());
        }
        FramingArg::Bare => def_runtime::godot::encode(&value, options),
        FramingArg::Stream => framing::put_var(&value, options, false),
        FramingArg::StreamBe => framing::put_var(&value, options, true),
    }
    .map_err(|e| e.to_string())?;
    let hex: String = out.iter().map(|b| format!("{b:02x}")).collect();
    println!("{hex}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Wrap {
        #[command(subcommand)]
        cmd: Cmd,
    }

    fn run_args(args: &[&str]) -> ExitCode {
        let w = Wrap::try_parse_from(std::iter::once("godot").chain(args.iter().copied())).unwrap();
        run(w.cmd)
    }

    #[test]
    fn exit_status_follows_the_engine() {
        // Godot 3.2.3 bytes of {"a": 1} decode; a string without its padding is refused
        // (ERR_FILE_EOF); a full object without --allow-objects is refused (ERR_UNAUTHORIZED).
        let dict = "12000000 01000000 04000000 01000000 61000000 02000000 01000000";
        assert_eq!(
            run_args(&["decode", "--godot", "3", dict]),
            ExitCode::SUCCESS
        );
        assert_eq!(
            run_args(&["decode", "--godot", "3", "040000000500000068656c6c6f"]),
            ExitCode::FAILURE
        );
        let object =
            "11000000090000005265666572656e63650000000100000006000000736372697074000000000000";
        assert_eq!(
            run_args(&["decode", "--godot", "3", object]),
            ExitCode::FAILURE
        );
        assert_eq!(
            run_args(&["decode", "--godot", "3", "--allow-objects", object]),
            ExitCode::SUCCESS
        );
        // Trailing bytes: accepted like the engine, refused with --strict.
        assert_eq!(
            run_args(&["decode", "--godot", "3", "020000002a000000ff"]),
            ExitCode::SUCCESS
        );
        assert_eq!(
            run_args(&["decode", "--godot", "3", "--strict", "020000002a000000ff"]),
            ExitCode::FAILURE
        );
        assert_eq!(
            run_args(&[
                "decode",
                "--godot",
                "3",
                "--framing",
                "base64",
                "AgAAACoAAAA="
            ]),
            ExitCode::SUCCESS
        );
        assert_eq!(
            run_args(&["decode", "--godot", "3", "not hex"]),
            ExitCode::FAILURE
        );
        // Without --godot: refused by the argument parser.
        assert!(
            Wrap::try_parse_from(["godot", "decode", "020000002a000000"]).is_err(),
            "--godot is required"
        );
    }

    #[test]
    fn encode_refuses_what_the_version_lacks() {
        let v2i = r#"{"type":"Vector2i","value":[1,2]}"#;
        assert_eq!(
            run_args(&["encode", "--godot", "4", v2i]),
            ExitCode::SUCCESS
        );
        assert_eq!(
            run_args(&["encode", "--godot", "3", v2i]),
            ExitCode::FAILURE
        );
        assert_eq!(
            run_args(&[
                "encode",
                "--godot",
                "3",
                "--framing",
                "stream",
                r#"{"type":"int","value":42}"#
            ]),
            ExitCode::SUCCESS
        );
        assert_eq!(
            run_args(&["encode", "--godot", "4", r#"{"type":"nope"}"#]),
            ExitCode::FAILURE
        );
        assert_eq!(
            run_args(&[
                "encode",
                "--godot",
                "3",
                "--double-precision",
                r#"{"type":"Nil"}"#
            ]),
            ExitCode::FAILURE
        );
    }
}
