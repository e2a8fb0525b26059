//! Splitting a TERA byte stream (a TCP connection, a capture file) into whole packets.
//!
//! Every TERA packet opens with a 4-byte header: its total length (header included) as a
//! little-endian `u16`, then its opcode (LAYOUT.md). The length is all framing needs, so the
//! splitters here never look past it; decoding is the caller's business, one packet at a time.
//!
//! * [`packets`]: an iterator over a complete byte slice, allocation-free, for files and captures;
//! * [`Splitter`]: push bytes as they arrive, pull whole packets as slices of its buffer (no copy
//!   per packet);
//! * [`relay`] (and [`Splitter::relay`]): the proxy loop itself — each packet shown to a hook
//!   that may patch it in place or drop it, the forwarded ones copied to an output buffer in
//!   runs rather than one call each;
//! * `TeraCodec` (feature `tokio`): a `tokio_util::codec` `Decoder`/`Encoder` pair, for
//!   `FramedRead`/`FramedWrite` over a socket.
//!
//! A header whose length is below 4 is a [`FrameError::BadLength`] with the stream offset of that
//! header. Nothing in a TERA stream marks where the next packet would start, so **after such an
//! error the stream cannot be split any further**: every splitter here keeps returning the same
//! error (or ends), and the connection should be dropped. A packet cut off by the end of the
//! stream is not an error while more bytes may come; [`Splitter::finish`], the end of
//! [`packets`] and the codec's `decode_eof` report it as [`FrameError::Incomplete`].
//!
//! ```
//! use def_runtime::tera::framing::{FrameError, Splitter, packets};
//!
//! // Two packets (lengths 6 and 4, opcodes 0x1234 and 0x0007), then 3 bytes of a third.
//! let stream = [6, 0, 0x34, 0x12, 0xaa, 0xbb, 4, 0, 7, 0, 9, 0, 1];
//!
//! // Bytes as a socket might deliver them, in arbitrary chunks.
//! let mut split = Splitter::new();
//! let mut opcodes = Vec::new();
//! for chunk in [&stream[..3], &stream[3..9], &stream[9..]] {
//!     split.push(chunk);
//!     while let Some(packet) = split.next_packet() {
//!         let packet = packet?; // a length below 4: drop the connection
//!         opcodes.push(def_runtime::tera::opcode(packet).unwrap());
//!     }
//! }
//! assert_eq!(opcodes, [0x1234, 0x0007]);
//! // End of stream: 3 bytes of a packet whose header says 9.
//! assert_eq!(
//!     split.finish(),
//!     Err(FrameError::Incomplete { offset: 10, available: 3, needed: 9 })
//! );
//!
//! // The same stream as one slice.
//! let all: Vec<_> = packets(&stream).collect();
//! assert_eq!(all[0], Ok(&stream[..6]));
//! assert_eq!(all[1], Ok(&stream[6..10]));
//! assert!(matches!(all[2], Err(FrameError::Incomplete { offset: 10, .. })));
//! assert_eq!(all.len(), 3);
//! # Ok::<(), FrameError>(())
//! ```

use alloc::vec::Vec;

/// Bytes of the packet header: `u16` length, `u16` opcode.
pub const HEADER_LEN: usize = 4;

/// The largest packet: its length must fit the header's `u16`.
pub const MAX_PACKET_LEN: usize = u16::MAX as usize;

/// Why a stream could not be split.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FrameError {
    /// A header gives a length below the 4 bytes of the header itself. The stream cannot be
    /// split after this: where the next packet starts is unknown.
    #[error(
        "packet header at stream offset {offset} gives length {length}, below the 4-byte header; the stream cannot be split further"
    )]
    BadLength {
        /// Stream offset of the header (bytes before it, counted from the first byte pushed).
        offset: u64,
        /// The length the header gives (0 to 3).
        length: u16,
    },
    /// The stream ended inside a packet.
    #[error("stream ends inside a packet at stream offset {offset}: {available} bytes of {needed}")]
    Incomplete {
        /// Stream offset of the packet.
        offset: u64,
        /// Bytes of it that arrived.
        available: usize,
        /// Bytes it needs: its header's length, or 4 when not even the length's 2 bytes came.
        needed: usize,
    },
    /// [`Splitter::finish`] was called with a whole packet still to pull: a caller's mistake,
    /// not the stream's.
    #[error("stream ends with a whole packet of {len} bytes at stream offset {offset} not pulled")]
    Unpulled {
        /// Stream offset of the packet.
        offset: u64,
        /// Its length.
        len: usize,
    },
}

