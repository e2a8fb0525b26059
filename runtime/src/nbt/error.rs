//! The NBT error type: what went wrong, at which byte offset, at which tag path.

use std::fmt;

use crate::clip::{self, Clip};

/// One step of a [`TagPath`]: a compound key or a list index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathSegment {
    /// A compound key.
    Key(String),
    /// A list index.
    Index(usize),
}

/// Where in the tree an error happened, e.g. `Level.Sections[3].Palette`.
///
/// The text form is the path syntax of [`Tag::get_path`](super::Tag::get_path) (module
/// `path`): keys joined by `.`, indices in brackets, keys that are empty or hold `. [ ] " \`
/// or white space in double quotes; it parses back with `str::parse` (only a very long path or
/// key is shortened in the text, with `…`).
///
/// Built while the error unwinds out of the reader (segments are pushed innermost first), so
/// the happy path pays nothing for it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TagPath(Vec<PathSegment>);

impl TagPath {
    /// The segments from the root down.
    pub fn segments(&self) -> impl Iterator<Item = &PathSegment> {
        self.0.iter().rev()
    }

    /// Whether the path is empty (the error is at the root).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// A path from its segments, root first.
    pub fn from_root_first(mut segments: Vec<PathSegment>) -> TagPath {
        segments.reverse();
        TagPath(segments)
    }
}

