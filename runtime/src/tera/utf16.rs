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
    let mut out: Vec<u8> = Vec::with_capacity(scan.utf8_len + SLACK);
    read_into(units, scan, &mut out)?;
    // SAFETY: `read_into` appended the UTF-8 of `units` to the empty vector.
    Ok(unsafe { String::from_utf8_unchecked(out) })
}

/// [`read`], appending the UTF-8 to `out` (left as it was on `Err`).
#[inline]
pub fn read_into(units: &[u8], scan: Scan, out: &mut Vec<u8>) -> Result<(), u16> {
    if scan.surrogates {
        out.extend_from_slice(read_with_surrogates(units)?.as_bytes());
        return Ok(());
    }
    let at = out.len();
    out.resize(at + scan.utf8_len + SLACK, 0);
    transcode(units, scan, &mut out[at..]);
    out.truncate(at + scan.utf8_len);
    Ok(())
}

/// Bytes a [`TeraString`](super::TeraString) holds inline, without a heap allocation.
const INLINE: usize = core::mem::size_of::<super::TeraString>();

/// [`read`] into a [`TeraString`](super::TeraString): strings that fit inline (24 bytes) are
/// transcoded on the stack and never touch the heap.
#[inline]
pub fn read_compact(units: &[u8], scan: Scan) -> Result<super::TeraString, u16> {
    if scan.surrogates || scan.utf8_len > INLINE {
        return read(units, scan).map(super::TeraString::from);
    }
    let mut out = [0u8; INLINE + SLACK];
    transcode(units, scan, &mut out);
    // SAFETY: `transcode` wrote the UTF-8 of `units` into the first `utf8_len` bytes.
    let text = unsafe { core::str::from_utf8_unchecked(&out[..scan.utf8_len]) };
    Ok(super::TeraString::new(text))
}

/// Units the short-string path looks at: 16 (32 bytes, two SSE2 registers).
#[cfg(target_arch = "x86_64")]
const SHORT: usize = 16;

/// The fast path for the strings most packets carry: the terminator within the first
/// 16 units, no surrogate, at most 24 bytes of UTF-8 (so inline in a
/// [`TeraString`](super::TeraString)). Gives the string and its unit count (terminator not
/// counted), or `None` for every other string, which the caller hands to [`scan`] and
/// [`read_compact`].
///
/// A word-by-word scan mispredicts its loop's exit and the transcoder's on every string of a
/// random length; here one fixed-size window is classified with
/// SSE2 compares (part of every x86-64 CPU) and no loop depends on the length until the
/// transcoding of non-ASCII text.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub fn read_short(b: &[u8]) -> Option<(super::TeraString, usize)> {
    use core::arch::x86_64::*;
    let mut window = [0u8; 2 * SHORT];
    let bytes: &[u8; 2 * SHORT] = match b.first_chunk() {
        Some(w) => w,
        None => {
            // Near the packet's end: zeros past it. A terminator found there is not one; the
            // length check below sends such strings to the general path.
            window[..b.len()].copy_from_slice(b);
            &window
        }
    };
    // SAFETY: SSE2 is part of the x86-64 baseline; the loads read 16 bytes each from a 32-byte
    // array.
    #[allow(unused_unsafe)]
    let (zero, ge_80, ge_800, sur, ascii, lo, hi) = unsafe {
        let lo = _mm_loadu_si128(bytes.as_ptr().cast());
        let hi = _mm_loadu_si128(bytes.as_ptr().add(16).cast());
        // Two mask bits per unit: bit 2i and 2i+1 for unit i.
        let mask = |f: &dyn Fn(__m128i) -> __m128i| {
            (_mm_movemask_epi8(f(lo)) as u32) | (_mm_movemask_epi8(f(hi)) as u32) << 16
        };
        let z = _mm_setzero_si128();
        let is = |m: u16, v: u16| {
            move |x: __m128i| {
                _mm_cmpeq_epi16(
                    _mm_and_si128(x, _mm_set1_epi16(m as i16)),
                    _mm_set1_epi16(v as i16),
                )
            }
        };
        (
            mask(&|x| _mm_cmpeq_epi16(x, z)),
            !mask(&is(0xff80, 0)),
            !mask(&is(0xf800, 0)),
            mask(&is(0xf800, 0xd800)),
            _mm_packus_epi16(lo, hi),
            lo,
            hi,
        )
    };
    if zero == 0 {
        return None;
    }
    let units = zero.trailing_zeros() as usize / 2;
    if 2 * units + 2 > b.len() {
        return None;
    }
    // The mask bits of the units before the terminator (units ≤ 15, so the shift is ≤ 30).
    let keep = (1u32 << (2 * units)) - 1;
    let (ge_80, ge_800) = (ge_80 & keep, ge_800 & keep);
    // One population count for both masks (without POPCNT in the x86-64 baseline, each count
    // is a dozen instructions).
    let utf8_len = units + (ge_80 as u64 | (ge_800 as u64) << 32).count_ones() as usize / 2;
    if sur & keep != 0 || utf8_len > INLINE {
        return None;
    }
    let mut out = [0u8; WINDOW_OUT];
    if ge_80 == 0 {
        // ASCII: the low bytes of the units, packed by `packus` (exact, every unit < 0x80).
        let dst: &mut [u8; SHORT] = (&mut out[..SHORT]).try_into().expect("16 bytes");
        // SAFETY: stores 16 bytes into a 16-byte array.
        unsafe { _mm_storeu_si128(dst.as_mut_ptr().cast(), ascii) };
    } else {
        let scan = Scan {
            units,
            utf8_len,
            surrogates: false,
        };
        transcode_window(bytes, lo, hi, scan, &mut out);
    }
    // SAFETY: `out[..utf8_len]` is the UTF-8 of the units: their low bytes when all are ASCII,
    // else the transcoders' output (surrogate-free, sized by the same classification).
    let text = unsafe { core::str::from_utf8_unchecked(&out[..utf8_len]) };
    Some((super::TeraString::new(text), units))
}

