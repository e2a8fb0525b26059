//! Compression around NBT: detection, size-limited decompression, compression on write.
//!
//! Files are gzip (`1f 8b`), zlib (`78 01/5e/9c/da`) or plain; region chunks add raw
//! and LZ4. Decompression stops at a configurable size limit (a bomb fails with
//! [`NbtErrorKind::DecompressLimit`] after producing at most that much), and a stream that ends
//! early (no checksum, cut off) still yields what it decoded: the NBT parser decides whether that
//! is complete, as Minecraft does.

use std::io::{Read, Write};

use super::error::{NbtError, NbtErrorKind, Result};

/// A compression scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Compression {
    /// Plain bytes.
    #[default]
    None,
    /// gzip (RFC 1952).
    Gzip,
    /// zlib (RFC 1950).
    Zlib,
    /// LZ4 in lz4-java's `LZ4BlockOutputStream` framing, as Minecraft writes region chunks with
    /// compression id 4 (24w04a+). Block checksums are written but not verified on read.
    Lz4,
}

impl Compression {
    /// Guesses from the first bytes: gzip magic, a zlib header, else none.
    pub fn detect(data: &[u8]) -> Compression {
        match data {
            [0x1f, 0x8b, ..] => Compression::Gzip,
            [0x78, 0x01 | 0x5e | 0x9c | 0xda, ..] => Compression::Zlib,
            _ => Compression::None,
        }
    }

    /// The lowercase name used in dumps (`"gzip"`, `"zlib"`, `"none"`, `"lz4"`).
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Gzip => "gzip",
            Compression::Zlib => "zlib",
            Compression::Lz4 => "lz4",
        }
    }
}

/// Output of [`decompress`].
#[derive(Debug)]
pub struct Decompressed {
    /// The bytes decoded.
    pub data: Vec<u8>,
    /// Whether the stream ended properly (trailer and checksum read); `false` if it was cut off
    /// or broken after `data`.
    pub complete: bool,
    /// The decoder's complaint when `complete` is false.
    pub error: Option<String>,
}

/// Decompresses `data` (not for [`Compression::None`], which gives the bytes back), producing at
/// most `limit` bytes.
///
/// The output buffer is sized before it is filled, never grown by doubling, so decompression
/// holds at most the bytes it returns plus a constant, never a `Vec`'s doubled capacity or its
/// old and new buffers at once; a bomb fails having held only the constant:
/// * gzip: the size the file's own trailer gives (RFC 1952's `ISIZE`) sizes the buffer when it
///   is believable (over 256 KiB, within the limit, and at most 1,032 times the input, deflate's
///   greatest ratio), and the stream is inflated once into it. A stream that does not end there
///   (a multi-member file, a false field) is inflated again as below; one that ends early keeps
///   the spare room, at most that 1,032 times the input.
/// * otherwise, output up to 256 KiB is collected as it comes; longer output is inflated once to
///   count its bytes (into a small scratch buffer, stopping at the limit) and again into a buffer
///   of exactly that size.
/// * LZ4 reads the sizes from its block headers.
pub fn decompress(data: &[u8], how: Compression, limit: usize) -> Result<Decompressed> {
    match how {
        Compression::None => {
            if data.len() > limit {
                return Err(NbtError::from(NbtErrorKind::DecompressLimit { limit }));
            }
            Ok(Decompressed {
                data: data.to_vec(),
                complete: true,
                error: None,
            })
        }
        // `bufread` decoders read the input in place (the `read` ones copy it through a
        // 32 KiB buffer of their own first).
        Compression::Gzip => {
            let open = || flate2::bufread::GzDecoder::new(data);
            match gzip_size(data, limit) {
                Some(size) => match inflate_sized(open(), size)? {
                    Some(done) => Ok(done),
                    None => drain(open, limit),
                },
                None => drain(open, limit),
            }
        }
        Compression::Zlib => drain(|| flate2::bufread::ZlibDecoder::new(data), limit),
        Compression::Lz4 => lz4_blocks(data, limit),
    }
}

