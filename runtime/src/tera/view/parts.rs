//! The parts generated view types are built from: [`At`] (where a view stands) and [`Element`]
//! (an array element's view), reached by generated code through `__private`; the iterators and
//! [`Utf16Str`] that view accessors return, re-exported by [`super`].

use core::fmt;
use core::marker::PhantomData;

use crate::tera::TeraString;
use crate::tera::error::{DecodeError, DecodeErrorKind as K};
use crate::tera::wire::{Fixed, Level, Options, Reader};

/// Where a view stands: the packet's bytes (`&[u8]` or `&mut [u8]`), the start of the level's
/// body (after the header, or after an element's `here` and `next`), and the packet's options.
#[derive(Clone, Copy)]
pub struct At<B> {
    buf: B,
    at: usize,
    body: usize,
    strict: bool,
}

/// Shows where the view stands, not the packet's bytes.
impl<B> fmt::Debug for At<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("At")
            .field("at", &self.at)
            .field("strict", &self.strict)
            .finish_non_exhaustive()
    }
}

/// The error for `needed` bytes at `at` in a packet of `len`.
#[cold]
fn truncated(at: usize, needed: usize, len: usize) -> DecodeError {
    DecodeError::new(
        K::Truncated {
            needed,
            available: len.saturating_sub(at),
        },
        at,
    )
}

/// The header checks of a whole packet, as the decoder makes them, and that the level's first
/// `prefix` bytes of fixed fields fit.
fn check_root(buf: &[u8], opts: Options, prefix: usize) -> Result<(), DecodeError> {
    let body = opts.body_offset();
    if buf.len() < body {
        return Err(truncated(0, body, buf.len()).in_field("header"));
    }
    if opts.strict {
        crate::tera::packet::check_length(buf)?;
    }
    if body + prefix > buf.len() {
        return Err(truncated(body, prefix, buf.len()));
    }
    Ok(())
}

impl<'a> At<&'a [u8]> {
    /// A whole packet's root level, whose fixed fields at static offsets take `prefix` bytes.
    pub fn root(buf: &'a [u8], opts: Options, prefix: usize) -> Result<Self, DecodeError> {
        check_root(buf, opts, prefix)?;
        Ok(At {
            buf,
            at: opts.body_offset(),
            body: opts.body_offset(),
            strict: opts.strict,
        })
    }

    /// The whole packet.
    #[inline]
    pub fn bytes(&self) -> &'a [u8] {
        self.buf
    }

    /// The options the view was made with.
    #[inline]
    pub fn options(&self) -> Options {
        Options::new().padding(self.body == 12).strict(self.strict)
    }

    /// The fixed value at `rel` bytes into the level (checked when the view was made).
    #[inline(always)]
    pub fn get<T: Fixed>(&self, rel: usize) -> T {
        T::read(&self.buf[self.at + rel..])
    }

    /// The `uint16` at `rel`.
    #[inline(always)]
    fn u16_at(&self, rel: usize) -> usize {
        self.get::<u16>(rel) as usize
    }

    /// Checks that `offset` lies in the body and that `len` bytes from it are in the packet (the
    /// decoder's check, with its errors).
    #[inline]
    fn check(&self, offset: usize, len: usize) -> Result<(), DecodeError> {
        check(self.buf, self.body, offset, len)
    }

    /// The string whose offset is at `rel`.
    #[inline]
    pub fn string(&self, rel: usize) -> Result<Utf16Str<'a>, DecodeError> {
        string_at(self.buf, self.body, self.u16_at(rel))
    }

    /// The bytes whose offset and count are at `rel`.
    #[inline]
    pub fn data(&self, rel: usize) -> Result<&'a [u8], DecodeError> {
        let (offset, count) = (self.u16_at(rel), self.u16_at(rel + 2));
        if count == 0 {
            return Ok(&[]);
        }
        self.check(offset, count)?;
        Ok(&self.buf[offset..offset + count])
    }

    /// The object-array whose count and offset are at `rel`.
    #[inline]
    pub fn elements<E: Element>(&self, rel: usize) -> Elements<'a, E> {
        Elements {
            buf: self.buf,
            chain: self.chain(rel, E::SIZE, E::PREFIX),
            _e: PhantomData,
        }
    }

    /// The `array<T>` whose count and offset are at `rel`.
    #[inline]
    pub fn fixeds<T: Fixed>(&self, rel: usize) -> Fixeds<'a, T> {
        Fixeds {
            buf: self.buf,
            chain: self.chain(rel, 4 + T::SIZE, T::SIZE),
            _t: PhantomData,
        }
    }

    /// The `array<string>` whose count and offset are at `rel`.
    #[inline]
    pub fn strings(&self, rel: usize) -> Strings<'a> {
        Strings {
            buf: self.buf,
            // Claimed as the decoder does: 8 bytes an element (here, next, offset, terminator).
            chain: self.chain(rel, 8, 2),
        }
    }

    fn chain(&self, rel: usize, size: usize, prefix: usize) -> Cursor {
        Cursor::new(
            self.u16_at(rel),
            self.u16_at(rel + 2),
            size,
            prefix,
            self.body,
            self.strict,
        )
    }

    /// The owned value of the element level this view stands on (decoded by the full decoder).
    pub fn decode_element<L: Level>(&self) -> Result<L, DecodeError> {
        let mut r = Reader::at(self.buf, self.options(), self.at);
        L::decode_level(&mut r)
    }
}

