//! Decode and encode errors: what went wrong, at which byte, where inside nested containers,
//! and which engine `Error` code Godot itself would have returned for the same bytes.

use std::fmt;

use crate::clip::{self, Clip};
use crate::path::{PathSegment, ValuePath, write_place};

use super::value::{VariantType, Version};

/// The engine's `Error` code for a refusal (what `decode_variant` returns).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum EngineError {
    /// `ERR_INVALID_DATA`.
    InvalidData,
    /// `ERR_FILE_EOF` (string bodies that run past the end).
    FileEof,
    /// `ERR_UNAUTHORIZED` (full object without `allow_objects`).
    Unauthorized,
    /// `ERR_UNAVAILABLE` (unknown class in Godot 3).
    Unavailable,
    /// `ERR_OUT_OF_MEMORY` (recursion limit).
    OutOfMemory,
    /// `ERR_INVALID_PARAMETER` (encode-side refusals).
    InvalidParameter,
}

impl EngineError {
    /// The engine's constant name, e.g. `"ERR_INVALID_DATA"`.
    pub fn name(self) -> &'static str {
        match self {
            EngineError::InvalidData => "ERR_INVALID_DATA",
            EngineError::FileEof => "ERR_FILE_EOF",
            EngineError::Unauthorized => "ERR_UNAUTHORIZED",
            EngineError::Unavailable => "ERR_UNAVAILABLE",
            EngineError::OutOfMemory => "ERR_OUT_OF_MEMORY",
            EngineError::InvalidParameter => "ERR_INVALID_PARAMETER",
        }
    }
}

/// What made the decoder refuse the bytes. Each kind maps to the engine's code via
/// [`DecodeErrorKind::engine_error`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeErrorKind {
    /// Nesting deeper than the limit (1024, as the engine: "Variant is too deep. Bailing.").
    #[error("nesting depth {depth} exceeds the limit of {limit}")]
    TooDeep {
        /// Depth reached.
        depth: usize,
        /// The limit.
        limit: usize,
    },
    /// Fewer than 4 bytes left for a value header.
    #[error("need 4 bytes for a value header, {remaining} left")]
    MissingHeader {
        /// Bytes left.
        remaining: usize,
    },
    /// Type id not below `VARIANT_MAX` of the version.
    #[error("unknown type id {id} for {version}")]
    UnknownType {
        /// The type byte.
        id: u32,
        /// The version decoded for.
        version: Version,
    },
    /// A fixed-size field runs past the end.
    #[error("{what} needs {needed} bytes, {remaining} left")]
    Truncated {
        /// Which field.
        what: &'static str,
        /// Bytes needed.
        needed: usize,
        /// Bytes left.
        remaining: usize,
    },
    /// A string body's length is negative (read as i32).
    #[error("string length {len} is negative")]
    NegativeStringLength {
        /// The length word.
        len: i32,
    },
    /// A string body plus its padding does not fit (or overflows int32).
    #[error("string of {len} bytes (+{pad} padding) exceeds the {remaining} bytes left")]
    StringPastEnd {
        /// Declared length.
        len: u32,
        /// Padding the engine requires to be present.
        pad: u32,
        /// Bytes left.
        remaining: usize,
    },
    /// A string body is not valid UTF-8 (by the rules of the version's parser).
    #[error("invalid UTF-8 in string at byte {at} of the string")]
    InvalidUtf8 {
        /// Offset of the first bad byte inside the string body.
        at: usize,
    },
    /// A NodePath in the old format (bit 31 of the first word clear).
    #[error("NodePath in the old format (bit 31 clear) is refused by the engine")]
    OldNodePath,
    /// A full object while the caller did not allow objects (`ERR_UNAUTHORIZED`).
    #[error("full object refused: objects are not allowed (allow_objects = false)")]
    ObjectsNotAllowed,
    /// A full object of a class the caller's class check refused.
    #[error("class `{}` is not available", Clip(class, clip::NAME))]
    ClassUnavailable {
        /// The class name.
        class: String,
    },
    /// Godot 4: a full object's `script` property is neither NIL nor a `res://` path String.
    #[error(
        "object `script` property must be NIL or a res:// path, found {}",
        Clip(found, clip::NAME)
    )]
    InvalidScript {
        /// What was found.
        found: String,
    },
    /// Godot 4: a typed container's builtin element type is out of range.
    #[error("typed container element type {id} is out of range")]
    InvalidContainerType {
        /// The id read.
        id: u32,
    },
    /// Godot 4: a script-typed container's path does not start with `res://` (objects allowed).
    #[error(
        "typed container script path `{}` does not start with res://",
        Clip(path, clip::NAME)
    )]
    InvalidScriptPath {
        /// The path read.
        path: String,
    },
    /// A packed array count is negative or its bytes exceed the input.
    #[error("{ty} of {count} elements × {elem_size} bytes exceeds the {remaining} bytes left")]
    PackedPastEnd {
        /// Packed array type.
        ty: VariantType,
        /// Element count read (as i32).
        count: i64,
        /// Bytes per element.
        elem_size: usize,
        /// Bytes left.
        remaining: usize,
    },
    /// Bytes left over after the value ([`decode_exact`](super::decode_exact) only; the engine
    /// itself ignores trailing bytes).
    #[error("{extra} trailing bytes after a value of {consumed} bytes")]
    TrailingBytes {
        /// Bytes the value used.
        consumed: usize,
        /// Bytes left over.
        extra: usize,
    },
    /// The bytes decoded, but the value does not convert to the Rust type asked for
    /// ([`from_bytes`](super::from_bytes)): serde's message.
    #[error("the value does not convert: {0}")]
    Serde(String),
}

