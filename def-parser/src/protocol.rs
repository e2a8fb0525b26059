//! A protocol's choice of definitions: the opcode map (`protocol.VERSION.map`),
//! `deprecated.json`, and the rule that picks each message's current version for a patch.
//!
//! This is the one place that rule lives: `defc gen` (through `def_codegen::protocol`) and the
//! runtime's `Protocol::load` both call [`choose`], so a protocol loaded at run time picks the
//! same versions as the code generated for it. Errors are `LINE: MESSAGE` (`LINE:COLUMN` for
//! `deprecated.json`); callers prefix the file.

use std::collections::{BTreeMap, BTreeSet};

use crate::ast::{DefName, PatchRange, Platform};

/// One entry of `deprecated.json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deprecation {
    /// The last patch the version is current for.
    pub max: u32,
    /// Whether its packets may still be read after that patch.
    pub readable: bool,
}

/// A message name as maps and file names have it: ASCII letters, digits and `_`.
pub fn is_message_name(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A `u32` written as decimal digits without a sign, a leading zero or a fraction.
pub fn strict_u32(s: &str) -> Option<u32> {
    let ok = !s.is_empty()
        && s.chars().all(|c| c.is_ascii_digit())
        && (s.len() == 1 || !s.starts_with('0'));
    ok.then(|| s.parse().ok()).flatten()
}

/// Reads the `NAME = OPCODE` lines of an opcode map, strictly; errors are `LINE: MESSAGE`. A
/// UTF-8 byte-order mark at the start is skipped (editors add it; it is never part of a name);
/// `#` starts a comment; names are ASCII letters, digits and `_`; opcodes are decimal numbers up
/// to 65535; a name or an opcode given twice is an error naming both lines.
pub fn parse_map(text: &str) -> Result<BTreeMap<String, u16>, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut map = BTreeMap::new();
    let mut names: BTreeMap<String, usize> = BTreeMap::new();
    let mut codes: BTreeMap<u16, (usize, String)> = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        let n = n + 1;
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let shown = crate::diag::shorten(line);
        let (name, code) = line
            .split_once('=')
            .ok_or_else(|| format!("{n}: expected `NAME = OPCODE`, got `{shown}`"))?;
        let (name, code) = (name.trim(), code.trim());
        if !is_message_name(name) {
            return Err(format!(
                "{n}: `{}` is not a message name (ASCII letters, digits and `_`)",
                crate::diag::shorten(name)
            ));
        }
        let code = match strict_u32(code) {
            Some(c) => u16::try_from(c).map_err(|_| {
                format!("{n}: opcode {c} of `{name}` is out of range (at most 65535)")
            })?,
            None => {
                return Err(format!(
                    "{n}: opcode `{}` of `{name}` is not a decimal number up to 65535",
                    crate::diag::shorten(code)
                ));
            }
        };
        if let Some(first) = names.insert(name.to_string(), n) {
            return Err(format!("{n}: `{name}` is already given on line {first}"));
        }
        if let Some((first, other)) = codes.insert(code, (n, name.to_string())) {
            return Err(format!(
                "{n}: opcode {code} of `{name}` is already `{other}`'s, on line {first}"
            ));
        }
        map.insert(name.to_string(), code);
    }
    Ok(map)
}

/// A value of `deprecated.json` as the JSON reader read it, before checking: numbers keep their
/// text, so that no bound is rounded or truncated on the way.
#[derive(Debug, Clone, PartialEq)]
enum RawValue {
    /// A number, as written (`113`, `4294967296`, `1e3`).
    Number(String),
    /// `true` or `false`.
    Bool(bool),
    /// Anything else: what it is.
    Other(&'static str),
}

/// One `"NAME": {"VERSION": {...}}` entry of `deprecated.json`, before checking.
#[derive(Debug, Clone, PartialEq)]
struct RawDeprecation {
    name: String,
    version: String,
    /// Byte offset of the entry's value in the text, for the line of an error.
    offset: usize,
    fields: Vec<(String, RawValue)>,
}

/// What a JSON value is, for messages.
fn kind(v: &crate::json::Value) -> &'static str {
    use crate::json::Kind;
    match v.kind {
        Kind::Null => "null",
        Kind::Bool(_) => "a boolean",
        Kind::Number(_) => "a number",
        Kind::String(_) => "a string",
        Kind::Array(_) => "an array",
        Kind::Object(_) => "an object",
    }
}