/// What the bytes at the front of a stream hold.
enum Front {
    /// A whole packet of this many bytes.
    Packet(usize),
    /// Not a whole packet yet: this many bytes are needed (4 while the header is cut).
    Partial(usize),
    /// A header with a length below 4.
    Bad(u16),
}

/// The length is read as soon as its 2 bytes are there, so a bad one is reported, and a
/// packet's full size known, before the opcode arrives.
#[inline]
fn front(bytes: &[u8]) -> Front {
    let [a, b, ..] = *bytes else {
        return Front::Partial(HEADER_LEN);
    };
    let length = u16::from_le_bytes([a, b]);
    let len = usize::from(length);
    if len < HEADER_LEN {
        Front::Bad(length)
    } else if len > bytes.len() {
        Front::Partial(len)
    } else {
        Front::Packet(len)
    }
}

/// How far ahead of the packet being split [`prefetch`] asks for the stream's bytes: about 80
/// packets of the public vectors, well over a memory latency's worth of splitting (2048, 4096
/// and 8192 were measured; 1024 was short of it).
const PREFETCH_AHEAD: usize = 4096;

/// Asks the CPU to start loading the cache line [`PREFETCH_AHEAD`] bytes past the start of
/// `rest`, if `rest` reaches that far (nothing past the bytes given is fetched).
///
/// Finding the next packet is a load whose address depends on the previous packet's length, so
/// the CPU cannot run ahead of a stream that is not in cache; over 64 MiB of packets
/// (`cargo bench -p def-runtime --bench framing`) the split alone took about a third less time
/// with it. A prefetch is a hint: it reads nothing into the program and cannot fault.
#[inline(always)]
fn prefetch(rest: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    if let Some(ahead) = rest.get(PREFETCH_AHEAD) {
        use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: the pointer comes from a reference to a byte of `rest`, and a prefetch does
        // not access memory as far as the program is concerned.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(core::ptr::from_ref(ahead).cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = rest;
}

/// The error for `rest` left at `offset` when the stream ends (`None` if nothing is left).
fn at_end(rest: &[u8], offset: u64) -> Option<FrameError> {
    match front(rest) {
        _ if rest.is_empty() => None,
        Front::Bad(length) => Some(FrameError::BadLength { offset, length }),
        Front::Packet(len) => Some(FrameError::Unpulled { offset, len }),
        Front::Partial(needed) => Some(FrameError::Incomplete {
            offset,
            available: rest.len(),
            needed,
        }),
    }
}

/// The packets of a complete byte slice, each a subslice of it (no allocation).
///
/// Bytes left at the end that do not make a whole packet are reported once, as
/// [`FrameError::Incomplete`]; a length below 4 is reported as [`FrameError::BadLength`] and
/// ends the iteration. Offsets in errors count from the start of `bytes`.
pub fn packets(bytes: &[u8]) -> Packets<'_> {
    Packets {
        rest: bytes,
        offset: 0,
    }
}

/// The iterator of [`packets`].
#[derive(Debug, Clone)]
pub struct Packets<'a> {
    rest: &'a [u8],
    offset: u64,
}

impl<'a> Packets<'a> {
    /// The bytes not split yet.
    pub fn remainder(&self) -> &'a [u8] {
        self.rest
    }

    /// Offset of [`remainder`](Self::remainder) in the slice.
    pub fn offset(&self) -> u64 {
        self.offset
    }
}

impl<'a> Packets<'a> {
    /// The end of the iteration: the error for the bytes left, reported once. Out of line and
    /// cold, so that the per-packet path of [`next`](Iterator::next) inlines into the caller's
    /// loop (a call per packet, returning the large `Result` through memory, was most of what
    /// splitting cost).
    #[cold]
    #[inline(never)]
    fn end(&mut self) -> Option<Result<&'a [u8], FrameError>> {
        let err = at_end(self.rest, self.offset)?;
        // Fused: the error is reported once, then the iteration ends.
        self.offset += self.rest.len() as u64;
        self.rest = &[];
        Some(Err(err))
    }
}

impl<'a> Iterator for Packets<'a> {
    type Item = Result<&'a [u8], FrameError>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        prefetch(self.rest);
        if let Front::Packet(len) = front(self.rest) {
            let (packet, rest) = self.rest.split_at(len);
            self.rest = rest;
            self.offset += len as u64;
            return Some(Ok(packet));
        }
        self.end()
    }
}

