//! The three binary flavours of NBT and the byte-level cursor they read through.
//!
//! Java Edition writes big-endian numbers and u16 string lengths; Bedrock's disk format is the
//! same in little-endian; Bedrock's network format replaces string lengths with unsigned LEB128
//! varints and ints, longs and list/array lengths with zigzag varints. Each flavour is a zero-size
//! type implementing [`Flavor`], so readers and writers are monomorphised per flavour and pay
//! nothing for the choice at run time.

use super::error::{NbtError, NbtErrorKind, Result};
use std::mem::MaybeUninit;

/// Which binary NBT flavour a stream is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Edition {
    /// Java Edition: big-endian, Modified UTF-8 strings.
    #[default]
    Java,
    /// Bedrock disk format (`level.dat`, LevelDB values): little-endian, UTF-8 strings.
    Bedrock,
    /// Bedrock network format: varint lengths and ints, little-endian otherwise, UTF-8 strings.
    BedrockNetwork,
}

/// A read position in a byte slice. Every read checks the remaining length first.
#[derive(Clone, Copy)]
pub(crate) struct Cur<'a> {
    pub data: &'a [u8],
    pub pos: usize,
}

impl<'a> Cur<'a> {
    #[inline]
    pub fn new(data: &'a [u8]) -> Cur<'a> {
        Cur { data, pos: 0 }
    }

    #[inline]
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    #[inline]
    pub fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if self.remaining() < n {
            return Err(NbtError::eof(self.pos, n - self.remaining()));
        }
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    #[inline]
    pub fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        match self.data.get(self.pos..self.pos + N) {
            Some(s) => {
                self.pos += N;
                let mut a = [0u8; N];
                a.copy_from_slice(s);
                Ok(a)
            }
            None => Err(NbtError::eof(self.pos, N - self.remaining())),
        }
    }

    #[inline]
    pub fn u8(&mut self) -> Result<u8> {
        match self.data.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                Ok(b)
            }
            None => Err(NbtError::eof(self.pos, 1)),
        }
    }

    /// Unsigned LEB128 of at most `max_bytes` bytes.
    #[inline]
    pub fn uvarint(&mut self, max_bytes: u32) -> Result<u64> {
        let start = self.pos;
        let mut v = 0u64;
        for i in 0..max_bytes {
            let b = self.u8()?;
            v |= ((b & 0x7F) as u64) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(NbtError::at(NbtErrorKind::InvalidVarint, start))
    }
}

/// Byte-level rules of one flavour.
pub(crate) trait Flavor: Copy + 'static {
    const EDITION: Edition;
    /// Minimum encoded sizes of an int and a long element (for pre-allocation checks).
    const MIN_INT: usize;
    const MIN_LONG: usize;
    /// Minimum size of a list/array length field.
    const MIN_LEN: usize;

    fn i16(c: &mut Cur) -> Result<i16>;
    fn i32(c: &mut Cur) -> Result<i32>;
    fn i64(c: &mut Cur) -> Result<i64>;
    fn f32(c: &mut Cur) -> Result<f32>;
    fn f64(c: &mut Cur) -> Result<f64>;
    /// A string's byte length.
    fn str_len(c: &mut Cur) -> Result<usize>;
    /// A list or array length (signed; negative is rejected by the caller).
    fn seq_len(c: &mut Cur) -> Result<i64>;

    /// Reads `dst.len()` numbers into `dst`; on `Ok` every element of `dst` is written.
    fn i16s(c: &mut Cur, dst: &mut [MaybeUninit<i16>]) -> Result<()>;
    /// As [`Flavor::i16s`].
    fn i32s(c: &mut Cur, dst: &mut [MaybeUninit<i32>]) -> Result<()>;
    /// As [`Flavor::i16s`].
    fn i64s(c: &mut Cur, dst: &mut [MaybeUninit<i64>]) -> Result<()>;
    /// As [`Flavor::i16s`].
    fn f32s(c: &mut Cur, dst: &mut [MaybeUninit<f32>]) -> Result<()>;
    /// As [`Flavor::i16s`].
    fn f64s(c: &mut Cur, dst: &mut [MaybeUninit<f64>]) -> Result<()>;

    fn w_i16(out: &mut Vec<u8>, v: i16);
    fn w_i32(out: &mut Vec<u8>, v: i32);
    fn w_i64(out: &mut Vec<u8>, v: i64);
    fn w_f32(out: &mut Vec<u8>, v: f32);
    fn w_f64(out: &mut Vec<u8>, v: f64);
    /// Writes a string length; `false` if it does not fit the flavour.
    fn w_str_len(out: &mut Vec<u8>, n: usize) -> bool;
    /// Writes a list/array length; `false` if it does not fit.
    fn w_seq_len(out: &mut Vec<u8>, n: usize) -> bool;
    fn w_i16s(out: &mut Vec<u8>, v: &[i16]);
    fn w_i32s(out: &mut Vec<u8>, v: &[i32]);
    fn w_i64s(out: &mut Vec<u8>, v: &[i64]);
    fn w_f32s(out: &mut Vec<u8>, v: &[f32]);
    fn w_f64s(out: &mut Vec<u8>, v: &[f64]);
}

