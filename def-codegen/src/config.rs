//! The build.rs API, modelled on prost-build: a [`Config`] builder and the [`compile_defs`]
//! shortcut.
//!
//! A build script calls [`Config::compile_or_exit`]: on failure each diagnostic reaches the user
//! as cargo's own error (`FILE:LINE:COL: error: ...` with the line and a caret).
//!
//! [`Config::compile`] reads every definition it is given (files, or every `.def` of a folder),
//! writes one module file per definition into the output folder (default `OUT_DIR`) and an include
//! file holding the module tree (`s_login::v14`), rewrites a file only when its content changes,
//! and prints `cargo:rerun-if-changed` for each input it read (each `.def` file and each folder,
//! so that added files are noticed) and for nothing else. Note that printing any
//! `rerun-if-changed` line turns off cargo's default of rerunning the build script when any file
//! of the package changes.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use def_parser::ast::DefName;
use def_parser::layout::Layout;
use def_parser::{Mode, Report};

use crate::emit::{EmitOptions, Serde, generate};
use crate::naming;

/// Configures and runs code generation from build.rs.
#[derive(Debug, Clone)]
pub struct Config {
    inputs: Vec<PathBuf>,
    out_dir: Option<PathBuf>,
    emit: EmitOptions,
    mode: Mode,
    include_file: String,
    cargo_output: bool,
    /// The padded messages ([`Config::padding_messages`]).
    padding: Vec<String>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            inputs: Vec::new(),
            out_dir: None,
            emit: EmitOptions::default(),
            mode: Mode::Compatible,
            include_file: "_defs.rs".into(),
            cargo_output: true,
            padding: Vec::new(),
        }
    }
}

/// One generated definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Generated {
    /// Name, version and platform.
    pub name: DefName,
    /// The `.def` file it came from.
    pub source: PathBuf,
    /// Module path from the include file's root (`s_login::v14`).
    pub module: String,
    /// The packet type's name (`SLogin`).
    pub type_name: String,
    /// The file written.
    pub file: PathBuf,
}

/// Why code generation failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// A file or folder could not be read or written.
    Io(PathBuf, std::io::Error),
    /// Definitions have errors; every diagnostic of every file is here.
    Defs(Vec<Report>),
    /// A file name does not follow `NAME.VERSION[.PLATFORM].def`.
    FileName(PathBuf),
    /// Two inputs define the same name, version and platform.
    Duplicate(PathBuf, PathBuf),
    /// An input is not UTF-8 text.
    NotUtf8(PathBuf, def_parser::text::NotUtf8),
    /// No `OUT_DIR` and no [`Config::out_dir`].
    NoOutDir,
    /// An opcode map or `deprecated.json` is malformed.
    Map(String),
    /// An option holding Rust text is malformed: a runtime path that is not a path, an attribute
    /// that is not `#[...]` (see [`crate::EmitOptions::check`]).
    Option(String),
    /// A protocol's message selection is malformed (a pattern that selects no message).
    Selection(String),
    /// Generated code did not parse (a bug; please report it).
    Internal(String),
}

/// A path in a message, by the workspace's rule for input text (`def_text`): a file name from a
/// folder listing may hold control characters.
fn path_text(p: &Path) -> String {
    def_text::shown(&p.display().to_string(), def_text::PATH).to_string()
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io(p, e) => write!(f, "{}: {e}", path_text(p)),
            Error::Defs(reports) => {
                for r in reports {
                    write!(f, "{r}")?;
                }
                Ok(())
            }
            Error::FileName(p) => {
                let why = p
                    .file_name()
                    .and_then(|n| n.to_str())
                    .map_or("it is not UTF-8".to_string(), |n| {
                        DefName::parse_checked(n).map_or_else(|e| e.to_string(), |_| String::new())
                    });
                write!(
                    f,
                    "{}: file name is not NAME.VERSION[.PLATFORM].def: {why}",
                    path_text(p)
                )
            }
            Error::NotUtf8(p, e) => write!(f, "{}: {e}", path_text(p)),
            Error::Duplicate(a, b) => write!(
                f,
                "{} and {} define the same message version",
                path_text(a),
                path_text(b)
            ),
            Error::NoOutDir => f.write_str("OUT_DIR is not set; call Config::out_dir"),
            Error::Map(m) => f.write_str(m),
            Error::Option(m) => write!(f, "def_codegen::Config: {m}"),
            Error::Selection(m) => f.write_str(m),
            Error::Internal(m) => write!(f, "internal error: {m}"),
        }
    }
}

impl std::error::Error for Error {}

impl Error {
    /// Ends a build script that failed: prints this error for cargo and exits, so that cargo
    /// fails the build showing only the diagnostics. [`Config::compile_or_exit`] calls it; call it
    /// for the other results of this crate (`def_codegen::protocol::generate`).
    ///
    /// Each diagnostic becomes `cargo::error=` lines (warnings of the failed files
    /// `cargo::warning=`): `FILE:LINE:COL: error: MESSAGE`, then the line with a caret under the
    /// fault, with `FILE` relative to the crate (`CARGO_MANIFEST_DIR`) when it is inside it. The
    /// process then exits with status 0: cargo fails the build anyway because errors were logged
    /// ("build script logged errors"), and a non-zero status would make it add the build script's
    /// whole output again under "failed to run custom build command". Needs cargo 1.84 or newer,
    /// the first to know `cargo::error`.
    pub fn exit_build_script(&self) -> ! {
        for line in self.cargo_lines() {
            println!("{line}");
        }
        std::process::exit(0)
    }

