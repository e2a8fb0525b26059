//! TERA strings are NUL-terminated UTF-16LE; Rust strings are UTF-8. These are the conversions,
//! written for speed (strings are most of the work in typical packets): lengths counted from the
//! UTF-8 bytes without decoding, ASCII as a straight copy, the rest transcoded by hand.

use alloc::string::String;
use alloc::vec::Vec;

/// Number of UTF-16 code units of `s`.
#[inline]
pub fn units_len(s: &str) -> usize {
    let b = s.as_bytes();
    // One unit per character (every byte that does not continue a sequence), two for the
    // characters of four UTF-8 bytes (above U+FFFF).
    b.iter()
        .map(|&x| ((x & 0xc0) != 0x80) as usize + (x >= 0xf0) as usize)
        .sum()
}

/// Writes `s` as UTF-16LE into `out`, which holds exactly `2 * units_len(s)` bytes.
#[inline]
pub fn write(s: &str, out: &mut [u8]) {
    if s.len() * 2 == out.len() {
        // ASCII: every byte is one unit.
        for (o, &c) in out.chunks_exact_mut(2).zip(s.as_bytes()) {
            o[0] = c;
            o[1] = 0;
        }
    } else {
        for (o, u) in out.chunks_exact_mut(2).zip(s.encode_utf16()) {
            o.copy_from_slice(&u.to_le_bytes());
        }
    }
}

/// Reads UTF-16LE `units` (an even number of bytes, no terminator) into a string; `Err` holds
/// the first unpaired surrogate.
pub fn read(units: &[u8]) -> Result<String, u16> {
    let n = units.len() / 2;
    if units.chunks_exact(2).all(|c| c[1] == 0 && c[0] < 0x80) {
        let bytes: Vec<u8> = units.chunks_exact(2).map(|c| c[0]).collect();
        return Ok(String::from_utf8(bytes).unwrap_or_default());
    }
    let mut out: Vec<u8> = Vec::with_capacity(3 * n);
    let mut it = units
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]));
    while let Some(u) = it.next() {
        match u {
            0..=0x7f => out.push(u as u8),
            0x80..=0x7ff => {
                out.extend_from_slice(&[0xc0 | (u >> 6) as u8, 0x80 | (u & 0x3f) as u8])
            }
            0xd800..=0xdbff => {
                let lo = match it.next() {
                    Some(lo @ 0xdc00..=0xdfff) => lo,
                    _ => return Err(u),
                };
                let c = 0x10000 + (((u as u32) - 0xd800) << 10) + ((lo as u32) - 0xdc00);
                out.extend_from_slice(&[
                    0xf0 | (c >> 18) as u8,
                    0x80 | ((c >> 12) & 0x3f) as u8,
                    0x80 | ((c >> 6) & 0x3f) as u8,
                    0x80 | (c & 0x3f) as u8,
                ]);
            }
            0xdc00..=0xdfff => return Err(u),
            _ => out.extend_from_slice(&[
                0xe0 | (u >> 12) as u8,
                0x80 | ((u >> 6) & 0x3f) as u8,
                0x80 | (u & 0x3f) as u8,
            ]),
        }
    }
    // Valid by construction; the check is cheap next to the transcoding.
    String::from_utf8(out).map_err(|_| 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn le(s: &str) -> Vec<u8> {
        s.encode_utf16().flat_map(u16::to_le_bytes).collect()
    }

    #[test]
    fn agrees_with_std() {
        for s in [
            "",
            "abc",
            "ÅÄÖ",
            "日本語",
            "a😀b",
            "\u{7f}\u{80}\u{7ff}\u{800}\u{ffff}\u{10000}\u{10ffff}",
        ] {
            assert_eq!(units_len(s), s.encode_utf16().count(), "{s}");
            let mut out = vec![0; 2 * units_len(s)];
            write(s, &mut out);
            assert_eq!(out, le(s), "{s}");
            assert_eq!(read(&out).unwrap(), s);
        }
    }

    #[test]
    fn unpaired_surrogates() {
        assert_eq!(read(&[0x00, 0xd8]), Err(0xd800));
        assert_eq!(read(&[0x00, 0xdc, 0x41, 0x00]), Err(0xdc00));
        assert_eq!(read(&[0x00, 0xd8, 0x41, 0x00]), Err(0xd800));
    }
}