impl<'a> At<&'a mut [u8]> {
    /// A whole packet's root level, to change in place; as [`At::root`].
    pub fn root_mut(buf: &'a mut [u8], opts: Options, prefix: usize) -> Result<Self, DecodeError> {
        check_root(buf, opts, prefix)?;
        Ok(At {
            buf,
            at: opts.body_offset(),
            body: opts.body_offset(),
            strict: opts.strict,
        })
    }

    /// The same place, read-only.
    #[inline]
    pub fn shared(&self) -> At<&[u8]> {
        At {
            buf: &*self.buf,
            at: self.at,
            body: self.body,
            strict: self.strict,
        }
    }

    /// The same place, borrowed mutably for less long (for an object of the level).
    #[inline]
    pub fn reborrow(&mut self) -> At<&mut [u8]> {
        At {
            buf: &mut *self.buf,
            at: self.at,
            body: self.body,
            strict: self.strict,
        }
    }

    /// Writes the fixed value at `rel` bytes into the level (checked when the view was made).
    #[inline(always)]
    pub fn put<T: Fixed>(&mut self, rel: usize, v: &T) {
        v.write(&mut self.buf[self.at + rel..])
    }

    /// The object-array whose count and offset are at `rel`, its elements to change in place.
    #[inline]
    pub fn elements_mut<E: Element>(&mut self, rel: usize) -> ElementsMut<'_, E> {
        let chain = self.shared().chain(rel, E::SIZE, E::PREFIX);
        ElementsMut {
            buf: &mut *self.buf,
            chain,
            _e: PhantomData,
        }
    }
}

/// The decoder's offset check: `offset` in the body, `len` bytes from it in the packet.
#[inline]
fn check(buf: &[u8], body: usize, offset: usize, len: usize) -> Result<(), DecodeError> {
    if offset < body {
        return Err(DecodeError::new(K::OffsetInHeader { offset }, offset));
    }
    if offset + len > buf.len() {
        return Err(DecodeError::new(
            K::OffsetOutOfBounds {
                offset,
                needed: len,
                len: buf.len(),
            },
            offset,
        ));
    }
    Ok(())
}

/// The string at `offset`: its units up to the 0 terminator.
#[inline]
fn string_at(buf: &[u8], body: usize, offset: usize) -> Result<Utf16Str<'_>, DecodeError> {
    check(buf, body, offset, 2)?;
    let b = &buf[offset..];
    let scan = crate::tera::utf16::scan(b)
        .ok_or_else(|| DecodeError::new(K::UnterminatedString, offset))?;
    Ok(Utf16Str {
        units: &b[..2 * scan.units],
        terminated: &b[..2 * scan.units + 2],
        offset,
    })
}

/// A generated element view type (`SLoginServants<()>`), for the iterators of this module: the
/// family `With<B>` of the view over bytes `B`.
pub trait Element {
    /// The view over `B`.
    type With<B>;
    /// The least bytes an element takes, `here` and `next` included (the decoder's bound).
    const SIZE: usize;
    /// Bytes of fixed fields at static offsets in an element's body.
    const PREFIX: usize;
    /// The view standing at `at`.
    fn wrap<B>(at: At<B>) -> Self::With<B>;
}