/// Output up to this size is collected in a `Vec` that grows as usual (so at most this much is
/// spare capacity or copied while it grows); longer output is counted first and then inflated
/// into an exact buffer. Most region chunks inflate to less, and take one pass.
const GROW_FREELY: usize = 256 << 10;

/// Size of the scratch buffer the counting pass inflates into.
const SCRATCH: usize = 32 << 10;

/// One read, retried when interrupted; `Err` is the decoder's complaint.
fn read_some(r: &mut impl Read, buf: &mut [u8]) -> std::result::Result<usize, String> {
    loop {
        match r.read(buf) {
            Ok(n) => return Ok(n),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e.to_string()),
        }
    }
}

/// The output, whole or cut off by `error` (an error of its own when nothing came out).
fn finish(data: Vec<u8>, error: Option<String>) -> Result<Decompressed> {
    match error {
        Some(e) if data.is_empty() => Err(NbtError::from(NbtErrorKind::Decompress(e))),
        error => Ok(Decompressed {
            data,
            complete: error.is_none(),
            error,
        }),
    }
}

/// A buffer of exactly `len` bytes' capacity, or an out-of-memory error instead of an abort.
fn exact(len: usize) -> Result<Vec<u8>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len)
        .map_err(|_| std::io::Error::from(std::io::ErrorKind::OutOfMemory))?;
    Ok(v)
}

/// The output size a gzip file's trailer gives, when it is to be believed (see [`decompress`]).
fn gzip_size(data: &[u8], limit: usize) -> Option<usize> {
    // A member is at least a 10-byte header and an 8-byte trailer, whose last 4 bytes are the
    // size of the input mod 2^32.
    let trailer: [u8; 4] = data.get(data.len().checked_sub(4)?..)?.try_into().ok()?;
    let size = u32::from_le_bytes(trailer) as usize;
    (data.len() >= 18 && size > GROW_FREELY && size <= limit && size / 1032 <= data.len())
        .then_some(size)
}

/// Inflates `r` into a buffer of `size` bytes, in one pass; `None` when the stream has more
/// than `size` bytes (the caller inflates it again by counting).
fn inflate_sized(r: impl Read, size: usize) -> Result<Option<Decompressed>> {
    let mut out = exact(size)?;
    let mut r = r.take(size as u64);
    // `read_to_end` fills the reserved room; at `size` bytes the `take` ends the reads, so it
    // never grows the buffer. Bytes read before an error stay in `out`.
    if let Err(e) = r.read_to_end(&mut out) {
        return finish(out, Some(e.to_string())).map(Some);
    }
    if out.len() < size {
        return finish(out, None).map(Some);
    }
    // The stream must end here.
    let mut probe = [0u8; 1];
    match read_some(&mut r.into_inner(), &mut probe) {
        Ok(0) => finish(out, None).map(Some),
        Ok(_) => Ok(None),
        Err(e) => finish(out, Some(e)).map(Some),
    }
}

/// Inflates the stream `open` makes, within `limit` (see [`decompress`] for the two passes).
fn drain<R: Read>(open: impl Fn() -> R, limit: usize) -> Result<Decompressed> {
    let mut scratch = vec![0u8; SCRATCH];
    let mut r = open();
    // First pass: collect while small, then only count.
    let mut small = Vec::new();
    let mut total = 0usize;
    let error = loop {
        let n = match read_some(&mut r, &mut scratch) {
            Ok(0) => break None,
            Ok(n) => n,
            Err(e) => break Some(e),
        };
        total += n;
        if total > limit {
            return Err(NbtError::from(NbtErrorKind::DecompressLimit { limit }));
        }
        if total <= GROW_FREELY {
            small.extend_from_slice(&scratch[..n]);
        } else if !small.is_empty() {
            small = Vec::new();
        }
    };
    if total <= GROW_FREELY {
        return finish(small, error);
    }
    // Second pass: the same bytes again (the decoder is deterministic), into a buffer of exactly
    // their size; a stream that broke breaks at the same place, after `total` bytes.
    drop(small);
    drop(scratch);
    let mut out = exact(total)?;
    out.resize(total, 0);
    let mut r = open();
    let mut filled = 0;
    while filled < total {
        // Reads of the first pass's size, so that the decoder sees the same calls.
        let end = total.min(filled + SCRATCH);
        match read_some(&mut r, &mut out[filled..end]) {
            Ok(0) | Err(_) => break,
            Ok(n) => filled += n,
        }
    }
    out.truncate(filled);
    finish(out, error)
}

