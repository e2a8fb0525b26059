//! The wire primitives that generated code and the dynamic codec call: a bounds-checked
//! little-endian [`Reader`] that follows offsets and element chains, and a [`Writer`] that lays
//! data out as the reference's writer does (variable data inline, metadata patched afterwards).

use alloc::vec::Vec;
use core::marker::PhantomData;
use core::mem::MaybeUninit;

use super::TeraString;
use super::error::{DecodeError, DecodeErrorKind as K, EncodeError, EncodeErrorKind};
use super::values::{Angle, Customize, SkillId, SkillId32, Vec3, Vec3fa};

/// A value of fixed size on the wire.
pub trait Fixed: Sized {
    /// Bytes on the wire.
    const SIZE: usize;
    /// Reads from the first `SIZE` bytes of `b` (callers guarantee the length).
    fn read(b: &[u8]) -> Self;
    /// Writes into the first `SIZE` bytes of `b`.
    fn write(&self, b: &mut [u8]);
}

macro_rules! int_fixed {
    ($($t:ty),*) => {$(
        impl Fixed for $t {
            const SIZE: usize = core::mem::size_of::<$t>();
            #[inline(always)]
            fn read(b: &[u8]) -> Self {
                let mut a = [0u8; core::mem::size_of::<$t>()];
                a.copy_from_slice(&b[..core::mem::size_of::<$t>()]);
                <$t>::from_le_bytes(a)
            }
            #[inline(always)]
            fn write(&self, b: &mut [u8]) {
                b[..core::mem::size_of::<$t>()].copy_from_slice(&self.to_le_bytes());
            }
        }
    )*};
}
int_fixed!(u8, i16, u16, i32, u32, i64, u64, f32, f64);

impl Fixed for bool {
    const SIZE: usize = 1;
    #[inline(always)]
    fn read(b: &[u8]) -> Self {
        b[0] != 0
    }
    #[inline(always)]
    fn write(&self, b: &mut [u8]) {
        b[0] = *self as u8;
    }
}

impl Fixed for Angle {
    const SIZE: usize = 2;
    #[inline(always)]
    fn read(b: &[u8]) -> Self {
        Angle(i16::read(b))
    }
    #[inline(always)]
    fn write(&self, b: &mut [u8]) {
        self.0.write(b)
    }
}

/// `Vec3` and `Vec3fa` are both three `f32`s on the wire (they differ in their JSON form).
macro_rules! vec3_fixed {
    ($($t:ident),*) => {$(
        impl Fixed for $t {
            const SIZE: usize = 12;
            #[inline(always)]
            fn read(b: &[u8]) -> Self {
                $t {
                    x: f32::read(b),
                    y: f32::read(&b[4..]),
                    z: f32::read(&b[8..]),
                }
            }
            #[inline(always)]
            fn write(&self, b: &mut [u8]) {
                self.x.write(b);
                self.y.write(&mut b[4..]);
                self.z.write(&mut b[8..]);
            }
        }
    )*};
}
vec3_fixed!(Vec3, Vec3fa);

impl Fixed for SkillId {
    const SIZE: usize = 8;
    #[inline(always)]
    fn read(b: &[u8]) -> Self {
        SkillId(u64::read(b))
    }
    #[inline(always)]
    fn write(&self, b: &mut [u8]) {
        self.0.write(b)
    }
}

impl Fixed for SkillId32 {
    const SIZE: usize = 4;
    #[inline(always)]
    fn read(b: &[u8]) -> Self {
        SkillId32(u32::read(b))
    }
    #[inline(always)]
    fn write(&self, b: &mut [u8]) {
        self.0.write(b)
    }
}

impl Fixed for Customize {
    const SIZE: usize = 8;
    #[inline(always)]
    fn read(b: &[u8]) -> Self {
        let mut a = [0u8; 8];
        a.copy_from_slice(&b[..8]);
        Customize::from_bytes(a)
    }
    #[inline(always)]
    fn write(&self, b: &mut [u8]) {
        b[..8].copy_from_slice(&self.to_bytes());
    }
}