impl fmt::Display for TagPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("<root>");
        }
        // Hostile input nests hundreds of levels: show the ends of a long path.
        let n = self.0.len();
        for (i, s) in self.segments().enumerate() {
            if n > 16 && (6..n - 6).contains(&i) {
                if i == 6 {
                    write!(f, "…({} levels)…", n - 12)?;
                }
                continue;
            }
            match s {
                PathSegment::Key(k) => {
                    if i > 0 {
                        f.write_str(".")?;
                    }
                    if super::path::needs_quotes(k) {
                        write!(f, "{}", Clip(&super::path::quote(k), clip::NAME))?
                    } else {
                        write!(f, "{}", Clip(k, clip::NAME))?
                    }
                }
                PathSegment::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

/// Everything that can go wrong reading or writing NBT. `Debug` reads as `Display` does (the
/// path root first), inside `NbtError(..)`.
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum NbtError {
    /// The input ended inside a tag.
    #[error("offset {offset} at `{path}`: unexpected end of input (needed {needed} more bytes)")]
    UnexpectedEof {
        /// Byte offset (in the decompressed data) of the read that failed.
        offset: usize,
        /// How many bytes were missing.
        needed: usize,
        /// Tag path.
        path: TagPath,
    },
    /// A tag type id above 12 (or `TAG_End` where a value is needed).
    #[error("offset {offset} at `{path}`: invalid tag type id {id}")]
    InvalidTagType {
        /// The id byte.
        id: u8,
        /// Byte offset of the id.
        offset: usize,
        /// Tag path.
        path: TagPath,
    },
    /// Lists and compounds nested deeper than the limit (Minecraft: 512, root included).
    #[error("offset {offset} at `{path}`: nesting deeper than {max} lists/compounds")]
    TooDeep {
        /// The limit.
        max: usize,
        /// Byte offset of the container that went over.
        offset: usize,
        /// Tag path.
        path: TagPath,
    },
    /// A declared length that the remaining input cannot hold (caught before allocating).
    #[error(
        "offset {offset} at `{path}`: declared length {len} needs at least {needed} bytes, {remaining} remain"
    )]
    LengthTooLarge {
        /// The declared element count.
        len: i64,
        /// Minimum bytes those elements take.
        needed: u64,
        /// Bytes left in the input.
        remaining: usize,
        /// Byte offset of the length.
        offset: usize,
        /// Tag path.
        path: TagPath,
    },
    /// A negative list or array length.
    #[error("offset {offset} at `{path}`: negative length {len}")]
    NegativeLength {
        /// The declared length.
        len: i64,
        /// Byte offset of the length.
        offset: usize,
        /// Tag path.
        path: TagPath,
    },
    /// A list of element type `TAG_End` with a non-zero length (Minecraft: "Missing type on ListTag").
    #[error("offset {offset} at `{path}`: list of TAG_End with {len} elements")]
    EndListNotEmpty {
        /// The declared length.
        len: i64,
        /// Byte offset of the list.
        offset: usize,
        /// Tag path.
        path: TagPath,
    },
    /// A string that is not valid Modified UTF-8 (Java) or UTF-8 (Bedrock).
    #[error("offset {offset} at `{path}`: malformed string bytes")]
    InvalidString {
        /// Byte offset of the first bad byte.
        offset: usize,
        /// Tag path.
        path: TagPath,
    },
    /// A varint longer than its type allows.
    #[error("offset {offset} at `{path}`: malformed varint")]
    InvalidVarint {
        /// Byte offset of the varint.
        offset: usize,
        /// Tag path.
        path: TagPath,
    },
    /// The root tag is `TAG_End` (an empty network NBT value), which has no tree form here.
    #[error("offset {offset}: root is TAG_End (no value)")]
    EndRoot {
        /// Byte offset of the root's type byte.
        offset: usize,
    },
    /// Bytes remained after the root(s) and the caller asked for strict consumption.
    #[error("offset {offset}: {count} trailing bytes after the NBT")]
    TrailingBytes {
        /// Where the trailing bytes start.
        offset: usize,
        /// How many there are.
        count: usize,
    },
    /// The compressed stream is broken.
    #[error("decompression failed: {0}")]
    Decompress(String),
    /// Decompressed data exceeded the configured limit.
    #[error("decompressed data exceeds the limit of {limit} bytes")]
    DecompressLimit {
        /// The limit in bytes.
        limit: usize,
    },
    /// The tree being read would take more memory than the reader may use: a region file's
    /// budget ([`RegionFile::parse_with_budget`](super::region::RegionFile::parse_with_budget))
    /// counts the estimated memory of each chunk's tree as it is built, and stops the read here.
    #[error(
        "offset {offset} at `{path}`: the tree would take more than the {limit} bytes of memory it may use"
    )]
    MemoryLimit {
        /// Bytes of tree the read was allowed (what the budget had left).
        limit: usize,
        /// Byte offset (in the decompressed data) where the estimate went over.
        offset: usize,
        /// Tag path.
        path: TagPath,
    },
    /// The input is larger than this codec addresses (4 GiB).
    #[error("input of {len} bytes is larger than 4 GiB")]
    InputTooLarge {
        /// The input length.
        len: usize,
    },
    /// A value cannot be written in the requested form.
    #[error("cannot write `{path}`: {reason}")]
    Unwritable {
        /// Why.
        reason: &'static str,
        /// Tag path.
        path: TagPath,
    },
    /// A region (`.mca`) file is malformed.
    #[error("region file: {0}")]
    Region(String),
    /// A region chunk cannot be written back (its data was not readable), or its slot is
    /// wrong.
    #[error("region chunk {index} (x {x}, z {z}): {reason}", x = index % 32, z = index / 32)]
    RegionChunk {
        /// Slot index, `x + 32 * z`.
        index: usize,
        /// Why.
        reason: String,
    },
    /// An entry of a region dump's `chunks` array (the JSON of
    /// [`RegionFile::to_json`](super::region::RegionFile::to_json)) holds something a region
    /// file cannot: a slot outside 0..1024 or used twice, a timestamp over 32 bits, a
    /// compression id that is not one of the schemes, coordinates that disagree with the slot,
    /// NBT that does not read.
    #[error(
        "region dump, chunks[{entry}]{}: {}",
        slot.map(|i| format!(" (slot {i}: x {}, z {})", i % 32, i / 32)).unwrap_or_default(),
        Clip(reason, clip::TEXT)
    )]
    RegionDump {
        /// Position of the entry in the dump's `chunks` array, from 0.
        entry: usize,
        /// Its slot index (`x + 32 * z`), when it has a usable one.
        slot: Option<usize>,
        /// What does not fit, and the value.
        reason: String,
    },
    /// A node of an NBT dump (the JSON of [`dump`](super::dump)) is not NBT: a missing or
    /// unknown `type`, a value out of its type's range, a list element of another type.
    #[error(
        "NBT dump, {}at `{path}`: {}",
        root.map(|i| format!("roots[{i}], ")).unwrap_or_default(),
        Clip(reason, clip::TEXT)
    )]
    DumpEntry {
        /// The root's position in the dump's `roots` array, when the dump has one.
        root: Option<usize>,
        /// The node's tag path in its root.
        path: TagPath,
        /// What is wrong.
        reason: String,
    },
    /// SNBT text does not parse.
    #[error("SNBT line {line}, column {column}: {message}")]
    Snbt {
        /// 1-based line.
        line: usize,
        /// 1-based column (in characters).
        column: usize,
        /// What was expected or wrong.
        message: String,
    },
    /// A tag path (`Level.Sections[1].Name`) does not parse.
    #[error("tag path, byte {offset}: {message}")]
    PathSyntax {
        /// Byte offset in the path text.
        offset: usize,
        /// What was expected.
        message: &'static str,
    },
    /// A tag path parses but does not lead to a value in this tree.
    #[error("tag path `{path}`: {reason}")]
    PathNotFound {
        /// The path up to and including the step that failed.
        path: TagPath,
        /// Why that step failed (missing key, index out of range, not a container).
        reason: String,
    },
    /// A value set at a tag path ([`Tag::set_path`](super::Tag::set_path)) is not of the type
    /// its place must keep: a list element keeps its list's element type.
    #[error(
        "tag path `{path}`: the place holds {expected}, the value is {found} (a list keeps one element type)"
    )]
    WrongType {
        /// The place.
        path: TagPath,
        /// The type the place holds.
        expected: &'static str,
        /// The type of the value given.
        found: &'static str,
    },
    /// A JSON dump does not parse or does not describe NBT.
    #[error("JSON dump at byte {offset}: {}", Clip(message, clip::TEXT))]
    Json {
        /// Byte offset in the JSON text.
        offset: usize,
        /// What was wrong.
        message: String,
    },
    /// A serde (de)serialisation failed (feature `serde`).
    #[error("serde: {}", Clip(.0, clip::TEXT))]
    Serde(String),
    /// An I/O error from a reader or writer.
    #[error("I/O: {0}")]
    Io(#[from] std::io::Error),
}

