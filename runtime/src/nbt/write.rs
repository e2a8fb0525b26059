//! Writing the owned tree as binary NBT in any [`Edition`].
//!
//! The writer emits exactly what the tree holds (entry order, list element types, float bits,
//! raw string bytes), so a tree read from a valid file writes back byte-identical. It refuses,
//! with [`NbtErrorKind::Unwritable`](super::NbtErrorKind::Unwritable), what the target cannot express: a string over 65 535 bytes in a
//! u16-length flavour, a lone surrogate in Bedrock's UTF-8, a tree deeper than
//! [`MAX_DEPTH_CAP`](super::read::MAX_DEPTH_CAP) (so writing cannot overflow the stack either).

use super::error::{NbtError, Result};
use super::flavor::{BedrockFlavor, Edition, Flavor, JavaFlavor, NetworkFlavor};
use super::mutf8;
use super::read::MAX_DEPTH_CAP;
use super::tag::{Compound, INLINE, List, Nbt, NbtString, Tag};
use std::mem::MaybeUninit;

impl Nbt {
    /// Appends this root in `edition` to `out`: named form if it has a name, nameless otherwise.
    pub fn encode_into(&self, out: &mut Vec<u8>, edition: Edition) -> Result<()> {
        match edition {
            Edition::Java => write_root::<JavaFlavor>(self, out),
            Edition::Bedrock => write_root::<BedrockFlavor>(self, out),
            Edition::BedrockNetwork => write_root::<NetworkFlavor>(self, out),
        }
    }

    /// This root in `edition` as a new buffer.
    pub fn encode(&self, edition: Edition) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(256);
        self.encode_into(&mut out, edition)?;
        Ok(out)
    }
}

/// Writes several roots back to back.
pub fn encode_all(roots: &[Nbt], edition: Edition) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    for r in roots {
        r.encode_into(&mut out, edition)?;
    }
    Ok(out)
}

fn write_root<F: Flavor>(nbt: &Nbt, out: &mut Vec<u8>) -> Result<()> {
    out.push(nbt.tag.tag_type().id());
    if let Some(name) = &nbt.name {
        write_str::<F>(out, name)?;
    }
    write_payload::<F>(out, &nbt.tag, 0)
}

/// Writes a compound entry's type id and name (the compound writer's general path).
#[inline]
fn write_entry_head<F: Flavor>(out: &mut Vec<u8>, id: u8, name: &NbtString) -> Result<()> {
    out.push(id);
    write_str::<F>(out, name)
}

/// `x`'s bytes in the order of flavour `F` (Java or Bedrock, [`has_fast_path`]).
macro_rules! ordered {
    ($x:expr) => {
        if F::EDITION == Edition::Java {
            $x.to_be_bytes()
        } else {
            $x.to_le_bytes()
        }
    };
}

#[inline(always)]
fn write_str<F: Flavor>(out: &mut Vec<u8>, s: &NbtString) -> Result<()> {
    // Fast path for short strings in the u16-length flavours: one fixed-size copy of the inline
    // buffer instead of a length-dependent memcpy call (names are mostly short).
    if let Some((buf, len)) = as_held::<F>(s) {
        out.reserve(2 + INLINE);
        let spare = &mut out.spare_capacity_mut()[..2 + INLINE];
        for (d, b) in spare.iter_mut().zip(held_block::<F>(buf, len)) {
            *d = MaybeUninit::new(b);
        }
        let at = out.len();
        // SAFETY: 2 + INLINE bytes after `at` were reserved and written above; `len <= INLINE`,
        // so the new length covers only initialised bytes.
        unsafe { out.set_len(at + 2 + len) };
        return Ok(());
    }
    let bytes = if F::EDITION == Edition::Java {
        std::borrow::Cow::Borrowed(s.as_mutf8())
    } else {
        mutf8::to_utf8_bytes(s.as_mutf8()).ok_or_else(|| {
            NbtError::unwritable("string is not valid Unicode (Bedrock needs UTF-8)")
        })?
    };
    if !F::w_str_len(out, bytes.len()) {
        return Err(NbtError::unwritable(
            "string longer than the length field allows",
        ));
    }
    out.extend_from_slice(&bytes);
    Ok(())
}

#[inline]
fn seq_len<F: Flavor>(out: &mut Vec<u8>, n: usize) -> Result<()> {
    if F::w_seq_len(out, n) {
        Ok(())
    } else {
        Err(NbtError::unwritable("more than 2^31-1 elements"))
    }
}

