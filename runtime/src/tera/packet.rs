//! The [`Packet`] trait: a whole message with its header.

use alloc::vec::Vec;

use super::error::{DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind};
use super::wire::{Level, Options, Reader, Writer};

/// A TERA message type generated from one `.def` file.
pub trait Packet: Level {
    /// The message name (`S_LOGIN`).
    const NAME: &'static str;
    /// The definition version (`14` for `S_LOGIN.14.def`).
    const VERSION: u32;
    /// The padding the protocol fixes for this message, if it fixes one: every entry point
    /// (`decode`, `encode`, the views) then reads and writes with it whatever the `padding` of
    /// the options passed in. The generator gives `Some(true)` to the messages a protocol pads
    /// (`Config::padding_messages`, a protocol crate's padded opcodes); `None`, the default:
    /// the options decide.
    const PADDING: Option<bool> = None;

    /// `opts` with this message's padding when its protocol fixes it ([`Packet::PADDING`]).
    fn options(opts: Options) -> Options {
        match Self::PADDING {
            Some(p) => opts.padding(p),
            None => opts,
        }
    }

    /// Reads a whole packet, header included (the opcode is not checked), with the padding of
    /// [`Packet::options`].
    fn decode(bytes: &[u8], opts: Options) -> Result<Self, DecodeError> {
        decode_packet::<Self>(bytes, Self::options(opts))
            .map_err(|e| e.in_packet(Self::NAME, Self::VERSION))
    }

    /// Writes a whole packet with `opcode` in its header, with the padding of
    /// [`Packet::options`].
    fn encode(&self, opcode: u16, opts: Options) -> Result<Vec<u8>, EncodeError> {
        let mut out = Vec::new();
        self.encode_into(opcode, opts, &mut out)?;
        Ok(out)
    }

    /// Appends the packet to `out` (so that a proxy can reuse one buffer).
    fn encode_into(
        &self,
        opcode: u16,
        opts: Options,
        out: &mut Vec<u8>,
    ) -> Result<(), EncodeError> {
        let opts = Self::options(opts);
        let start = out.len();
        // Through `dyn`: one copy of the framing for every message type, not one each (the
        // indirect call is once a packet).
        encode_whole::<EncodeError>(opcode, opts, out, &mut |w: &mut Writer| {
            self.encode_level(w);
            Ok(())
        })
        .map_err(|e| e.in_packet(Self::NAME, Self::VERSION))?;
        debug_assert_eq!(out.len() - start, self.encoded_len(opts));
        Ok(())
    }

    /// Bytes the packet takes, header included.
    fn encoded_len(&self, opts: Options) -> usize {
        Self::options(opts).body_offset() + self.level_len()
    }
}

fn decode_packet<P: Level>(bytes: &[u8], opts: Options) -> Result<P, DecodeError> {
    decode_whole(bytes, opts, P::decode_level)
}