impl core::iter::FusedIterator for Packets<'_> {}

/// What a [`relay`] hook decides for a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Forward the packet, as the hook left it (a change made in place is forwarded).
    Forward,
    /// Leave the packet out of the output.
    Drop,
}

/// A run of forwarded packets is copied to the output once it reaches this many bytes: small
/// enough that the run is still in the L1/L2 cache the split just brought it into, large enough
/// that the copy call's fixed cost is spread over hundreds of packets.
const RUN_BYTES: usize = 32 * 1024;

/// The proxy loop: splits the whole packets at the front of `input`, shows each to `hook`
/// (which may change it in place, e.g. through a mutable view), and appends every packet the
/// hook forwards to `out`, in order. Returns the bytes of whole packets consumed; the rest of
/// `input` (a packet cut off by the end of what arrived) is for the caller to keep for the
/// next read.
///
/// Decision: forwarded packets are not copied one by one but in runs of consecutive packets
/// (up to 32 KiB each, and always ended by a dropped packet), so the output is byte for byte
/// what a copy per packet gives, for a fraction of the calls; every forwarded packet is copied
/// after its hook ran, so in-place changes reach the output. A hook that must replace a packet
/// by bytes of another length drops it here and is better written over [`packets`] or
/// [`Splitter::next_packet`] directly.
///
/// A length below 4 is a [`FrameError::BadLength`] (offset counted from the start of `input`),
/// after the packets before it were relayed; the stream cannot be split further.
///
/// ```
/// use def_runtime::tera::framing::{Verdict, relay};
///
/// // Three packets (opcodes 1, 2, 3), then 2 bytes of a fourth.
/// let mut input = vec![5, 0, 1, 0, 10, 5, 0, 2, 0, 20, 4, 0, 3, 0, 9, 0];
/// let mut out = Vec::new();
/// let consumed = relay(&mut input, &mut out, |p| match p[2] {
///     1 => {
///         p[4] += 1; // patched in place, then forwarded
///         Verdict::Forward
///     }
///     2 => Verdict::Drop,
///     _ => Verdict::Forward,
/// })?;
/// assert_eq!(consumed, 14);
/// assert_eq!(out, [5, 0, 1, 0, 11, 4, 0, 3, 0]);
/// # Ok::<(), def_runtime::tera::framing::FrameError>(())
/// ```
pub fn relay<F>(input: &mut [u8], out: &mut Vec<u8>, mut hook: F) -> Result<usize, FrameError>
where
    F: FnMut(&mut [u8]) -> Verdict,
{
    // `at`: the next packet; `run`: the first byte forwarded and not copied yet.
    let (mut at, mut run) = (0, 0);
    while let [a, b, ..] = input[at..] {
        let len = usize::from(u16::from_le_bytes([a, b]));
        if len < HEADER_LEN {
            out.extend_from_slice(&input[run..at]);
            return Err(bad_length(at, len));
        }
        prefetch(&input[at..]);
        let end = at + len;
        let Some(packet) = input.get_mut(at..end) else {
            break;
        };
        if hook(packet) == Verdict::Drop {
            out.extend_from_slice(&input[run..at]);
            run = end;
        } else if end - run >= RUN_BYTES {
            out.extend_from_slice(&input[run..end]);
            run = end;
        }
        at = end;
    }
    out.extend_from_slice(&input[run..at]);
    Ok(at)
}

#[cold]
fn bad_length(offset: usize, len: usize) -> FrameError {
    FrameError::BadLength {
        offset: offset as u64,
        length: len as u16,
    }
}

/// A push/pull splitter for bytes arriving in chunks: [`push`](Self::push) what the socket
/// gave, then call [`next_packet`](Self::next_packet) until it returns `None`.
///
/// Packets are slices of the splitter's own buffer (it copies each pushed byte once, into the
/// buffer; a packet is then lent, not copied). The lending borrow ends before the next `push`.
/// Decision: an owned buffer rather than borrowing the caller's, because socket reads cut
/// packets anywhere and a packet split across two reads must be joined somewhere; bytes already
/// whole in memory (a capture file) go through [`packets`], which copies nothing.
///
/// **Memory.** The buffer holds the bytes pushed and not yet pulled, plus already-pulled bytes
/// that `push` has not dropped yet: a (non-empty) `push` first moves the unpulled bytes to the
/// front whenever the pulled ones are at least as many, so right after a push the pulled bytes
/// kept are fewer than those that were unpulled before it. A reader that pulls every whole
/// packet after each push has less than one packet (at most 65535 bytes) unpulled at that point,
/// so right after each push its buffer holds less than one maximal packet beyond the bytes not
/// yet pulled; pulls never grow it (`Vec`'s growth policy comes on top). Each moved byte is paid
/// for by at least one pulled byte that is dropped, so the moves cost
/// linear time in the stream's length, whatever the chunk sizes.
///
/// **Errors.** A length below 4 makes every later `next_packet` return the same
/// [`FrameError::BadLength`], and `push` then drops what it is given: the stream cannot be
/// resynchronised, drop the connection.
#[derive(Debug, Clone, Default)]
pub struct Splitter {
    buf: Vec<u8>,
    /// Bytes of `buf` already pulled.
    start: usize,
    /// Stream offset of `buf[start]`.
    offset: u64,
    failed: Option<FrameError>,
}