impl DecodeErrorKind {
    /// The `Error` code the engine returns for the same refusal.
    pub fn engine_error(&self, version: Version) -> EngineError {
        match self {
            DecodeErrorKind::TooDeep { .. } => EngineError::OutOfMemory,
            DecodeErrorKind::NegativeStringLength { .. }
            | DecodeErrorKind::StringPastEnd { .. } => EngineError::FileEof,
            DecodeErrorKind::ObjectsNotAllowed => EngineError::Unauthorized,
            DecodeErrorKind::ClassUnavailable { .. } if version == Version::Godot3 => {
                EngineError::Unavailable
            }
            _ => EngineError::InvalidData,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct DecodeErrorInner {
    kind: DecodeErrorKind,
    offset: usize,
    path: ValuePath,
    version: Version,
}

/// A refusal to decode: the [`kind`](DecodeError::kind), the byte [`offset`](DecodeError::offset)
/// (from the start of the input) and the [`path`](DecodeError::path) inside nested containers,
/// as every format's error has them, and the engine's own code for the same bytes. Boxed so that
/// `Result<_, DecodeError>` stays one pointer wide. `Debug` reads as `Display` does, inside
/// `DecodeError(..)`.
///
/// ```
/// use def_runtime::godot::{
///     Array, DecodeErrorKind, DecodeOptions, EncodeOptions, Variant, Version, decode, encode,
/// };
/// let v = Variant::Array(Box::new(Array::new(vec![Variant::Int(1), Variant::String("hello".into())])));
/// let mut bytes = encode(&v, EncodeOptions::new(Version::Godot3))?;
/// bytes.truncate(bytes.len() - 4); // the string's last bytes are gone
/// let e = decode(&bytes, DecodeOptions::new(Version::Godot3)).unwrap_err();
/// assert!(matches!(e.kind(), DecodeErrorKind::StringPastEnd { len: 5, .. }));
/// assert_eq!(e.offset(), 20);
/// assert_eq!(e.path().to_string(), "[1]");
/// assert_eq!(
///     e.to_string(),
///     "Godot 3 value at byte 20 (0x14) in `[1]`: \
///      string of 5 bytes (+3 padding) exceeds the 4 bytes left [ERR_FILE_EOF]"
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct DecodeError(Box<DecodeErrorInner>);

impl fmt::Debug for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DecodeError({self})")
    }
}

impl DecodeError {
    #[cold]
    pub(crate) fn new(kind: DecodeErrorKind, offset: usize, version: Version) -> Self {
        DecodeError(Box::new(DecodeErrorInner {
            kind,
            offset,
            path: ValuePath::default(),
            version,
        }))
    }

    /// Adds an outer path step while the error unwinds.
    #[cold]
    pub(crate) fn within(mut self, seg: PathSegment) -> Self {
        self.0.path.push_outer(seg);
        self
    }

    /// The error with `path` as its path (a serde conversion's).
    #[cfg(feature = "serde")]
    #[cold]
    pub(crate) fn with_path(mut self, path: ValuePath) -> Self {
        self.0.path = path;
        self
    }

