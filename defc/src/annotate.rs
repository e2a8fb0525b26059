//! `defc annotate --def F.def HEX|-`: a packet as a hex dump, one line per byte range (16 bytes a
//! line, a longer range going on over more lines), labelled
//! with its field path (`items[2].name`), what the bytes are (a value's type, or metadata:
//! `count`, `offset`, `here`, `next`, the header and padding) and the decoded value; bytes that
//! no field reads are flagged `unread`. `--json` gives the ranges as JSON.
//!
//! Colour: `--color auto` (the default) colours when standard output is a terminal and `NO_COLOR`
//! is not set; `always` and `never` force it. Metadata is dim, values green, strings yellow,
//! unread bytes red.

use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;

use def_parser::Mode;
use def_runtime::Options;
use def_runtime::tera::dynamic::Definition;
use def_runtime::tera::spans::{Span, SpanKind, path_text, spans};
use serde_json::{Value, json};

use crate::codec::decode_json;

/// When to colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Color {
    /// On a terminal, unless `NO_COLOR` is set.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

impl Color {
    /// Whether to colour standard output.
    pub fn on(self) -> bool {
        match self {
            Color::Always => true,
            Color::Never => false,
            Color::Auto => {
                std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
            }
        }
    }
}

/// Writes `text` to standard output. A closed pipe (`defc annotate ... | head`) ends the output
/// quietly instead of panicking as `println!` does.
pub fn print_out(text: &str) {
    use std::io::Write;
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}

/// Reads a hex packet argument (or `-`): whitespace is ignored.
pub fn packet_arg(arg: &str) -> Result<Vec<u8>, String> {
    crate::tera::parse_hex(&crate::tera::arg_or_stdin(arg)?, "packet")
}

/// Loads a definition.
pub fn load(def: &Path) -> Result<Definition, String> {
    Definition::from_file(def, Mode::Compatible).map_err(|e| e.to_string())
}

/// One line of the dump: a span, or bytes nothing reads.
struct Line<'s> {
    start: usize,
    end: usize,
    span: Option<&'s Span>,
}

/// The spans in byte order, with the gaps between them as unread lines.
fn lines(ss: &[Span], len: usize) -> Vec<Line<'_>> {
    let mut sorted: Vec<&Span> = ss.iter().collect();
    sorted.sort_by_key(|s| (s.start, s.end));
    let mut out = Vec::new();
    let mut at = 0;
    for s in sorted {
        if s.start > at {
            out.push(Line {
                start: at,
                end: s.start,
                span: None,
            });
        }
        out.push(Line {
            start: s.start,
            end: s.end,
            span: Some(s),
        });
        at = at.max(s.end);
    }
    if at < len {
        out.push(Line {
            start: at,
            end: len,
            span: None,
        });
    }
    out
}

fn value_text(decoded: &Value, s: &Span, bytes: &[u8]) -> String {
    match s.kind {
        SpanKind::Value(_) | SpanKind::Text => s
            .json_value(decoded)
            .map_or(String::new(), crate::out::value),
        SpanKind::Bytes => String::new(),
        _ => {
            // Metadata: the number it holds.
            let b = &bytes[s.start..s.end];
            if b.len() == 2 {
                u16::from_le_bytes([b[0], b[1]]).to_string()
            } else {
                String::new()
            }
        }
    }
}

/// A span's field path as the path column shows it: written by `path_text` (a name holding `.`
/// or `[` in quotes), hidden characters escaped, cut after `def_text::PATH` bytes.
fn shown_path(s: &Span) -> String {
    def_text::shown(&path_text(&s.path), def_text::PATH).to_string()
}

/// `defc annotate`.
pub fn run(
    def: &Path,
    padding: bool,
    strict: bool,
    json_out: bool,
    color: Color,
    hex: &str,
) -> ExitCode {
    let go = || -> Result<String, String> {
        let d = load(def)?;
        let bytes = packet_arg(hex)?;
        let opts = Options::new().padding(padding).strict(strict);
        let decoded = decode_json(&d, &bytes, opts).map_err(|e| e.to_string())?;
        let ss = spans(d.layout(), &bytes, opts).map_err(|e| e.to_string())?;
        let ls = lines(&ss, bytes.len());
        if json_out {
            let v: Vec<Value> = ls
                .iter()
                .map(|l| match l.span {
                    Some(s) => json!({
                        "start": s.start, "end": s.end, "path": path_text(&s.path),
                        "kind": s.kind.name(), "meta": s.kind.is_meta(),
                        "value": match s.kind {
                            SpanKind::Value(_) | SpanKind::Text => s.json_value(&decoded).cloned(),
                            _ => None,
                        },
                    }),
                    None => json!({"start": l.start, "end": l.end, "kind": "unread"}),
                })
                .collect();
            return serde_json::to_string_pretty(&v)
                .map(crate::out::json)
                .map_err(|e| e.to_string());
        }
        let colour = color.on();
        let paint = |code: &str, text: String| {
            if colour {
                format!("\x1b[{code}m{text}\x1b[0m")
            } else {
                text
            }
        };
        // Columns as wide as their widest entry (the hex at most 16 bytes: 47 characters).
        let hex_width = ls
            .iter()
            .map(|l| 3 * (l.end - l.start).min(16))
            .max()
            .unwrap_or(2)
            - 1;
        let path_width = ls
            .iter()
            .filter_map(|l| l.span.map(|s| shown_path(s).chars().count()))
            .max()
            .unwrap_or(0);
        let mut out = String::new();
        for l in &ls {
            // 16 bytes a line; a longer range goes on over more lines, labelled on the first.
            let rows: Vec<String> = bytes[l.start..l.end]
                .chunks(16)
                .map(|c| {
                    c.iter()
                        .map(|b| format!("{b:02x}"))
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect();
            let (label, code) = match l.span {
                Some(s) => {
                    let what = if s.kind.is_meta() {
                        format!("[{}]", s.kind.name())
                    } else {
                        s.kind.name().to_string()
                    };
                    let v = value_text(&decoded, s, &bytes);
                    let code = match s.kind {
                        k if k.is_meta() => "2",
                        SpanKind::Text => "33",
                        _ => "32",
                    };
                    (
                        format!("{:<path_width$}  {what:<10} {v}", shown_path(s)),
                        code,
                    )
                }
                None => ("(unread: no field reads these bytes)".to_string(), "31"),
            };
            out.push_str(&format!(
                "{:04x}..{:04x}  {:<hex_width$}  {}\n",
                l.start,
                l.end,
                rows[0],
                paint(code, label.trim_end().to_string())
            ));
            for (i, row) in rows.iter().enumerate().skip(1) {
                out.push_str(&format!("{:04x}        {row}\n", l.start + 16 * i));
            }
        }
        Ok(out.trim_end().to_string())
    };
    match go() {
        Ok(s) => {
            print_out(&format!("{s}\n"));
            ExitCode::SUCCESS
        }
        Err(e) => crate::tera::fail(e),
    }
}