/// Compresses `data` (default level).
pub fn compress(data: &[u8], how: Compression) -> Result<Vec<u8>> {
    Ok(match how {
        Compression::None => data.to_vec(),
        Compression::Gzip => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            e.write_all(data)?;
            e.finish()?
        }
        Compression::Zlib => {
            let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
            e.write_all(data)?;
            e.finish()?
        }
        Compression::Lz4 => lz4_blocks_write(data)?,
    })
}

const LZ4_MAGIC: &[u8; 8] = b"LZ4Block";
const LZ4_BLOCK: usize = 1 << 16;

/// A block of lz4-java's framing: its token (method in the high nibble), data and claimed
/// decompressed size.
struct Lz4Block<'d> {
    token: u8,
    body: &'d [u8],
    dlen: usize,
}

/// One block header of lz4-java's framing, the block's data split off `data`: `Ok(None)` for
/// the end block, `Err` for a header or length that does not hold.
fn lz4_block<'d>(data: &mut &'d [u8]) -> std::result::Result<Option<Lz4Block<'d>>, &'static str> {
    let d = *data;
    if d.is_empty() {
        return Err("LZ4 stream ends without its end block");
    }
    if d.len() < 21 || &d[..8] != LZ4_MAGIC {
        return Err("bad LZ4 block header");
    }
    let le = |i: usize| u32::from_le_bytes([d[i], d[i + 1], d[i + 2], d[i + 3]]) as usize;
    let (token, clen, dlen) = (d[8], le(9), le(13));
    if dlen == 0 {
        *data = &d[21..];
        return Ok(None);
    }
    if clen > d.len() - 21 || dlen > LZ4_BLOCK << 10 {
        return Err("LZ4 block length out of range");
    }
    *data = &d[21 + clen..];
    Ok(Some(Lz4Block {
        token,
        body: &d[21..21 + clen],
        dlen,
    }))
}

/// Whether a block's claimed size is more than its data can hold: an LZ4 sequence turns each
/// input byte into at most 255 output bytes, so such a block is corrupt, and is refused before
/// its output is allocated and zero-filled (a claimed 64 MiB from a few bytes, once per region
/// slot, took minutes).
fn lz4_claims_too_much(body: &[u8], dlen: usize) -> bool {
    dlen > body.len().saturating_mul(255).saturating_add(16)
}

/// Reads lz4-java block framing: per block `"LZ4Block"`, token (method `0x10` raw / `0x20` LZ4
/// in the high nibble), compressed length, decompressed length, checksum (LE u32 each); a block
/// with decompressed length 0 ends the stream. The headers are read first, so that the output is
/// allocated once, at the size of the blocks that will be decoded.
fn lz4_blocks(data: &[u8], limit: usize) -> Result<Decompressed> {
    let mut size = 0usize;
    let mut rest = data;
    while let Ok(Some(Lz4Block { body, dlen, .. })) = lz4_block(&mut rest) {
        if size + dlen > limit || lz4_claims_too_much(body, dlen) {
            break;
        }
        size += dlen;
    }
    let mut out = exact(size)?;
    let mut data = data;
    loop {
        let Lz4Block { token, body, dlen } = match lz4_block(&mut data) {
            Ok(Some(block)) => block,
            Ok(None) => return finish(out, None),
            Err(why) => return finish(out, Some(why.into())),
        };
        if out.len() + dlen > limit {
            return Err(NbtError::from(NbtErrorKind::DecompressLimit { limit }));
        }
        if lz4_claims_too_much(body, dlen) {
            return finish(
                out,
                Some("LZ4 block claims more than its data can hold".into()),
            );
        }
        match token & 0xF0 {
            0x10 if body.len() == dlen => out.extend_from_slice(body),
            0x20 => {
                let start = out.len();
                out.resize(start + dlen, 0);
                match lz4_flex::block::decompress_into(body, &mut out[start..]) {
                    Ok(n) if n == dlen => {}
                    _ => {
                        out.truncate(start);
                        return finish(out, Some("corrupt LZ4 block".into()));
                    }
                }
            }
            _ => return finish(out, Some("unknown LZ4 block method".into())),
        }
    }
}

