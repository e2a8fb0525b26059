//! The framings the engine puts around a bare encoding, and incremental stream reading.
//!
//! | engine API | on the wire | here |
//! | --- | --- | --- |
//! | `PacketPeer.put_var` (UDP, ENet, WebSocket …) | the bare encoding; the packet is the frame | [`Framing::Packet`] |
//! | `StreamPeer.put_var` (TCP, StreamPeerBuffer …) | `u32` length in the peer's endianness + encoding | [`Framing::StreamPeer`] |
//! | `File.store_var` | `u32` length (big-endian with `endian_swap` / `big_endian`) + encoding | [`Framing::File`] |
//! | `PacketPeerStream.put_var` | `u32` length, **always** little-endian + encoding | [`Framing::PacketPeerStream`] |
//! | `Marshalls.variant_to_base64` | standard base64 (with `=` padding) of the encoding | [`to_base64`] / [`from_base64`] |
//!
//! The payload is little-endian in every case; only the length prefix follows the stream's
//! endianness. Reading a frame decodes exactly its bytes (bytes left inside the frame are
//! ignored, as `get_var` does). [`FrameDecoder`] reads length-prefixed frames from a byte
//! stream in pieces: push what arrived, pull whole values out.

use base64::Engine as _;

use super::decode::{DecodeOptions, decode};
use super::encode::{EncodeOptions, encode_into};
use super::error::{DecodeError, EncodeError};
use super::value::Variant;

/// How a value is framed (see the module table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// `PacketPeer.put_var`: no prefix.
    Packet,
    /// `StreamPeer.put_var`: `u32` length, big-endian when the peer's `big_endian` is set.
    StreamPeer {
        /// The peer's `big_endian` property.
        big_endian: bool,
    },
    /// `File.store_var`: `u32` length, big-endian when `endian_swap` (4.x `big_endian`) is set.
    File {
        /// The file's `endian_swap` / `big_endian` property.
        endian_swap: bool,
    },
    /// `PacketPeerStream.put_var`: little-endian `u32` length whatever the stream's endianness.
    PacketPeerStream,
}

impl Framing {
    /// `Some(big_endian)` for the length-prefixed framings, `None` for [`Framing::Packet`].
    pub fn prefix(self) -> Option<bool> {
        match self {
            Framing::Packet => None,
            Framing::StreamPeer { big_endian } => Some(big_endian),
            Framing::File { endian_swap } => Some(endian_swap),
            Framing::PacketPeerStream => Some(false),
        }
    }
}

/// Errors of framed reading.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FrameError {
    /// The value inside the frame was refused (the frame itself was consumed; the engine's
    /// `get_var` returns null in this case).
    #[error("frame at byte {frame_offset}: {error}")]
    Decode {
        /// Offset of the frame's length prefix in the input / stream.
        frame_offset: usize,
        /// The decoder's error; its offset counts from the start of the frame's payload.
        error: DecodeError,
    },
    /// Fewer bytes than the length prefix (or the prefix itself) needs.
    #[error("frame needs {needed} bytes, {available} available")]
    Truncated {
        /// Bytes needed.
        needed: usize,
        /// Bytes available.
        available: usize,
    },
    /// A length prefix larger than the configured maximum; the stream cannot be resynchronised.
    #[error("frame length {len} exceeds the maximum of {max}")]
    TooLarge {
        /// Announced length.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// Invalid base64 text.
    #[error("invalid base64: {0}")]
    Base64(String),
}

/// Encodes `value` with `framing`.
pub fn encode_framed(
    value: &Variant,
    options: EncodeOptions,
    framing: Framing,
) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::new();
    encode_framed_into(value, options, framing, &mut out)?;
    Ok(out)
}

/// Appends `value` with `framing` to `out` (several calls build a stream of frames).
pub fn encode_framed_into(
    value: &Variant,
    options: EncodeOptions,
    framing: Framing,
    out: &mut Vec<u8>,
) -> Result<(), EncodeError> {
    match framing.prefix() {
        None => encode_into(value, options, out),
        Some(big_endian) => {
            let at = out.len();
            out.extend_from_slice(&[0; 4]);
            if let Err(e) = encode_into(value, options, out) {
                out.truncate(at);
                return Err(e);
            }
            let len = (out.len() - at - 4) as u32;
            let word = if big_endian {
                len.to_be_bytes()
            } else {
                len.to_le_bytes()
            };
            out[at..at + 4].copy_from_slice(&word);
            Ok(())
        }
    }
}

