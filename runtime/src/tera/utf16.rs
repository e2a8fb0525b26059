//! TERA strings are NUL-terminated UTF-16LE; Rust strings are UTF-8. These are the conversions,
//! written for speed (strings are most of the work in typical packets): one pass each way, ASCII
//! as a straight copy, the rest transcoded by hand without a branch per character size.

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

/// Appends `s` as UTF-16LE and its 0 terminator to `buf`.
///
/// One pass over the UTF-8 bytes, into room for the most UTF-16 they can make (twice their
/// length: 1 byte → 1 unit, 2 or 3 bytes → 1 unit, 4 bytes → 2 units), cut to length at the end.
/// As in [`read`], the sizes of mixed text change from one character to the next, so each
/// character of 1 to 3 bytes is decoded all three ways and one result chosen by mask; only
/// 4-byte characters (rare) take a branch.
#[inline]
pub fn append(s: &str, buf: &mut Vec<u8>) {
    let b = s.as_bytes();
    let at = buf.len();
    buf.resize(at + 2 * b.len() + 2, 0);
    let out = &mut buf[at..];
    if b.is_ascii() {
        for (o, &c) in out.chunks_exact_mut(2).zip(b) {
            o[0] = c;
        }
        return;
    }
    let (mut i, mut o) = (0, 0);
    while i < b.len() {
        let w = word(b, i);
        let lead = w & 0xff;
        let (c1, c2, c3) = (w >> 8 & 0x3f, w >> 16 & 0x3f, w >> 24 & 0x3f);
        if lead >= 0xf0 {
            let c = ((lead & 0x07) << 18 | c1 << 12 | c2 << 6 | c3) - 0x10000;
            out[o..o + 2].copy_from_slice(&(0xd800 | (c >> 10) as u16).to_le_bytes());
            out[o + 2..o + 4].copy_from_slice(&(0xdc00 | (c & 0x3ff) as u16).to_le_bytes());
            (i, o) = (i + 4, o + 4);
            continue;
        }
        let one = lead;
        let two = (lead & 0x1f) << 6 | c1;
        let three = (lead & 0x0f) << 12 | c1 << 6 | c2;
        let is_one = ((lead < 0x80) as u32).wrapping_neg();
        let is_three = ((lead >= 0xe0) as u32).wrapping_neg();
        let u = (one & is_one) | (two & !is_one & !is_three) | (three & is_three);
        out[o..o + 2].copy_from_slice(&(u as u16).to_le_bytes());
        i += 1 + (lead >= 0xc0) as usize + (lead >= 0xe0) as usize;
        o += 2;
    }
    // The terminator: two of the zeros written by `resize`.
    buf.truncate(at + o + 2);
}

/// Four bytes of `b` from `i` as a little-endian word, zeros past the end.
#[inline(always)]
fn word(b: &[u8], i: usize) -> u32 {
    match b.get(i..i + 4) {
        Some(w) => u32::from_le_bytes([w[0], w[1], w[2], w[3]]),
        None => {
            let mut a = [0; 4];
            let rest = &b[i..];
            a[..rest.len()].copy_from_slice(rest);
            u32::from_le_bytes(a)
        }
    }
}

/// What one pass over a string's units learns: where it ends and how long it is in UTF-8.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scan {
    /// Units before the 0 terminator.
    pub units: usize,
    /// UTF-8 bytes, counting every unit below U+0800 as 1 or 2 bytes and every other as 3 (so
    /// exact when there is no surrogate).
    pub utf8_len: usize,
    /// Whether a surrogate unit (paired or not) occurs.
    pub surrogates: bool,
}

/// Scans UTF-16LE `b` from its start up to the first 0 unit; `None` when there is none.
///
/// One pass finds the terminator and sizes the UTF-8 result together, four units (one 64-bit
/// word) at a time: per 16-bit lane, whether it is 0, at least U+0080, at least U+0800, or a
/// surrogate, as flag bits counted with `count_ones`.
///
/// Always inlined: returned out of line, the `Scan` went through the stack and its reloads
/// stalled on the stores (a tenth of decoding time for the largest packets in the profile).
#[inline(always)]
pub fn scan(b: &[u8]) -> Option<Scan> {
    const HIGH: u64 = 0x8000_8000_8000_8000;
    /// The high bit of each lane that is not 0 (exact per lane: no carries between lanes).
    #[inline(always)]
    fn nonzero(x: u64) -> u64 {
        (((x & !HIGH) + !HIGH) | x) & HIGH
    }
    let mut utf8_len = 0;
    let mut surrogates = 0;
    let mut at = 0;
    let mut words = b.chunks_exact(8);
    for w in words.by_ref() {
        let x = u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
        let zero = !nonzero(x) & HIGH;
        // Lanes before the first 0 lane (all four when there is none).
        let keep = if zero == 0 {
            u64::MAX
        } else {
            (1u64 << zero.trailing_zeros()) - 1
        };
        let ge_80 = nonzero(x & 0xff80_ff80_ff80_ff80) & keep;
        let ge_800 = nonzero(x & 0xf800_f800_f800_f800) & keep;
        let sur = !nonzero((x & 0xf800_f800_f800_f800) ^ 0xd800_d800_d800_d800) & HIGH & keep;
        let lanes = (keep & HIGH).count_ones() as usize;
        utf8_len += lanes + (ge_80.count_ones() + ge_800.count_ones()) as usize;
        surrogates |= sur;
        if zero != 0 {
            return Some(Scan {
                units: at + lanes,
                utf8_len,
                surrogates: surrogates != 0,
            });
        }
        at += 4;
    }
    let mut surrogates = surrogates != 0;
    for (i, c) in words.remainder().chunks_exact(2).enumerate() {
        let u = u16::from_le_bytes([c[0], c[1]]);
        if u == 0 {
            return Some(Scan {
                units: at + i,
                utf8_len,
                surrogates,
            });
        }
        utf8_len += 1 + (u >= 0x80) as usize + (u >= 0x800) as usize;
        surrogates |= u & 0xf800 == 0xd800;
    }
    None
}