/// The room [`read_short`] transcodes its window into: the whole window is transcoded
/// (up to 48 bytes, the last 16-byte store starting at most at byte 36), of which the
/// string is the first `utf8_len ≤ 24`.
#[cfg(target_arch = "x86_64")]
const WINDOW_OUT: usize = 64;

/// [`read_short`]'s non-ASCII case: the window's units (`bytes`, also loaded as `lo` and `hi`)
/// into `out`, with SSSE3 when the CPU has it.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn transcode_window(
    bytes: &[u8; 2 * SHORT],
    lo: core::arch::x86_64::__m128i,
    hi: core::arch::x86_64::__m128i,
    scan: Scan,
    out: &mut [u8; WINDOW_OUT],
) {
    #[cfg(feature = "std")]
    if std::arch::is_x86_feature_detected!("ssse3") {
        // SAFETY: the CPU has SSSE3 (just checked).
        unsafe { ssse3::transcode_window(lo, hi, out) };
        return;
    }
    // Without SSSE3 (or without std to detect it) the registers go unused.
    let _ = (lo, hi);
    transcode_words(&bytes[..2 * scan.units], scan, out);
}

/// Without SSE2 there is no short-string path: every string goes through [`scan`].
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
pub fn read_short(_: &[u8]) -> Option<(super::TeraString, usize)> {
    None
}

/// Bytes of room a transcoding needs past the UTF-8 it writes: each step stores a whole
/// register (16 bytes) or word (4 bytes) and advances by the bytes it made.
const SLACK: usize = 16;

/// Writes the UTF-8 of the first `scan.units` surrogate-free units of `units` into
/// `out[..scan.utf8_len]`; `units` may hold more (they are ignored) and `out` must be
/// [`SLACK`] bytes longer than the result (bytes past it are left with garbage).
#[inline(always)]
fn transcode(units: &[u8], scan: Scan, out: &mut [u8]) {
    debug_assert!(units.len() >= 2 * scan.units);
    debug_assert!(!scan.surrogates && out.len() >= scan.utf8_len + SLACK);
    if scan.utf8_len == scan.units {
        // ASCII: one byte per unit.
        for (o, c) in out.iter_mut().zip(units.chunks_exact(2).take(scan.units)) {
            *o = c[0];
        }
        return;
    }
    #[cfg(all(target_arch = "x86_64", feature = "std"))]
    if std::arch::is_x86_feature_detected!("ssse3") {
        // SAFETY: the CPU has SSSE3 (just checked).
        unsafe { ssse3::transcode(units, scan.units, out) };
        return;
    }
    transcode_words(&units[..2 * scan.units], scan, out);
}

