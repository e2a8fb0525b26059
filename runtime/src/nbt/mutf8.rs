//! Java's "Modified UTF-8" (MUTF-8), the string encoding of Java Edition NBT.
//!
//! It differs from UTF-8 in two ways: NUL is written as the two bytes `C0 80`, and characters
//! outside the Basic Multilingual Plane are written as two 3-byte sequences, one per UTF-16
//! surrogate. In effect MUTF-8 is a byte form of UTF-16, so it can carry lone surrogates that no
//! Rust `str` can hold. This module validates, decodes and encodes it; [`NbtString`] keeps the
//! raw bytes so that a string that is not valid Unicode still writes back byte-identical.
//!
//! [`NbtString`]: super::NbtString

use std::borrow::Cow;

/// Whether all bytes are below 0x80: an OR-reduction without early exit, which the compiler
/// turns into wide vector code (strings are nearly always ASCII, so exiting early buys little).
/// Inputs of 256 bytes or more run the loop's AVX2 build where the CPU has it (32-byte vectors
/// instead of SSE2's 16), which halves the time of files made of long strings.
#[inline]
pub fn is_ascii(bytes: &[u8]) -> bool {
    wide!(from 256, bytes.len();
        fn or_all(bytes: &[u8]) -> u8 {
            bytes.iter().fold(0u8, |a, &b| a | b)
        }
    ) < 0x80
}

/// Whether `d[start..start + len]` is ASCII (`start + len <= d.len()`). Strings up to 64 bytes
/// (names, ids) are checked in unaligned 8-byte words, the last one masked, when the input
/// extends far enough past them; that beats a vector loop's setup and scalar tail for a handful
/// of bytes.
#[inline(always)]
pub(crate) fn is_ascii_at(d: &[u8], start: usize, len: usize) -> bool {
    #[inline(always)]
    fn word(d: &[u8], at: usize) -> u64 {
        let mut a = [0u8; 8];
        a.copy_from_slice(&d[at..at + 8]);
        u64::from_le_bytes(a)
    }
    const HIGH: u64 = 0x8080_8080_8080_8080;
    if len <= 64 && start + len + 8 <= d.len() {
        let mut acc = 0u64;
        let mut i = 0;
        while i + 8 <= len {
            acc |= word(d, start + i);
            i += 8;
        }
        if i < len {
            acc |= word(d, start + i) & ((1u64 << ((len - i) * 8)) - 1);
        }
        return acc & HIGH == 0;
    }
    is_ascii(&d[start..start + len])
}

/// Checks `bytes` the way Java's `DataInputStream.readUTF` does and returns the index of the
/// first malformed byte on failure.
///
/// Java accepts any 1-byte form (raw `00` included), any `110xxxxx 10xxxxxx` and
/// `1110xxxx 10xxxxxx 10xxxxxx` (overlong forms and surrogates included) and rejects a
/// continuation byte in lead position and any `1111xxxx` lead, so plain 4-byte UTF-8 is
/// rejected. With `lenient` a well-formed 4-byte UTF-8 sequence is accepted too (many tools
/// write them); the bytes are kept as they are.
pub fn validate(bytes: &[u8], lenient: bool) -> Result<(), usize> {
    if is_ascii(bytes) {
        return Ok(());
    }
    validate_slow(bytes, lenient)
}

/// [`validate`] after the ASCII check failed.
#[cold]
pub(crate) fn validate_slow(bytes: &[u8], lenient: bool) -> Result<(), usize> {
    let mut i = 0;
    let n = bytes.len();
    while i < n {
        let b = bytes[i];
        if b < 0x80 {
            i += 1;
            continue;
        }
        let len = match b >> 4 {
            0xC | 0xD => 2,
            0xE => 3,
            0xF if lenient && b <= 0xF4 => 4,
            _ => return Err(i),
        };
        if i + len > n {
            return Err(i);
        }
        if bytes[i + 1..i + len].iter().any(|&c| c & 0xC0 != 0x80) {
            return Err(i);
        }
        i += len;
    }
    Ok(())
}

/// Decodes (already validated or not) MUTF-8 into UTF-16 code units.
///
/// Malformed bytes decode as U+FFFD, a 4-byte UTF-8 sequence (lenient files) as a surrogate pair.
pub fn to_utf16(bytes: &[u8]) -> Vec<u16> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    let n = bytes.len();
    while i < n {
        let b = bytes[i] as u32;
        let cont = |k: usize| -> Option<u32> {
            bytes
                .get(i + k)
                .filter(|&&c| c & 0xC0 == 0x80)
                .map(|&c| (c & 0x3F) as u32)
        };
        if b < 0x80 {
            out.push(b as u16);
            i += 1;
        } else if b >> 5 == 0b110 {
            match cont(1) {
                Some(c1) => {
                    out.push((((b & 0x1F) << 6) | c1) as u16);
                    i += 2;
                }
                None => {
                    out.push(0xFFFD);
                    i += 1;
                }
            }
        } else if b >> 4 == 0b1110 {
            match (cont(1), cont(2)) {
                (Some(c1), Some(c2)) => {
                    out.push((((b & 0x0F) << 12) | (c1 << 6) | c2) as u16);
                    i += 3;
                }
                _ => {
                    out.push(0xFFFD);
                    i += 1;
                }
            }
        } else if (0xF0..=0xF4).contains(&b) {
            match (cont(1), cont(2), cont(3)) {
                (Some(c1), Some(c2), Some(c3)) => {
                    let cp = ((b & 0x07) << 18) | (c1 << 12) | (c2 << 6) | c3;
                    if (0x10000..=0x10FFFF).contains(&cp) {
                        let v = cp - 0x10000;
                        out.push(0xD800 | (v >> 10) as u16);
                        out.push(0xDC00 | (v & 0x3FF) as u16);
                    } else {
                        out.push(0xFFFD);
                    }
                    i += 4;
                }
                _ => {
                    out.push(0xFFFD);
                    i += 1;
                }
            }
        } else {
            out.push(0xFFFD);
            i += 1;
        }
    }
    out
}

