//! The `def!` proc-macro: typed TERA packet code from a `.def` file, at the call site, with no
//! build script.
//!
//! ```toml
//! [dependencies]
//! def-macro = "0.1"
//! def-runtime = "0.1"   # features = ["serde"] if you pass `serde = true`
//! ```
//!
//! `tests/ui/defs/S_EXAMPLE.1.def` holds the example of the format's documentation:
//!
//! ```text
//! int32 number
//! array list
//! - int16 value
//! ```
//!
//! `def!` turns it into `SExample` (one field per line, `list: Vec<SExampleList>`) with a
//! [`Packet`](https://docs.rs/def-runtime/latest/def_runtime/trait.Packet.html) impl. A program
//! that reads such a packet, changes it and writes it back:
//!
//! ```
//! mod s_example {
//!     def_macro::def!("tests/ui/defs/S_EXAMPLE.1.def");
//! }
//! use def_runtime::{Options, Packet};
//! use s_example::{SExample, SExampleList};
//!
//! // Header (length 24, opcode 0x0201), the array's count and offset, `number`, two elements.
//! let bytes = [
//!     0x18, 0x00, 0x01, 0x02, 0x02, 0x00, 0x0c, 0x00, 0x07, 0x00, 0x00, 0x00,
//!     0x0c, 0x00, 0x12, 0x00, 0x01, 0x00, 0x12, 0x00, 0x00, 0x00, 0xfe, 0xff,
//! ];
//! let mut packet = SExample::decode(&bytes, Options::new())?;
//! assert_eq!(packet.number, 7);
//! assert_eq!(packet.list, [SExampleList { value: 1 }, SExampleList { value: -2 }]);
//!
//! packet.list.pop();
//! let out = packet.encode(0x0201, Options::new())?;
//! // One element fewer: 6 bytes shorter, count 1, the first element's `next` is 0.
//! assert_eq!(out, [
//!     0x12, 0x00, 0x01, 0x02, 0x01, 0x00, 0x0c, 0x00, 0x07, 0x00, 0x00, 0x00,
//!     0x0c, 0x00, 0x00, 0x00, 0x01, 0x00,
//! ]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! For a whole protocol (hundreds of definitions), generate from build.rs with `def-codegen`
//! instead: the items are the same, and they are generated once rather than at every build of
//! the calling crate.
//!
//! The macro is a thin adapter: it reads the file and hands it to
//! [`def_codegen::Config::generate_one`], the very function whose output the build.rs API writes
//! into each module file, so `def!` and build.rs generate the same items for one definition. Every
//! language rule lives in `def-parser` and `def-codegen`; nothing here checks a definition.
//!
//! # Expansion
//!
//! The items of one definition (its packet struct, element and object structs, their `Level`
//! impls, the `Packet` impl and `pub const PADDING: bool`), plus
//! `const _: &[u8] = include_bytes!("<absolute path>");` so that rustc rebuilds the crate when the
//! file changes (`proc_macro::tracked_path` is not stable). As the expansion declares a `PADDING`
//! const, put each `def!` in a module of its own.
//!
//! # Path
//!
//! Relative to the directory named by the environment variable `DEF_MACRO_MANIFEST_DIR` if it is
//! set (for test harnesses such as trybuild, whose test crates live elsewhere), else to the calling
//! crate's `CARGO_MANIFEST_DIR` (never the working directory). An absolute path is used as it is.
//!
//! # Options
//!
//! After the path, `key = value` pairs, each at most once:
//!
//! | option | value | default | meaning |
//! | --- | --- | --- | --- |
//! | `padding` | bool | `false` | `PADDING` is `true`: this message has 8 bytes of padding after the header in the protocol it is used with |
//! | `serde` | bool | `false` | derive `Serialize`/`Deserialize` in the tera-vectors JSON form; needs `def-runtime`'s `serde` feature (the derives go through the runtime's re-export, so the crate needs no serde dependency of its own) |
//! | `serde_default` | bool | `false` | serde: fields missing from the input take their defaults |
//! | `runtime` | string | `"::def_runtime"` | path of the runtime crate in generated code |
//! | `strict` | bool | `false` | strict mode: what the reference only warns about (a malformed line, ...) is an error |
//! | `comments` | bool | `true` | carry `.def` lines into doc comments |
//!
//! serde defaults to off, as in [`def_codegen::Config`]: a build without the runtime's `serde`
//! feature would otherwise fail inside generated code. A `cfg(feature)`-gated form makes no sense
//! here, since the crate that calls `def!` decides itself with `#[cfg_attr]` around the module.
//!
//! # Errors
//!
//! Compile errors at the string literal (or at the offending option), never a panic. A bad
//! definition gives one error per diagnostic, every one of the file, each self-contained:
//! `FILE:LINE:COLUMN: message`, then the line with a caret under the fault and what was expected.
//! A file that cannot be read gives the path it was resolved to. Warnings of compatible mode are
//! not shown (stable proc-macros cannot warn); `strict = true` turns them into errors.
#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};

