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

/// Number of UTF-16 units before the first 0 unit of `b` (read as UTF-16LE from its start), or
/// `None` when there is none. Scans eight bytes at a time.
#[inline]
pub fn terminator(b: &[u8]) -> Option<usize> {
    const LOW: u64 = 0x0001_0001_0001_0001;
    const HIGH: u64 = 0x8000_8000_8000_8000;
    let mut words = b.chunks_exact(8);
    let mut at = 0;
    for w in words.by_ref() {
        let x = u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
        // Sets the high bit of each 16-bit lane that may be zero (exact for the first one).
        if x.wrapping_sub(LOW) & !x & HIGH != 0 {
            break;
        }
        at += 4;
    }
    b[2 * at..]
        .chunks_exact(2)
        .position(|c| c == [0, 0])
        .map(|i| at + i)
}

/// The `i`th unit of UTF-16LE bytes.
#[inline(always)]
fn unit(b: &[u8], i: usize) -> u16 {
    u16::from_le_bytes([b[2 * i], b[2 * i + 1]])
}

/// Reads UTF-16LE `units` (an even number of bytes, no terminator) into a string; `Err` holds
/// the first unpaired surrogate.
pub fn read(units: &[u8]) -> Result<String, u16> {
    // Exact UTF-8 length first (one byte per ASCII unit, two below U+0800, three otherwise, and
    // two per surrogate: a pair makes four), so that the string is allocated once.
    let len: usize = units
        .chunks_exact(2)
        .map(|c| {
            let u = u16::from_le_bytes([c[0], c[1]]);
            1 + (u >= 0x80) as usize + (u >= 0x800 && !(0xd800..=0xdfff).contains(&u)) as usize
        })
        .sum();
    let n = units.len() / 2;
    if len == n {
        // ASCII.
        let out: Vec<u8> = units.chunks_exact(2).map(|c| c[0]).collect();
        // SAFETY: every byte is below 0x80 (a unit contributes one byte only when it is ASCII).
        return Ok(unsafe { String::from_utf8_unchecked(out) });
    }
    // Written through indices into a buffer of the exact length: with `push`, the capacity
    // checks of every byte were most of the time of this loop in the profile.
    let mut out: Vec<u8> = alloc::vec![0; len];
    let mut o = 0;
    let mut i = 0;
    while i < n {
        let u = unit(units, i);
        i += 1;
        match u {
            0..=0x7f => {
                out[o] = u as u8;
                o += 1;
            }
            0x80..=0x7ff => {
                let d = &mut out[o..o + 2];
                d[0] = 0xc0 | (u >> 6) as u8;
                d[1] = 0x80 | (u & 0x3f) as u8;
                o += 2;
            }
            0xd800..=0xdbff => {
                let lo = if i < n { unit(units, i) } else { 0 };
                if !(0xdc00..=0xdfff).contains(&lo) {
                    return Err(u);
                }
                i += 1;
                let c = 0x10000 + (((u as u32) - 0xd800) << 10) + ((lo as u32) - 0xdc00);
                let d = &mut out[o..o + 4];
                d[0] = 0xf0 | (c >> 18) as u8;
                d[1] = 0x80 | ((c >> 12) & 0x3f) as u8;
                d[2] = 0x80 | ((c >> 6) & 0x3f) as u8;
                d[3] = 0x80 | (c & 0x3f) as u8;
                o += 4;
            }
            0xdc00..=0xdfff => return Err(u),
            _ => {
                let d = &mut out[o..o + 3];
                d[0] = 0xe0 | (u >> 12) as u8;
                d[1] = 0x80 | ((u >> 6) & 0x3f) as u8;
                d[2] = 0x80 | (u & 0x3f) as u8;
                o += 3;
            }
        }
    }
    debug_assert_eq!(o, len);
    debug_assert!(core::str::from_utf8(&out).is_ok());
    // SAFETY: every branch above writes one complete, well-formed UTF-8 sequence: ASCII bytes,
    // 2- and 3-byte forms of non-surrogate code points below U+10000, and the 4-byte form of a
    // code point built from a checked surrogate pair (U+10000..=U+10FFFF). The sequences fill
    // `out` exactly, as `len` counts the same byte lengths (a pair is counted 2 + 2). Validating
    // again was a tenth of decoding time in the profile.
    Ok(unsafe { String::from_utf8_unchecked(out) })
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
            let mut z = out.clone();
            z.extend_from_slice(&[0, 0, 0x41, 0]);
            assert_eq!(terminator(&z), Some(out.len() / 2), "{s}");
            assert_eq!(terminator(&out), None);
        }
        // Lanes: a zero unit after non-zero ones in the same word, and 0x0100 / 0x00ff units.
        assert_eq!(terminator(&[1, 1, 0, 1, 0, 0, 5, 5, 0, 0]), Some(2));
        assert_eq!(
            terminator(&[0, 1, 1, 0, 0xff, 0, 0x80, 0x80, 1, 0, 0, 0]),
            Some(5)
        );
    }

    #[test]
    fn unpaired_surrogates() {
        assert_eq!(read(&[0x00, 0xd8]), Err(0xd800));
        assert_eq!(read(&[0x00, 0xdc, 0x41, 0x00]), Err(0xdc00));
        assert_eq!(read(&[0x00, 0xd8, 0x41, 0x00]), Err(0xd800));
    }
}