    /// The `cargo::error=`/`cargo::warning=` lines of [`Error::exit_build_script`].
    fn cargo_lines(&self) -> Vec<String> {
        match self {
            Error::Defs(reports) => reports.iter().flat_map(cargo_report).collect(),
            Error::Io(p, e) => cargo_text(
                "error",
                &format!("{}: {e}", shown_path(&p.display().to_string())),
            ),
            Error::FileName(p) => cargo_text(
                "error",
                &format!(
                    "{}: file name is not NAME.VERSION[.PLATFORM].def",
                    shown_path(&p.display().to_string())
                ),
            ),
            other => cargo_text("error", &other.to_string()),
        }
    }
}

/// `path` relative to the crate being built (`CARGO_MANIFEST_DIR`) when it lies inside it (a
/// relative path already is: build scripts run there), else as it is.
fn shown_path(path: &str) -> String {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .and_then(|dir| {
            Path::new(path)
                .strip_prefix(dir)
                .ok()
                .map(|p| p.display().to_string())
        })
        .unwrap_or_else(|| path.to_string())
}

/// Every diagnostic of `report` as cargo lines, each `FILE:LINE:COL: SEVERITY: MESSAGE` followed
/// by the faulty line with its caret; past `REPEATS_SHOWN` of one kind, one note counts the rest,
/// as the report's `Display` does.
pub(crate) fn cargo_report(report: &Report) -> Vec<String> {
    let file = def_text::shown(&shown_path(&report.file), def_text::PATH).to_string();
    let mut lines = Vec::new();
    let mut seen: std::collections::HashMap<def_parser::diag::Code, (usize, usize, bool)> =
        std::collections::HashMap::new();
    let mut order = Vec::new();
    for d in &report.diagnostics {
        let severity = if d.is_error() { "error" } else { "warning" };
        let (n, from, any_error) = seen.entry(d.code).or_insert_with(|| {
            order.push(d.code);
            (0, 0, false)
        });
        *n += 1;
        if *n > def_parser::diag::REPEATS_SHOWN {
            if *n == def_parser::diag::REPEATS_SHOWN + 1 {
                *from = d.line;
            }
            *any_error |= d.is_error();
            continue;
        }
        let head = format!("{file}:{}:{}: {severity}: {}", d.line, d.column, d.message);
        // `render` opens with `SEVERITY: MESSAGE` and ` --> FILE:LINE:COL`, said in `head`.
        let rendered = d.render(&file, &report.text);
        let text = std::iter::once(head.as_str())
            .chain(rendered.lines().skip(2))
            .collect::<Vec<_>>()
            .join("\n");
        lines.extend(cargo_text(severity, &text));
    }
    for code in order {
        let (n, from, any_error) = seen[&code];
        if n > def_parser::diag::REPEATS_SHOWN {
            let severity = if any_error { "error" } else { "warning" };
            lines.extend(cargo_text(
                severity,
                &format!(
                    "{file}: and {} more like this ({code:?}), from line {from} on",
                    n - def_parser::diag::REPEATS_SHOWN
                ),
            ));
        }
    }
    lines
}

/// `text` as `cargo::SEVERITY=` lines, one per line of text: nothing in it (a `.def` line, a
/// message) can start a directive of its own.
fn cargo_text(severity: &str, text: &str) -> Vec<String> {
    text.split(['\n', '\r'])
        .filter(|l| !l.is_empty())
        .map(|l| format!("cargo::{severity}={l}"))
        .collect()
}

impl Config {
    /// A configuration with the defaults: no inputs, `OUT_DIR`, `::def_runtime`, no serde.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a `.def` file, or a folder whose `.def` files are all compiled.
    pub fn input(&mut self, path: impl AsRef<Path>) -> &mut Self {
        self.inputs.push(path.as_ref().to_path_buf());
        self
    }

    /// Adds several inputs.
    pub fn inputs<P: AsRef<Path>>(&mut self, paths: impl IntoIterator<Item = P>) -> &mut Self {
        self.inputs
            .extend(paths.into_iter().map(|p| p.as_ref().to_path_buf()));
        self
    }