/// The checks around a whole packet, shared by generated code and the dynamic codec: the header
/// is there, and in strict mode its length is the packet's and no byte is left over; `body`
/// reads the body.
pub(crate) fn decode_whole<T>(
    bytes: &[u8],
    opts: Options,
    body: impl FnOnce(&mut Reader<'_>) -> Result<T, DecodeError>,
) -> Result<T, DecodeError> {
    let body_start = opts.body_offset();
    if bytes.len() < body_start {
        return Err(DecodeError::new(
            DecodeErrorKind::Truncated {
                needed: body_start,
                available: bytes.len(),
            },
            0,
        )
        .in_field("header"));
    }
    if opts.strict {
        check_length(bytes)?;
    }
    let mut r = Reader::new(bytes, opts);
    let p = body(&mut r)?;
    if opts.strict && r.furthest() != bytes.len() {
        return Err(DecodeError::new(
            DecodeErrorKind::TrailingBytes {
                used: r.furthest(),
                len: bytes.len(),
            },
            r.furthest(),
        ));
    }
    Ok(p)
}

/// The framing around a whole packet, shared by generated code and the dynamic codec: the header
/// (its length patched once the packet is written: a walk to count the length first cost a fifth
/// of encoding time), the padding, then `body`; the packet is appended to `out`. On any error
/// (`body`'s, a packet over 65535 bytes, an offset or count that overflowed) `out` is left as it
/// was.
#[inline]
pub(crate) fn encode_whole<E: From<EncodeError>>(
    opcode: u16,
    opts: Options,
    out: &mut Vec<u8>,
    body: &mut dyn FnMut(&mut Writer) -> Result<(), E>,
) -> Result<(), E> {
    let start = out.len();
    let mut w = Writer::from_vec(core::mem::take(out));
    let (_, h) = w.run::<4>();
    h[2..].copy_from_slice(&opcode.to_le_bytes());
    if opts.padding {
        w.run::<8>();
    }
    let written = body(&mut w);
    let len = w.len() - start;
    let (mut buf, overflow) = w.into_parts();
    let result = written.and_then(|()| {
        if len > 0xffff {
            Err(EncodeError::new(EncodeErrorKind::PacketTooLarge { len }).into())
        } else if let Some(e) = overflow {
            Err(e.into())
        } else {
            buf[start..start + 2].copy_from_slice(&(len as u16).to_le_bytes());
            Ok(())
        }
    });
    if result.is_err() {
        buf.truncate(start);
    }
    *out = buf;
    result
}

/// The opcode in a packet's header, if it has one.
pub fn opcode(bytes: &[u8]) -> Option<u16> {
    Some(u16::from_le_bytes([*bytes.get(2)?, *bytes.get(3)?]))
}

/// The opcode of `bytes` if they are exactly one packet: fewer than 4 bytes is `Truncated` in the
/// field `header`, a header length other than `bytes.len()` is `LengthMismatch`, both at offset
/// 0. What a protocol's `Packet::decode` checks before choosing the message by its opcode.
pub fn whole_opcode(bytes: &[u8]) -> Result<u16, DecodeError> {
    let Some(opcode) = opcode(bytes) else {
        return Err(DecodeError::new(
            DecodeErrorKind::Truncated {
                needed: 4,
                available: bytes.len(),
            },
            0,
        )
        .in_field("header"));
    };
    check_length(bytes)?;
    Ok(opcode)
}

/// The header's length is the packet's (`bytes` holds at least the 2 bytes of the length).
pub(crate) fn check_length(bytes: &[u8]) -> Result<(), DecodeError> {
    let header = u16::from_le_bytes([bytes[0], bytes[1]]) as usize;
    if header != bytes.len() {
        return Err(DecodeError::new(
            DecodeErrorKind::LengthMismatch {
                header,
                actual: bytes.len(),
            },
            0,
        ));
    }
    Ok(())
}

/// A packet of any definition, behind a pointer: for tools and tables that handle many message
/// types (benchmarks, dispatch tables built at run time).
pub trait DynPacket: core::fmt::Debug {
    /// The message name.
    fn name(&self) -> &'static str;
    /// The definition version.
    fn version(&self) -> u32;
    /// Appends the packet to `out`.
    fn encode_into(&self, opcode: u16, opts: Options, out: &mut Vec<u8>)
    -> Result<(), EncodeError>;
    /// Bytes the packet takes, header included.
    fn encoded_len(&self, opts: Options) -> usize;
}

impl<P: Packet + core::fmt::Debug> DynPacket for P {
    fn name(&self) -> &'static str {
        P::NAME
    }
    fn version(&self) -> u32 {
        P::VERSION
    }
    fn encode_into(
        &self,
        opcode: u16,
        opts: Options,
        out: &mut Vec<u8>,
    ) -> Result<(), EncodeError> {
        Packet::encode_into(self, opcode, opts, out)
    }
    fn encoded_len(&self, opts: Options) -> usize {
        Packet::encoded_len(self, opts)
    }
}

/// Decodes a `P` and boxes it (a function pointer per definition for tables).
pub fn decode_boxed<P: Packet + core::fmt::Debug + 'static>(
    bytes: &[u8],
    opts: Options,
) -> Result<alloc::boxed::Box<dyn DynPacket>, DecodeError> {
    Ok(alloc::boxed::Box::new(P::decode(bytes, opts)?))
}

/// Decodes a `P` and drops it: whether the bytes are a valid `P`.
pub fn validate<P: Packet>(bytes: &[u8], opts: Options) -> Result<(), DecodeError> {
    P::decode(bytes, opts).map(drop)
}
