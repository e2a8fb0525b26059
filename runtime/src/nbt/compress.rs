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
        Compression::Gzip => drain(flate2::read::GzDecoder::new(data), limit),
        Compression::Zlib => drain(flate2::read::ZlibDecoder::new(data), limit),
        Compression::Lz4 => lz4_blocks(data, limit),
    }
}

fn drain(mut r: impl Read, limit: usize) -> Result<Decompressed> {
    let mut out = Vec::new();
    let mut buf = vec![0u8; 64 << 10];
    loop {
        match r.read(&mut buf) {
            Ok(0) => {
                return Ok(Decompressed {
                    data: out,
                    complete: true,
                    error: None,
                });
            }
            Ok(n) => {
                if out.len() + n > limit {
                    return Err(NbtError::from(NbtErrorKind::DecompressLimit { limit }));
                }
                out.extend_from_slice(&buf[..n]);
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                if out.is_empty() {
                    return Err(NbtError::from(NbtErrorKind::Decompress(e.to_string())));
                }
                return Ok(Decompressed {
                    data: out,
                    complete: false,
                    error: Some(e.to_string()),
                });
            }
        }
    }
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

/// Reads lz4-java block framing: per block `"LZ4Block"`, token (method `0x10` raw / `0x20` LZ4
/// in the high nibble), compressed length, decompressed length, checksum (LE u32 each); a block
/// with decompressed length 0 ends the stream.
fn lz4_blocks(mut data: &[u8], limit: usize) -> Result<Decompressed> {
    let mut out = Vec::new();
    let cut = |out: Vec<u8>, why: &str| -> Result<Decompressed> {
        if out.is_empty() {
            return Err(NbtError::from(NbtErrorKind::Decompress(why.to_string())));
        }
        Ok(Decompressed {
            data: out,
            complete: false,
            error: Some(why.to_string()),
        })
    };
    loop {
        if data.is_empty() {
            return cut(out, "LZ4 stream ends without its end block");
        }
        if data.len() < 21 || &data[..8] != LZ4_MAGIC {
            return cut(out, "bad LZ4 block header");
        }
        let token = data[8];
        let le = |i: usize| {
            u32::from_le_bytes([data[i], data[i + 1], data[i + 2], data[i + 3]]) as usize
        };
        let (clen, dlen) = (le(9), le(13));
        data = &data[21..];
        if dlen == 0 {
            return Ok(Decompressed {
                data: out,
                complete: true,
                error: None,
            });
        }
        if clen > data.len() || dlen > LZ4_BLOCK << 10 {
            return cut(out, "LZ4 block length out of range");
        }
        if out.len() + dlen > limit {
            return Err(NbtError::from(NbtErrorKind::DecompressLimit { limit }));
        }
        // An LZ4 sequence turns each input byte into at most 255 output bytes: a block that
        // claims more than that is corrupt, and is refused before its output is allocated and
        // zero-filled (a claimed 64 MiB from a few bytes, once per region slot, took minutes).
        if dlen > clen.saturating_mul(255).saturating_add(16) {
            return cut(out, "LZ4 block claims more than its data can hold");
        }
        let body = &data[..clen];
        data = &data[clen..];
        match token & 0xF0 {
            0x10 if clen == dlen => out.extend_from_slice(body),
            0x20 => {
                let start = out.len();
                out.resize(start + dlen, 0);
                match lz4_flex::block::decompress_into(body, &mut out[start..]) {
                    Ok(n) if n == dlen => {}
                    _ => {
                        out.truncate(start);
                        return cut(out, "corrupt LZ4 block");
                    }
                }
            }
            _ => return cut(out, "unknown LZ4 block method"),
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