/// `File.store_var(value)`.
pub fn store_var(
    value: &Variant,
    options: EncodeOptions,
    endian_swap: bool,
) -> Result<Vec<u8>, EncodeError> {
    encode_framed(value, options, Framing::File { endian_swap })
}

/// `StreamPeer.put_var(value)`.
pub fn put_var(
    value: &Variant,
    options: EncodeOptions,
    big_endian: bool,
) -> Result<Vec<u8>, EncodeError> {
    encode_framed(value, options, Framing::StreamPeer { big_endian })
}

/// Reads one framed value from the start of `bytes`; returns it and the bytes used (prefix
/// included). For [`Framing::Packet`] `bytes` is the whole packet (trailing bytes ignored).
pub fn decode_framed(
    bytes: &[u8],
    options: DecodeOptions,
    framing: Framing,
) -> Result<(Variant, usize), FrameError> {
    let Some(big_endian) = framing.prefix() else {
        return decode(bytes, options)
            .map(|(v, _)| (v, bytes.len()))
            .map_err(|error| FrameError::Decode {
                frame_offset: 0,
                error,
            });
    };
    let len = read_prefix(bytes, big_endian)?;
    let end = 4usize.saturating_add(len);
    if bytes.len() < end {
        return Err(FrameError::Truncated {
            needed: end,
            available: bytes.len(),
        });
    }
    let (v, _) = decode(&bytes[4..end], options).map_err(|error| FrameError::Decode {
        frame_offset: 0,
        error,
    })?;
    Ok((v, end))
}

fn read_prefix(bytes: &[u8], big_endian: bool) -> Result<usize, FrameError> {
    let Some(word) = bytes.get(..4) else {
        return Err(FrameError::Truncated {
            needed: 4,
            available: bytes.len(),
        });
    };
    let word = [word[0], word[1], word[2], word[3]];
    Ok(if big_endian {
        u32::from_be_bytes(word)
    } else {
        u32::from_le_bytes(word)
    } as usize)
}

/// `Marshalls.variant_to_base64(value)`.
pub fn to_base64(value: &Variant, options: EncodeOptions) -> Result<String, EncodeError> {
    let bytes = super::encode::encode(value, options)?;
    Ok(base64::engine::general_purpose::STANDARD.encode(bytes))
}

/// `Marshalls.base64_to_variant(text, allow_objects)`: standard alphabet with padding.
pub fn from_base64(text: &str, options: DecodeOptions) -> Result<Variant, FrameError> {
    let trimmed = text.trim();
    let lead = text.len() - text.trim_start().len();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(trimmed)
        .map_err(|e| FrameError::Base64(base64_error(e, lead, trimmed.len())))?;
    decode(&bytes, options)
        .map(|(v, _)| v)
        .map_err(|error| FrameError::Decode {
            frame_offset: 0,
            error,
        })
}

/// What is wrong with base64 text, with the byte offset in the caller's text (`lead` bytes of
/// white space were trimmed before the `len` bytes decoded).
fn base64_error(e: base64::DecodeError, lead: usize, len: usize) -> String {
    use base64::DecodeError as E;
    let shown = |b: u8| {
        if b.is_ascii_graphic() {
            format!("'{}'", b as char)
        } else {
            format!("byte 0x{b:02x}")
        }
    };
    match e {
        E::InvalidByte(at, b) => {
            format!(
                "at byte {}: {} is not a base64 character",
                lead + at,
                shown(b)
            )
        }
        E::InvalidLastSymbol(at, b) => format!(
            "at byte {}: last symbol {} leaves bits set that must be zero",
            lead + at,
            shown(b)
        ),
        E::InvalidLength(n) => format!(
            "at byte {}: the text ends inside a 4-character group ({n} base64 characters)",
            lead + len
        ),
        E::InvalidPadding => format!(
            "at byte {}: the text does not end with the `=` padding it needs",
            lead + len
        ),
    }
}