/// The `i`th unit of UTF-16LE bytes.
#[inline(always)]
fn unit(b: &[u8], i: usize) -> u16 {
    u16::from_le_bytes([b[2 * i], b[2 * i + 1]])
}

/// Reads the UTF-16LE `units` that `scan` measured (an even number of bytes, no terminator) into
/// a string; `Err` holds the first unpaired surrogate.
pub fn read(units: &[u8], scan: Scan) -> Result<String, u16> {
    if scan.surrogates {
        return read_with_surrogates(units);
    }
    let mut out: Vec<u8> = alloc::vec![0; scan.utf8_len + 3];
    transcode(units, scan, &mut out);
    out.truncate(scan.utf8_len);
    // SAFETY: `transcode` wrote the UTF-8 of `units` into the first `utf8_len` bytes.
    Ok(unsafe { String::from_utf8_unchecked(out) })
}

/// [`read`] into a [`TeraString`](super::TeraString): strings that fit inline (24 bytes) are
/// transcoded on the stack and never touch the heap.
#[inline]
pub fn read_compact(units: &[u8], scan: Scan) -> Result<super::TeraString, u16> {
    const INLINE: usize = core::mem::size_of::<super::TeraString>();
    if scan.surrogates || scan.utf8_len > INLINE {
        return read(units, scan).map(super::TeraString::from);
    }
    let mut out = [0u8; INLINE + 3];
    transcode(units, scan, &mut out);
    // SAFETY: `transcode` wrote the UTF-8 of `units` into the first `utf8_len` bytes.
    let text = unsafe { core::str::from_utf8_unchecked(&out[..scan.utf8_len]) };
    Ok(super::TeraString::new(text))
}

/// Writes the UTF-8 of surrogate-free `units` into `out[..scan.utf8_len]`; `out` has three bytes
/// more than that (slack for the last character's 4-byte write).
#[inline(always)]
fn transcode(units: &[u8], scan: Scan, out: &mut [u8]) {
    debug_assert_eq!(units.len() / 2, scan.units);
    debug_assert!(!scan.surrogates && out.len() >= scan.utf8_len + 3);
    if scan.utf8_len == scan.units {
        // ASCII: one byte per unit.
        for (o, c) in out.iter_mut().zip(units.chunks_exact(2)) {
            *o = c[0];
        }
        return;
    }
    // Below U+10000 without surrogates every unit is one character of 1, 2 or 3 bytes. The text
    // of real packets mixes the three sizes from one character to the next, so a branch per
    // size mispredicted on most characters; instead each character's three encodings are made
    // and one is chosen by mask, written as four bytes, and the write position advances by its
    // length.
    let mut o = 0;
    for c in units.chunks_exact(2) {
        let u = u16::from_le_bytes([c[0], c[1]]) as u32;
        let one = u;
        let two = 0x80c0 | (u >> 6) | ((u & 0x3f) << 8);
        let three = 0x80_80e0 | (u >> 12) | (((u >> 6) & 0x3f) << 8) | ((u & 0x3f) << 16);
        let is_one = ((u < 0x80) as u32).wrapping_neg();
        let is_three = ((u >= 0x800) as u32).wrapping_neg();
        let w = (one & is_one) | (two & !is_one & !is_three) | (three & is_three);
        out[o..o + 4].copy_from_slice(&w.to_le_bytes());
        o += 1 + (u >= 0x80) as usize + (u >= 0x800) as usize;
    }
    debug_assert_eq!(o, scan.utf8_len);
    // Each unit is below U+10000 and not a surrogate, so it is one scalar value; the chosen word
    // holds its 1-, 2- or 3-byte UTF-8 form in its low bytes, and the next character's write
    // starts right after those bytes: `out[..utf8_len]` is the UTF-8 of `units`.
    debug_assert!(core::str::from_utf8(&out[..o]).is_ok());
}