/// The walk along one element chain, with the decoder's checks.
#[derive(Debug, Clone, Copy)]
struct Cursor {
    count: usize,
    /// Elements given so far (`count` once done or failed).
    i: usize,
    at: usize,
    prev: usize,
    size: usize,
    prefix: usize,
    body: usize,
    strict: bool,
}

impl Cursor {
    fn new(
        count: usize,
        first: usize,
        size: usize,
        prefix: usize,
        body: usize,
        strict: bool,
    ) -> Self {
        Cursor {
            count,
            i: 0,
            at: first,
            prev: 0,
            size,
            prefix,
            body,
            strict,
        }
    }

    /// The body offset of the next element; `None` after the last or after an error.
    #[inline]
    fn next(&mut self, buf: &[u8]) -> Option<Result<usize, DecodeError>> {
        if self.i >= self.count {
            return None;
        }
        let r = self.step(buf);
        if r.is_err() {
            self.i = self.count;
        }
        Some(r)
    }

    #[inline]
    fn step(&mut self, buf: &[u8]) -> Result<usize, DecodeError> {
        let (i, at) = (self.i, self.at);
        if i == 0 {
            // The decoder's claim: `count` elements of at least `size` bytes fit.
            let available = buf.len().saturating_sub(at);
            if self.count * self.size > available {
                return Err(DecodeError::new(
                    K::CountTooLarge {
                        count: self.count,
                        element_size: self.size,
                        available,
                    },
                    at,
                ));
            }
        } else if at == 0 {
            return Err(DecodeError::new(
                K::ChainEndsEarly {
                    read: i,
                    count: self.count,
                },
                self.prev,
            )
            .at_index(i));
        } else if at <= self.prev {
            return Err(DecodeError::new(
                K::ElementLoop {
                    next: at,
                    from: self.prev,
                },
                self.prev,
            )
            .at_index(i));
        }
        check(buf, self.body, at, 4).map_err(|e| e.at_index(i))?;
        let here = u16::from_le_bytes([buf[at], buf[at + 1]]) as usize;
        if self.strict && here != at {
            return Err(DecodeError::new(K::HereMismatch { here, offset: at }, at).at_index(i));
        }
        if at + 4 + self.prefix > buf.len() {
            return Err(truncated(at + 4, self.prefix, buf.len()).at_index(i));
        }
        self.prev = at;
        self.at = u16::from_le_bytes([buf[at + 2], buf[at + 3]]) as usize;
        self.i += 1;
        Ok(at + 4)
    }

    fn remaining(&self) -> usize {
        self.count - self.i
    }
}

/// The elements of an object-array, as views; each `Err` ends the walk.
#[derive(Debug, Clone)]
pub struct Elements<'a, E> {
    buf: &'a [u8],
    chain: Cursor,
    _e: PhantomData<fn() -> E>,
}

impl<'a, E: Element> Elements<'a, E> {
    /// The count in the array's metadata (what the walk gives at most; not `Iterator::count`,
    /// which walks).
    pub fn declared(&self) -> usize {
        self.chain.count
    }
}

impl<'a, E: Element> Iterator for Elements<'a, E> {
    type Item = Result<E::With<&'a [u8]>, DecodeError>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let (buf, body, strict) = (self.buf, self.chain.body, self.chain.strict);
        self.chain.next(buf).map(|r| {
            r.map(|at| {
                E::wrap(At {
                    buf,
                    at,
                    body,
                    strict,
                })
            })
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.chain.remaining()))
    }
}

/// The elements of an object-array, as views that change them in place: a lending iterator
/// (`while let Some(e) = items.next() { let mut e = e?; e.set_amount(1); }`).
#[derive(Debug)]
pub struct ElementsMut<'a, E> {
    buf: &'a mut [u8],
    chain: Cursor,
    _e: PhantomData<fn() -> E>,
}

impl<E: Element> ElementsMut<'_, E> {
    /// The next element; `None` after the last or after an error.
    #[allow(clippy::should_implement_trait)] // lending: each element borrows the walk
    #[inline]
    pub fn next(&mut self) -> Option<Result<E::With<&mut [u8]>, DecodeError>> {
        let (body, strict) = (self.chain.body, self.chain.strict);
        match self.chain.next(self.buf)? {
            Ok(at) => Some(Ok(E::wrap(At {
                buf: &mut *self.buf,
                at,
                body,
                strict,
            }))),
            Err(e) => Some(Err(e)),
        }
    }

    /// The count in the array's metadata.
    pub fn declared(&self) -> usize {
        self.chain.count
    }
}