    /// Where to write (default: `OUT_DIR`).
    pub fn out_dir(&mut self, dir: impl AsRef<Path>) -> &mut Self {
        self.out_dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// The runtime crate's path in generated code, for crates that re-export it
    /// (default `::def_runtime`). A string that is not a Rust path makes generation fail with
    /// [`Error::Option`].
    pub fn runtime_path(&mut self, path: impl Into<String>) -> &mut Self {
        self.emit.runtime = path.into();
        self
    }

    /// serde support in the tera-vectors JSON form, always (`true`) or never (`false`). The
    /// generated impls call the runtime (its `serde` feature); they need no serde dependency in
    /// the including crate, except for a struct given a serde attribute through
    /// [`Config::type_attribute`] or [`Config::field_attribute`]: that struct derives serde, and
    /// the including crate then depends on `serde` with its `derive` feature.
    pub fn serde(&mut self, on: bool) -> &mut Self {
        self.emit.serde = if on { Serde::On } else { Serde::Off };
        self
    }

    /// serde support as [`Config::serde`], behind a cargo feature of the including crate.
    pub fn serde_feature(&mut self, feature: impl Into<String>) -> &mut Self {
        self.emit.serde = Serde::Feature(feature.into());
        self
    }

    /// serde: fields missing from the input take their defaults (off: they are an error).
    pub fn serde_default(&mut self, on: bool) -> &mut Self {
        self.emit.serde_default = on;
        self
    }

    /// An attribute on generated types. `path` is `.` for all, a message name (`S_LOGIN`) for
    /// its packet type and everything inside it, or a dotted path (`S_LOGIN.servants`).
    /// `attribute` is one or more outer attributes (`#[derive(Eq)]`); anything else makes
    /// generation fail with [`Error::Option`].
    pub fn type_attribute(
        &mut self,
        path: impl Into<String>,
        attribute: impl Into<String>,
    ) -> &mut Self {
        self.emit
            .type_attributes
            .push((path.into(), attribute.into()));
        self
    }

    /// An attribute on generated fields, selected as in [`Config::type_attribute`]
    /// (`S_LOGIN.name`).
    pub fn field_attribute(
        &mut self,
        path: impl Into<String>,
        attribute: impl Into<String>,
    ) -> &mut Self {
        self.emit
            .field_attributes
            .push((path.into(), attribute.into()));
        self
    }

    /// Messages that carry 8 bytes of padding after the header in this protocol: their modules
    /// get `const PADDING: bool = true` (otherwise `false`), and their types
    /// `Packet::PADDING = Some(true)`: `decode`, `encode` and views read and write them with the
    /// padding whatever the options passed in say. For the other messages the options decide
    /// (without padding by default).
    pub fn padding_messages<S: Into<String>>(
        &mut self,
        names: impl IntoIterator<Item = S>,
    ) -> &mut Self {
        self.padding.extend(names.into_iter().map(Into::into));
        self
    }

    /// With [`Config::views`]: the `view` modules only with the feature `feature` of the crate
    /// that includes the code (which must declare it).
    pub fn views_feature(&mut self, feature: impl Into<String>) -> &mut Self {
        self.emit.views_feature = Some(feature.into());
        self
    }

    /// Zero-copy views (default off; on for `defc gen` and the protocol crates of
    /// [`crate::protocol`]): beside each definition's structs, a module `view` with one type per
    /// struct that reads its fields from the packet's bytes on demand, and changes fixed fields in
    /// place over `&mut [u8]` (`def_runtime::tera::view` says what is checked when).
    pub fn views(&mut self, on: bool) -> &mut Self {
        self.emit.views = on;
        self
    }

    /// With [`Config::views`]: a hidden `__check` per view type that compares every accessor with
    /// the full decoder's value (what the `tera_views` fuzz target calls; not for other uses).
    #[doc(hidden)]
    pub fn view_checks(&mut self, on: bool) -> &mut Self {
        self.emit.view_checks = on;
        self
    }

    /// Strict mode: every warning is an error.
    pub fn strict(&mut self, on: bool) -> &mut Self {
        self.mode = if on { Mode::Strict } else { Mode::Compatible };
        self
    }

    /// Leaves `.def` lines out of doc comments (each field's doc is then only its `.def` name, so
    /// that `#![deny(missing_docs)]` still holds).
    pub fn disable_comments(&mut self) -> &mut Self {
        self.emit.comments = false;
        self
    }

    /// The include file's name (default `_defs.rs`).
    pub fn include_file(&mut self, name: impl Into<String>) -> &mut Self {
        self.include_file = name.into();
        self
    }

    /// Whether to print `cargo:` lines (default on; off for use outside build scripts).
    pub fn cargo_output(&mut self, on: bool) -> &mut Self {
        self.cargo_output = on;
        self
    }

    /// The emit options this configuration stands for.
    pub fn emit_options(&self) -> &EmitOptions {
        &self.emit
    }

    /// Generates the code of one definition's text, without writing anything: exactly what
    /// [`Config::compile`] writes into that definition's module file (the `def!` macro expands to
    /// this). `file` names the definition in diagnostics; its last path component must be
    /// `NAME.VERSION[.PLATFORM].def`.
    pub fn generate_one(&self, file: &str, text: &str) -> Result<String, Error> {
        self.generate_checked(file, text).map(|(code, _)| code)
    }

    /// [`Config::generate_one`], also returning the warnings (compatible mode only has some).
    pub fn generate_checked(&self, file: &str, text: &str) -> Result<(String, Report), Error> {
        self.emit.check().map_err(Error::Option)?;
        let base = file.rsplit(['/', '\\']).next().unwrap_or(file);
        let compiled =
            def_parser::compile_str(file, text, self.mode).map_err(|r| Error::Defs(vec![r]))?;
        // The parser has read the file name already; a name it could not read is one of its
        // diagnostics, so this only falls back for definitions compiled from nameless text.
        let code = self.emit_layout(base, &compiled.layout)?;
        Ok((code, compiled.warnings))
    }

    /// The code of one resolved definition (`base`: its file name), with its `PADDING`.
    pub(crate) fn emit_layout(&self, base: &str, layout: &Layout) -> Result<String, Error> {
        let padded = layout
            .name
            .as_ref()
            .is_some_and(|n| self.padding.contains(&n.name));
        // The options stay shared; a padded message (few per protocol) gets its own copy.
        let padded_emit;
        let emit = if padded {
            padded_emit = EmitOptions {
                padding: Some(true),
                ..self.emit.clone()
            };
            &padded_emit
        } else {
            &self.emit
        };
        let mut code =
            generate(layout, base, emit).map_err(|e| Error::Internal(format!("{base}: {e}")))?;
        code.push_str(&format!(
            "\n/// Whether this message carries 8 bytes of padding after the header in this protocol.\npub const PADDING: bool = {padded};\n"
        ));
        Ok(code)
    }

    /// The `.def` files of the inputs, sorted, and the folders read.
    fn files(&self) -> Result<(Vec<PathBuf>, Vec<PathBuf>), Error> {
        let mut files = Vec::new();
        let mut dirs = Vec::new();
        for input in &self.inputs {
            if input.is_dir() {
                dirs.push(input.clone());
                let rd = std::fs::read_dir(input).map_err(|e| Error::Io(input.clone(), e))?;
                for entry in rd {
                    let p = entry.map_err(|e| Error::Io(input.clone(), e))?.path();
                    if p.extension().is_some_and(|e| e == "def") {
                        // A FIFO or device named `x.def` is refused, not read.
                        crate::input::check_regular(&p)?;
                        files.push(p);
                    }
                }
            } else {
                files.push(input.clone());
            }
        }
        files.sort();
        files.dedup();
        Ok((files, dirs))
    }

    /// Reads, checks and generates every input; writes the module files and the include file.
    ///
    /// Prints `cargo:rerun-if-changed` for every folder and `.def` file it reads (never for what
    /// it writes) and the warnings as `cargo::warning` lines (`FILE:LINE:COL: warning: ...`, the
    /// line and a caret), unless [`Config::cargo_output`] is off.
    /// On error nothing of the include file is written and every diagnostic of every file is in
    /// [`Error::Defs`]; its `Display` shows each as `FILE:LINE:COL` with the line and a caret.
    pub fn compile(&self) -> Result<Vec<Generated>, Error> {
        let cargo = self.cargo_output;
        self.compile_with(&mut |line| {
            if cargo {
                print_cargo(&line);
            }
        })
    }

    /// [`Config::compile`] for build.rs: on failure, the diagnostics go to cargo as errors, each
    /// `FILE:LINE:COL: error: ...` with the line and a caret, and the build script ends (see
    /// [`Error::exit_build_script`]).
    ///
    /// The whole `main` of a build script that compiles every `.def` of `defs/`:
    ///
    /// ```no_run
    /// def_codegen::Config::new().input("defs").compile_or_exit();
    /// ```
    pub fn compile_or_exit(&self) -> Vec<Generated> {
        self.compile().unwrap_or_else(|e| e.exit_build_script())
    }

    /// [`Config::compile`], handing each `cargo:` line to `cargo` instead of printing it.
    fn compile_with(&self, cargo: &mut dyn FnMut(String)) -> Result<Vec<Generated>, Error> {
        // A bad option fails once, before any file is read.
        self.emit.check().map_err(Error::Option)?;
        let out = match &self.out_dir {
            Some(d) => d.clone(),
            None => PathBuf::from(std::env::var_os("OUT_DIR").ok_or(Error::NoOutDir)?),
        };
        let (files, dirs) = self.files()?;
        for d in &dirs {
            cargo(format!("cargo:rerun-if-changed={}", d.display()));
        }
        for f in &files {
            cargo(format!("cargo:rerun-if-changed={}", f.display()));
        }
        let mut reports = Vec::new();
        let mut generated = Vec::new();
        // Generation is independent per file: spread it over the cores, then report in order.
        let results = parallel_map(&files, |path| {
            let base = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default()
                .to_string();
            let name = DefName::parse(&base).ok_or_else(|| Error::FileName(path.clone()))?;
            let text = crate::input::read_text(path)?;
            Ok((
                name,
                self.generate_checked(&path.display().to_string(), &text),
            ))
        });
        let mut ok = Vec::with_capacity(results.len());
        for (path, result) in files.iter().zip(results) {
            ok.push((path, result?));
        }
        // One module per message, unique (naming::module_names); one definition per name,
        // version and platform.
        let modules = naming::module_names(ok.iter().map(|(_, (n, _))| n.name.as_str()));
        let mut seen: BTreeMap<&DefName, &PathBuf> = BTreeMap::new();
        for (path, (name, _)) in &ok {
            if let Some(first) = seen.insert(name, path) {
                return Err(Error::Duplicate(first.to_path_buf(), path.to_path_buf()));
            }
        }
        for (path, (name, generated_code)) in ok {
            let (code, warnings) = match generated_code {
                Ok(c) => c,
                Err(Error::Defs(r)) => {
                    reports.extend(r);
                    continue;
                }
                Err(e) => return Err(e),
            };
            for line in cargo_report(&warnings) {
                cargo(line);
            }
            let module = module_in(&modules[&name.name], &name);
            let file = out.join(format!("{}.rs", module.replace("::", ".")));
            write_if_changed(&file, &code)?;
            generated.push(Generated {
                type_name: naming::type_name(&name.name),
                name,
                source: path.clone(),
                module,
                file,
            });
        }
        if !reports.is_empty() {
            return Err(Error::Defs(reports));
        }
        write_if_changed(
            &out.join(&self.include_file),
            &include_tree(generated.iter().map(|g| (g, None))),
        )?;
        Ok(generated)
    }
}

/// Prints a `cargo:` line with its line breaks escaped: a line break in a path or a message
/// would start a directive of its own (`cargo:rustc-link-arg=...`).
pub(crate) fn print_cargo(line: &str) {
    println!("{}", cargo_safe(line));
}

fn cargo_safe(line: &str) -> String {
    line.replace('\r', "\\r").replace('\n', "\\n")
}

/// `f` over `items` on all cores, results in order.
pub(crate) fn parallel_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(items.len().max(1));
    if threads <= 1 {
        return items.iter().map(f).collect();
    }
    let chunk = items.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|c| scope.spawn(|| c.iter().map(&f).collect::<Vec<R>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("generation does not panic"))
            .collect()
    })
}