/// Writes a byte array (its length, then its bytes) as one copy rather than a loop of byte
/// moves; kept out of the compound writer, whose entries are mostly small.
#[inline(never)]
fn write_bytes<F: Flavor>(out: &mut Vec<u8>, v: &[i8]) -> Result<()> {
    seq_len::<F>(out, v.len())?;
    // SAFETY: `i8` and `u8` have the same size, alignment and valid bit patterns, so the same
    // memory read as `u8` is `v.len()` initialised bytes, borrowed for as long as `v`.
    out.extend_from_slice(unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), v.len()) });
    Ok(())
}

#[inline(always)]
fn write_payload<F: Flavor>(out: &mut Vec<u8>, tag: &Tag, depth: usize) -> Result<()> {
    match tag {
        Tag::Byte(v) => out.push(*v as u8),
        Tag::Short(v) => F::w_i16(out, *v),
        Tag::Int(v) => F::w_i32(out, *v),
        Tag::Long(v) => F::w_i64(out, *v),
        Tag::Float(v) => F::w_f32(out, *v),
        Tag::Double(v) => F::w_f64(out, *v),
        Tag::ByteArray(v) => write_bytes::<F>(out, v)?,
        Tag::String(s) => write_str::<F>(out, s)?,
        Tag::List(l) => super::guard(depth, || write_list::<F>(out, l, depth))?,
        Tag::Compound(c) => super::guard(depth, || write_compound::<F>(out, c, depth))?,
        Tag::IntArray(v) => {
            seq_len::<F>(out, v.len())?;
            F::w_i32s(out, v);
        }
        Tag::LongArray(v) => {
            seq_len::<F>(out, v.len())?;
            F::w_i64s(out, v);
        }
    }
    Ok(())
}

#[inline]
fn enter(depth: usize) -> Result<usize> {
    if depth >= MAX_DEPTH_CAP {
        return Err(NbtError::unwritable(
            "tree nested deeper than the depth cap",
        ));
    }
    Ok(depth + 1)
}

/// The most bytes of numbers a list written on the compound writer's fast path holds
/// (positions, motions, rotations: three doubles at most).
const SMALL_LIST: usize = 32;

/// Bytes one entry may take on the compound writer's fast path: type id, name length and a
/// name kept inline, then a number, a string kept inline with its length, or a list of at most
/// [`SMALL_LIST`] bytes of numbers with its element type and length.
const ENTRY_ROOM: usize = 3 + INLINE + 5 + SMALL_LIST;
const _: () = assert!(2 + INLINE <= 5 + SMALL_LIST);

/// Writes `N` bytes at `at` of `dst`.
#[inline(always)]
fn put<const N: usize>(dst: &mut [MaybeUninit<u8>; ENTRY_ROOM], at: usize, bytes: [u8; N]) {
    for (d, b) in dst[at..at + N].iter_mut().zip(bytes) {
        *d = MaybeUninit::new(b);
    }
}

/// The flavours the compound writer's fast path writes: fixed-width numbers and u16 string
/// lengths, in big-endian (Java) or little-endian (Bedrock) order.
#[inline(always)]
fn has_fast_path<F: Flavor>() -> bool {
    matches!(F::EDITION, Edition::Java | Edition::Bedrock)
}

/// A string kept inline that the flavour writes as it is held, after a u16 length: any in
/// Java, ASCII in Bedrock (whose UTF-8 differs from the held Modified UTF-8 elsewhere), none in
/// Bedrock's network flavour (varint lengths).
#[inline(always)]
fn as_held<F: Flavor>(s: &NbtString) -> Option<(&[u8; INLINE], usize)> {
    if !has_fast_path::<F>() {
        return None;
    }
    let (buf, len) = s.inline_parts()?;
    (F::EDITION == Edition::Java || buf[..len].is_ascii()).then_some((buf, len))
}

/// A string kept inline as it goes out ([`as_held`]): its length in the flavour's order, then
/// the whole inline buffer, of which the writer counts `2 + len` bytes.
#[inline(always)]
fn held_block<F: Flavor>(buf: &[u8; INLINE], len: usize) -> [u8; 2 + INLINE] {
    let lb = ordered!(len as u16);
    let mut block = [0u8; 2 + INLINE];
    block[0] = lb[0];
    block[1] = lb[1];
    block[2..].copy_from_slice(buf);
    block
}