/// The JSON reading of `deprecated.json` (the only part that knows the JSON reader): the
/// two-level object into entries, without checking them. Errors start with `LINE:COLUMN`.
fn raw_deprecations(text: &str) -> Result<Vec<RawDeprecation>, String> {
    use crate::json::Kind;
    let v = crate::json::parse(text).map_err(|e| e.to_string())?;
    let top = v.as_object().ok_or_else(|| {
        at(
            text,
            v.offset,
            format!("expected an object of messages, got {}", kind(&v)),
        )
    })?;
    let mut out = Vec::new();
    for (name, versions) in top {
        let versions = versions.as_object().ok_or_else(|| {
            at(
                text,
                versions.offset,
                format!(
                    "`{}`: expected an object of versions, got {}",
                    crate::diag::shorten(name),
                    kind(versions)
                ),
            )
        })?;
        for (version, entry) in versions {
            let fields = entry
                .as_object()
                .ok_or_else(|| {
                    at(
                        text,
                        entry.offset,
                        format!(
                            "`{}.{}`: expected {{\"max\": N, \"readable\": bool}}, got {}",
                            crate::diag::shorten(name),
                            crate::diag::shorten(version),
                            kind(entry)
                        ),
                    )
                })?
                .iter()
                .map(|(k, v)| {
                    let raw = match &v.kind {
                        Kind::Number(n) => RawValue::Number(n.clone()),
                        Kind::Bool(b) => RawValue::Bool(*b),
                        _ => RawValue::Other(kind(v)),
                    };
                    (k.clone(), raw)
                })
                .collect();
            out.push(RawDeprecation {
                name: name.clone(),
                version: version.clone(),
                offset: entry.offset,
                fields,
            });
        }
    }
    Ok(out)
}

/// `message` after the `LINE:COLUMN` of the byte `offset` of `text`.
fn at(text: &str, offset: usize, message: String) -> String {
    let (line, column) = crate::json::line_column(text, offset);
    format!("{line}:{column}: {message}")
}

/// Checks the entries of `deprecated.json`: each names a definition the folder has (`known`:
/// name and version), with `max` a patch number (a `u32`, never truncated) and `readable` a
/// boolean (default `false`), and nothing else. Errors name the entry (`S_LOGIN.14.max`).
fn check_deprecations(
    text: &str,
    raw: Vec<RawDeprecation>,
    known: &std::collections::BTreeSet<(String, u32)>,
) -> Result<BTreeMap<(String, u32), Deprecation>, String> {
    let mut out = BTreeMap::new();
    for e in raw {
        let entry = e.offset;
        let fail = |m: String| at(text, entry, m);
        let at = format!(
            "{}.{}",
            crate::diag::shorten(&e.name),
            crate::diag::shorten(&e.version)
        );
        let version = strict_u32(&e.version).ok_or_else(|| {
            fail(format!(
                "`{at}`: the version is not a decimal number up to 4294967295"
            ))
        })?;
        if !is_message_name(&e.name) || !known.contains(&(e.name.clone(), version)) {
            return Err(fail(format!(
                "`{at}`: no such definition in the definitions folder"
            )));
        }
        let (mut max, mut readable) = (None, false);
        for (k, v) in &e.fields {
            match (k.as_str(), v) {
                ("max", RawValue::Number(n)) => {
                    max = Some(strict_u32(n).ok_or_else(|| {
                        fail(format!(
                            "`{at}.max`: {} is not a patch number (0 to 4294967295)",
                            crate::diag::shorten(n)
                        ))
                    })?)
                }
                ("readable", RawValue::Bool(b)) => readable = *b,
                ("max", _) => return Err(fail(format!("`{at}.max`: expected a number"))),
                ("readable", _) => {
                    return Err(fail(format!("`{at}.readable`: expected true or false")));
                }
                (other, _) => {
                    return Err(fail(format!(
                        "`{at}`: unknown key `{}` (expected max and readable)",
                        crate::diag::shorten(other)
                    )));
                }
            }
        }
        let max = max.ok_or_else(|| fail(format!("`{at}`: no `max`")))?;
        out.insert((e.name, version), Deprecation { max, readable });
    }
    Ok(out)
}

/// The protocol version in a map's file name (`protocol.387463.map`), if it has that form.
pub fn map_version(file_name: &str) -> Option<u32> {
    strict_u32(file_name.strip_prefix("protocol.")?.strip_suffix(".map")?)
}

/// Checks `deprecated.json`'s text against the definitions the folder has (`known`: every name
/// and version, whatever the platform): each entry names one of them, with `max` a patch number
/// (a `u32`, never truncated) and `readable` a boolean (default `false`), and nothing else.
pub fn parse_deprecated(
    text: &str,
    known: &BTreeSet<(String, u32)>,
) -> Result<BTreeMap<(String, u32), Deprecation>, String> {
    raw_deprecations(text).and_then(|raw| check_deprecations(text, raw, known))
}

/// Whether a file named `name` applies on `platform` and replaces the file already chosen for
/// its name and version (`existing`: that file's platform, if one is chosen): a file for another
/// platform never applies; a platform's own file overrides the plain one.
pub fn file_applies(
    name: &DefName,
    platform: Platform,
    existing: Option<Option<Platform>>,
) -> bool {
    match name.platform {
        Some(p) if p != platform => false,
        _ => match existing {
            None => true,
            Some(existing) => existing.is_none() && name.platform.is_some(),
        },
    }
}

/// The status of one definition version for the chosen patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    /// Whether packets of this version can be read at this patch.
    pub readable: bool,
    /// Whether packets of this version should be written at this patch (the current one only).
    pub writable: bool,
    /// Why it is not current, when it is not.
    pub reason: Option<String>,
}