/// The general case: surrogate pairs become 4-byte characters; a lone surrogate is an error.
#[cold]
fn read_with_surrogates(units: &[u8]) -> Result<String, u16> {
    let n = units.len() / 2;
    let mut out: Vec<u8> = Vec::with_capacity(3 * n);
    let mut i = 0;
    while i < n {
        let u = unit(units, i);
        i += 1;
        let c = match u {
            0xd800..=0xdbff => {
                let lo = if i < n { unit(units, i) } else { 0 };
                if !(0xdc00..=0xdfff).contains(&lo) {
                    return Err(u);
                }
                i += 1;
                0x10000 + (((u as u32) - 0xd800) << 10) + ((lo as u32) - 0xdc00)
            }
            0xdc00..=0xdfff => return Err(u),
            _ => u as u32,
        };
        let c = char::from_u32(c).expect("a scalar value: not a surrogate, at most U+10FFFF");
        out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
    }
    Ok(String::from_utf8(out).expect("encode_utf8 writes UTF-8"))
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
            let mut out = vec![7];
            append(s, &mut out);
            assert_eq!(out[1..out.len() - 2], le(s), "{s}");
            assert_eq!(out[0], 7);
            assert_eq!(out[out.len() - 2..], [0, 0]);
            out.drain(..1);
            out.truncate(out.len() - 2);
            let mut z = out.clone();
            z.extend_from_slice(&[0, 0, 0x41, 0]);
            let sc = scan(&z).unwrap();
            assert_eq!(sc.units, out.len() / 2, "{s}");
            assert_eq!(read(&out, sc).unwrap(), s);
            assert_eq!(scan(&out), None);
        }
        // 0x0100 and 0x00ff units are not terminators.
        assert_eq!(scan(&[0, 1, 0xff, 0, 0, 0]).map(|s| s.units), Some(2));
    }

    /// The word-wise scan against a unit-by-unit one, for every placement of the terminator
    /// and units of every class (0, ASCII, 2-byte, 3-byte, surrogates, lane-boundary values).
    #[test]
    fn scan_agrees_with_units() {
        let classes: [u16; 12] = [
            0, 1, 0x7f, 0x80, 0xff, 0x100, 0x7ff, 0x800, 0xd7ff, 0xd800, 0xdfff, 0xffff,
        ];
        let mut seed = 1u32;
        for len in 0..20 {
            for _ in 0..500 {
                let units: Vec<u16> = (0..len)
                    .map(|_| {
                        seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
                        classes[(seed >> 16) as usize % classes.len()]
                    })
                    .collect();
                let bytes: Vec<u8> = units.iter().flat_map(|u| u.to_le_bytes()).collect();
                let expected = units.iter().position(|&u| u == 0).map(|n| Scan {
                    units: n,
                    utf8_len: units[..n]
                        .iter()
                        .map(|&u| 1 + (u >= 0x80) as usize + (u >= 0x800) as usize)
                        .sum(),
                    surrogates: units[..n].iter().any(|&u| u & 0xf800 == 0xd800),
                });
                assert_eq!(scan(&bytes), expected, "{units:x?}");
            }
        }
    }

    /// Reads through both fronts, which must agree.
    fn read_all(b: &[u8]) -> Result<String, u16> {
        let mut z = b.to_vec();
        z.extend_from_slice(&[0, 0]);
        let sc = scan(&z).unwrap();
        let compact = read_compact(b, sc);
        let s = read(b, sc);
        assert_eq!(s.as_deref().ok(), compact.as_ref().ok().map(|c| c.as_str()));
        assert_eq!(s.as_ref().err(), compact.as_ref().err());
        s
    }

    #[test]
    fn every_character() {
        let all: String = (1..0x110000u32).filter_map(char::from_u32).collect();
        let mut out = Vec::new();
        append(&all, &mut out);
        assert_eq!(out[..out.len() - 2], le(&all));
        assert_eq!(read_all(&le(&all)).unwrap(), all);
        for c in (1..0x10000u32).filter_map(char::from_u32) {
            for s in [
                format!("a{c}\u{7ff}b"),
                format!("{c}{c}{c}{c}{c}{c}{c}{c}x"),
            ] {
                assert_eq!(read_all(&le(&s)).unwrap(), s);
            }
        }
    }

    #[test]
    fn unpaired_surrogates() {
        assert_eq!(read_all(&[0x00, 0xd8]), Err(0xd800));
        assert_eq!(read_all(&[0x00, 0xdc, 0x41, 0x00]), Err(0xdc00));
        assert_eq!(read_all(&[0x00, 0xd8, 0x41, 0x00]), Err(0xd800));
    }
}