fn lz4_blocks_write(data: &[u8]) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(data.len() / 2 + 64);
    let header = |out: &mut Vec<u8>, token: u8, clen: usize, dlen: usize, check: u32| {
        out.extend_from_slice(LZ4_MAGIC);
        out.push(token);
        out.extend_from_slice(&(clen as u32).to_le_bytes());
        out.extend_from_slice(&(dlen as u32).to_le_bytes());
        out.extend_from_slice(&check.to_le_bytes());
    };
    // Level nibble: log2(block size) - 10, as lz4-java computes it.
    let level = (LZ4_BLOCK.trailing_zeros() - 10) as u8;
    for block in data.chunks(LZ4_BLOCK) {
        let packed = lz4_flex::block::compress(block);
        let check = xxh32(block, 0x9747_b28c) & 0x0FFF_FFFF;
        if packed.len() < block.len() {
            header(&mut out, 0x20 | level, packed.len(), block.len(), check);
            out.extend_from_slice(&packed);
        } else {
            header(&mut out, 0x10 | level, block.len(), block.len(), check);
            out.extend_from_slice(block);
        }
    }
    header(&mut out, 0x10 | level, 0, 0, 0);
    Ok(out)
}

/// XXH32, the checksum lz4-java puts on each block.
fn xxh32(data: &[u8], seed: u32) -> u32 {
    const P1: u32 = 0x9E37_79B1;
    const P2: u32 = 0x85EB_CA77;
    const P3: u32 = 0xC2B2_AE3D;
    const P4: u32 = 0x27D4_EB2F;
    const P5: u32 = 0x1656_67B1;
    let word = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    let round = |acc: u32, w: u32| {
        acc.wrapping_add(w.wrapping_mul(P2))
            .rotate_left(13)
            .wrapping_mul(P1)
    };
    let mut rest = data;
    let mut h = if data.len() >= 16 {
        let mut v = [
            seed.wrapping_add(P1).wrapping_add(P2),
            seed.wrapping_add(P2),
            seed,
            seed.wrapping_sub(P1),
        ];
        while rest.len() >= 16 {
            for (i, lane) in v.iter_mut().enumerate() {
                *lane = round(*lane, word(&rest[i * 4..]));
            }
            rest = &rest[16..];
        }
        v[0].rotate_left(1)
            .wrapping_add(v[1].rotate_left(7))
            .wrapping_add(v[2].rotate_left(12))
            .wrapping_add(v[3].rotate_left(18))
    } else {
        seed.wrapping_add(P5)
    };
    h = h.wrapping_add(data.len() as u32);
    while rest.len() >= 4 {
        h = h
            .wrapping_add(word(rest).wrapping_mul(P3))
            .rotate_left(17)
            .wrapping_mul(P4);
        rest = &rest[4..];
    }
    for &b in rest {
        h = h
            .wrapping_add((b as u32).wrapping_mul(P5))
            .rotate_left(11)
            .wrapping_mul(P1);
    }
    h ^= h >> 15;
    h = h.wrapping_mul(P2);
    h ^= h >> 13;
    h = h.wrapping_mul(P3);
    h ^ (h >> 16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xxh32_known_values() {
        assert_eq!(xxh32(b"", 0), 0x02CC_5D05);
        assert_eq!(xxh32(b"abc", 0), 0x32D1_53FF);
    }

    #[test]
    fn every_scheme_round_trips() {
        let data: Vec<u8> = (0..200_000u32)
            .map(|i| (i % 251) as u8 ^ (i >> 9) as u8)
            .collect();
        for how in [
            Compression::None,
            Compression::Gzip,
            Compression::Zlib,
            Compression::Lz4,
        ] {
            let packed = compress(&data, how).unwrap();
            let back = decompress(&packed, how, usize::MAX).unwrap();
            assert!(back.complete, "{how:?}");
            assert_eq!(back.data, data, "{how:?}");
        }
    }
}