/// Reads a fixed value at offset `at` of a block.
#[inline(always)]
pub fn get<T: Fixed, const N: usize>(b: &[u8; N], at: usize) -> T {
    T::read(&b[at..at + T::SIZE])
}

/// Writes a fixed value at offset `at` of a block.
#[inline(always)]
pub fn put<T: Fixed, const N: usize>(b: &mut [u8; N], at: usize, v: &T) {
    v.write(&mut b[at..at + T::SIZE])
}

/// How a packet is read and written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Options {
    /// Eight bytes of padding follow the header (a per-opcode property of the protocol).
    pub padding: bool,
    /// Reject trailing bytes, a header length other than the packet's, and elements whose `here`
    /// is not their offset. Off by default, as the reference checks none of these.
    pub strict: bool,
}

impl Options {
    /// No padding, lenient.
    pub const fn new() -> Self {
        Options {
            padding: false,
            strict: false,
        }
    }
    /// With or without padding.
    pub const fn padding(mut self, padding: bool) -> Self {
        self.padding = padding;
        self
    }
    /// Strict or lenient.
    pub const fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }
    /// Where the body starts: 4, or 12 with padding.
    pub const fn body_offset(self) -> usize {
        if self.padding { 12 } else { 4 }
    }
}

/// Reads a packet. Positions are absolute (from the first header byte).
#[derive(Debug)]
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    furthest: usize,
    body: usize,
    strict: bool,
    /// Bytes that may still be read through offsets (see [`READ_FACTOR`]).
    budget: usize,
}

/// How many times its own length a packet may be read through its offsets.
///
/// Offsets may point anywhere, so without a bound a 64 KiB packet whose 5 000 string offsets all
/// point at one 32 KiB string decodes to 80 MB, and arrays whose elements share one inner chain
/// multiply per nesting level (27 million values from 6 KiB at depth 3). A packet written by the
/// reference (or by [`Writer`]) reads each byte once (1× plus 2 bytes per `array<string>`
/// element), so 4× only refuses data shared over and over; such a packet fails with
/// [`DecodeErrorKind::ReadLimit`](super::error::DecodeErrorKind::ReadLimit).
pub const READ_FACTOR: usize = 4;

/// `count` and `offset` of an array, `offset` and `count` of bytes, or `offset` of a string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Meta {
    /// Offset of the data.
    pub offset: u16,
    /// Number of elements or bytes (unused for strings).
    pub count: u16,
}

impl Meta {
    /// Array metadata at `at`: count, then offset.
    #[inline(always)]
    pub fn array<const N: usize>(b: &[u8; N], at: usize) -> Meta {
        Meta {
            count: get(b, at),
            offset: get(b, at + 2),
        }
    }
    /// Bytes metadata at `at`: offset, then count.
    #[inline(always)]
    pub fn bytes<const N: usize>(b: &[u8; N], at: usize) -> Meta {
        Meta {
            offset: get(b, at),
            count: get(b, at + 2),
        }
    }
    /// String metadata at `at`: offset.
    #[inline(always)]
    pub fn string<const N: usize>(b: &[u8; N], at: usize) -> Meta {
        Meta {
            offset: get(b, at),
            count: 0,
        }
    }
}

/// An element type of an object-array, or a packet body: something laid out as a level.
pub trait Level: Sized {
    /// Bytes of the level's fixed runs (without an element's `here`/`next`).
    const FIXED_SIZE: usize;
    /// Reads the level starting at the reader's position into `out`.
    ///
    /// Elements of an object-array are decoded straight into their place in the `Vec`: returned
    /// by value, each was copied twice (out of the `Result`, then into the `Vec`), which was a
    /// twentieth of decode time for the largest packets.
    fn decode_into<'s>(r: &mut Reader<'_>, out: Place<'s, Self>)
    -> Result<Filled<'s>, DecodeError>;
    /// Reads the level starting at the reader's position.
    #[inline]
    fn decode_level(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let mut slot = MaybeUninit::uninit();
        Self::decode_into(r, Place::new(&mut slot))?;
        // SAFETY: `decode_into` returned a `Filled` for this place, which only `Place::write`
        // makes: the slot holds a value.
        Ok(unsafe { slot.assume_init() })
    }
    /// Writes the level at the writer's end.
    fn encode_level(&self, w: &mut Writer);
    /// Bytes the level takes when written, nested data included.
    fn level_len(&self) -> usize;
}