/// Chooses the current version of message `name` among `versions` (each with the patch range of
/// its header comment) for `patch` (`None`: the newest patch the data knows), and says why each
/// other version is not current. The statuses come in the order of `versions`.
///
/// A version fits unless `deprecated.json` retires it before the patch (for `None`: at all) or its
/// patch range leaves the patch out (for `None`: the range has an end); the current version is
/// the highest that fits. When none fits and no version is deprecated or has a range, the
/// highest version is current.
pub fn choose(
    name: &str,
    versions: &[(u32, Option<PatchRange>)],
    dep: &BTreeMap<(String, u32), Deprecation>,
    patch: Option<u32>,
) -> (Option<u32>, Vec<Status>) {
    let deprecation = |v: u32| dep.get(&(name.to_string(), v));
    // Whether a version is for the patch, and if not why.
    let fits = |v: u32, range: &Option<PatchRange>| -> Result<(), String> {
        if let Some(d) = deprecation(v)
            && patch.is_none_or(|p| p > d.max)
        {
            return Err(format!("deprecated after patch {}", d.max));
        }
        if let Some(r) = range {
            match patch {
                Some(p) if !r.contains(p) => return Err(format!("for {r}, not patch {p}")),
                None if r.max.is_some() => return Err(format!("for {r} only")),
                _ => {}
            }
        }
        Ok(())
    };
    let mut current = versions
        .iter()
        .filter(|(v, r)| fits(*v, r).is_ok())
        .map(|(v, _)| *v)
        .max();
    if current.is_none()
        && versions
            .iter()
            .all(|(v, r)| deprecation(*v).is_none() && r.is_none())
    {
        current = versions.iter().map(|(v, _)| *v).max();
    }
    let st = versions
        .iter()
        .map(|(v, r)| {
            if Some(*v) == current {
                return Status {
                    readable: true,
                    writable: true,
                    reason: None,
                };
            }
            let readable_dep = deprecation(*v).is_some_and(|d| d.readable);
            let reason = match fits(*v, r) {
                Err(r) => r,
                Ok(()) => format!("superseded by version {}", current.unwrap_or(0)),
            };
            let reason = if readable_dep {
                format!("{reason}; still readable")
            } else {
                reason
            };
            Status {
                readable: readable_dep,
                writable: false,
                reason: Some(reason),
            }
        })
        .collect();
    (current, st)
}

/// The `.def` files of a definitions folder that apply on a platform.
#[derive(Debug, Clone, Default)]
pub struct DefinitionFiles {
    /// For each name and version, the file that applies (a platform's own file over the plain
    /// one).
    pub files: BTreeMap<(String, u32), std::path::PathBuf>,
    /// Every name and version of the folder, whatever the platform (what `deprecated.json` may
    /// name).
    pub known: BTreeSet<(String, u32)>,
}

/// A path in a message, by the rule for input text ([`def_text`]): a folder can hold a file
/// named with control characters.
fn shown_path(p: &std::path::Path) -> String {
    def_text::shown(&p.display().to_string(), def_text::PATH).to_string()
}

/// Why a definitions folder could not be listed.
#[derive(Debug, thiserror::Error)]
pub enum ScanError {
    /// The folder or an entry could not be read, or a `.def` is not a regular file.
    #[error("{}: {}", shown_path(.0), .1)]
    Io(std::path::PathBuf, #[source] std::io::Error),
    /// A `.def` file's name does not follow `NAME.VERSION[.PLATFORM].def`.
    #[error("{}: file name is not NAME.VERSION[.PLATFORM].def", shown_path(.0))]
    FileName(std::path::PathBuf),
}

/// Lists the `.def` files of `dir` that apply on `platform` ([`file_applies`]). Only `.def` files
/// are definitions (`.js` files beside them are the reference's hand-written ones); a `.def`
/// whose name does not follow the grammar, or that is not a regular file, is an error.
pub fn scan_definitions(
    dir: &std::path::Path,
    platform: Platform,
) -> Result<DefinitionFiles, ScanError> {
    let mut out = DefinitionFiles::default();
    let mut platforms: BTreeMap<(String, u32), Option<Platform>> = BTreeMap::new();
    let rd = std::fs::read_dir(dir).map_err(|e| ScanError::Io(dir.to_path_buf(), e))?;
    for entry in rd {
        let path = entry
            .map_err(|e| ScanError::Io(dir.to_path_buf(), e))?
            .path();
        if path.extension().is_none_or(|e| e != "def") {
            continue;
        }
        let name = path
            .file_name()
            .and_then(|f| f.to_str())
            .and_then(DefName::parse)
            .ok_or_else(|| ScanError::FileName(path.clone()))?;
        crate::text::check_regular(&path).map_err(|e| ScanError::Io(path.clone(), e))?;
        let key = (name.name.clone(), name.version);
        out.known.insert(key.clone());
        if file_applies(&name, platform, platforms.get(&key).copied()) {
            platforms.insert(key.clone(), name.platform);
            out.files.insert(key, path);
        }
    }
    Ok(out)
}
