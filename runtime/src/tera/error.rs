//! Errors of reading and writing TERA packets.
//!
//! A [`DecodeError`] says which packet (name and version), which field (a [`ValuePath`] such as
//! `servants[3].name`), at which byte offset, and what was wrong, in the shape every format's
//! error has: [`kind`](DecodeError::kind), [`offset`](DecodeError::offset),
//! [`path`](DecodeError::path). It is one boxed pointer wide so that `Result<T, DecodeError>`
//! stays small on the hot path. An [`EncodeError`] has the same shape without the offset
//! (nothing is written when encoding fails).

use alloc::borrow::Cow;
use alloc::boxed::Box;
use alloc::string::String;
use core::fmt;

use crate::clip::{self, Clip};
use crate::path::{PathSegment, ValuePath, write_place};

/// What was wrong with the bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecodeErrorKind {
    /// A fixed-size field needs more bytes than the packet has.
    Truncated {
        /// Bytes the field needs.
        needed: usize,
        /// Bytes left in the packet from the field's offset.
        available: usize,
    },
    /// An offset (of a string, bytes or an array element) points where what is read there does
    /// not fit in the packet.
    OffsetOutOfBounds {
        /// The offset.
        offset: usize,
        /// Bytes read from the offset (a string: its first unit; an element: its `here`/`next`).
        needed: usize,
        /// The packet's length.
        len: usize,
    },
    /// An offset points into the packet header.
    OffsetInHeader {
        /// The offset.
        offset: usize,
    },
    /// An element's `next` points back at or before an earlier element: the chain would loop.
    ElementLoop {
        /// The offending `next`.
        next: usize,
        /// The element it came from.
        from: usize,
    },
    /// The element chain ends (`next` = 0) before `count` elements were read.
    ChainEndsEarly {
        /// Elements read.
        read: usize,
        /// Elements declared.
        count: usize,
    },
    /// A string runs to the end of the packet without its 0 terminator.
    UnterminatedString,
    /// A string holds a UTF-16 code unit that is not part of a valid sequence.
    InvalidUtf16 {
        /// The unpaired surrogate.
        unit: u16,
    },
    /// A declared count cannot fit in the bytes that remain.
    CountTooLarge {
        /// Declared count.
        count: usize,
        /// Least bytes one element takes.
        element_size: usize,
        /// Bytes from the first element to the end of the packet.
        available: usize,
    },
    /// Strict mode: bytes after the last byte the definition accounts for.
    TrailingBytes {
        /// Bytes the definition read.
        used: usize,
        /// The packet's length.
        len: usize,
    },
    /// Strict mode: an element's `here` is not its own offset.
    HereMismatch {
        /// The value of `here`.
        here: usize,
        /// The element's offset.
        offset: usize,
    },
    /// Offsets lead to more data than 4 times the packet's
    /// length: the same bytes are read over and over (shared strings, or element chains shared
    /// between arrays), which would let a small packet decode to an unbounded value.
    ReadLimit {
        /// The bytes the packet may be read for.
        limit: usize,
    },
    /// Strict mode: the header's length is not the packet's length.
    LengthMismatch {
        /// The header's value.
        header: usize,
        /// The bytes given.
        actual: usize,
    },
}