/// Arrays of at least this many bytes run the conversion loops' AVX2 build where the CPU has
/// it ([`wide!`]); shorter ones (a structure's three-int positions) stay in the inlined
/// baseline loop, which costs less than the call.
const WIDE_FROM: usize = 64;

/// Bulk fixed-width conversion: decode `dst.len()` elements of `W` bytes each, straight into
/// `dst` (one pass, vectorised).
macro_rules! bulk_read {
    ($c:expr, $dst:expr, $t:ty, $w:literal, $conv:expr) => {{
        let dst: &mut [MaybeUninit<$t>] = $dst;
        let bytes = $c.take(dst.len() * $w)?;
        wide!(from WIDE_FROM, bytes.len();
            fn read(dst: &mut [MaybeUninit<$t>], bytes: &[u8]) {
                for (d, ch) in dst.iter_mut().zip(bytes.chunks_exact($w)) {
                    let mut a = [0u8; $w];
                    a.copy_from_slice(ch);
                    *d = MaybeUninit::new($conv(a));
                }
            }
        );
        // `bytes` is `dst.len() * $w` bytes long, so `chunks_exact($w)` gave every slot of `dst`
        // a value.
        Ok(())
    }};
}

/// Reads `dst.len()` bytes into `dst`; on `Ok` every element is written.
pub(crate) fn i8s(c: &mut Cur, dst: &mut [MaybeUninit<i8>]) -> Result<()> {
    let bytes = c.take(dst.len())?;
    for (d, &b) in dst.iter_mut().zip(bytes) {
        *d = MaybeUninit::new(b as i8);
    }
    Ok(())
}

/// `n` numbers read by `fill` into a vector of their own.
///
/// # Safety
/// `fill` writes every element of the slice it is given when it returns `Ok`.
#[inline]
pub(crate) unsafe fn collect<T>(
    n: usize,
    fill: impl FnOnce(&mut [MaybeUninit<T>]) -> Result<()>,
) -> Result<Vec<T>> {
    let mut v = Vec::with_capacity(n);
    fill(&mut v.spare_capacity_mut()[..n])?;
    // SAFETY: `fill` returned `Ok`, so it wrote the first `n` elements (the caller's promise).
    unsafe { v.set_len(n) };
    Ok(v)
}

/// Bulk fixed-width encoding straight into the spare capacity of `out` (one pass, vectorised,
/// no zero-filling first).
macro_rules! bulk_write {
    ($out:expr, $v:expr, $t:ty, $w:literal, $conv:expr) => {{
        let (out, v): (&mut Vec<u8>, &[$t]) = ($out, $v);
        let n = v.len() * $w;
        out.reserve(n);
        let spare = &mut out.spare_capacity_mut()[..n];
        wide!(from WIDE_FROM, n;
            fn write(spare: &mut [std::mem::MaybeUninit<u8>], v: &[$t]) {
                for (dst, x) in spare.chunks_exact_mut($w).zip(v.iter()) {
                    let b = $conv(*x);
                    for k in 0..$w {
                        dst[k] = std::mem::MaybeUninit::new(b[k]);
                    }
                }
            }
        );
        let len = out.len();
        // SAFETY: the loop wrote all `n` bytes after `len`, which `reserve` made room for:
        // `chunks_exact_mut($w)` over `n = v.len() * $w` bytes zipped with `v` covers them all.
        unsafe { out.set_len(len + n) };
    }};
}

