//! The shape of a small compound, for reading a list of alike compounds without walking each.
//!
//! A list of compounds in world data is mostly one shape repeated: a structure's blocks
//! (`{pos: [I; 3], state: 0}`), a chunk's scheduled ticks, an entity's equipment. How such a
//! compound reads (where each entry starts, whether it is valid, where it ends) is decided by a
//! few of its bytes: the entries' type ids, names and lengths. The numbers between them do not
//! change it. A [`Shape`] keeps those deciding bytes of one compound, read and checked in full, as
//! a template and a mask; a later compound whose bytes agree with the template wherever the mask
//! is set reads exactly as that one did, entry by entry, so the zero-copy reader takes it whole
//! with one comparison of [`SHAPE`] bytes instead of walking a chain of entries whose every
//! step waits for the length read by the one before.
//!
//! Only compounds of at most [`SHAPE`] bytes with no container inside (fixed-width lists and
//! lists of strings aside, which the reader keeps off its tape) have a shape, and only in the
//! fixed-width flavours (Java and Bedrock's disk format).

use super::borrow::{fixed_width, seq_len_at};
use super::flavor::{Edition, Flavor};
use super::read::min_size;
use super::tag::TagType;

/// The most bytes a compound with a shape takes, its end byte included.
pub(super) const SHAPE: usize = 64;

const WORDS: usize = SHAPE / 8;

/// Each of 256 bytes spread to a word: bit `j` set gives byte `j` all ones.
static SPREAD: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let mut j = 0;
        while j < 8 {
            if (b >> j) & 1 == 1 {
                t[b] |= 0xFF << (8 * j);
            }
            j += 1;
        }
        b += 1;
    }
    t
};

/// The deciding bytes of a compound (see the module documentation).
pub(super) struct Shape {
    /// The compound's bytes (and after its end, whatever followed it: masked out).
    template: [u64; WORDS],
    /// All ones over each byte that decides how the compound reads, zero elsewhere.
    mask: [u64; WORDS],
    /// The compound's length in bytes, end byte included.
    len: usize,
}

/// The [`SHAPE`] bytes at `at` of `d`, if there are that many.
#[inline(always)]
fn window(d: &[u8], at: usize) -> Option<&[u8; SHAPE]> {
    d.get(at..at.checked_add(SHAPE)?)?.try_into().ok()
}

/// The word `k` of a [`SHAPE`]-byte window, in memory order.
#[inline(always)]
fn word(w: &[u8; SHAPE], k: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&w[k * 8..k * 8 + 8]);
    u64::from_le_bytes(a)
}

impl Shape {
    /// No shape: matches nothing.
    pub(super) const NONE: Shape = Shape {
        template: [0; WORDS],
        mask: [0; WORDS],
        len: 0,
    };

    /// Takes the shape of the compound of `len` bytes at `at` of `d` (from its first entry's
    /// type id to its end byte), which the reader has just read and checked in full in flavour
    /// `F` (string contents too when `check`); written in place, where the matches that follow
    /// read it. `false`, and no shape, if it is too long, holds a container, ends within
    /// [`SHAPE`] bytes of the input's end, or is in Bedrock's network flavour (varint lengths).
    pub(super) fn take<F: Flavor>(&mut self, d: &[u8], at: usize, len: usize, check: bool) -> bool {
        self.len = 0;
        let Some(window) = window(d, at) else {
            return false;
        };
        let Some(bits) = window.get(..len).and_then(|c| deciding::<F>(c, check)) else {
            return false;
        };
        for k in 0..WORDS {
            // The bytes after the compound's end are masked out.
            self.template[k] = word(window, k);
            self.mask[k] = SPREAD[usize::from((bits >> (8 * k)) as u8)];
        }
        self.len = len;
        true
    }

    /// Whether the compound whose entries start at `at` of `d` reads as this one: its deciding
    /// bytes equal this one's. `false` where there is no shape or fewer than [`SHAPE`] bytes are
    /// left.
    #[inline(always)]
    pub(super) fn matches(&self, d: &[u8], at: usize) -> bool {
        let Some(w) = window(d, at) else {
            return false;
        };
        let diff: [u64; WORDS] =
            std::array::from_fn(|k| (word(w, k) ^ self.template[k]) & self.mask[k]);
        self.len != 0 && diff.iter().fold(0, |a, d| a | d) == 0
    }
}

/// Which bytes of the compound `bytes` decide how it reads (bit `i` for byte `i`); `None` if it
/// has no shape (see [`Shape::take`]).
fn deciding<F: Flavor>(bytes: &[u8], check: bool) -> Option<u64> {
    if F::EDITION == Edition::BedrockNetwork {
        return None;
    }
    // Bit `i`: byte `i` decides.
    let mut bits = 0u64;
    let u16_at = |at: usize| -> Option<usize> {
        let b = bytes.get(at..at + 2)?;
        Some(if F::EDITION == Edition::Java {
            u16::from_be_bytes([b[0], b[1]])
        } else {
            u16::from_le_bytes([b[0], b[1]])
        } as usize)
    };
    // Marks the `n` bytes at `at` as deciding (all within the first `SHAPE`).
    let mark = |bits: &mut u64, at: usize, n: usize| -> Option<()> {
        // The bits of the bytes before `e` (at most `SHAPE`).
        let below = |e: usize| if e >= 64 { u64::MAX } else { (1u64 << e) - 1 };
        let end = at.checked_add(n).filter(|&e| e <= SHAPE)?;
        *bits |= below(end) & !below(at);
        Some(())
    };
    // A string value at `at`: its length decides, its contents too when they are checked.
    // The offset after it.
    let string = |bits: &mut u64, at: usize| -> Option<usize> {
        let n = u16_at(at)?;
        mark(bits, at, if check { 2 + n } else { 2 })?;
        Some(at + 2 + n)
    };
    let mut at = 0;
    loop {
        // The type id, then the name: its length and, a key, its bytes.
        let id = *bytes.get(at)?;
        mark(&mut bits, at, 1)?;
        at += 1;
        if id == 0 {
            break;
        }
        let name = 2 + u16_at(at)?;
        mark(&mut bits, at, name)?;
        at += name;
        at = match id {
            1..=6 => at + fixed_width::<F>(id)?,
            8 => string(&mut bits, at)?,
            7 | 11 | 12 => {
                let width = match id {
                    7 => 1,
                    11 => 4,
                    _ => 8,
                };
                // The count decides; the elements are numbers.
                let (n, q) = seq_len_at::<F>(bytes, at, width)?;
                mark(&mut bits, at, q - at)?;
                q + n * width
            }
            9 => {
                // The element type and the count decide; then each string's length, or nothing
                // for numbers.
                // The count is bound as the reader binds it (`min_size`), and a list of
                // `TAG_End` must be empty, as there.
                let elem = *bytes.get(at)?;
                let width = fixed_width::<F>(elem);
                let min = min_size::<F>(TagType::from_id(elem)?);
                let (n, q) = seq_len_at::<F>(bytes, at + 1, min)?;
                if elem == 0 && n > 0 {
                    return None;
                }
                mark(&mut bits, at, q - at)?;
                match width {
                    Some(w) => q + n * w,
                    None if elem == 8 => {
                        let mut p = q;
                        for _ in 0..n {
                            p = string(&mut bits, p)?;
                        }
                        p
                    }
                    None => return None,
                }
            }
            _ => return None,
        };
        if at > bytes.len() {
            return None;
        }
    }
    if at != bytes.len() {
        return None;
    }
    Some(bits)
}