impl Splitter {
    /// An empty splitter (no allocation until the first push).
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends bytes that arrived (an empty push does nothing). After a
    /// [`FrameError::BadLength`] they are dropped.
    pub fn push(&mut self, bytes: &[u8]) {
        if self.failed.is_some() || bytes.is_empty() {
            return;
        }
        let unpulled = self.buf.len() - self.start;
        if self.start > 0 && self.start >= unpulled {
            self.buf.copy_within(self.start.., 0);
            self.buf.truncate(unpulled);
            self.start = 0;
        }
        self.buf.extend_from_slice(bytes);
    }

    /// The next whole packet, header included, as a slice of the buffer; `None` until more bytes
    /// are pushed. After an `Err`, every call returns the same error.
    pub fn next_packet(&mut self) -> Option<Result<&[u8], FrameError>> {
        if let Some(err) = &self.failed {
            return Some(Err(err.clone()));
        }
        match front(&self.buf[self.start..]) {
            Front::Packet(len) => {
                let at = self.start;
                self.start += len;
                self.offset += len as u64;
                Some(Ok(&self.buf[at..at + len]))
            }
            Front::Partial(_) => None,
            Front::Bad(length) => {
                let err = FrameError::BadLength {
                    offset: self.offset,
                    length,
                };
                self.failed = Some(err.clone());
                Some(Err(err))
            }
        }
    }

    /// [`relay`] over the whole packets buffered: each shown to `hook`, the forwarded ones
    /// appended to `out`; the cut-off packet at the end stays for the next push. After a
    /// [`FrameError::BadLength`] (offset counted from the first byte pushed) every later call
    /// returns it, as [`next_packet`](Self::next_packet) does.
    pub fn relay<F>(&mut self, out: &mut Vec<u8>, hook: F) -> Result<(), FrameError>
    where
        F: FnMut(&mut [u8]) -> Verdict,
    {
        if let Some(err) = &self.failed {
            return Err(err.clone());
        }
        let (consumed, err) = match relay(&mut self.buf[self.start..], out, hook) {
            Ok(n) => (n, None),
            Err(FrameError::BadLength { offset, length }) => (
                offset as usize,
                Some(FrameError::BadLength {
                    offset: self.offset + offset,
                    length,
                }),
            ),
            Err(other) => return Err(other),
        };
        self.start += consumed;
        self.offset += consumed as u64;
        match err {
            None => Ok(()),
            Some(err) => {
                self.failed = Some(err.clone());
                Err(err)
            }
        }
    }

    /// The end of the stream, once [`next_packet`](Self::next_packet) returned `None`: `Ok` if
    /// it ended between packets, else the [`FrameError::Incomplete`] packet left, or the
    /// [`FrameError::BadLength`] met before ([`FrameError::Unpulled`] if a whole packet is
    /// still there to pull).
    pub fn finish(&self) -> Result<(), FrameError> {
        if let Some(err) = &self.failed {
            return Err(err.clone());
        }
        match at_end(&self.buf[self.start..], self.offset) {
            None => Ok(()),
            Some(err) => Err(err),
        }
    }

    /// Bytes pushed and not pulled yet.
    pub fn buffered(&self) -> usize {
        self.buf.len() - self.start
    }

    /// Stream offset of the next packet (bytes pulled so far).
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Bytes the buffer holds, pulled ones not dropped yet included (for memory accounting).
    pub fn buffer_len(&self) -> usize {
        self.buf.len()
    }
}

#[cfg(feature = "tokio")]
pub use codec::{CodecError, TeraCodec};