    /// What went wrong.
    pub fn kind(&self) -> &DecodeErrorKind {
        &self.0.kind
    }

    /// Byte offset of the field that failed, from the start of the input.
    pub fn offset(&self) -> usize {
        self.0.offset
    }

    /// Where inside nested containers (`[3]["key"].prop`); the root for the value as a whole.
    pub fn path(&self) -> &ValuePath {
        &self.0.path
    }

    /// The engine's `Error` code for these bytes.
    pub fn engine_error(&self) -> EngineError {
        self.0.kind.engine_error(self.0.version)
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} value", self.0.version)?;
        write_place(f, Some(self.0.offset), &self.0.path)?;
        write!(f, "{} [{}]", self.0.kind, self.engine_error().name())
    }
}

impl std::error::Error for DecodeError {}

/// What made the encoder refuse a value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EncodeErrorKind {
    /// Nesting deeper than 1024 ("Potential infinite recursion", as 3.4+/4.x).
    #[error("nesting depth {depth} exceeds the limit of {limit}")]
    TooDeep {
        /// Depth reached.
        depth: usize,
        /// The limit.
        limit: usize,
    },
    /// The type does not exist in the target version (e.g. `Vector2i` for Godot 3).
    #[error("{ty} does not exist in {version}")]
    TypeNotInVersion {
        /// The type.
        ty: VariantType,
        /// The target version.
        version: Version,
    },
    /// A length that does not fit the wire's int32 sizes.
    #[error("{what} of length {len} exceeds the engine's int32 sizes")]
    TooLong {
        /// What.
        what: &'static str,
        /// Its length.
        len: usize,
    },
    /// Godot 3 has no double-precision wire form.
    #[error("Godot 3 has no double-precision (real_t = double) wire form")]
    DoublePrecisionGodot3,
    /// Godot 3 has no typed containers.
    #[error("Godot 3 has no typed containers")]
    TypedContainerGodot3,
    /// A typed container's builtin type does not exist in the version.
    #[error("container element type {ty} does not exist in {version}")]
    InvalidContainerType {
        /// The type.
        ty: VariantType,
        /// The version.
        version: Version,
    },
    /// The Rust value does not convert to a Variant ([`to_bytes`](super::to_bytes)): serde's
    /// message.
    #[error("the value does not convert: {0}")]
    Serde(String),
}

/// A refusal to encode, with the path to the offending value. `Debug` reads as `Display` does.
#[derive(Clone, PartialEq, Eq)]
pub struct EncodeError(Box<EncodeErrorInner>);

impl fmt::Debug for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "EncodeError({self})")
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct EncodeErrorInner {
    kind: EncodeErrorKind,
    path: ValuePath,
}

impl EncodeError {
    #[cold]
    pub(crate) fn new(kind: EncodeErrorKind) -> Self {
        EncodeError(Box::new(EncodeErrorInner {
            kind,
            path: ValuePath::default(),
        }))
    }

    #[cold]
    pub(crate) fn within(mut self, seg: PathSegment) -> Self {
        self.0.path.push_outer(seg);
        self
    }

    /// The error with `path` as its path (a serde conversion's).
    #[cfg(feature = "serde")]
    #[cold]
    pub(crate) fn with_path(mut self, path: ValuePath) -> Self {
        self.0.path = path;
        self
    }

    /// What went wrong.
    pub fn kind(&self) -> &EncodeErrorKind {
        &self.0.kind
    }

    /// Where inside nested containers; the root for the value as a whole.
    pub fn path(&self) -> &ValuePath {
        &self.0.path
    }
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("cannot encode the value")?;
        write_place(f, None, &self.0.path)?;
        write!(f, "{}", self.0.kind)
    }
}

impl std::error::Error for EncodeError {}

/// The short form of a Dictionary key used in error paths: `"key"` for strings, the number for
/// ints, the type name otherwise.
pub(crate) fn key_label(key: &super::value::Variant) -> String {
    use super::value::Variant;
    match key {
        Variant::String(s) | Variant::StringName(s) => {
            let s = s.to_string_lossy();
            let mut short: String = s.chars().take(40).collect();
            if short.len() < s.len() {
                short.push('…');
            }
            format!("{short:?}")
        }
        Variant::Int(i) => i.to_string(),
        Variant::Bool(b) => b.to_string(),
        other => format!("<{}>", other.variant_type()),
    }
}