/// Decodes MUTF-8 to a `str`, borrowing when the bytes are UTF-8 already. `None` if the text is
/// not valid Unicode (a lone surrogate) or malformed.
pub fn to_str(bytes: &[u8]) -> Option<Cow<'_, str>> {
    // Bytes that are valid UTF-8 mean the same text read as MUTF-8: 1-, 2- and 3-byte forms
    // are shared (a raw 00 byte is NUL in both; UTF-8 has no `C0 80` and no surrogates), and
    // the lenient reading decodes a 4-byte form as UTF-8 does.
    if let Ok(s) = std::str::from_utf8(bytes) {
        return Some(Cow::Borrowed(s));
    }
    if validate(bytes, true).is_err() {
        return None;
    }
    String::from_utf16(&to_utf16(bytes)).ok().map(Cow::Owned)
}

/// Decodes MUTF-8 to a `str`, replacing lone surrogates and malformed bytes with U+FFFD.
pub fn to_str_lossy(bytes: &[u8]) -> Cow<'_, str> {
    if bytes.is_ascii() {
        return String::from_utf8_lossy(bytes);
    }
    Cow::Owned(String::from_utf16_lossy(&to_utf16(bytes)))
}

/// Appends the MUTF-8 form of one UTF-16 code unit.
#[inline]
fn push_unit(out: &mut Vec<u8>, u: u16) {
    let u = u as u32;
    if u != 0 && u < 0x80 {
        out.push(u as u8);
    } else if u < 0x800 {
        out.push(0xC0 | (u >> 6) as u8);
        out.push(0x80 | (u & 0x3F) as u8);
    } else {
        out.push(0xE0 | (u >> 12) as u8);
        out.push(0x80 | ((u >> 6) & 0x3F) as u8);
        out.push(0x80 | (u & 0x3F) as u8);
    }
}

/// Encodes UTF-16 code units (lone surrogates allowed) as MUTF-8.
pub fn from_utf16(units: &[u16]) -> Vec<u8> {
    let mut out = Vec::with_capacity(units.len());
    for &u in units {
        push_unit(&mut out, u);
    }
    out
}

/// Encodes a `str` as MUTF-8.
pub fn from_str(s: &str) -> Vec<u8> {
    if s.bytes().all(|b| b != 0 && b < 0x80) {
        return s.as_bytes().to_vec();
    }
    let mut out = Vec::with_capacity(s.len() + 8);
    for u in s.encode_utf16() {
        push_unit(&mut out, u);
    }
    out
}

/// Converts UTF-8 (Bedrock's string encoding) to MUTF-8. `None` if `bytes` is not UTF-8.
pub fn from_utf8_bytes(bytes: &[u8]) -> Option<Cow<'_, [u8]>> {
    if !bytes.contains(&0) && bytes.is_ascii() {
        return Some(Cow::Borrowed(bytes));
    }
    let s = std::str::from_utf8(bytes).ok()?;
    Some(Cow::Owned(from_str(s)))
}

/// Converts MUTF-8 to UTF-8 (for Bedrock output). `None` if it holds a lone surrogate.
pub fn to_utf8_bytes(bytes: &[u8]) -> Option<Cow<'_, [u8]>> {
    if bytes.is_ascii() {
        return Some(Cow::Borrowed(bytes));
    }
    match to_str(bytes)? {
        Cow::Borrowed(s) => Some(Cow::Borrowed(s.as_bytes())),
        Cow::Owned(s) => Some(Cow::Owned(s.into_bytes())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nul_and_supplementary() {
        let s = "a\0b\u{1F600}";
        let m = from_str(s);
        assert_eq!(m, b"a\xC0\x80b\xED\xA0\xBD\xED\xB8\x80");
        assert_eq!(validate(&m, false), Ok(()));
        assert_eq!(to_str(&m).as_deref(), Some(s));
    }

    #[test]
    fn four_byte_utf8_rejected_unless_lenient() {
        let b = "\u{1F600}".as_bytes();
        assert_eq!(validate(b, false), Err(0));
        assert_eq!(validate(b, true), Ok(()));
        assert_eq!(to_str(b).as_deref(), Some("\u{1F600}"));
    }

    #[test]
    fn lone_surrogate_round_trips() {
        let units = [0x61, 0xD800, 0x62];
        let m = from_utf16(&units);
        assert_eq!(validate(&m, false), Ok(()));
        assert_eq!(to_utf16(&m), units);
        assert!(to_str(&m).is_none());
    }
}