#[cfg(feature = "tokio")]
mod codec {
    use bytes::{BufMut, BytesMut};
    use tokio_util::codec::{Decoder, Encoder};

    use super::{FrameError, Front, HEADER_LEN, at_end, front};

    /// A `tokio_util::codec` pair for TERA streams (feature `tokio`).
    ///
    /// As a [`Decoder`] it yields each whole packet as a [`BytesMut`] split off the read buffer
    /// (no copy), and reserves room for the rest of a packet whose header has arrived. As an
    /// [`Encoder`] of `&[u8]` or `BytesMut` it writes a whole packet after checking that its
    /// header's length is its length. After a [`FrameError::BadLength`] the decoder keeps
    /// returning it.
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use def_runtime::tera::framing::TeraCodec;
    /// use tokio_util::codec::{Decoder, Encoder};
    ///
    /// let mut codec = TeraCodec::new();
    /// let mut wire = BytesMut::new();
    /// codec.encode(&[5u8, 0, 1, 0, 42][..], &mut wire)?;
    /// let packet = codec.decode(&mut wire)?.unwrap();
    /// assert_eq!(&packet[..], [5, 0, 1, 0, 42]);
    /// assert!(wire.is_empty());
    /// # Ok::<(), def_runtime::tera::framing::CodecError>(())
    /// ```
    #[derive(Debug, Clone, Default)]
    pub struct TeraCodec {
        /// Stream offset of the next packet to decode.
        offset: u64,
        failed: Option<FrameError>,
    }

    impl TeraCodec {
        /// A codec at stream offset 0.
        pub fn new() -> Self {
            Self::default()
        }

        /// Stream offset of the next packet to decode (bytes decoded so far).
        pub fn offset(&self) -> u64 {
            self.offset
        }
    }

    /// An error of [`TeraCodec`].
    #[derive(Debug, thiserror::Error)]
    #[non_exhaustive]
    pub enum CodecError {
        /// The stream could not be split.
        #[error(transparent)]
        Frame(#[from] FrameError),
        /// A packet to encode has fewer than 4 bytes, or a header length other than its length.
        #[error("packet to encode is {actual} bytes but its header gives {header:?}")]
        LengthMismatch {
            /// The header's length (`None` if the packet has fewer than 4 bytes).
            header: Option<u16>,
            /// The packet's length.
            actual: usize,
        },
        /// Reading or writing the underlying stream failed.
        #[error(transparent)]
        Io(#[from] std::io::Error),
    }

    impl Decoder for TeraCodec {
        type Item = BytesMut;
        type Error = CodecError;

        fn decode(&mut self, src: &mut BytesMut) -> Result<Option<BytesMut>, CodecError> {
            if let Some(err) = &self.failed {
                return Err(err.clone().into());
            }
            match front(src) {
                Front::Packet(len) => {
                    self.offset += len as u64;
                    Ok(Some(src.split_to(len)))
                }
                Front::Partial(needed) => {
                    src.reserve(needed - src.len());
                    Ok(None)
                }
                Front::Bad(length) => {
                    let err = FrameError::BadLength {
                        offset: self.offset,
                        length,
                    };
                    self.failed = Some(err.clone());
                    Err(err.into())
                }
            }
        }

        fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<BytesMut>, CodecError> {
            if let Some(packet) = self.decode(src)? {
                return Ok(Some(packet));
            }
            match at_end(src, self.offset) {
                None => Ok(None),
                Some(err) => {
                    src.clear();
                    Err(err.into())
                }
            }
        }
    }

    fn check(packet: &[u8]) -> Result<(), CodecError> {
        let header = match *packet {
            [a, b, _, _, ..] => Some(u16::from_le_bytes([a, b])),
            _ => None,
        };
        match header {
            Some(h) if usize::from(h) == packet.len() && packet.len() >= HEADER_LEN => Ok(()),
            _ => Err(CodecError::LengthMismatch {
                header,
                actual: packet.len(),
            }),
        }
    }

    impl Encoder<&[u8]> for TeraCodec {
        type Error = CodecError;

        fn encode(&mut self, packet: &[u8], dst: &mut BytesMut) -> Result<(), CodecError> {
            check(packet)?;
            dst.put_slice(packet);
            Ok(())
        }
    }

    impl Encoder<BytesMut> for TeraCodec {
        type Error = CodecError;

        fn encode(&mut self, packet: BytesMut, dst: &mut BytesMut) -> Result<(), CodecError> {
            self.encode(&packet[..], dst)
        }
    }
}