/// Incremental reader of length-prefixed frames (`StreamPeer`, `File`, `PacketPeerStream`).
///
/// ```
/// use def_runtime::godot::{framing::*, DecodeOptions, EncodeOptions, Variant, Version};
/// let enc = EncodeOptions::new(Version::Godot3);
/// let mut stream = put_var(&Variant::Int(42), enc, false).unwrap();
/// stream.extend(put_var(&Variant::string("hi"), enc, false).unwrap());
/// let mut frames = FrameDecoder::new(DecodeOptions::new(Version::Godot3));
/// frames.push(&stream[..5]); // a frame split across reads
/// assert_eq!(frames.next_value().unwrap(), None);
/// frames.push(&stream[5..]); // the rest, plus a whole second frame
/// assert_eq!(frames.next_value().unwrap(), Some(Variant::Int(42)));
/// assert_eq!(frames.next_value().unwrap(), Some(Variant::string("hi")));
/// assert_eq!(frames.next_value().unwrap(), None);
/// ```
#[derive(Debug, Clone)]
pub struct FrameDecoder {
    options: DecodeOptions,
    big_endian: bool,
    max_frame_len: usize,
    buf: Vec<u8>,
    start: usize,
    consumed: usize,
}

impl FrameDecoder {
    /// Default largest frame accepted: 16 MiB.
    pub const DEFAULT_MAX_FRAME_LEN: usize = 16 << 20;

    /// A decoder of little-endian-prefixed frames (`StreamPeer` default, `File` default,
    /// `PacketPeerStream`).
    pub fn new(options: DecodeOptions) -> Self {
        FrameDecoder {
            options,
            big_endian: false,
            max_frame_len: Self::DEFAULT_MAX_FRAME_LEN,
            buf: Vec::new(),
            start: 0,
            consumed: 0,
        }
    }

    /// A decoder for `framing`'s prefix (big-endian for `StreamPeer { big_endian: true }` and
    /// `File { endian_swap: true }`). [`Framing::Packet`] has no prefix and is read like
    /// `PacketPeerStream`'s little-endian one.
    pub fn with_framing(options: DecodeOptions, framing: Framing) -> Self {
        let mut d = FrameDecoder::new(options);
        d.big_endian = framing.prefix().unwrap_or(false);
        d
    }

    /// Sets the largest frame accepted (a longer prefix is [`FrameError::TooLarge`]); the
    /// engine's `PacketPeerStream` buffers default to 64 KiB.
    pub fn max_frame_len(mut self, max: usize) -> Self {
        self.max_frame_len = max;
        self
    }

    /// Appends bytes received from the stream.
    pub fn push(&mut self, bytes: &[u8]) {
        if self.start > 0 && self.start >= self.buf.len() / 2 {
            self.buf.drain(..self.start);
            self.start = 0;
        }
        self.buf.extend_from_slice(bytes);
    }

    /// Bytes buffered but not yet returned as values.
    pub fn buffered(&self) -> usize {
        self.buf.len() - self.start
    }

    /// The next whole value, `Ok(None)` if more bytes are needed. A frame whose value is
    /// refused is consumed and reported as [`FrameError::Decode`]; reading may go on. A
    /// [`FrameError::TooLarge`] prefix is not consumed: the stream is out of step.
    pub fn next_value(&mut self) -> Result<Option<Variant>, FrameError> {
        let avail = &self.buf[self.start..];
        if avail.len() < 4 {
            return Ok(None);
        }
        let len = read_prefix(avail, self.big_endian)?;
        if len > self.max_frame_len {
            return Err(FrameError::TooLarge {
                len,
                max: self.max_frame_len,
            });
        }
        if avail.len() - 4 < len {
            return Ok(None);
        }
        let frame_offset = self.consumed;
        let result = decode(&avail[4..4 + len], self.options);
        self.start += 4 + len;
        self.consumed += 4 + len;
        match result {
            Ok((v, _)) => Ok(Some(v)),
            Err(error) => Err(FrameError::Decode {
                frame_offset,
                error,
            }),
        }
    }
}