/// The values of an `array<T>` of a fixed type; each `Err` ends the walk.
#[derive(Debug, Clone)]
pub struct Fixeds<'a, T> {
    buf: &'a [u8],
    chain: Cursor,
    _t: PhantomData<fn() -> T>,
}

impl<T: Fixed> Fixeds<'_, T> {
    /// The count in the array's metadata.
    pub fn declared(&self) -> usize {
        self.chain.count
    }
}

impl<T: Fixed> Iterator for Fixeds<'_, T> {
    type Item = Result<T, DecodeError>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let buf = self.buf;
        self.chain
            .next(buf)
            .map(|r| r.map(|at| T::read(&buf[at..])))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.chain.remaining()))
    }
}

/// The strings of an `array<string>`; each `Err` ends the walk.
#[derive(Debug, Clone)]
pub struct Strings<'a> {
    buf: &'a [u8],
    chain: Cursor,
}

impl Strings<'_> {
    /// The count in the array's metadata.
    pub fn declared(&self) -> usize {
        self.chain.count
    }
}

impl<'a> Iterator for Strings<'a> {
    type Item = Result<Utf16Str<'a>, DecodeError>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let (buf, body) = (self.buf, self.chain.body);
        let i = self.chain.i;
        self.chain.next(buf).map(|r| {
            r.and_then(|at| {
                let offset = u16::from_le_bytes([buf[at], buf[at + 1]]) as usize;
                string_at(buf, body, offset).map_err(|e| e.at_index(i))
            })
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.chain.remaining()))
    }
}

/// A TERA string in place: UTF-16LE code units borrowed from the packet, without the terminator.
///
/// Compares with `&str` without converting; [`Utf16Str::to_tera_string`] converts (and fails on
/// an unpaired surrogate as the decoder does); `Display` shows it with U+FFFD for such units.
#[derive(Clone, Copy)]
pub struct Utf16Str<'a> {
    units: &'a [u8],
    /// `units` and the terminator.
    terminated: &'a [u8],
    offset: usize,
}

impl<'a> Utf16Str<'a> {
    /// The UTF-16LE bytes, terminator excluded.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.units
    }

    /// The offset of the string in its packet.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Number of UTF-16 code units.
    pub fn len(&self) -> usize {
        self.units.len() / 2
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.units.is_empty()
    }

    /// The code units.
    pub fn units(&self) -> impl Iterator<Item = u16> + 'a {
        self.units
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
    }

    /// The characters; `Err` for an unpaired surrogate.
    pub fn chars(&self) -> core::char::DecodeUtf16<impl Iterator<Item = u16> + 'a> {
        core::char::decode_utf16(self.units())
    }

    /// The string, as the decoder gives it (`InvalidUtf16` at the string's offset for an unpaired
    /// surrogate).
    pub fn to_tera_string(&self) -> Result<TeraString, DecodeError> {
        // `units` is followed by its terminator in the packet: the scan stops there.
        let scan = crate::tera::utf16::scan(self.terminated)
            .ok_or_else(|| DecodeError::new(K::UnterminatedString, self.offset))?;
        crate::tera::utf16::read_compact(self.units, scan)
            .map_err(|unit| DecodeError::new(K::InvalidUtf16 { unit }, self.offset))
    }
}

impl PartialEq<str> for Utf16Str<'_> {
    fn eq(&self, other: &str) -> bool {
        self.units().eq(other.encode_utf16())
    }
}

impl PartialEq<&str> for Utf16Str<'_> {
    fn eq(&self, other: &&str) -> bool {
        *self == **other
    }
}

impl PartialEq<Utf16Str<'_>> for str {
    fn eq(&self, other: &Utf16Str<'_>) -> bool {
        other == self
    }
}

impl PartialEq<Utf16Str<'_>> for &str {
    fn eq(&self, other: &Utf16Str<'_>) -> bool {
        other == *self
    }
}

impl PartialEq for Utf16Str<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.units == other.units
    }
}

impl fmt::Display for Utf16Str<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use fmt::Write as _;
        for c in self.chars() {
            f.write_char(c.unwrap_or(char::REPLACEMENT_CHARACTER))?;
        }
        Ok(())
    }
}

