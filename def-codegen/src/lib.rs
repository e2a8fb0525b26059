//! Typed Rust code for TERA `.def` packet definitions, generated from your build script, in the
//! manner of `prost-build`.
//!
//! Each definition becomes a struct per level (the packet, each array's element, each object)
//! with snake_case fields documented with their `.def` line, and an impl of
//! `def_runtime::Packet` that decodes and encodes the exact bytes of the JavaScript reference
//! (tera-data-parser). The generated code links against `def-runtime`; this crate is only needed
//! at build time (its dependencies: `def-parser`, `nom`, `syn`, `quote`, `prettyplease`).
//!
//! # Example project
//!
//! ```text
//! my-crate/
//! ├── Cargo.toml
//! ├── build.rs
//! ├── defs/
//! │   ├── C_CHAT.1.def
//! │   └── S_LOGIN.14.def
//! └── src/lib.rs
//! ```
//!
//! `Cargo.toml`:
//!
//! ```toml
//! [dependencies]
//! def-runtime = "0.1"   # with features = ["serde"] if you turn serde on
//!
//! [build-dependencies]
//! def-codegen = "0.1"
//! ```
//!
//! `build.rs` compiles every `.def` of `defs/` into `OUT_DIR`. On a broken definition the build
//! fails with cargo's own errors, `defs/C_CHAT.1.def:3:1: error: ...` with the line and a caret:
//!
//! ```no_run
//! // build.rs
//! use def_codegen::Config;
//!
//! fn main() {
//!     Config::new().input("defs").compile_or_exit();
//! }
//! ```
//!
//! `src/lib.rs` includes the module tree (`<message>::v<version>`):
//!
//! ```ignore
//! pub mod defs {
//!     include!(concat!(env!("OUT_DIR"), "/_defs.rs"));
//! }
//!
//! use def_runtime::{Options, Packet};
//! use defs::c_chat::v1::CChat;
//!
//! fn reply(bytes: &[u8]) -> Result<Vec<u8>, Box<dyn std::error::Error>> {
//!     let mut chat = CChat::decode(bytes, Options::new())?;
//!     chat.message = format!("echo: {}", chat.message).into();
//!     Ok(chat.encode(def_runtime::tera::opcode(bytes).unwrap_or(0), Options::new())?)
//! }
//! ```
//!
//! # What is generated
//!
//! [`Config::compile`] returns what it wrote; [`Config::generate_one`] gives one definition's
//! code without writing anything. For `S_PING.1.def`:
//!
//! ```
//! let dir = std::env::temp_dir().join(format!("def-codegen-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! std::fs::write(dir.join("S_PING.1.def"), "uint32 seq\narray hops\n- string host\n")?;
//!
//! let generated = def_codegen::Config::new()
//!     .input(&dir)
//!     .out_dir(dir.join("out"))
//!     .cargo_output(false) // not in a build script: no `cargo:` lines
//!     .compile()?;
//! assert_eq!(generated[0].module, "s_ping::v1");
//! assert_eq!(generated[0].type_name, "SPing");
//!
//! let code = std::fs::read_to_string(&generated[0].file)?;
//! assert!(code.contains("pub struct SPing {"));
//! assert!(code.contains("pub hops: ::def_runtime::__private::Vec<SPingHops>,"));
//! assert!(dir.join("out/_defs.rs").exists()); // the include file
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Options
//!
//! [`Config`] is a builder: `serde(true)` or `serde_feature("serde")` (serde impls in the
//! tera-vectors JSON form, the `.def` names as keys), `type_attribute` / `field_attribute` by
//! `.def` path, `padding_messages`, `runtime_path` for a re-exported runtime, `strict(true)` to
//! make every warning of compatible mode an error, `disable_comments`. [`compile_defs`] is the
//! one-call form with the defaults. [`protocol`] generates a whole protocol crate (an opcode map
//! and `deprecated.json` beside the definitions), as the `defc gen` command does.
//!
//! The modules: [`config`] (the build.rs API), [`emit`](mod@emit) (layout to Rust items),
//! [`naming`] (Rust names from `.def` names), [`protocol`].
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod emit;
pub mod naming;

pub use emit::{EmitOptions, Serde, emit, generate};
pub mod config;
mod input;
pub mod protocol;

pub use config::{Config, Error, Generated, compile_defs};