/// Where [`Level::decode_into`] puts a level: uninitialised memory (an element's place in its
/// `Vec`), written exactly once with [`Place::write`].
///
/// The lifetime `'s` brands the place: the only [`Filled<'s>`] an implementation can return is
/// the one `write` gives for this place, so a caller that gets `Ok` knows the memory holds a
/// value.
pub struct Place<'s, T> {
    slot: &'s mut MaybeUninit<T>,
    _brand: PhantomData<fn(&'s ()) -> &'s ()>,
}

/// Proof that a [`Place<'s, _>`] was written.
pub struct Filled<'s>(PhantomData<fn(&'s ()) -> &'s ()>);

impl<'s, T> Place<'s, T> {
    fn new(slot: &'s mut MaybeUninit<T>) -> Self {
        Place {
            slot,
            _brand: PhantomData,
        }
    }

    /// Writes the decoded value.
    #[inline(always)]
    pub fn write(self, value: T) -> Filled<'s> {
        self.slot.write(value);
        Filled(PhantomData)
    }
}

impl<'a> Reader<'a> {
    /// A reader over a whole packet, positioned at the body.
    pub fn new(buf: &'a [u8], opts: Options) -> Self {
        let body = opts.body_offset();
        Reader {
            buf,
            pos: body,
            furthest: body.min(buf.len()),
            body,
            strict: opts.strict,
            budget: buf.len().saturating_mul(READ_FACTOR),
        }
    }

    /// A reader over a whole packet positioned at `pos` instead of the body: a view's element
    /// decoded on its own (`tera::view`).
    pub fn at(buf: &'a [u8], opts: Options, pos: usize) -> Self {
        let mut r = Reader::new(buf, opts);
        r.pos = pos;
        r.furthest = pos.min(buf.len());
        r
    }

