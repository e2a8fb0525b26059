//! The build.rs API, modelled on prost-build: a [`Config`] builder and the [`compile_defs`]
//! shortcut.
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
    /// No `OUT_DIR` and no [`Config::out_dir`].
    NoOutDir,
    /// Generated code did not parse (a bug; please report it).
    Internal(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io(p, e) => write!(f, "{}: {e}", p.display()),
            Error::Defs(reports) => {
                for r in reports {
                    write!(f, "{r}")?;
                }
                Ok(())
            }
            Error::FileName(p) => write!(
                f,
                "{}: file name is not NAME.VERSION[.PLATFORM].def",
                p.display()
            ),
            Error::NoOutDir => f.write_str("OUT_DIR is not set; call Config::out_dir"),
            Error::Internal(m) => write!(f, "internal error: {m}"),
        }
    }
}

impl std::error::Error for Error {}

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
    /// (default `::def_runtime`).
    pub fn runtime_path(&mut self, path: impl Into<String>) -> &mut Self {
        self.emit.runtime = path.into();
        self
    }

    /// serde derives, always (`true`) or never (`false`).
    pub fn serde(&mut self, on: bool) -> &mut Self {
        self.emit.serde = if on { Serde::On } else { Serde::Off };
        self
    }

    /// serde derives behind a cargo feature of the including crate.
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

    /// Messages that carry 8 bytes of padding after the header in this protocol: their packet
    /// types get `const PADDING: bool = true` (otherwise `false`).
    pub fn padding_messages<S: Into<String>>(
        &mut self,
        names: impl IntoIterator<Item = S>,
    ) -> &mut Self {
        self.padding.extend(names.into_iter().map(Into::into));
        self
    }

    /// Strict mode: every warning is an error.
    pub fn strict(&mut self, on: bool) -> &mut Self {
        self.mode = if on { Mode::Strict } else { Mode::Compatible };
        self
    }

    /// Leaves `.def` lines out of doc comments.
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

    /// Generates the code of one definition's text, without writing anything.
    pub fn generate_one(&self, file: &str, text: &str) -> Result<String, Error> {
        let compiled =
            def_parser::compile_str(file, text, self.mode).map_err(|r| Error::Defs(vec![r]))?;
        let base = file.rsplit(['/', '\\']).next().unwrap_or(file);
        let padded = compiled
            .layout
            .name
            .as_ref()
            .is_some_and(|n| self.padding.contains(&n.name));
        let mut code = generate(&compiled.layout, base, &self.emit)
            .map_err(|e| Error::Internal(e.to_string()))?;
        if padded {
            code.push_str("\n// This message carries padding in this protocol.\n");
        }
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
    pub fn compile(&self) -> Result<Vec<Generated>, Error> {
        let out = match &self.out_dir {
            Some(d) => d.clone(),
            None => PathBuf::from(std::env::var_os("OUT_DIR").ok_or(Error::NoOutDir)?),
        };
        let (files, dirs) = self.files()?;
        if self.cargo_output {
            for d in &dirs {
                println!("cargo:rerun-if-changed={}", d.display());
            }
            for f in &files {
                println!("cargo:rerun-if-changed={}", f.display());
            }
        }
        let mut reports = Vec::new();
        let mut generated = Vec::new();
        for path in &files {
            let base = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default()
                .to_string();
            let name = DefName::parse(&base).ok_or_else(|| Error::FileName(path.clone()))?;
            let text = std::fs::read_to_string(path).map_err(|e| Error::Io(path.clone(), e))?;
            let compiled =
                match def_parser::compile_str(&path.display().to_string(), &text, self.mode) {
                    Ok(c) => c,
                    Err(r) => {
                        reports.push(r);
                        continue;
                    }
                };
            if self.cargo_output {
                for d in &compiled.warnings.diagnostics {
                    println!("cargo:warning={}", d.one_line(&path.display().to_string()));
                }
            }
            let mut code = generate(&compiled.layout, &base, &self.emit)
                .map_err(|e| Error::Internal(format!("{base}: {e}")))?;
            let padded = self.padding.contains(&name.name);
            code.push_str(&format!(
                "\n/// Whether this message carries 8 bytes of padding after the header in this protocol.\npub const PADDING: bool = {padded};\n"
            ));
            let module = module_of(&name);
            let file = out.join(format!("{}.rs", module.replace("::", ".")));
            write_if_changed(&file, &code)?;
            generated.push(Generated {
                type_name: naming::pascal(&name.name),
                name,
                source: path.clone(),
                module,
                file,
            });
        }
        if !reports.is_empty() {
            return Err(Error::Defs(reports));
        }
        write_if_changed(&out.join(&self.include_file), &include_tree(&generated))?;
        Ok(generated)
    }
}

/// `s_login::v14`, or `s_login::v14_ps4` for a platform file.
pub fn module_of(name: &DefName) -> String {
    let v = match name.platform {
        Some(p) => format!("v{}_{}", name.version, p.as_str()),
        None => format!("v{}", name.version),
    };
    format!("{}::{v}", naming::module(&name.name))
}

/// The include file: nested `pub mod`s that `include!` each module file.
fn include_tree(generated: &[Generated]) -> String {
    let mut tree: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for g in generated {
        let (outer, inner) = g.module.split_once("::").expect("two levels");
        let file = g
            .file
            .file_name()
            .and_then(|f| f.to_str())
            .unwrap_or_default()
            .to_string();
        tree.entry(outer.to_string())
            .or_default()
            .push((inner.to_string(), file));
    }
    let mut s = String::from("// @generated by def-codegen; do not edit.\n");
    for (outer, inner) in tree {
        s.push_str(&format!("/// Versions of `{outer}`.\npub mod {outer} {{\n"));
        for (m, file) in inner {
            s.push_str(&format!("    #[doc = \"Generated from one definition.\"]\n    pub mod {m} {{\n        include!(\"{file}\");\n    }}\n"));
        }
        s.push_str("}\n");
    }
    s
}

fn write_if_changed(path: &Path, content: &str) -> Result<(), Error> {
    if std::fs::read(path).is_ok_and(|old| old == content.as_bytes()) {
        return Ok(());
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Error::Io(dir.to_path_buf(), e))?;
    }
    std::fs::write(path, content).map_err(|e| Error::Io(path.to_path_buf(), e))
}

/// The common case: every definition under `dir` into `OUT_DIR`, with serde behind the including
/// crate's `serde` feature.
pub fn compile_defs(dir: impl AsRef<Path>) -> Result<Vec<Generated>, Error> {
    Config::new().input(dir).compile()
}