impl fmt::Display for DecodeErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use DecodeErrorKind::*;
        match self {
            Truncated { needed, available } => {
                write!(f, "truncated: needs {needed} bytes, {available} left")
            }
            OffsetOutOfBounds {
                offset,
                needed,
                len,
            } if offset >= len => write!(
                f,
                "offset {offset:#x} points past the end of the packet ({len:#x} bytes; {needed} needed there)"
            ),
            OffsetOutOfBounds {
                offset,
                needed,
                len,
            } => write!(
                f,
                "{needed} bytes at offset {offset:#x} run past the end of the packet ({len:#x} bytes)"
            ),
            OffsetInHeader { offset } => {
                write!(f, "offset {offset:#x} points into the packet header")
            }
            ElementLoop { next, from } => write!(
                f,
                "element chain loops: next {next:#x} from element at {from:#x}"
            ),
            ChainEndsEarly { read, count } => {
                write!(f, "element chain ends after {read} of {count} elements")
            }
            UnterminatedString => {
                f.write_str("string has no terminator before the end of the packet")
            }
            InvalidUtf16 { unit } => write!(f, "invalid UTF-16: unpaired surrogate {unit:#06x}"),
            CountTooLarge {
                count,
                element_size,
                available,
            } => write!(
                f,
                "count {count} of elements of at least {element_size} bytes cannot fit in the {available} bytes left"
            ),
            TrailingBytes { used, len } => write!(
                f,
                "{} trailing bytes after the last field (used {used} of {len})",
                len - used
            ),
            HereMismatch { here, offset } => write!(
                f,
                "element `here` is {here:#x} but the element is at {offset:#x}"
            ),
            ReadLimit { limit } => write!(
                f,
                "offsets lead to more than {limit} bytes of data (shared data read over and over)"
            ),
            LengthMismatch { header, actual } => write!(
                f,
                "header length {header} but the packet has {actual} bytes"
            ),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Inner {
    kind: DecodeErrorKind,
    offset: usize,
    path: ValuePath,
    packet: Option<(Cow<'static, str>, u32)>,
}

/// A packet could not be read: a [`kind`](DecodeError::kind), the byte
/// [`offset`](DecodeError::offset) from the packet's first byte, the field
/// [`path`](DecodeError::path), and the packet's name and version when they are known. `Debug`
/// reads as `Display` does, inside `DecodeError(..)`.
///
/// ```
/// # mod s_example { def_macro::def!("../protocol-defs/data/definitions/S_EXAMPLE.1.def"); }
/// use def_runtime::tera::DecodeErrorKind;
/// use def_runtime::{Options, Packet};
/// use s_example::SExample;
///
/// // The front page's packet, its second element's `here` (at 0x1e) changed from 0x1e to 0x1f.
/// let bytes = [
///     0x28, 0x00, 0x34, 0x12, 0x0e, 0x00, 0x02, 0x00, 0x14, 0x00, 0x07, 0x00, 0x00, 0x00,
///     0x48, 0x00, 0x69, 0x00, 0x00, 0x00, 0x14, 0x00, 0x1e, 0x00, 0x01, 0x00, 0x00, 0x00,
///     0xfe, 0xff, 0x1f, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x04, 0x00,
/// ];
/// let e = SExample::decode(&bytes, Options::new().strict(true)).unwrap_err();
/// assert!(matches!(e.kind(), DecodeErrorKind::HereMismatch { here: 0x1f, offset: 0x1e }));
/// assert_eq!(e.offset(), 0x1e);
/// assert_eq!(e.path().to_string(), "items[1]");
/// assert_eq!(
///     e.to_string(),
///     "S_EXAMPLE v1 at byte 30 (0x1e) in `items[1]`: element `here` is 0x1f but the element is at 0x1e"
/// );
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct DecodeError(Box<Inner>);

impl DecodeError {
    /// An error of `kind` at byte `offset` (from the first byte of the packet).
    #[cold]
    pub(crate) fn new(kind: DecodeErrorKind, offset: usize) -> Self {
        DecodeError(Box::new(Inner {
            kind,
            offset,
            path: ValuePath::default(),
            packet: None,
        }))
    }

    /// What was wrong.
    pub fn kind(&self) -> &DecodeErrorKind {
        &self.0.kind
    }

    /// The byte offset of the fault.
    pub fn offset(&self) -> usize {
        self.0.offset
    }

    /// The packet's name and version, when known.
    pub fn packet(&self) -> Option<(&str, u32)> {
        self.0.packet.as_ref().map(|(n, v)| (&**n, *v))
    }

    /// The field path (`servants[3].name`); the root for the packet as a whole.
    pub fn path(&self) -> &ValuePath {
        &self.0.path
    }

    /// Adds the field it happened in (called as the error travels outwards).
    #[cold]
    pub(crate) fn in_field(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.0.path.push_outer(PathSegment::Field(name.into()));
        self
    }

    /// Adds the array index it happened at.
    #[cold]
    pub(crate) fn at_index(mut self, index: usize) -> Self {
        self.0.path.push_outer(PathSegment::Index(index));
        self
    }

    /// Names the packet.
    #[cold]
    pub(crate) fn in_packet(mut self, name: impl Into<Cow<'static, str>>, version: u32) -> Self {
        self.0.packet = Some((name.into(), version));
        self
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0.packet {
            Some((n, v)) => write!(f, "{} v{v}", Clip(n, clip::NAME))?,
            None => f.write_str("packet")?,
        }
        write_place(f, Some(self.0.offset), &self.0.path)?;
        write!(f, "{}", self.0.kind)
    }
}

impl fmt::Debug for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DecodeError({self})")
    }
}