/// `OUTER::v14`, or `OUTER::v14_ps4` for a platform file, with `OUTER` the message's module from
/// [`naming::module_names`] ([`Generated::module`] is the path a compile wrote).
pub(crate) fn module_in(outer: &str, name: &DefName) -> String {
    let v = match name.platform {
        Some(p) => format!("v{}_{}", name.version, p.as_str()),
        None => format!("v{}", name.version),
    };
    format!("{outer}::{v}")
}

/// The include file: nested `pub mod`s that `include!` each module file.
///
/// Each outer module carries `#[allow(dead_code)]`: a program uses a few messages of a protocol,
/// and in a binary crate every generated type it does not use would otherwise warn, at a place in
/// `OUT_DIR` the user cannot edit. Nothing else is allowed: other warnings in generated code are
/// bugs (the option-matrix test builds it with `-D warnings` as a library and as a binary).
pub(crate) fn include_tree<'a>(
    generated: impl IntoIterator<Item = (&'a Generated, Option<&'a str>)>,
) -> String {
    let mut tree: BTreeMap<String, Vec<(String, String, &str)>> = BTreeMap::new();
    for (g, cfg) in generated {
        let (outer, inner) = g.module.split_once("::").expect("two levels");
        let file = g
            .file
            .file_name()
            .and_then(|f| f.to_str())
            .unwrap_or_default()
            .to_string();
        tree.entry(outer.to_string()).or_default().push((
            inner.to_string(),
            file,
            cfg.unwrap_or(""),
        ));
    }
    let mut s = String::from("// @generated by def-codegen; do not edit.\n");
    for (outer, inner) in tree {
        s.push_str(&format!(
            "/// Versions of `{outer}`.\n#[allow(dead_code)]\npub mod {outer} {{\n"
        ));
        for (m, file, cfg) in inner {
            let cfg = if cfg.is_empty() {
                String::new()
            } else {
                format!("    {cfg}\n")
            };
            s.push_str(&format!("    #[doc = \"Generated from one definition.\"]\n{cfg}    pub mod {m} {{\n        include!(\"{file}\");\n    }}\n"));
        }
        s.push_str("}\n");
    }
    s
}

