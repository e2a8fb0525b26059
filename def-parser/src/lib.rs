//! The front end of the TERA `.def` compiler: parse, then resolve.
//!
//! * [`parse()`] reads `.def` text into the syntax tree of [`ast`], with spans and diagnostics.
//! * [`layout::resolve`] turns the tree into the wire [`layout::Layout`]: where each field's metadata
//!   goes, which offsets are static, which arrays interleave. Generated code and the dynamic codec
//!   both work from that one form.
//! * [`text::decode`] reads bytes as UTF-8, with the offset and a guess at the encoding when
//!   they are not.
//! * [`load`] does both for a file on disk and returns a [`diag::Report`] on failure.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod ast;
pub mod diag;
pub mod json;
mod line;
pub mod parse;
pub mod text;

pub use parse::{Mode, Parsed, parse};
pub mod layout;
pub mod protocol;

use std::path::Path;

pub use diag::{Diagnostic, Report};
pub use layout::Layout;

/// A compiled definition and the warnings it gave.
#[derive(Debug, Clone)]
pub struct Compiled {
    /// The resolved layout.
    pub layout: Layout,
    /// Warnings (never errors), with the file's text for rendering.
    pub warnings: Report,
}

/// Parses and resolves one definition from its text. `file` names it in diagnostics; its last
/// path component is read with the `NAME.VERSION[.PLATFORM].def` grammar.
pub fn compile_str(file: &str, text: &str, mode: Mode) -> Result<Compiled, Report> {
    let base = file.rsplit(['/', '\\']).next().unwrap_or(file);
    let parsed = parse(base, text, mode);
    let mut diagnostics = parsed.diagnostics;
    let layout = match parsed.file {
        Some(f) => {
            let (layout, more) = layout::resolve(&f, text, mode);
            diagnostics.extend(more);
            layout
        }
        None => None,
    };
    diagnostics.sort_by_key(|d| d.span.start);
    let report = Report {
        file: file.to_string(),
        text: text.to_string(),
        diagnostics,
    };
    match layout {
        Some(layout) if report.errors() == 0 => Ok(Compiled {
            layout,
            warnings: report,
        }),
        _ => Err(report),
    }
}

/// Reads (a regular UTF-8 file only, see [`text::read_file`]), parses and resolves a `.def` file.
pub fn load(path: &Path, mode: Mode) -> Result<Compiled, LoadError> {
    let shown = || path.display().to_string();
    let text = text::read_file(path).map_err(|e| match e {
        text::ReadError::Io(e) => LoadError::Io(shown(), e),
        text::ReadError::NotUtf8(e) => LoadError::NotUtf8(shown(), e),
    })?;
    compile_str(&path.display().to_string(), &text, mode).map_err(LoadError::Def)
}

/// Why [`load`] failed.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read.
    #[error("{}: {}", def_text::shown(.0, def_text::PATH), .1)]
    Io(String, #[source] std::io::Error),
    /// The file is not UTF-8 text: where, and what it seems to be.
    #[error("{}: {}", def_text::shown(.0, def_text::PATH), .1)]
    NotUtf8(String, text::NotUtf8),
    /// The definition has errors.
    #[error("{0}")]
    Def(Report),
}