macro_rules! fixed_flavor {
    ($name:ident, $edition:expr, $from:ident, $to:ident) => {
        #[derive(Clone, Copy)]
        pub(crate) struct $name;

        impl Flavor for $name {
            const EDITION: Edition = $edition;
            const MIN_INT: usize = 4;
            const MIN_LONG: usize = 8;
            const MIN_LEN: usize = 4;

            #[inline]
            fn i16(c: &mut Cur) -> Result<i16> {
                Ok(i16::$from(c.array()?))
            }
            #[inline]
            fn i32(c: &mut Cur) -> Result<i32> {
                Ok(i32::$from(c.array()?))
            }
            #[inline]
            fn i64(c: &mut Cur) -> Result<i64> {
                Ok(i64::$from(c.array()?))
            }
            #[inline]
            fn f32(c: &mut Cur) -> Result<f32> {
                Ok(f32::from_bits(u32::$from(c.array()?)))
            }
            #[inline]
            fn f64(c: &mut Cur) -> Result<f64> {
                Ok(f64::from_bits(u64::$from(c.array()?)))
            }
            #[inline]
            fn str_len(c: &mut Cur) -> Result<usize> {
                Ok(u16::$from(c.array()?) as usize)
            }
            #[inline]
            fn seq_len(c: &mut Cur) -> Result<i64> {
                Ok(i32::$from(c.array()?) as i64)
            }
            fn i16s(c: &mut Cur, dst: &mut [MaybeUninit<i16>]) -> Result<()> {
                bulk_read!(c, dst, i16, 2, i16::$from)
            }
            fn i32s(c: &mut Cur, dst: &mut [MaybeUninit<i32>]) -> Result<()> {
                bulk_read!(c, dst, i32, 4, i32::$from)
            }
            fn i64s(c: &mut Cur, dst: &mut [MaybeUninit<i64>]) -> Result<()> {
                bulk_read!(c, dst, i64, 8, i64::$from)
            }
            fn f32s(c: &mut Cur, dst: &mut [MaybeUninit<f32>]) -> Result<()> {
                bulk_read!(c, dst, f32, 4, |a| f32::from_bits(u32::$from(a)))
            }
            fn f64s(c: &mut Cur, dst: &mut [MaybeUninit<f64>]) -> Result<()> {
                bulk_read!(c, dst, f64, 8, |a| f64::from_bits(u64::$from(a)))
            }
            #[inline]
            fn w_i16(out: &mut Vec<u8>, v: i16) {
                out.extend_from_slice(&v.$to());
            }
            #[inline]
            fn w_i32(out: &mut Vec<u8>, v: i32) {
                out.extend_from_slice(&v.$to());
            }
            #[inline]
            fn w_i64(out: &mut Vec<u8>, v: i64) {
                out.extend_from_slice(&v.$to());
            }
            #[inline]
            fn w_f32(out: &mut Vec<u8>, v: f32) {
                out.extend_from_slice(&v.to_bits().$to());
            }
            #[inline]
            fn w_f64(out: &mut Vec<u8>, v: f64) {
                out.extend_from_slice(&v.to_bits().$to());
            }
            #[inline]
            fn w_str_len(out: &mut Vec<u8>, n: usize) -> bool {
                match u16::try_from(n) {
                    Ok(n) => {
                        out.extend_from_slice(&n.$to());
                        true
                    }
                    Err(_) => false,
                }
            }
            #[inline]
            fn w_seq_len(out: &mut Vec<u8>, n: usize) -> bool {
                match i32::try_from(n) {
                    Ok(n) => {
                        out.extend_from_slice(&n.$to());
                        true
                    }
                    Err(_) => false,
                }
            }
            #[inline(always)]
            fn w_i16s(out: &mut Vec<u8>, v: &[i16]) {
                bulk_write!(out, v, i16, 2, i16::$to)
            }
            #[inline(always)]
            fn w_i32s(out: &mut Vec<u8>, v: &[i32]) {
                bulk_write!(out, v, i32, 4, i32::$to)
            }
            #[inline(always)]
            fn w_i64s(out: &mut Vec<u8>, v: &[i64]) {
                bulk_write!(out, v, i64, 8, i64::$to)
            }
            #[inline(always)]
            fn w_f32s(out: &mut Vec<u8>, v: &[f32]) {
                bulk_write!(out, v, f32, 4, |x: f32| x.to_bits().$to())
            }
            #[inline(always)]
            fn w_f64s(out: &mut Vec<u8>, v: &[f64]) {
                bulk_write!(out, v, f64, 8, |x: f64| x.to_bits().$to())
            }
        }
    };
}