/// Writes an entry's type id and a name kept inline into `dst` as one fixed-size block; the
/// bytes that count, or `None` if the name is not kept inline (or needs converting).
#[inline(always)]
fn small_head<F: Flavor>(
    dst: &mut [MaybeUninit<u8>; ENTRY_ROOM],
    id: u8,
    name: &NbtString,
) -> Option<usize> {
    let (buf, len) = as_held::<F>(name)?;
    let mut block = [0u8; 3 + INLINE];
    block[0] = id;
    block[1..].copy_from_slice(&held_block::<F>(buf, len));
    put(dst, 0, block);
    Some(3 + len)
}

/// Writes a list of numbers of at most [`SMALL_LIST`] bytes at `at` of `dst`; the end of what
/// counts, or `None` for any other list.
#[inline(always)]
fn small_list<F: Flavor>(
    dst: &mut [MaybeUninit<u8>; ENTRY_ROOM],
    at: usize,
    l: &List,
) -> Option<usize> {
    macro_rules! numbers {
        ($v:expr, $id:expr, $width:expr, |$x:ident| $bytes:expr) => {{
            let v: &[_] = $v;
            if v.len() * $width > SMALL_LIST {
                return None;
            }
            let n = ordered!(v.len() as i32);
            put(dst, at, [$id, n[0], n[1], n[2], n[3]]);
            let mut p = at + 5;
            for $x in v {
                put(dst, p, $bytes);
                p += $width;
            }
            p
        }};
    }
    Some(match l {
        List::End => {
            put(dst, at, [0u8; 5]);
            at + 5
        }
        List::Byte(v) => numbers!(v, 1, 1, |x| [*x as u8]),
        List::Short(v) => numbers!(v, 2, 2, |x| ordered!(*x)),
        List::Int(v) => numbers!(v, 3, 4, |x| ordered!(*x)),
        List::Long(v) => numbers!(v, 4, 8, |x| ordered!(*x)),
        List::Float(v) => numbers!(v, 5, 4, |x| ordered!(x.to_bits())),
        List::Double(v) => numbers!(v, 6, 8, |x| ordered!(x.to_bits())),
        _ => return None,
    })
}

/// Writes a string of 17 to 32 bytes (block and item ids: `minecraft:deepslate_bricks`) at `at`
/// of `dst` as two overlapping 16-byte copies; the end of what counts, or `None` for any other
/// length (or a Bedrock string that needs converting).
#[inline(always)]
fn medium_string<F: Flavor>(
    dst: &mut [MaybeUninit<u8>; ENTRY_ROOM],
    at: usize,
    s: &[u8],
) -> Option<usize> {
    let len = s.len();
    if !(17..=32).contains(&len) || (F::EDITION != Edition::Java && !s.is_ascii()) {
        return None;
    }
    put(dst, at, ordered!(len as u16));
    let head: [u8; 16] = s[..16].try_into().ok()?;
    let tail: [u8; 16] = s[len - 16..].try_into().ok()?;
    put(dst, at + 2, head);
    put(dst, at + 2 + len - 16, tail);
    Some(at + 2 + len)
}

/// Writes a number, a string kept inline or a short list of numbers at `at` of `dst`, as the
/// value of an entry of a compound at `depth`; the end of what counts, or `None` for any
/// other value.
#[inline(always)]
fn small_payload<F: Flavor>(
    dst: &mut [MaybeUninit<u8>; ENTRY_ROOM],
    at: usize,
    v: &Tag,
    depth: usize,
) -> Option<usize> {
    Some(match v {
        Tag::Byte(x) => {
            put(dst, at, [*x as u8]);
            at + 1
        }
        Tag::Short(x) => {
            put(dst, at, ordered!(*x));
            at + 2
        }
        Tag::Int(x) => {
            put(dst, at, ordered!(*x));
            at + 4
        }
        Tag::Long(x) => {
            put(dst, at, ordered!(*x));
            at + 8
        }
        Tag::Float(x) => {
            put(dst, at, ordered!(x.to_bits()));
            at + 4
        }
        Tag::Double(x) => {
            put(dst, at, ordered!(x.to_bits()));
            at + 8
        }
        Tag::String(s) => match as_held::<F>(s) {
            Some((buf, len)) => {
                put(dst, at, held_block::<F>(buf, len));
                at + 2 + len
            }
            None => medium_string::<F>(dst, at, s.as_mutf8())?,
        },
        // A list one level deeper than the cap is refused as `write_list` refuses it.
        Tag::List(l) if depth < MAX_DEPTH_CAP => small_list::<F>(dst, at, l)?,
        _ => return None,
    })
}