impl fmt::Debug for Utf16Str<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("\"")?;
        for c in self.chars() {
            let c = c.unwrap_or(char::REPLACEMENT_CHARACTER);
            for e in c.escape_debug() {
                fmt::Write::write_char(f, e)?;
            }
        }
        f.write_str("\"")
    }
}

/// What the `tera_views` fuzz target compares: each accessor of a view against the value the
/// full decoder gave. Generated code calls it only with `Config::view_checks` (the fuzz crate's).
#[doc(hidden)]
pub mod check {
    use alloc::format;
    use alloc::string::String;

    use super::{Element, Elements, Fixed, Fixeds, Strings, Utf16Str};
    use crate::tera::{DecodeError, TeraString};

    /// The first disagreement met, if any; every accessor is still called after it.
    #[derive(Debug, Default)]
    pub struct Checker {
        first: Option<String>,
    }

    /// The bytes of a fixed value (floats compared bit for bit, NaN included).
    fn bits<T: Fixed>(v: &T) -> [u8; 16] {
        let mut b = [0; 16];
        v.write(&mut b);
        b
    }

    impl Checker {
        /// Notes a disagreement at `path`.
        pub fn fail(&mut self, path: &str, what: impl core::fmt::Display) {
            if self.first.is_none() {
                self.first = Some(format!("{path}: {what}"));
            }
        }

        /// A fixed field.
        pub fn fixed<T: Fixed + core::fmt::Debug>(&mut self, path: &str, view: T, owned: &T) {
            if bits(&view) != bits(owned) {
                self.fail(path, format!("view {view:?}, decoder {owned:?}"));
            }
        }

        /// A string.
        pub fn string(
            &mut self,
            path: &str,
            view: Result<Utf16Str<'_>, DecodeError>,
            owned: &TeraString,
        ) {
            match view.and_then(|s| s.to_tera_string().map(|t| (s, t))) {
                Ok((s, t)) => {
                    if t != *owned
                        || s != owned.as_str()
                        || alloc::string::ToString::to_string(&s) != *owned
                    {
                        self.fail(path, format!("view {s:?}, decoder {owned:?}"));
                    }
                }
                Err(e) => self.fail(path, e),
            }
        }

        /// A `bytes` field.
        pub fn data(&mut self, path: &str, view: Result<&[u8], DecodeError>, owned: &[u8]) {
            match view {
                Ok(b) if b == owned => {}
                Ok(b) => self.fail(path, format!("view {b:?}, decoder {owned:?}")),
                Err(e) => self.fail(path, e),
            }
        }

        /// An `array<T>`.
        pub fn fixeds<T: Fixed + core::fmt::Debug + Default>(
            &mut self,
            path: &str,
            view: Fixeds<'_, T>,
            owned: &[T],
        ) {
            if view.declared() != owned.len() {
                self.fail(
                    path,
                    format!("count {}, decoder {}", view.declared(), owned.len()),
                );
            }
            for (i, v) in view.enumerate() {
                match v {
                    Ok(v) => self.fixed(path, v, owned.get(i).unwrap_or(&T::default())),
                    Err(e) => self.fail(path, e),
                }
            }
        }

        /// An `array<string>`.
        pub fn strings(&mut self, path: &str, view: Strings<'_>, owned: &[TeraString]) {
            if view.declared() != owned.len() {
                self.fail(
                    path,
                    format!("count {}, decoder {}", view.declared(), owned.len()),
                );
            }
            let empty = TeraString::default();
            for (i, v) in view.enumerate() {
                self.string(path, v, owned.get(i).unwrap_or(&empty));
            }
        }

        /// An object-array: `each` compares one element.
        pub fn elements<'a, E: Element, O: Default>(
            &mut self,
            path: &str,
            view: Elements<'a, E>,
            owned: &[O],
            mut each: impl FnMut(E::With<&'a [u8]>, &O, &mut Self),
        ) {
            if view.declared() != owned.len() {
                self.fail(
                    path,
                    format!("count {}, decoder {}", view.declared(), owned.len()),
                );
            }
            let empty = O::default();
            for (i, v) in view.enumerate() {
                match v {
                    Ok(v) => each(v, owned.get(i).unwrap_or(&empty), self),
                    Err(e) => self.fail(path, e),
                }
            }
        }

        /// The first disagreement.
        pub fn result(self) -> Result<(), String> {
            match self.first {
                Some(e) => Err(e),
                None => Ok(()),
            }
        }
    }
}