fixed_flavor!(JavaFlavor, Edition::Java, from_be_bytes, to_be_bytes);
fixed_flavor!(BedrockFlavor, Edition::Bedrock, from_le_bytes, to_le_bytes);

/// Bedrock network flavour: zigzag varints for ints, longs and lengths.
#[derive(Clone, Copy)]
pub(crate) struct NetworkFlavor;

#[inline]
fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

#[inline]
fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

#[inline]
pub(crate) fn w_uvarint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

impl Flavor for NetworkFlavor {
    const EDITION: Edition = Edition::BedrockNetwork;
    const MIN_INT: usize = 1;
    const MIN_LONG: usize = 1;
    const MIN_LEN: usize = 1;

    #[inline]
    fn i16(c: &mut Cur) -> Result<i16> {
        Ok(i16::from_le_bytes(c.array()?))
    }
    #[inline]
    fn i32(c: &mut Cur) -> Result<i32> {
        Ok(unzigzag(c.uvarint(5)? & 0xFFFF_FFFF) as i32)
    }
    #[inline]
    fn i64(c: &mut Cur) -> Result<i64> {
        Ok(unzigzag(c.uvarint(10)?))
    }
    #[inline]
    fn f32(c: &mut Cur) -> Result<f32> {
        Ok(f32::from_bits(u32::from_le_bytes(c.array()?)))
    }
    #[inline]
    fn f64(c: &mut Cur) -> Result<f64> {
        Ok(f64::from_bits(u64::from_le_bytes(c.array()?)))
    }
    #[inline]
    fn str_len(c: &mut Cur) -> Result<usize> {
        Ok((c.uvarint(5)? & 0xFFFF_FFFF) as usize)
    }
    #[inline]
    fn seq_len(c: &mut Cur) -> Result<i64> {
        Self::i32(c).map(|v| v as i64)
    }
    fn i16s(c: &mut Cur, dst: &mut [MaybeUninit<i16>]) -> Result<()> {
        bulk_read!(c, dst, i16, 2, i16::from_le_bytes)
    }
    fn i32s(c: &mut Cur, dst: &mut [MaybeUninit<i32>]) -> Result<()> {
        for d in dst {
            *d = MaybeUninit::new(Self::i32(c)?);
        }
        Ok(())
    }
    fn i64s(c: &mut Cur, dst: &mut [MaybeUninit<i64>]) -> Result<()> {
        for d in dst {
            *d = MaybeUninit::new(Self::i64(c)?);
        }
        Ok(())
    }
    fn f32s(c: &mut Cur, dst: &mut [MaybeUninit<f32>]) -> Result<()> {
        bulk_read!(c, dst, f32, 4, |a| f32::from_bits(u32::from_le_bytes(a)))
    }
    fn f64s(c: &mut Cur, dst: &mut [MaybeUninit<f64>]) -> Result<()> {
        bulk_read!(c, dst, f64, 8, |a| f64::from_bits(u64::from_le_bytes(a)))
    }
    #[inline]
    fn w_i16(out: &mut Vec<u8>, v: i16) {
        out.extend_from_slice(&v.to_le_bytes());
    }
    #[inline]
    fn w_i32(out: &mut Vec<u8>, v: i32) {
        w_uvarint(out, zigzag(v as i64) & 0xFFFF_FFFF);
    }
    #[inline]
    fn w_i64(out: &mut Vec<u8>, v: i64) {
        w_uvarint(out, zigzag(v));
    }
    #[inline]
    fn w_f32(out: &mut Vec<u8>, v: f32) {
        out.extend_from_slice(&v.to_bits().to_le_bytes());
    }
    #[inline]
    fn w_f64(out: &mut Vec<u8>, v: f64) {
        out.extend_from_slice(&v.to_bits().to_le_bytes());
    }
    #[inline]
    fn w_str_len(out: &mut Vec<u8>, n: usize) -> bool {
        if n > u32::MAX as usize {
            return false;
        }
        w_uvarint(out, n as u64);
        true
    }
    #[inline]
    fn w_seq_len(out: &mut Vec<u8>, n: usize) -> bool {
        match i32::try_from(n) {
            Ok(n) => {
                Self::w_i32(out, n);
                true
            }
            Err(_) => false,
        }
    }
    fn w_i16s(out: &mut Vec<u8>, v: &[i16]) {
        bulk_write!(out, v, i16, 2, i16::to_le_bytes)
    }
    fn w_i32s(out: &mut Vec<u8>, v: &[i32]) {
        for &x in v {
            Self::w_i32(out, x);
        }
    }
    fn w_i64s(out: &mut Vec<u8>, v: &[i64]) {
        for &x in v {
            Self::w_i64(out, x);
        }
    }
    fn w_f32s(out: &mut Vec<u8>, v: &[f32]) {
        bulk_write!(out, v, f32, 4, |x: f32| x.to_bits().to_le_bytes())
    }
    fn w_f64s(out: &mut Vec<u8>, v: &[f64]) {
        bulk_write!(out, v, f64, 8, |x: f64| x.to_bits().to_le_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nbt::wide::BASELINE;

    /// Values whose bytes all differ, so a swap in the wrong place shows.
    fn values(n: usize) -> Vec<u64> {
        (0..n as u64)
            .map(|i| 0x0102_0304_0506_0708u64.wrapping_mul(i + 1) ^ (i << 56))
            .collect()
    }

    fn check_both<F: Flavor>(be: bool) {
        for baseline in [false, true] {
            BASELINE.with(|b| b.set(baseline));
            for n in (0..70).chain([255, 1024, 1027]) {
                let x = values(n);
                macro_rules! case {
                    ($t:ty, $w:ident, $r:ident, $make:expr, $bits:expr) => {{
                        let v: Vec<$t> = x.iter().map($make).collect();
                        let want: Vec<u8> = v
                            .iter()
                            .flat_map(|e| {
                                let b = $bits(*e);
                                if be { b.to_be_bytes() } else { b.to_le_bytes() }
                                    .into_iter()
                                    .collect::<Vec<u8>>()
                            })
                            .collect();
                        let mut out = vec![0xAA];
                        F::$w(&mut out, &v);
                        assert_eq!(
                            &out[1..],
                            &want[..],
                            "{} × {n}, baseline {baseline}",
                            stringify!($t)
                        );
                        let mut c = Cur::new(&want);
                        // SAFETY: a flavour's reader writes every element when it returns `Ok`.
                        let back = unsafe { collect(n, |d| F::$r(&mut c, d)) };
                        let back = back.unwrap();
                        assert!(
                            back.iter().zip(&v).all(|(a, b)| $bits(*a) == $bits(*b))
                                && back.len() == n,
                            "{} × {n} read back, baseline {baseline}",
                            stringify!($t)
                        );
                    }};
                }
                case!(i16, w_i16s, i16s, |&u| u as i16, |e: i16| e);
                case!(i32, w_i32s, i32s, |&u| u as i32, |e: i32| e);
                case!(i64, w_i64s, i64s, |&u| u as i64, |e: i64| e);
                case!(
                    f32,
                    w_f32s,
                    f32s,
                    |&u| f32::from_bits(u as u32),
                    |e: f32| e.to_bits()
                );
                case!(f64, w_f64s, f64s, |&u| f64::from_bits(u), |e: f64| e
                    .to_bits());
            }
        }
        BASELINE.with(|b| b.set(false));
    }

    #[test]
    fn bulk_arrays_match_element_by_element_conversion_on_both_loops() {
        check_both::<JavaFlavor>(true);
        check_both::<BedrockFlavor>(false);
    }
}