    /// The whole packet.
    pub fn buf(&self) -> &'a [u8] {
        self.buf
    }

    /// The current position.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// One past the last byte read so far.
    pub fn furthest(&self) -> usize {
        self.furthest
    }

    /// Whether strict checks are on.
    pub fn is_strict(&self) -> bool {
        self.strict
    }

    #[inline(always)]
    fn touch(&mut self, end: usize) {
        if end > self.furthest {
            self.furthest = end;
        }
    }

    #[inline(always)]
    fn advance_to(&mut self, end: usize) {
        if end > self.pos {
            self.pos = end;
        }
        self.touch(end);
    }

    /// Takes the next `N` bytes: one bounds check for a run of fixed fields. On failure, `fields`
    /// (offset within the run, name) names the first field that does not fit.
    #[inline(always)]
    pub fn run<const N: usize>(
        &mut self,
        fields: &[(usize, &'static str)],
    ) -> Result<&'a [u8; N], DecodeError> {
        let buf: &'a [u8] = self.buf;
        match buf.get(self.pos..self.pos + N) {
            Some(s) => {
                let b: &'a [u8; N] = s.try_into().map_err(|_| self.truncated(N, fields))?;
                self.pos += N;
                self.touch(self.pos);
                Ok(b)
            }
            None => Err(self.truncated(N, fields)),
        }
    }

    /// Takes the next `n` bytes (the dynamic codec's form of [`Reader::run`]); `None` leaves the
    /// position where it was, and [`Reader::cut_run`] says which field does not fit.
    #[inline(always)]
    pub fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let buf: &'a [u8] = self.buf;
        let s = buf.get(self.pos..self.pos + n)?;
        self.pos += n;
        self.touch(self.pos);
        Some(s)
    }

    /// Bytes from the position to the end of the packet.
    pub fn remaining(&self) -> usize {
        self.buf.len().saturating_sub(self.pos)
    }

    #[cold]
    fn truncated(&self, n: usize, fields: &[(usize, &'static str)]) -> DecodeError {
        let (e, field) = self.cut_run(n, fields.iter().map(|f| f.0));
        match field {
            Some(i) => e.in_field(fields[i].1),
            None => e,
        }
    }

    /// Why a run of `n` fixed bytes does not fit at the position, and which of its fields (given
    /// by where each starts in the run, in order) is the first whose end lies past the packet:
    /// the error (unnamed) and that field's index, if fields were given.
    #[cold]
    pub fn cut_run(
        &self,
        n: usize,
        starts: impl IntoIterator<Item = usize>,
    ) -> (DecodeError, Option<usize>) {
        let available = self.buf.len().saturating_sub(self.pos);
        let (mut at, mut end) = (0, n);
        let mut field = None;
        let mut starts = starts.into_iter().enumerate().peekable();
        while let Some((i, off)) = starts.next() {
            let field_end = starts.peek().map_or(n, |x| x.1);
            if field_end > available {
                (at, end) = (off, field_end);
                field = Some(i);
                break;
            }
        }
        let e = DecodeError::new(
            K::Truncated {
                needed: end - at,
                available: available.saturating_sub(at),
            },
            self.pos + at,
        );
        (e, field)
    }

    #[cold]
    fn err(&self, kind: K, at: usize) -> DecodeError {
        DecodeError::new(kind, at)
    }

    /// Counts `n` bytes read through an offset against the read budget.
    #[inline(always)]
    fn charge(&mut self, n: usize, at: usize) -> Result<(), DecodeError> {
        match self.budget.checked_sub(n) {
            Some(left) => {
                self.budget = left;
                Ok(())
            }
            None => Err(self.err(
                K::ReadLimit {
                    limit: self.buf.len().saturating_mul(READ_FACTOR),
                },
                at,
            )),
        }
    }

    /// Checks that `offset` lies in the body and that `len` bytes from it are in the packet.
    #[inline(always)]
    fn check(&self, offset: usize, len: usize) -> Result<(), DecodeError> {
        if offset < self.body {
            return Err(self.err(K::OffsetInHeader { offset }, offset));
        }
        if offset + len > self.buf.len() {
            return Err(self.err(
                K::OffsetOutOfBounds {
                    offset,
                    needed: len,
                    len: self.buf.len(),
                },
                offset,
            ));
        }
        Ok(())
    }

    /// Finds the string at `offset` (UTF-16LE up to a 0 unit): its units and their scan.
    #[inline(always)]
    fn units_at(&mut self, offset: usize) -> Result<(&'a [u8], super::utf16::Scan), DecodeError> {
        self.check(offset, 2)?;
        let buf: &'a [u8] = self.buf;
        let b = &buf[offset..];
        let scan = super::utf16::scan(b).ok_or_else(|| self.err(K::UnterminatedString, offset))?;
        let n = scan.units;
        self.charge(2 * n + 2, offset)?;
        self.advance_to(offset + 2 * n + 2);
        Ok((&b[..2 * n], scan))
    }

    /// Reads the string of `meta`.
    #[inline]
    pub fn string(&mut self, meta: Meta) -> Result<TeraString, DecodeError> {
        self.text_at(meta.offset as usize)
    }

    /// Reads a string at `offset`.
    pub fn text_at(&mut self, offset: usize) -> Result<TeraString, DecodeError> {
        self.check(offset, 2)?;
        if let Some((text, n)) = super::utf16::read_short(&self.buf[offset..]) {
            self.charge(2 * n + 2, offset)?;
            self.advance_to(offset + 2 * n + 2);
            return Ok(text);
        }
        let (units, scan) = self.units_at(offset)?;
        super::utf16::read_compact(units, scan)
            .map_err(|unit| self.err(K::InvalidUtf16 { unit }, offset))
    }

    /// Reads a string at `offset`, appending its UTF-8 to `out` (left as it was on error): what
    /// [`Reader::text_at`] reads, without a value of its own.
    #[inline]
    pub fn text_into(&mut self, offset: usize, out: &mut Vec<u8>) -> Result<(), DecodeError> {
        self.check(offset, 2)?;
        if let Some((text, n)) = super::utf16::read_short(&self.buf[offset..]) {
            self.charge(2 * n + 2, offset)?;
            self.advance_to(offset + 2 * n + 2);
            out.extend_from_slice(text.as_bytes());
            return Ok(());
        }
        let (units, scan) = self.units_at(offset)?;
        super::utf16::read_into(units, scan, out)
            .map_err(|unit| self.err(K::InvalidUtf16 { unit }, offset))
    }

    /// Reads the bytes of `meta`.
    pub fn bytes(&mut self, meta: Meta) -> Result<Vec<u8>, DecodeError> {
        self.bytes_slice(meta).map(<[u8]>::to_vec)
    }

    /// The bytes of `meta`, where they lie in the packet.
    #[inline]
    pub fn bytes_slice(&mut self, meta: Meta) -> Result<&'a [u8], DecodeError> {
        let (offset, count) = (meta.offset as usize, meta.count as usize);
        if count == 0 {
            return Ok(&[]);
        }
        self.check(offset, count)?;
        self.charge(count, offset)?;
        self.advance_to(offset + count);
        let buf: &'a [u8] = self.buf;
        Ok(&buf[offset..offset + count])
    }

    /// Walks the element chain of `meta`, calling `f` with the reader at each element's body.
    /// `element_size` is the least bytes an element takes (`here` and `next` included).
    #[inline]
    pub fn chain(
        &mut self,
        meta: Meta,
        element_size: usize,
        mut f: impl FnMut(&mut Self, usize) -> Result<(), DecodeError>,
    ) -> Result<(), DecodeError> {
        let count = meta.count as usize;
        if count == 0 {
            return Ok(());
        }
        let first = meta.offset as usize;
        self.claim(count, element_size, first)?;
        let saved = self.pos;
        let mut end = saved;
        let (mut at, mut prev) = (first, 0);
        for i in 0..count {
            self.check_link(i, count, at, prev)
                .map_err(|e| e.at_index(i))?;
            self.check(at, 4).map_err(|e| e.at_index(i))?;
            let here = u16::read(&self.buf[at..]) as usize;
            let next = u16::read(&self.buf[at + 2..]) as usize;
            self.check_here(here, at).map_err(|e| e.at_index(i))?;
            self.pos = at + 4;
            self.touch(self.pos);
            f(self, i).map_err(|e| e.at_index(i))?;
            end = end.max(self.pos);
            prev = at;
            at = next;
        }
        self.pos = end;
        Ok(())
    }

    /// Before an element chain is walked: its `count` elements of at least `element_size` bytes
    /// fit between `first` and the packet's end, and are counted against the read budget.
    #[inline(always)]
    fn claim(
        &mut self,
        count: usize,
        element_size: usize,
        first: usize,
    ) -> Result<(), DecodeError> {
        let available = self.buf.len().saturating_sub(first);
        if count * element_size > available {
            return Err(self.err(
                K::CountTooLarge {
                    count,
                    element_size,
                    available,
                },
                first,
            ));
        }
        self.charge(count * element_size, first)
    }

    /// The link to element `i` of `count`, at `at` after the one at `prev`: there is one (the
    /// chain does not end early) and it leads forward (no loop).
    #[inline(always)]
    fn check_link(
        &self,
        i: usize,
        count: usize,
        at: usize,
        prev: usize,
    ) -> Result<(), DecodeError> {
        if i > 0 {
            if at == 0 {
                return Err(self.err(K::ChainEndsEarly { read: i, count }, prev));
            }
            if at <= prev {
                return Err(self.err(
                    K::ElementLoop {
                        next: at,
                        from: prev,
                    },
                    prev,
                ));
            }
        }
        Ok(())
    }

    /// In strict mode, an element's `here` is its own offset.
    #[inline(always)]
    fn check_here(&self, here: usize, at: usize) -> Result<(), DecodeError> {
        if self.strict && here != at {
            return Err(self.err(K::HereMismatch { here, offset: at }, at));
        }
        Ok(())
    }

    /// Reads an object-array.
    #[inline]
    pub fn array<E: Level>(&mut self, meta: Meta) -> Result<Vec<E>, DecodeError> {
        let mut v: Vec<E> = Vec::new();
        self.chain(meta, 4 + E::FIXED_SIZE, |r, i| {
            // Allocated only once `chain` has checked that the count fits in the packet: a count
            // of 65535 in a tiny packet must not allocate 65535 elements first.
            if i == 0 {
                v = Vec::with_capacity(meta.count as usize);
            }
            // `chain` calls at most `count` times, so there is room.
            let slot = v
                .spare_capacity_mut()
                .first_mut()
                .expect("room for `count` elements");
            E::decode_into(r, Place::new(slot))?;
            // SAFETY: `decode_into` returned a `Filled` for the place of element `len`, which
            // only `Place::write` makes: the element is initialised.
            unsafe { v.set_len(v.len() + 1) };
            Ok(())
        })
        .map(|_| v)
    }

    /// Reads an `array<T>` of a fixed type.
    #[inline]
    pub fn array_of<T: Fixed>(&mut self, meta: Meta) -> Result<Vec<T>, DecodeError> {
        let count = meta.count as usize;
        let mut v = Vec::new();
        self.fixed_elements(meta, T::SIZE, |i, body| {
            // Allocated once the walk has checked that the count fits in the packet.
            if i == 0 {
                v = Vec::with_capacity(count);
            }
            // The walk gives at most `count` elements, so there is room.
            let slot = v
                .spare_capacity_mut()
                .first_mut()
                .expect("room for `count` elements");
            slot.write(T::read(body));
            // SAFETY: the place of element `len` was just written.
            unsafe { v.set_len(v.len() + 1) };
        })?;
        Ok(v)
    }

    /// Walks the element chain of an array of fixed elements of `size` bytes (an `array<T>`),
    /// calling `each` with the index and the body of each element, in order.
    ///
    /// The same walk and the same checks, in the same order, as [`Reader::chain`], as one loop
    /// over locals: through the closure the position and the next offset went through memory
    /// for every element, a tenth of decoding time for packets of many small arrays.
    #[inline(always)]
    pub fn fixed_elements(
        &mut self,
        meta: Meta,
        size: usize,
        mut each: impl FnMut(usize, &'a [u8]),
    ) -> Result<(), DecodeError> {
        let count = meta.count as usize;
        if count == 0 {
            return Ok(());
        }
        let body = size;
        let size = 4 + body;
        let first = meta.offset as usize;
        self.claim(count, size, first)?;
        let buf: &'a [u8] = self.buf;
        let (mut at, mut prev, mut end) = (first, 0, self.pos);
        for i in 0..count {
            self.check_link(i, count, at, prev)
                .map_err(|e| e.at_index(i))?;
            let element = match buf.get(at..at + size) {
                Some(e) if at >= self.body => e,
                _ => return Err(self.element_error(at, body).at_index(i)),
            };
            self.check_here(u16::read(element) as usize, at)
                .map_err(|e| e.at_index(i))?;
            each(i, &element[4..]);
            end = end.max(at + size);
            prev = at;
            at = u16::read(&element[2..]) as usize;
        }
        self.pos = end;
        self.touch(end);
        Ok(())
    }

    /// Why an element of `body` bytes does not fit at `at`: the error [`Reader::chain`] gives,
    /// whose checks come in this order (its `here` and `next`, in strict mode `here`, then the
    /// body).
    #[cold]
    fn element_error(&self, at: usize, body: usize) -> DecodeError {
        if let Err(e) = self.check(at, 4) {
            return e;
        }
        if let Err(e) = self.check_here(u16::read(&self.buf[at..]) as usize, at) {
            return e;
        }
        let pos = at + 4;
        self.err(
            K::Truncated {
                needed: body,
                available: self.buf.len().saturating_sub(pos),
            },
            pos,
        )
    }

    /// Reads an `array<string>`: each element holds the offset of its text.
    pub fn array_of_strings(&mut self, meta: Meta) -> Result<Vec<TeraString>, DecodeError> {
        let mut v = Vec::new();
        self.string_elements(meta, |r, i, offset| {
            if i == 0 {
                v = Vec::with_capacity(meta.count as usize);
            }
            v.push(r.text_at(offset)?);
            Ok(())
        })
        .map(|_| v)
    }

    /// Walks the element chain of an `array<string>`, calling `each` with the reader, the index
    /// and the offset of each element's text (which `each` reads: [`Reader::text_at`] or
    /// [`Reader::text_into`]).
    #[inline]
    pub fn string_elements(
        &mut self,
        meta: Meta,
        mut each: impl FnMut(&mut Self, usize, usize) -> Result<(), DecodeError>,
    ) -> Result<(), DecodeError> {
        self.chain(meta, 8, |r, i| {
            let pos = r.pos;
            let b = r.buf.get(pos..pos + 2).ok_or_else(|| {
                r.err(
                    K::Truncated {
                        needed: 2,
                        available: r.buf.len().saturating_sub(pos),
                    },
                    pos,
                )
            })?;
            let offset = u16::read(b) as usize;
            r.advance_to(pos + 2);
            each(r, i, offset)
        })
    }
}

/// The metadata slot of a variable field, in a packet being written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot(pub usize);

/// The state of one array's element chain while it is written.
#[derive(Debug)]
pub struct Chain {
    slot: Slot,
    last: Option<usize>,
    count: usize,
}

impl Chain {
    /// A chain whose count and offset go into `slot`.
    pub fn new(slot: Slot) -> Self {
        Chain {
            slot,
            last: None,
            count: 0,
        }
    }
}

/// Writes a packet. Variable data is written where it stands; metadata slots are patched.
#[derive(Debug, Default)]
pub struct Writer {
    buf: Vec<u8>,
    overflow: Option<EncodeError>,
}

impl Writer {
    /// A writer with room for `capacity` bytes.
    pub fn with_capacity(capacity: usize) -> Self {
        Writer {
            buf: Vec::with_capacity(capacity),
            overflow: None,
        }
    }

    /// A writer that appends to `buf`.
    pub fn from_vec(buf: Vec<u8>) -> Self {
        Writer {
            buf,
            overflow: None,
        }
    }

    /// Bytes written.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// Whether nothing is written.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// The bytes, or the first overflow met while writing.
    pub fn finish(self) -> Result<Vec<u8>, EncodeError> {
        match self.overflow {
            Some(e) => Err(e),
            None => Ok(self.buf),
        }
    }

    /// The bytes, and the first overflow met while writing if there was one.
    pub fn into_parts(self) -> (Vec<u8>, Option<EncodeError>) {
        (self.buf, self.overflow)
    }

    /// The bytes written so far (also after an overflow).
    pub fn as_slice(&self) -> &[u8] {
        &self.buf
    }

    /// Appends `N` zero bytes and returns them to be filled: one run of fixed fields.
    #[inline(always)]
    pub fn run<const N: usize>(&mut self) -> (usize, &mut [u8; N]) {
        let at = self.buf.len();
        self.buf.resize(at + N, 0);
        let b: &mut [u8; N] = (&mut self.buf[at..at + N])
            .try_into()
            .expect("just resized");
        (at, b)
    }

    #[cold]
    fn overflowed(&mut self, e: EncodeError) {
        if self.overflow.is_none() {
            self.overflow = Some(e);
        }
    }

    /// Writes `v` as a `uint16` at `at`, noting an overflow.
    #[inline(always)]
    pub fn patch_u16(&mut self, at: usize, v: usize, count: bool) {
        if v > 0xffff {
            self.overflowed(if count {
                EncodeError::new(EncodeErrorKind::CountTooLarge { count: v })
            } else {
                EncodeError::new(EncodeErrorKind::OffsetTooLarge { offset: v })
            });
        }
        self.buf[at..at + 2].copy_from_slice(&(v as u16).to_le_bytes());
    }

    /// Appends `n` zero bytes and returns their position and the bytes to be filled.
    pub fn run_dyn(&mut self, n: usize) -> (usize, &mut [u8]) {
        let at = self.buf.len();
        self.buf.resize(at + n, 0);
        (at, &mut self.buf[at..])
    }

    /// Appends bytes as they are (a fixed value already in its wire form).
    #[inline(always)]
    pub fn append(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }

    /// Appends a fixed value.
    #[inline(always)]
    pub fn put<T: Fixed>(&mut self, v: &T) {
        let at = self.buf.len();
        self.buf.resize(at + T::SIZE, 0);
        v.write(&mut self.buf[at..]);
    }

    fn units(&mut self, s: &str) {
        super::utf16::append(s, &mut self.buf);
    }

    /// Writes a string here and points its slot at it.
    #[inline]
    pub fn string(&mut self, slot: Slot, s: &str) {
        let here = self.buf.len();
        self.patch_u16(slot.0, here, false);
        self.units(s);
    }

    /// Writes bytes here and points their slot at them.
    #[inline]
    pub fn bytes(&mut self, slot: Slot, b: &[u8]) {
        let here = self.buf.len();
        self.patch_u16(slot.0, here, false);
        self.patch_u16(slot.0 + 2, b.len(), true);
        self.buf.extend_from_slice(b);
    }

    /// Starts the next element of `chain` (its `here` and `next`); the caller then writes its body.
    #[inline]
    pub fn element(&mut self, chain: &mut Chain) {
        let here = self.buf.len();
        match chain.last {
            None => self.patch_u16(chain.slot.0 + 2, here, false),
            Some(prev) => self.patch_u16(prev + 2, here, false),
        }
        chain.last = Some(here);
        chain.count += 1;
        self.buf.extend_from_slice(&[0, 0, 0, 0]);
        self.patch_u16(here, here, false);
    }

    /// Ends a chain: writes its count.
    #[inline]
    pub fn end_chain(&mut self, chain: Chain) {
        if chain.count > 0 {
            self.patch_u16(chain.slot.0, chain.count, true);
        }
    }

    /// Writes an object-array.
    #[inline]
    pub fn array<E: Level>(&mut self, slot: Slot, items: &[E]) {
        let mut c = Chain::new(slot);
        for e in items {
            self.element(&mut c);
            e.encode_level(self);
        }
        self.end_chain(c);
    }

    /// Writes an `array<T>`.
    #[inline]
    pub fn array_of<T: Fixed>(&mut self, slot: Slot, items: &[T]) {
        let mut c = Chain::new(slot);
        for e in items {
            self.element(&mut c);
            self.put(e);
        }
        self.end_chain(c);
    }

    /// Writes an `array<string>` (each element: the text's offset, then the text).
    #[inline]
    pub fn array_of_strings<S: AsRef<str>>(&mut self, slot: Slot, items: &[S]) {
        let mut c = Chain::new(slot);
        for e in items {
            self.element(&mut c);
            self.string_element(e.as_ref());
        }
        self.end_chain(c);
    }

    /// The body of one `array<string>` element.
    #[inline]
    pub fn string_element(&mut self, s: &str) {
        let at = self.buf.len();
        self.buf.extend_from_slice(&[0, 0]);
        self.string(Slot(at), s);
    }
}

/// Bytes a string takes on the wire.
#[inline]
pub fn string_len(s: &str) -> usize {
    2 * super::utf16::units_len(s) + 2
}

/// Bytes an object-array takes.
#[inline]
pub fn array_len<E: Level>(items: &[E]) -> usize {
    items.iter().map(|e| 4 + e.level_len()).sum()
}

/// Bytes an `array<string>` takes.
#[inline]
pub fn strings_len<S: AsRef<str>>(items: &[S]) -> usize {
    items.iter().map(|s| 6 + string_len(s.as_ref())).sum()
}