/// [`transcode`] one character at a time, for CPUs without SSSE3.
#[inline(always)]
fn transcode_words(units: &[u8], scan: Scan, out: &mut [u8]) {
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

/// Transcoding four units at a time with SSSE3's byte shuffle.
///
/// Each unit is widened to a 32-bit lane holding its 1-, 2- or 3-byte UTF-8 form (all three are
/// computed, one is chosen by compare masks, as in the word-wise loop). The two 4-bit masks
/// "at least U+0080" and "at least U+0800" name one of 81 layouts of the four characters; a
/// table made at compile time gives, for each, the shuffle that packs the lanes' used bytes
/// together and their total length. One store of 16 bytes, then the position moves by that
/// length.
#[cfg(all(target_arch = "x86_64", feature = "std"))]
mod ssse3 {
    use core::arch::x86_64::*;

    /// Shuffle and length for each `ge_80 | ge_800 << 4` (only the 81 keys with `ge_800`
    /// within `ge_80` occur).
    static LAYOUTS: [([u8; 16], u8); 256] = layouts();

    const fn layouts() -> [([u8; 16], u8); 256] {
        let mut t = [([0x80u8; 16], 0u8); 256];
        let mut key = 0;
        while key < 256 {
            let mut at = 0;
            let mut lane = 0;
            while lane < 4 {
                let len = 1 + (key >> lane & 1) + (key >> (lane + 4) & 1);
                let mut j = 0;
                while j < len {
                    t[key].0[at] = (4 * lane + j) as u8;
                    at += 1;
                    j += 1;
                }
                lane += 1;
            }
            t[key].1 = at as u8;
            key += 1;
        }
        t
    }

    /// See [`super::transcode`]: the first `n` units of `units` into `out`, which has
    /// [`super::SLACK`] bytes of room past the result.
    ///
    /// # Safety
    /// The CPU must have SSSE3.
    #[target_feature(enable = "ssse3")]
    pub(super) unsafe fn transcode(units: &[u8], n: usize, out: &mut [u8]) {
        let mut o = 0;
        let mut i = 0;
        while i < n {
            // Four units; past the end of `units`, zeros (their output lies past the result).
            let mut four = [0u8; 8];
            match units.get(2 * i..2 * i + 8) {
                Some(b) => four.copy_from_slice(b),
                None => four[..units.len() - 2 * i].copy_from_slice(&units[2 * i..]),
            }
            // Bytes past the result are garbage, but each store must stay within `out`.
            let dst: &mut [u8; 16] = (&mut out[o..o + 16]).try_into().expect("16 bytes");
            // SAFETY: SSSE3 is enabled for this function; the load reads the 8 bytes of `four`
            // and the store writes the 16 bytes of `dst`.
            unsafe {
                let u =
                    _mm_unpacklo_epi16(_mm_loadl_epi64(four.as_ptr().cast()), _mm_setzero_si128());
                let (packed, len) = four_units(u);
                _mm_storeu_si128(dst.as_mut_ptr().cast(), packed);
                o += len;
            }
            i += 4;
        }
    }

    /// [`super::read_short`]'s window of 16 units (`lo`, `hi`) transcoded whole, as four
    /// groups of four without a loop: the string's length decides nothing here (a loop's exit
    /// mispredicted on strings of random length), and the bytes of the units past its
    /// terminator land past its UTF-8, where the caller ignores them.
    ///
    /// # Safety
    /// The CPU must have SSSE3.
    #[target_feature(enable = "ssse3")]
    pub(super) unsafe fn transcode_window(
        lo: __m128i,
        hi: __m128i,
        out: &mut [u8; super::WINDOW_OUT],
    ) {
        let z = _mm_setzero_si128();
        let mut o = 0;
        for u in [
            _mm_unpacklo_epi16(lo, z),
            _mm_unpackhi_epi16(lo, z),
            _mm_unpacklo_epi16(hi, z),
            _mm_unpackhi_epi16(hi, z),
        ] {
            let (packed, len) = four_units(u);
            // At most 12 bytes a group, so `o ≤ 36` here and the store ends by byte 52.
            let dst: &mut [u8; 16] = (&mut out[o..o + 16]).try_into().expect("16 bytes");
            // SAFETY: the store writes the 16 bytes of `dst`.
            unsafe { _mm_storeu_si128(dst.as_mut_ptr().cast(), packed) };
            o += len;
        }
    }

    /// The UTF-8 of four units (one in each 32-bit lane of `u`, below U+10000, surrogates taken
    /// as 3-byte characters), packed into the low bytes of the result, and its length.
    #[inline]
    #[target_feature(enable = "ssse3")]
    fn four_units(u: __m128i) -> (__m128i, usize) {
        let ge_80 = _mm_cmpgt_epi32(u, _mm_set1_epi32(0x7f));
        let ge_800 = _mm_cmpgt_epi32(u, _mm_set1_epi32(0x7ff));
        let low6 = _mm_and_si128(u, _mm_set1_epi32(0x3f));
        let mid6 = _mm_and_si128(_mm_srli_epi32(u, 6), _mm_set1_epi32(0x3f));
        // 110xxxxx 10xxxxxx, as bytes in wire order.
        let two = _mm_or_si128(
            _mm_or_si128(_mm_srli_epi32(u, 6), _mm_slli_epi32(low6, 8)),
            _mm_set1_epi32(0x80c0),
        );
        // 1110xxxx 10xxxxxx 10xxxxxx.
        let three = _mm_or_si128(
            _mm_or_si128(_mm_srli_epi32(u, 12), _mm_slli_epi32(mid6, 8)),
            _mm_or_si128(_mm_slli_epi32(low6, 16), _mm_set1_epi32(0x80_80e0)),
        );
        let w = _mm_or_si128(
            _mm_or_si128(
                _mm_andnot_si128(ge_80, u),
                _mm_and_si128(_mm_andnot_si128(ge_800, ge_80), two),
            ),
            _mm_and_si128(ge_800, three),
        );
        let key = _mm_movemask_ps(_mm_castsi128_ps(ge_80)) as usize
            | (_mm_movemask_ps(_mm_castsi128_ps(ge_800)) as usize) << 4;
        let (shuffle, len) = &LAYOUTS[key];
        // SAFETY: reads the 16 bytes of `shuffle`.
        let mask = unsafe { _mm_loadu_si128(shuffle.as_ptr().cast()) };
        (_mm_shuffle_epi8(w, mask), *len as usize)
    }
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
    use alloc::{format, string::String, vec, vec::Vec};

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

    /// The portable transcoder (the SSSE3 one runs in the tests above when the CPU has it).
    #[test]
    fn word_transcoder_every_character() {
        let all: String = (1..0x10000u32).filter_map(char::from_u32).collect();
        let units = le(&all);
        let scan = Scan {
            units: units.len() / 2,
            utf8_len: all.len(),
            surrogates: false,
        };
        let mut out = vec![0; all.len() + SLACK];
        transcode_words(&units, scan, &mut out);
        assert_eq!(&out[..all.len()], all.as_bytes());
    }

    /// The short-string path against a unit-by-unit decode: every terminator placement inside
    /// and past its window, packets cut short anywhere, units of every class. Where it declines
    /// (`None`) the general path must be the one that applies.
    #[test]
    fn short_path_agrees() {
        let classes: [u16; 10] = [
            0, 0x41, 0x7f, 0x80, 0x7ff, 0x800, 0xac00, 0xffff, 0xd800, 0xdc00,
        ];
        let mut seed = 7u32;
        let mut taken = 0;
        for len in 0..24 {
            for _ in 0..400 {
                let mut units: Vec<u16> = (0..len)
                    .map(|_| {
                        seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
                        classes[1 + (seed >> 16) as usize % (classes.len() - 1)]
                    })
                    .collect();
                units.push(0);
                units.extend([0x41, 0xac00, 0, 0x7f]);
                let bytes: Vec<u8> = units.iter().flat_map(|u| u.to_le_bytes()).collect();
                for cut in [bytes.len(), 2 * len + 2, 2 * len + 1, 2 * len, len] {
                    let b = &bytes[..cut.min(bytes.len())];
                    let Some((text, n)) = read_short(b) else {
                        continue;
                    };
                    taken += 1;
                    assert_eq!(n, len, "{units:x?} cut at {cut}");
                    assert!(2 * n + 2 <= b.len());
                    let expected = char::decode_utf16(units[..len].iter().copied())
                        .collect::<Result<String, _>>()
                        .expect("the short path takes no surrogates");
                    assert_eq!(text, expected, "{units:x?}");
                    assert!(expected.len() <= 24 && len < 16);
                }
            }
        }
        #[cfg(target_arch = "x86_64")]
        assert!(taken > 1000, "{taken}");
        #[cfg(not(target_arch = "x86_64"))]
        assert_eq!(taken, 0);
    }

    #[test]
    fn unpaired_surrogates() {
        assert_eq!(read_all(&[0x00, 0xd8]), Err(0xd800));
        assert_eq!(read_all(&[0x00, 0xdc, 0x41, 0x00]), Err(0xdc00));
        assert_eq!(read_all(&[0x00, 0xd8, 0x41, 0x00]), Err(0xd800));
    }
}