fn write_compound<F: Flavor>(out: &mut Vec<u8>, c: &Compound, depth: usize) -> Result<()> {
    let depth = enter(depth)?;
    // Entries of a short name and a number, a string of up to 32 bytes or a short list of
    // numbers (most of them) are written with one check for room and the length kept in a
    // register: stored to the vector after each write, it would be loaded back by the next one, a
    // store-to-load wait or three per entry.
    let mut len = out.len();
    for (k, v) in c.entries() {
        let mut head = None;
        // Where the room left is short, the general path below reserves what the entry needs
        // (no more: a buffer sized to the output exactly is not grown). Bedrock's network
        // flavour (varints) always takes it.
        if has_fast_path::<F>() && out.capacity() - len >= ENTRY_ROOM {
            // SAFETY: at least `ENTRY_ROOM` bytes of capacity follow `len`; `MaybeUninit`
            // bytes may be uninitialised.
            let dst = unsafe {
                &mut *out
                    .as_mut_ptr()
                    .add(len)
                    .cast::<[MaybeUninit<u8>; ENTRY_ROOM]>()
            };
            head = small_head::<F>(dst, v.tag_type().id(), k);
            if let Some(h) = head {
                if let Some(end) = small_payload::<F>(dst, h, v, depth) {
                    len += end;
                    continue;
                }
                len += h;
            }
        }
        // SAFETY: the bytes up to `len` were written, into the room checked above.
        unsafe { out.set_len(len) };
        let r = match head {
            Some(_) => write_payload::<F>(out, v, depth),
            None => write_entry_head::<F>(out, v.tag_type().id(), k)
                .and_then(|_| write_payload::<F>(out, v, depth)),
        };
        if let Err(e) = r {
            return Err(e.in_key(k.as_mutf8()));
        }
        len = out.len();
    }
    // SAFETY: as above.
    unsafe { out.set_len(len) };
    out.push(0);
    Ok(())
}

fn each<T>(v: &[T], mut f: impl FnMut(&T) -> Result<()>) -> Result<()> {
    for (i, x) in v.iter().enumerate() {
        f(x).map_err(|e| e.in_index(i))?;
    }
    Ok(())
}

fn write_list<F: Flavor>(out: &mut Vec<u8>, l: &List, depth: usize) -> Result<()> {
    let depth = enter(depth)?;
    out.push(l.element_type().id());
    // Each arm writes the length of the slice it has in hand (one look at where the elements
    // are, not a second through `List::len`).
    match l {
        List::End => seq_len::<F>(out, 0)?,
        List::Byte(v) => write_bytes::<F>(out, v)?,
        List::Short(v) => {
            seq_len::<F>(out, v.len())?;
            F::w_i16s(out, v);
        }
        List::Int(v) => {
            seq_len::<F>(out, v.len())?;
            F::w_i32s(out, v);
        }
        List::Long(v) => {
            seq_len::<F>(out, v.len())?;
            F::w_i64s(out, v);
        }
        List::Float(v) => {
            seq_len::<F>(out, v.len())?;
            F::w_f32s(out, v);
        }
        List::Double(v) => {
            seq_len::<F>(out, v.len())?;
            F::w_f64s(out, v);
        }
        List::ByteArray(v) => {
            seq_len::<F>(out, v.len())?;
            each(v, |a| write_bytes::<F>(out, a))?
        }
        List::String(v) => {
            seq_len::<F>(out, v.len())?;
            each(v, |s| write_str::<F>(out, s))?
        }
        List::List(v) => {
            seq_len::<F>(out, v.len())?;
            super::guard(depth, || each(v, |x| write_list::<F>(out, x, depth)))?
        }
        List::Compound(v) => {
            seq_len::<F>(out, v.len())?;
            super::guard(depth, || each(v, |x| write_compound::<F>(out, x, depth)))?
        }
        List::IntArray(v) => {
            seq_len::<F>(out, v.len())?;
            each(v, |a| {
                seq_len::<F>(out, a.len())?;
                F::w_i32s(out, a);
                Ok(())
            })?
        }
        List::LongArray(v) => {
            seq_len::<F>(out, v.len())?;
            each(v, |a| {
                seq_len::<F>(out, a.len())?;
                F::w_i64s(out, a);
                Ok(())
            })?
        }
    }
    Ok(())
}