use def_codegen::Config;
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::parse::{Parse, ParseStream};
use syn::{Ident, Lit, LitBool, LitStr, Token};

/// Typed packet code from a `.def` file; see the [crate documentation](crate) for the options.
///
/// ```
/// mod s_example {
///     def_macro::def!("tests/ui/defs/S_EXAMPLE.1.def", padding = false, comments = false);
/// }
/// assert!(!s_example::PADDING);
/// ```
#[proc_macro]
pub fn def(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    syn::parse::<Args>(input)
        .and_then(expand)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// `"path" (, key = value)* ,?`
struct Args {
    path: LitStr,
    padding: bool,
    serde: bool,
    serde_default: bool,
    strict: bool,
    comments: bool,
    runtime: Option<LitStr>,
}

impl Parse for Args {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        if input.is_empty() {
            return Err(
                input.error("def! needs the path of a `.def` file: def!(\"defs/S_EXAMPLE.1.def\")")
            );
        }
        let path: LitStr = input.parse()?;
        let mut args = Args {
            path,
            padding: false,
            serde: false,
            serde_default: false,
            strict: false,
            comments: true,
            runtime: None,
        };
        let mut seen: Vec<String> = Vec::new();
        while !input.is_empty() {
            input.parse::<Token![,]>()?;
            if input.is_empty() {
                break;
            }
            let key: Ident = input.parse()?;
            input.parse::<Token![=]>()?;
            let value: Lit = input.parse()?;
            let name = key.to_string();
            if seen.contains(&name) {
                return Err(syn::Error::new(
                    key.span(),
                    format!("option `{name}` given twice"),
                ));
            }
            let flag = |v: &Lit| match v {
                Lit::Bool(LitBool { value, .. }) => Ok(*value),
                other => Err(syn::Error::new(
                    other.span(),
                    format!("option `{name}` takes `true` or `false`"),
                )),
            };
            match name.as_str() {
                "padding" => args.padding = flag(&value)?,
                "serde" => args.serde = flag(&value)?,
                "serde_default" => args.serde_default = flag(&value)?,
                "strict" => args.strict = flag(&value)?,
                "comments" => args.comments = flag(&value)?,
                "runtime" => match value {
                    // Checked with the other options, by `EmitOptions::check`, in `expand`.
                    Lit::Str(s) => args.runtime = Some(s),
                    other => {
                        return Err(syn::Error::new(
                            other.span(),
                            "option `runtime` takes a string: runtime = \"::my::rt\"",
                        ));
                    }
                },
                _ => {
                    return Err(syn::Error::new(
                        key.span(),
                        format!(
                            "unknown option `{name}` (expected one of: padding, serde, \
                             serde_default, runtime, strict, comments)"
                        ),
                    ));
                }
            }
            seen.push(name);
        }
        Ok(args)
    }
}

/// Where the relative paths of `def!` start: `DEF_MACRO_MANIFEST_DIR`, else `CARGO_MANIFEST_DIR`.
fn base_dir() -> Option<(PathBuf, &'static str)> {
    for var in ["DEF_MACRO_MANIFEST_DIR", "CARGO_MANIFEST_DIR"] {
        if let Some(dir) = std::env::var_os(var).filter(|d| !d.is_empty()) {
            return Some((PathBuf::from(dir), var));
        }
    }
    None
}

