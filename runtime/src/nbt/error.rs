//! The NBT error type: what went wrong ([`NbtErrorKind`]), at which byte offset, at which tag
//! path, in the shape every format's error has (`kind()`, `offset()`, `path()`).

use std::fmt;

use crate::clip::{self, Clip};
use crate::path::{PathSegment, ValuePath, write_place};

#[derive(Debug)]
struct Inner {
    kind: NbtErrorKind,
    offset: Option<usize>,
    path: ValuePath,
}

/// Everything that can go wrong reading or writing NBT: a [`kind`](NbtError::kind), the byte
/// [`offset`](NbtError::offset) where the input holds the fault, and the tag
/// [`path`](NbtError::path) to the value (root first; it pastes into
/// [`Tag::get_path`](super::Tag::get_path)). One boxed pointer wide; `Debug` reads as
/// `Display` does, inside `NbtError(..)`.
///
/// ```
/// use def_runtime::nbt::{self, NbtErrorKind, ReadOptions};
///
/// // A compound `Level` holding a list `Sections` of 2 compounds; the input ends in the second,
/// // after the type of its first entry, where the entry's name length should be.
/// let bytes = [10, 0, 0, 10, 0, 5, b'L', b'e', b'v', b'e', b'l', 9, 0, 8, b'S', b'e', b'c',
///     b't', b'i', b'o', b'n', b's', 10, 0, 0, 0, 2, 0, 1];
/// let e = nbt::decode(&bytes, ReadOptions::default()).unwrap_err();
/// assert!(matches!(e.kind(), NbtErrorKind::UnexpectedEof { .. }));
/// assert_eq!(e.offset(), Some(29));
/// assert_eq!(e.path().to_string(), "Level.Sections[1]");
/// assert_eq!(
///     e.to_string(),
///     "NBT at byte 29 (0x1d) in `Level.Sections[1]`: unexpected end of input (needed 2 more bytes)"
/// );
/// ```
pub struct NbtError(Box<Inner>);

impl NbtError {
    /// What went wrong.
    pub fn kind(&self) -> &NbtErrorKind {
        &self.0.kind
    }

    /// The error's kind, taken out (an I/O error's `std::io::Error`, say).
    pub fn into_kind(self) -> NbtErrorKind {
        self.0.kind
    }

    /// The byte offset in the (decompressed) NBT data where the fault is, when the error comes
    /// from reading NBT bytes; `None` for the others (I/O, compression, region files, text
    /// forms, whose kinds say where).
    pub fn offset(&self) -> Option<usize> {
        self.0.offset
    }

    /// The tag path to the value the error is about; the root when it is about the whole
    /// input or about none of its values.
    pub fn path(&self) -> &ValuePath {
        &self.0.path
    }

    /// An error of `kind` at byte `offset`.
    #[cold]
    pub(crate) fn at(kind: NbtErrorKind, offset: usize) -> NbtError {
        NbtError(Box::new(Inner {
            kind,
            offset: Some(offset),
            path: ValuePath::default(),
        }))
    }

    /// An error of `kind` about the value at `path`.
    #[cold]
    pub(crate) fn in_path(kind: NbtErrorKind, path: ValuePath) -> NbtError {
        let mut e = NbtError::from(kind);
        e.0.path = path;
        e
    }

    /// Prepends a compound key to the path (called while unwinding).
    #[cold]
    pub(crate) fn in_key(mut self, key: &[u8]) -> NbtError {
        self.0.path.push_outer(PathSegment::Field(
            super::mutf8::to_str_lossy(key).into_owned().into(),
        ));
        self
    }

    /// Prepends a list index to the path (called while unwinding).
    #[cold]
    pub(crate) fn in_index(mut self, i: usize) -> NbtError {
        self.0.path.push_outer(PathSegment::Index(i));
        self
    }

    #[cold]
    pub(crate) fn eof(offset: usize, needed: usize) -> NbtError {
        NbtError::at(NbtErrorKind::UnexpectedEof { needed }, offset)
    }

    #[cold]
    pub(crate) fn bad_type(id: u8, offset: usize) -> NbtError {
        NbtError::at(NbtErrorKind::InvalidTagType { id }, offset)
    }

    #[cold]
    pub(crate) fn too_deep(max: usize, offset: usize) -> NbtError {
        NbtError::at(NbtErrorKind::TooDeep { max }, offset)
    }

    #[cold]
    pub(crate) fn bad_string(offset: usize) -> NbtError {
        NbtError::at(NbtErrorKind::InvalidString, offset)
    }

    #[cold]
    pub(crate) fn unwritable(reason: &'static str) -> NbtError {
        NbtError::from(NbtErrorKind::Unwritable { reason })
    }
}

impl From<NbtErrorKind> for NbtError {
    /// An error of `kind` with no byte offset, at the root.
    #[cold]
    fn from(kind: NbtErrorKind) -> NbtError {
        NbtError(Box::new(Inner {
            kind,
            offset: None,
            path: ValuePath::default(),
        }))
    }
}

impl From<std::io::Error> for NbtError {
    #[cold]
    fn from(e: std::io::Error) -> NbtError {
        NbtError::from(NbtErrorKind::Io(e))
    }
}

impl fmt::Display for NbtError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("NBT")?;
        write_place(f, self.0.offset, &self.0.path)?;
        write!(f, "{}", self.0.kind)
    }
}

impl fmt::Debug for NbtError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "NbtError({self})")
    }
}

impl std::error::Error for NbtError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        std::error::Error::source(&self.0.kind)
    }
}