pub(crate) fn write_if_changed(path: &Path, content: &str) -> Result<(), Error> {
    if std::fs::read(path).is_ok_and(|old| old == content.as_bytes()) {
        return Ok(());
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Error::Io(dir.to_path_buf(), e))?;
    }
    std::fs::write(path, content).map_err(|e| Error::Io(path.to_path_buf(), e))
}

/// The common case: every definition in the folder `dir` into `OUT_DIR` with the defaults of
/// [`Config::new`] (no serde; a crate that wants it calls `Config::serde` or
/// `Config::serde_feature`, since a `cfg(feature = "serde")` the crate does not declare would only
/// warn). A build script that only does this is `Config::new().input(dir).compile_or_exit()`,
/// which reports failures to cargo; this form leaves the error to the caller.
pub fn compile_defs(dir: impl AsRef<Path>) -> Result<Vec<Generated>, Error> {
    Config::new().input(dir).compile()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A fresh folder under the system's temp folder, removed on drop.
    struct Temp(PathBuf);

    impl Temp {
        fn new() -> Self {
            static N: AtomicUsize = AtomicUsize::new(0);
            let dir = std::env::temp_dir().join(format!(
                "def-codegen-config-{}-{}",
                std::process::id(),
                N.fetch_add(1, Ordering::Relaxed)
            ));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            Temp(dir)
        }
    }

    impl Drop for Temp {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    const EXAMPLE: &str = "int32 number\narray list\n- int16 value\n";

    /// A folder `defs/` with two good definitions and a README, and an output folder.
    fn setup() -> (Temp, PathBuf, PathBuf) {
        let t = Temp::new();
        let defs = t.0.join("defs");
        std::fs::create_dir_all(&defs).unwrap();
        std::fs::write(defs.join("S_EXAMPLE.1.def"), EXAMPLE).unwrap();
        std::fs::write(defs.join("C_OTHER.2.def"), "string name\n").unwrap();
        std::fs::write(defs.join("README.md"), "not a definition").unwrap();
        let out = t.0.join("out");
        (t, defs, out)
    }

    fn run(config: &Config) -> (Result<Vec<Generated>, Error>, Vec<String>) {
        let mut lines = Vec::new();
        let r = config.compile_with(&mut |l| lines.push(l));
        (r, lines)
    }

    fn mtime(p: &Path) -> std::time::SystemTime {
        std::fs::metadata(p).unwrap().modified().unwrap()
    }

    #[test]
    fn writes_one_module_per_definition_and_the_include_tree() {
        let (_t, defs, out) = setup();
        let (r, _) = run(Config::new().input(&defs).out_dir(&out));
        let generated = r.unwrap();
        let modules: Vec<&str> = generated.iter().map(|g| g.module.as_str()).collect();
        assert_eq!(modules, ["c_other::v2", "s_example::v1"]);
        assert_eq!(generated[1].type_name, "SExample");
        assert_eq!(generated[1].file, out.join("s_example.v1.rs"));
        let include = std::fs::read_to_string(out.join("_defs.rs")).unwrap();
        assert!(include.contains("pub mod s_example {"), "{include}");
        assert!(include.contains("pub mod v1 {"), "{include}");
        assert!(
            include.contains("include!(\"s_example.v1.rs\");"),
            "{include}"
        );
        assert!(
            include.contains("include!(\"c_other.v2.rs\");"),
            "{include}"
        );
        // The module file is what `generate_one` (and so `def!`) produces.
        let written = std::fs::read_to_string(out.join("s_example.v1.rs")).unwrap();
        let path = defs.join("S_EXAMPLE.1.def").display().to_string();
        assert_eq!(written, Config::new().generate_one(&path, EXAMPLE).unwrap());
        assert!(written.starts_with("// @generated"), "{written}");
        assert!(
            written.contains("pub const PADDING: bool = false;"),
            "{written}"
        );
        // The include file's name is configurable and the tree parses as Rust.
        let (r, _) = run(Config::new()
            .input(&defs)
            .out_dir(&out)
            .include_file("all.rs"));
        r.unwrap();
        let tree = std::fs::read_to_string(out.join("all.rs")).unwrap();
        syn::parse_file(&tree).unwrap();
    }

    #[test]
    fn rerun_if_changed_names_each_input_read_and_no_output() {
        let (_t, defs, out) = setup();
        let single = _t.0.join("S_SINGLE.3.def");
        std::fs::write(&single, "byte b\n").unwrap();
        let (r, lines) = run(Config::new().input(&defs).input(&single).out_dir(&out));
        r.unwrap();
        // Folders first, then the files, sorted by path.
        let expected = [
            format!("cargo:rerun-if-changed={}", defs.display()),
            format!("cargo:rerun-if-changed={}", single.display()),
            format!(
                "cargo:rerun-if-changed={}",
                defs.join("C_OTHER.2.def").display()
            ),
            format!(
                "cargo:rerun-if-changed={}",
                defs.join("S_EXAMPLE.1.def").display()
            ),
        ];
        assert_eq!(lines, expected);
        assert!(lines.iter().all(|l| !l.contains(&*out.to_string_lossy())));
    }

    #[test]
    fn warnings_become_cargo_warnings_with_file_line_and_column() {
        let t = Temp::new();
        let def = t.0.join("S_WARN.1.def");
        // A `<subtype>` on a non-array type: a warning in compatible mode.
        std::fs::write(&def, "int32 a\nint32<byte> b\n").unwrap();
        let (r, lines) = run(Config::new().input(&def).out_dir(t.0.join("out")));
        r.unwrap();
        let warnings: Vec<&String> = lines.iter().filter(|l| !l.contains("rerun")).collect();
        let head = format!(
            "cargo::warning={}:2:7: warning: `<byte>` on `int32` is ignored",
            def.display()
        );
        assert_eq!(
            warnings,
            [
                &head,
                "cargo::warning=  |",
                "cargo::warning=2 | int32<byte> b",
                "cargo::warning=  |       ^^^^",
                "cargo::warning=  = expected a subtype only on `array`",
            ],
            "{lines:?}"
        );
    }

    #[test]
    fn build_script_errors_are_cargo_errors_relative_to_the_crate() {
        let (_t, defs, out) = setup();
        std::fs::write(
            defs.join("S_BAD.1.def"),
            "int32 a\nuint33 b\nint32<byte> c\n",
        )
        .unwrap();
        let (r, _) = run(Config::new().input(&defs).out_dir(&out));
        let err = r.unwrap_err();
        let file = defs.join("S_BAD.1.def").display().to_string();
        let lines = err.cargo_lines();
        assert_eq!(
            lines[..4],
            [
                format!("cargo::error={file}:2:1: error: unknown type `uint33`"),
                "cargo::error=  |".to_string(),
                "cargo::error=2 | uint33 b".to_string(),
                "cargo::error=  | ^^^^^^".to_string(),
            ],
            "{lines:#?}"
        );
        // The warning of the failed file stays a warning.
        assert!(
            lines.contains(&format!(
                "cargo::warning={file}:3:7: warning: `<byte>` on `int32` is ignored"
            )),
            "{lines:#?}"
        );
        // Inside the crate, paths are relative to it (cargo sets CARGO_MANIFEST_DIR for tests
        // as for build scripts).
        let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap();
        let inside = format!("{manifest}/defs/S_X.1.def");
        assert_eq!(shown_path(&inside), "defs/S_X.1.def");
        assert_eq!(shown_path("/elsewhere/S_X.1.def"), "/elsewhere/S_X.1.def");
        let io = Error::Io(inside.into(), std::io::Error::other("gone"));
        assert_eq!(io.cargo_lines(), ["cargo::error=defs/S_X.1.def: gone"]);
    }

    #[test]
    fn nothing_in_a_message_starts_a_cargo_directive_of_its_own() {
        let err = Error::Map("line one\ncargo::rustc-link-lib=evil\r\nthree".into());
        let lines = err.cargo_lines();
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert!(
            lines.iter().all(|l| l.starts_with("cargo::error=")),
            "{lines:?}"
        );
    }

    #[test]
    fn writes_only_on_change() {
        let (_t, defs, out) = setup();
        let config = {
            let mut c = Config::new();
            c.input(&defs).out_dir(&out);
            c
        };
        run(&config).0.unwrap();
        let example = out.join("s_example.v1.rs");
        let other = out.join("c_other.v2.rs");
        let include = out.join("_defs.rs");
        let before = [mtime(&example), mtime(&other), mtime(&include)];
        // Make any rewrite visible in the modification time.
        std::thread::sleep(std::time::Duration::from_millis(20));
        run(&config).0.unwrap();
        assert_eq!([mtime(&example), mtime(&other), mtime(&include)], before);
        // Changing one definition rewrites its module file only.
        std::fs::write(defs.join("S_EXAMPLE.1.def"), "int32 number\n").unwrap();
        run(&config).0.unwrap();
        assert_ne!(mtime(&example), before[0]);
        assert_eq!([mtime(&other), mtime(&include)], [before[1], before[2]]);
    }

    #[test]
    fn a_bad_definition_is_reported_with_file_line_column_and_the_line() {
        let (_t, defs, out) = setup();
        std::fs::write(defs.join("S_BAD.1.def"), "int32 a\nuint33 b\nint32 c\n").unwrap();
        std::fs::write(defs.join("S_WORSE.1.def"), "int32 a\n- int32 b\n").unwrap();
        let (r, _) = run(Config::new().input(&defs).out_dir(&out));
        let err = r.unwrap_err();
        let Error::Defs(reports) = &err else {
            panic!("{err:?}")
        };
        assert_eq!(reports.len(), 2, "every bad file is reported");
        let text = err.to_string();
        let bad = defs.join("S_BAD.1.def").display().to_string();
        let worse = defs.join("S_WORSE.1.def").display().to_string();
        assert!(text.contains(&format!("{bad}:2:1")), "{text}");
        assert!(text.contains("2 | uint33 b"), "{text}");
        assert!(text.contains(&format!("{worse}:2:")), "{text}");
        assert!(text.contains("uint33"), "{text}");
        // Nothing refers to the failed files.
        assert!(!out.join("_defs.rs").exists());
    }

    #[test]
    fn a_line_break_in_a_path_cannot_start_a_cargo_directive() {
        let line = cargo_safe("cargo:rerun-if-changed=/x\ncargo:rustc-link-arg=-evil\r\n");
        assert_eq!(line.lines().count(), 1, "{line}");
        assert_eq!(
            line,
            "cargo:rerun-if-changed=/x\\ncargo:rustc-link-arg=-evil\\r\\n"
        );
    }

    #[test]
    fn cargo_warnings_summarise_repeats_and_escape_the_file_name() {
        let text = format!("array[{}] a\n- int32 x\n", vec!["x"; 1000].join(","));
        let report = def_parser::compile_str("S_\u{1b}]0;t\u{7}.1.def", &text, Mode::Compatible)
            .unwrap()
            .warnings;
        // 1 000 unknown flags, and the file name's own warning.
        assert_eq!(report.diagnostics.len(), 1001);
        let lines = cargo_report(&report);
        // Eleven snippets of five lines (message, gutter, line, caret, expected), then one note.
        assert_eq!(lines.len(), 56, "{lines:#?}");
        assert!(
            lines[55].ends_with("and 990 more like this (UnknownFlag), from line 1 on"),
            "{}",
            lines[55]
        );
        assert!(
            lines.iter().all(|l| !l.chars().any(char::is_control)),
            "{lines:#?}"
        );
        let e = Error::FileName(PathBuf::from("d/S_\u{1b}[2J.def")).to_string();
        assert!(e.starts_with("d/S_\\u{1b}[2J.def: "), "{e}");
    }

    #[test]
    fn padding_messages_set_the_padding_const() {
        let code = Config::new()
            .padding_messages(["S_EXAMPLE"])
            .generate_one("defs/S_EXAMPLE.1.def", EXAMPLE)
            .unwrap();
        assert!(code.contains("pub const PADDING: bool = true;"), "{code}");
        let code = Config::new()
            .padding_messages(["S_OTHER"])
            .generate_one("defs/S_EXAMPLE.1.def", EXAMPLE)
            .unwrap();
        assert!(code.contains("pub const PADDING: bool = false;"), "{code}");
    }

    #[test]
    fn options_reach_the_generated_code() {
        let code = Config::new()
            .runtime_path("::my::rt")
            .serde(true)
            .type_attribute(".", "#[derive(Eq)]")
            .field_attribute("S_EXAMPLE.number", "#[doc(alias = \"n\")]")
            .generate_one("S_EXAMPLE.1.def", EXAMPLE)
            .unwrap();
        assert!(code.contains("::my::rt::Packet for SExample"), "{code}");
        assert!(
            code.contains("::my::rt::__private::serde::Serialize"),
            "{code}"
        );
        assert_eq!(code.matches("#[derive(Eq)]").count(), 2, "{code}");
        assert!(
            code.contains("#[doc(alias = \"n\")]\n    pub number: i32"),
            "{code}"
        );
        assert!(!code.contains("::def_runtime"), "{code}");
    }

    #[test]
    fn a_bad_runtime_path_or_attribute_is_an_error_naming_it() {
        let (_t, defs, out) = setup();
        type Set = fn(&mut Config);
        let bad: [(&str, Set); 5] = [
            ("`not a path`", |c| {
                c.runtime_path("not a path");
            }),
            ("`::def_runtime;`", |c| {
                c.runtime_path("::def_runtime;");
            }),
            ("`derive(Eq)`", |c| {
                c.type_attribute(".", "derive(Eq)");
            }),
            ("`#[derive(Eq)] pub struct Injected;`", |c| {
                c.type_attribute("S_EXAMPLE", "#[derive(Eq)] pub struct Injected;");
            }),
            ("field attribute for `S_EXAMPLE.number`", |c| {
                c.field_attribute("S_EXAMPLE.number", "#[doc = ");
            }),
        ];
        for (shown, set) in bad {
            let mut config = Config::new();
            config.input(&defs).out_dir(&out);
            set(&mut config);
            let err = config.generate_one("S_EXAMPLE.1.def", EXAMPLE).unwrap_err();
            assert!(matches!(err, Error::Option(_)), "{err:?}");
            assert!(err.to_string().contains(shown), "{shown}: {err}");
            let (r, lines) = run(&config);
            assert!(matches!(r, Err(Error::Option(_))), "{r:?}");
            assert!(lines.is_empty(), "nothing read or printed: {lines:?}");
            assert!(!out.exists(), "nothing written");
        }
        // Several attributes in one string, and a re-exported runtime, are fine.
        Config::new()
            .runtime_path("crate::rt")
            .type_attribute(".", "#[derive(Eq)] #[must_use]")
            .generate_one("S_EXAMPLE.1.def", EXAMPLE)
            .unwrap();
    }

    #[test]
    fn strict_mode_turns_warnings_into_errors() {
        let text = "int32 a\nnot a field line at all\n";
        Config::new().generate_one("S_X.1.def", text).unwrap();
        let err = Config::new()
            .strict(true)
            .generate_one("S_X.1.def", text)
            .unwrap_err();
        assert!(err.to_string().contains("S_X.1.def:2:1"), "{err}");
    }

    #[test]
    fn other_failures_name_the_path() {
        let t = Temp::new();
        let missing = t.0.join("S_GONE.1.def");
        let (r, _) = run(Config::new().input(&missing).out_dir(t.0.join("out")));
        let err = r.unwrap_err();
        assert!(matches!(err, Error::Io(..)), "{err:?}");
        assert!(err.to_string().contains("S_GONE.1.def"), "{err}");
        let odd = t.0.join("no-version.def");
        std::fs::write(&odd, "int32 a\n").unwrap();
        let (r, _) = run(Config::new().input(&odd).out_dir(t.0.join("out")));
        assert!(matches!(r.unwrap_err(), Error::FileName(p) if p == odd));
    }
}