fn expand(args: Args) -> syn::Result<TokenStream> {
    let lit = &args.path;
    let written = lit.value();
    let err = |msg: String| syn::Error::new(lit.span(), msg);
    let path = if Path::new(&written).is_absolute() {
        PathBuf::from(&written)
    } else {
        let (dir, var) = base_dir().ok_or_else(|| {
            err(format!(
                "def!: cannot resolve `{written}`: neither DEF_MACRO_MANIFEST_DIR nor \
                 CARGO_MANIFEST_DIR is set"
            ))
        })?;
        let path = dir.join(&written);
        if !path.is_file() {
            return Err(err(format!(
                "def!: cannot read `{written}`: no file at {} (relative paths start at {var})",
                path.display()
            )));
        }
        path
    };
    // Regular UTF-8 files only; the error gives the byte offset and a guess at the encoding.
    let text = def_parser::text::read_file(&path)
        .map_err(|e| err(format!("def!: cannot read {}: {e}", path.display())))?;
    let abs = path.to_str().ok_or_else(|| {
        err(format!(
            "def!: the path {} is not UTF-8, which include_bytes! needs",
            path.display()
        ))
    })?;

    let mut config = Config::new();
    config
        .serde(args.serde)
        .serde_default(args.serde_default)
        .strict(args.strict)
        .cargo_output(false);
    if !args.comments {
        config.disable_comments();
    }
    if let Some(rt) = &args.runtime {
        config.runtime_path(rt.value());
        // The check `Config` itself makes, reported at the option.
        config
            .emit_options()
            .check()
            .map_err(|e| syn::Error::new(rt.span(), format!("option `runtime`: {e}")))?;
    }
    if args.padding {
        // Name the message of this file, whatever it is; a file name the grammar cannot read is
        // reported by the parser below.
        let base = written.rsplit(['/', '\\']).next().unwrap_or(&written);
        if let Some(name) = def_parser::ast::DefName::parse(base) {
            config.padding_messages([name.name]);
        }
    }

    let code = config
        .generate_one(&written, &text)
        .map_err(|e| to_syn_error(e, lit.span()))?;
    let items: TokenStream = code.parse().map_err(|e| {
        err(format!(
            "def!: generated code does not tokenize (a bug in def-codegen): {e}"
        ))
    })?;
    let track = quote_spanned!(lit.span()=> const _: &[u8] = ::core::include_bytes!(#abs););
    Ok(quote! {
        #items
        #track
    })
}

/// One `syn::Error` at `span` holding every error diagnostic of the definition.
fn to_syn_error(e: def_codegen::Error, span: Span) -> syn::Error {
    let def_codegen::Error::Defs(reports) = e else {
        return syn::Error::new(span, format!("def!: {e}"));
    };
    let mut all: Option<syn::Error> = None;
    let mut push = |one: syn::Error| match &mut all {
        Some(a) => a.combine(one),
        None => all = Some(one),
    };
    for report in &reports {
        // Past `REPEATS_SHOWN` errors of one kind, one error counts the rest (as the report's
        // `Display` does): a line of 100 000 faults is not 100 000 compile errors.
        let mut seen: std::collections::HashMap<def_parser::diag::Code, (usize, usize)> =
            std::collections::HashMap::new();
        let mut order = Vec::new();
        for d in report.diagnostics.iter().filter(|d| d.is_error()) {
            let (n, from) = seen.entry(d.code).or_insert_with(|| {
                order.push(d.code);
                (0, 0)
            });
            *n += 1;
            if *n > def_parser::diag::REPEATS_SHOWN {
                if *n == def_parser::diag::REPEATS_SHOWN + 1 {
                    *from = d.line;
                }
                continue;
            }
            // `render` opens with `error: MESSAGE` and ` --> FILE:LINE:COL`; rustc prints its own
            // `error:`, so the location and message make the first line and the snippet follows.
            let rendered = d.render(&report.file, &report.text);
            let snippet: Vec<&str> = rendered.lines().skip(2).collect();
            let msg = format!(
                "{}:{}:{}: {}\n{}",
                report.file,
                d.line,
                d.column,
                d.message,
                snippet.join("\n")
            );
            push(syn::Error::new(span, msg));
        }
        for code in order {
            let (n, from) = seen[&code];
            if n > def_parser::diag::REPEATS_SHOWN {
                push(syn::Error::new(
                    span,
                    format!(
                        "{}: and {} more errors like this ({code:?}), from line {from} on",
                        report.file,
                        n - def_parser::diag::REPEATS_SHOWN
                    ),
                ));
            }
        }
    }
    all.unwrap_or_else(|| {
        syn::Error::new(
            span,
            format!(
                "def!: {} has errors",
                reports
                    .first()
                    .map_or("the definition", |r| r.file.as_str())
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_errors_are_counted_not_repeated() {
        let text = "int33 x\n".repeat(1000);
        let report = def_parser::compile_str("S_E.1.def", &text, def_parser::Mode::Compatible)
            .expect_err("unknown types");
        assert_eq!(report.errors(), 1000);
        let e = to_syn_error(def_codegen::Error::Defs(vec![report]), Span::call_site());
        let messages: Vec<String> = e.into_iter().map(|e| e.to_string()).collect();
        assert_eq!(messages.len(), def_parser::diag::REPEATS_SHOWN + 1);
        assert_eq!(
            messages.last().unwrap(),
            "S_E.1.def: and 990 more errors like this (UnknownType), from line 11 on"
        );
    }
}