impl core::error::Error for DecodeError {}

/// What made the encoder refuse a packet.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum EncodeErrorKind {
    /// The packet would be longer than its `uint16` length can say (the reference would wrap).
    PacketTooLarge {
        /// The length it would have.
        len: usize,
    },
    /// An offset would not fit its `uint16` slot.
    OffsetTooLarge {
        /// The offset.
        offset: usize,
    },
    /// A count would not fit its `uint16` slot.
    CountTooLarge {
        /// The count.
        count: usize,
    },
    /// A field the value leaves out (the run-time codec, with `Missing::Error`).
    Missing,
    /// A value that its field cannot hold: of another kind, or out of its range (the run-time
    /// codec). The message says which.
    Invalid(String),
}

impl fmt::Display for EncodeErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use EncodeErrorKind::*;
        match self {
            PacketTooLarge { len } => write!(f, "the packet would be {len} bytes, more than 65535"),
            OffsetTooLarge { offset } => write!(f, "offset {offset} does not fit in 16 bits"),
            CountTooLarge { count } => write!(f, "count {count} does not fit in 16 bits"),
            Missing => f.write_str("missing"),
            Invalid(message) => write!(f, "{}", Clip(message, clip::TEXT)),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct EncodeInner {
    kind: EncodeErrorKind,
    path: ValuePath,
    packet: Option<(Cow<'static, str>, u32)>,
}

/// A packet could not be written: a [`kind`](EncodeError::kind) and the field
/// [`path`](EncodeError::path), the shape of [`DecodeError`] without a byte offset (nothing is
/// written when encoding fails). The 16-bit limits are about the packet as a whole; the run-time
/// codec (`tera::dynamic`, feature `dynamic`) also names the field whose value is missing or
/// does not fit. `Debug` reads as `Display` does, inside `EncodeError(..)`.
///
/// ```
/// # #[cfg(feature = "dynamic")] {
/// use def_runtime::tera::dynamic::{Definition, Missing};
/// use def_runtime::tera::EncodeErrorKind;
/// use def_runtime::Options;
///
/// let text = "array items\n- int32 amount\n";
/// let def = Definition::from_text("S_EXAMPLE.1.def", text, def_parser::Mode::Strict).unwrap();
/// let json = serde_json::json!({ "items": [{ "amount": 1 }, { "amount": "two" }] });
/// let e = def.encode(&json, 0x1234, Options::new(), Missing::Error).unwrap_err();
/// assert!(matches!(e.kind(), EncodeErrorKind::Invalid(_)));
/// assert_eq!(e.path().to_string(), "items[1].amount");
/// assert!(e.to_string().starts_with("cannot encode S_EXAMPLE v1 in `items[1].amount`: "));
/// # }
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct EncodeError(Box<EncodeInner>);

impl EncodeError {
    /// An error of `kind` about the packet as a whole.
    #[cold]
    pub(crate) fn new(kind: EncodeErrorKind) -> Self {
        EncodeError(Box::new(EncodeInner {
            kind,
            path: ValuePath::default(),
            packet: None,
        }))
    }

    /// An error of `kind` about the value at `path`.
    #[cfg(feature = "dynamic")]
    #[cold]
    pub(crate) fn at(kind: EncodeErrorKind, path: ValuePath) -> Self {
        let mut e = EncodeError::new(kind);
        e.0.path = path;
        e
    }

    /// Names the packet.
    #[cold]
    pub(crate) fn in_packet(mut self, name: impl Into<Cow<'static, str>>, version: u32) -> Self {
        self.0.packet = Some((name.into(), version));
        self
    }

    /// What was wrong.
    pub fn kind(&self) -> &EncodeErrorKind {
        &self.0.kind
    }

    /// The field path (`servants[3].name`); the root for the packet as a whole.
    pub fn path(&self) -> &ValuePath {
        &self.0.path
    }

    /// The packet's name and version, when known.
    pub fn packet(&self) -> Option<(&str, u32)> {
        self.0.packet.as_ref().map(|(n, v)| (&**n, *v))
    }
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0.packet {
            Some((n, v)) => write!(f, "cannot encode {} v{v}", Clip(n, clip::NAME))?,
            None => f.write_str("cannot encode the packet")?,
        }
        write_place(f, None, &self.0.path)?;
        write!(f, "{}", self.0.kind)
    }
}

impl fmt::Debug for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "EncodeError({self})")
    }
}

impl core::error::Error for EncodeError {}