/// Result alias for this module.
pub type Result<T, E = NbtError> = std::result::Result<T, E>;

/// What went wrong reading or writing NBT ([`NbtError::kind`]). The byte offset and the tag path
/// are the error's own ([`NbtError::offset`], [`NbtError::path`]), not the kind's.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NbtErrorKind {
    /// The input ended inside a tag.
    #[error("unexpected end of input (needed {needed} more bytes)")]
    UnexpectedEof {
        /// How many bytes were missing.
        needed: usize,
    },
    /// A tag type id above 12 (or `TAG_End` where a value is needed).
    #[error("invalid tag type id {id}")]
    InvalidTagType {
        /// The id byte.
        id: u8,
    },
    /// Lists and compounds nested deeper than the limit (Minecraft: 512, root included).
    #[error("nesting deeper than {max} lists/compounds")]
    TooDeep {
        /// The limit.
        max: usize,
    },
    /// A declared length that the remaining input cannot hold (caught before allocating).
    #[error("declared length {len} needs at least {needed} bytes, {remaining} remain")]
    LengthTooLarge {
        /// The declared element count.
        len: i64,
        /// Minimum bytes those elements take.
        needed: u64,
        /// Bytes left in the input.
        remaining: usize,
    },
    /// A negative list or array length.
    #[error("negative length {len}")]
    NegativeLength {
        /// The declared length.
        len: i64,
    },
    /// A list of element type `TAG_End` with a non-zero length (Minecraft: "Missing type on ListTag").
    #[error("list of TAG_End with {len} elements")]
    EndListNotEmpty {
        /// The declared length.
        len: i64,
    },
    /// A string that is not valid Modified UTF-8 (Java) or UTF-8 (Bedrock).
    #[error("malformed string bytes")]
    InvalidString,
    /// A varint longer than its type allows.
    #[error("malformed varint")]
    InvalidVarint,
    /// The root tag is `TAG_End` (an empty network NBT value), which has no tree form here.
    #[error("root is TAG_End (no value)")]
    EndRoot,
    /// Bytes remained after the root(s) and the caller asked for strict consumption.
    #[error("{count} trailing bytes after the NBT")]
    TrailingBytes {
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
    /// budget ([`RegionFile::decode_with_budget`](super::region::RegionFile::decode_with_budget))
    /// counts the estimated memory of each chunk's tree as it is built, and stops the read here.
    #[error("the tree would take more than the {limit} bytes of memory it may use")]
    MemoryLimit {
        /// Bytes of tree the read was allowed (what the budget had left).
        limit: usize,
    },
    /// The input is larger than this codec addresses (4 GiB).
    #[error("input of {len} bytes is larger than 4 GiB")]
    InputTooLarge {
        /// The input length.
        len: usize,
    },
    /// A value cannot be written in the requested form.
    #[error("cannot be written: {reason}")]
    Unwritable {
        /// Why.
        reason: &'static str,
    },
    /// A region (`.mca`) file is malformed.
    #[error("region file: {0}")]
    Region(String),
    /// A chunk slot's sectors overlap those of the slot `other`, which has a smaller index and
    /// was read: a slot's data is read once.
    #[error(
        "its sectors overlap those of slot {other} (x {x}, z {z}); a slot's data is read once",
        x = other % 32,
        z = other / 32
    )]
    SlotOverlap {
        /// The earlier slot's index, `x + 32 * z`.
        other: usize,
    },
    /// A region's memory budget was spent by the chunks before this one
    /// ([`RegionFile::decode_with_budget`](super::region::RegionFile::decode_with_budget)).
    #[error(
        "the region file's budget of {budget} bytes is spent ({used} bytes used by earlier chunks)"
    )]
    RegionBudget {
        /// The budget.
        budget: usize,
        /// What the chunks before this one used.
        used: usize,
    },
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
    /// unknown `type`, a value out of its type's range, a list element of another type. The
    /// error's path is the node's tag path in its root.
    #[error(
        "{}the dump: {}",
        root.map(|i| format!("roots[{i}] of ")).unwrap_or_default(),
        Clip(reason, clip::TEXT)
    )]
    DumpEntry {
        /// The root's position in the dump's `roots` array, when the dump has one.
        root: Option<usize>,
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
    #[error("tag path, byte {at}: {message}")]
    PathSyntax {
        /// Byte offset in the path text.
        at: usize,
        /// What was expected.
        message: &'static str,
    },
    /// A tag path parses but does not lead to a value in this tree.
    #[error("{reason}")]
    PathNotFound {
        /// Why that step failed (missing key, index out of range, not a container).
        reason: String,
    },
    /// A value set at a tag path ([`Tag::set_path`](super::Tag::set_path)) is not of the type
    /// its place must keep: a list element keeps its list's element type.
    #[error("the place holds {expected}, the value is {found} (a list keeps one element type)")]
    WrongType {
        /// The type the place holds.
        expected: &'static str,
        /// The type of the value given.
        found: &'static str,
    },
    /// A JSON dump does not parse or does not describe NBT.
    #[error("JSON dump at byte {at}: {}", Clip(message, clip::TEXT))]
    Json {
        /// Byte offset in the JSON text.
        at: usize,
        /// What was wrong.
        message: String,
    },
    /// A serde (de)serialisation failed (feature `serde`).
    #[error("serde: {}", Clip(.0, clip::TEXT))]
    Serde(String),
    /// An I/O error from a reader or writer.
    #[error("I/O: {0}")]
    Io(#[source] std::io::Error),
}