impl NbtError {
    /// The tag path of the error, if it has one.
    pub fn path(&self) -> Option<&TagPath> {
        match self {
            NbtError::UnexpectedEof { path, .. }
            | NbtError::InvalidTagType { path, .. }
            | NbtError::TooDeep { path, .. }
            | NbtError::LengthTooLarge { path, .. }
            | NbtError::NegativeLength { path, .. }
            | NbtError::EndListNotEmpty { path, .. }
            | NbtError::InvalidString { path, .. }
            | NbtError::InvalidVarint { path, .. }
            | NbtError::MemoryLimit { path, .. }
            | NbtError::Unwritable { path, .. }
            | NbtError::PathNotFound { path, .. }
            | NbtError::DumpEntry { path, .. }
            | NbtError::WrongType { path, .. } => Some(path),
            _ => None,
        }
    }

    /// The byte offset of the error, if it has one.
    pub fn offset(&self) -> Option<usize> {
        match *self {
            NbtError::UnexpectedEof { offset, .. }
            | NbtError::InvalidTagType { offset, .. }
            | NbtError::TooDeep { offset, .. }
            | NbtError::LengthTooLarge { offset, .. }
            | NbtError::NegativeLength { offset, .. }
            | NbtError::EndListNotEmpty { offset, .. }
            | NbtError::InvalidString { offset, .. }
            | NbtError::InvalidVarint { offset, .. }
            | NbtError::MemoryLimit { offset, .. }
            | NbtError::EndRoot { offset }
            | NbtError::TrailingBytes { offset, .. }
            | NbtError::Json { offset, .. }
            | NbtError::PathSyntax { offset, .. } => Some(offset),
            _ => None,
        }
    }

    fn path_mut(&mut self) -> Option<&mut TagPath> {
        match self {
            NbtError::UnexpectedEof { path, .. }
            | NbtError::InvalidTagType { path, .. }
            | NbtError::TooDeep { path, .. }
            | NbtError::LengthTooLarge { path, .. }
            | NbtError::NegativeLength { path, .. }
            | NbtError::EndListNotEmpty { path, .. }
            | NbtError::InvalidString { path, .. }
            | NbtError::InvalidVarint { path, .. }
            | NbtError::MemoryLimit { path, .. }
            | NbtError::Unwritable { path, .. } => Some(path),
            _ => None,
        }
    }

    /// Prepends a compound key to the path (called while unwinding).
    #[cold]
    pub(crate) fn in_key(mut self, key: &[u8]) -> NbtError {
        if let Some(p) = self.path_mut() {
            p.0.push(PathSegment::Key(
                super::mutf8::to_str_lossy(key).into_owned(),
            ));
        }
        self
    }

    /// Prepends a list index to the path (called while unwinding).
    #[cold]
    pub(crate) fn in_index(mut self, i: usize) -> NbtError {
        if let Some(p) = self.path_mut() {
            p.0.push(PathSegment::Index(i));
        }
        self
    }

    #[cold]
    pub(crate) fn eof(offset: usize, needed: usize) -> NbtError {
        NbtError::UnexpectedEof {
            offset,
            needed,
            path: TagPath::default(),
        }
    }

    #[cold]
    pub(crate) fn bad_type(id: u8, offset: usize) -> NbtError {
        NbtError::InvalidTagType {
            id,
            offset,
            path: TagPath::default(),
        }
    }

    #[cold]
    pub(crate) fn too_deep(max: usize, offset: usize) -> NbtError {
        NbtError::TooDeep {
            max,
            offset,
            path: TagPath::default(),
        }
    }

    #[cold]
    pub(crate) fn bad_string(offset: usize) -> NbtError {
        NbtError::InvalidString {
            offset,
            path: TagPath::default(),
        }
    }

    #[cold]
    pub(crate) fn unwritable(reason: &'static str) -> NbtError {
        NbtError::Unwritable {
            reason,
            path: TagPath::default(),
        }
    }
}

/// Result alias for this module.
pub type Result<T, E = NbtError> = std::result::Result<T, E>;

impl fmt::Debug for NbtError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "NbtError({self})")
    }
}
