//! Zero-copy reading: NBT viewed in place over the input bytes.
//!
//! [`BorrowedNbt::decode`] makes one validating pass over the input (every length, type id,
//! string and the depth limit are checked, exactly as the owned reader checks them) and records
//! a *tape* with one 12-byte entry per compound and per list of compounds or lists, in document
//! order. Each entry knows where its bytes start and end and where its subtree ends on the tape,
//! so iteration walks a container's own bytes for leaf values (a list of leaves is found from its
//! header) and jumps over nested containers in O(1). Values are
//! decoded only when asked for: numbers from their bytes, strings as [`StrRef`] slices, numeric
//! arrays as [`ArrayRef`] slices. Nothing is copied; the only allocation is the tape, which is
//! why the pass runs at several GB/s on real files. A dropped document of 1 KiB or more gives
//! its tape (up to 64 KiB of it) back to its thread for the next read, so a thread reading one
//! document after another allocates nothing for most.
//!
//! A long list of alike compounds (a structure's blocks, a chunk's scheduled ticks) is read by
//! their shape: once three in a row are as long, the bytes that decide how the
//! last one read (type ids, names, lengths) are kept, and each compound after it that has the
//! same bytes there is taken whole with one comparison, with the tape entry reading it would
//! have made. It is accepted or refused exactly as reading it would (the shape tests and the
//! differential fuzz target hold it to that); a structure file reads about three times faster.
//!
//! Two modes, decided by what a zero-copy reader is for:
//!
//! * [`BorrowedNbt::decode`] / [`BorrowedNbt::decode_all`] check string contents too (Modified
//!   UTF-8 for Java, UTF-8 for Bedrock), so they accept exactly what the owned reader accepts
//!   (the sample, corruption and fuzz tests hold them to that).
//! * [`BorrowedNbt::decode_lazy`] / [`BorrowedNbt::decode_all_lazy`] check everything *but* string
//!   contents, which stay raw slices until they are decoded. This is simdnbt's borrowed contract:
//!   a file made of long strings (`servers.dat`: base64 icons) is read without touching them, in
//!   time that depends on the number of tags, not bytes. A bad string shows up where it is used:
//!   [`StrRef::check`] returns [`NbtErrorKind::InvalidString`] with its input offset,
//!   [`StrRef::to_str`] returns `None`, and [`BorrowedNbt::validate_strings`] /
//!   [`BorrowedNbt::try_to_owned_roots`] check the whole document with the owned reader's error
//!   (offset and tag path). [`BorrowedNbt::to_owned_roots`] does not check: Java bytes are kept
//!   as they are (they write back byte-identical), malformed Bedrock UTF-8 becomes U+FFFD.
//!
//! Inputs are limited to 4 GiB (offsets are `u32`); [`NbtErrorKind::InputTooLarge`] otherwise.

use std::borrow::Cow;
use std::cell::Cell;

use super::error::{NbtError, NbtErrorKind, Result};
use super::flavor::{BedrockFlavor, Cur, Edition, Flavor, JavaFlavor, NetworkFlavor, collect};
use super::mutf8;
use super::read::{REUSE_FROM, ReadOptions, RootForm, checked_len, min_size};
use super::shape::Shape;
use super::tag::{Compound, List, Nbt, NbtString, Tag, TagType};

/// A compound or a list of containers: where its bytes start and end, where its subtree ends.
#[derive(Clone, Copy, Debug)]
struct Entry {
    /// Compounds: offset of the first entry's type byte. Lists: offset of the first element.
    pos: u32,
    /// Offset after the container's last byte.
    byte_end: u32,
    /// Tape index after the container's subtree.
    tape_end: u32,
}

#[derive(Clone, Copy, Debug)]
struct Root {
    kind: TagType,
    /// (offset, length) of the name bytes, for named roots.
    name: Option<(u32, u32)>,
    /// Payload offset.
    pos: u32,
    /// Tape index for container roots.
    tape: u32,
}

/// A validated NBT stream (one or several roots) viewed in place.
///
/// Kept within 128 bytes, which a move copies inline: a larger value is copied by a call to
/// `memcpy`, which costs a small file's read (`servers.dat`, about 90 ns) a sixth of its time.
#[derive(Clone, Debug)]
pub struct BorrowedNbt<'a> {
    data: &'a [u8],
    edition: Edition,
    tape: Vec<Entry>,
    /// The first root, kept inline (a single-root read then allocates only the tape).
    first: Root,
    /// Further roots ([`BorrowedNbt::decode_all`]).
    more: Box<[Root]>,
    /// Bytes the roots took (the input is shorter than `u32::MAX`).
    consumed: u32,
    /// The options it was read with (for [`BorrowedNbt::validate_strings`]).
    opts: ReadOptions,
    /// Read with [`BorrowedNbt::decode_all`] / [`BorrowedNbt::decode_all_lazy`].
    all: bool,
    /// String contents were checked during the read.
    checked: bool,
}

const _: () = assert!(std::mem::size_of::<BorrowedNbt<'static>>() <= 128);

/// The most bytes of tape a thread keeps for its next read (about 5,400 entries, a document of
/// a quarter of a megabyte); a longer tape is freed with its document.
const TAPE_KEPT_MAX: usize = 64 << 10;

thread_local! {
    /// The tape of the last document this thread dropped, empty, for its next read: a read of
    /// a small document (a packet) then allocates nothing, and a large one does not grow its
    /// tape again by doubling.
    static TAPE: Cell<Vec<Entry>> = const { Cell::new(Vec::new()) };
}

impl Drop for BorrowedNbt<'_> {
    fn drop(&mut self) {
        if self.data.len() >= REUSE_FROM
            && self.tape.capacity() * std::mem::size_of::<Entry>() <= TAPE_KEPT_MAX
        {
            let mut tape = std::mem::take(&mut self.tape);
            tape.clear();
            // A thread that is exiting keeps nothing (`tape` is freed here).
            let _ = TAPE.try_with(|t| t.set(tape));
        }
    }
}

macro_rules! by_edition {
    ($ed:expr, $f:ident ( $($arg:expr),* )) => {
        match $ed {
            Edition::Java => $f::<JavaFlavor>($($arg),*),
            Edition::Bedrock => $f::<BedrockFlavor>($($arg),*),
            Edition::BedrockNetwork => $f::<NetworkFlavor>($($arg),*),
        }
    };
}

impl<'a> BorrowedNbt<'a> {
    /// Reads one root from uncompressed bytes. [`consumed`](Self::consumed) says how many
    /// bytes it took; the rest is left alone.
    ///
    /// Every check of the owned reader is applied, string contents included: this accepts
    /// exactly the inputs [`decode`](super::decode) accepts.
    pub fn decode(data: &'a [u8], opts: ReadOptions) -> Result<BorrowedNbt<'a>> {
        Self::build(data, opts, false, true)
    }

    /// Reads roots back to back until the input ends (all checks, like [`decode`](Self::decode)).
    pub fn decode_all(data: &'a [u8], opts: ReadOptions) -> Result<BorrowedNbt<'a>> {
        Self::build(data, opts, true, true)
    }

    /// Reads one root like [`decode`](Self::decode) but leaves string *contents* unchecked (the
    /// structure, lengths, type ids and depth are checked as always): strings stay raw slices
    /// and are checked on demand ([`StrRef::check`]; [`StrRef::to_str`] returns `None` for
    /// malformed bytes), or all at once
    /// with [`validate_strings`](Self::validate_strings). This is the contract of simdnbt's
    /// borrowed reader, and the fastest way to look at a few fields of a large file.
    pub fn decode_lazy(data: &'a [u8], opts: ReadOptions) -> Result<BorrowedNbt<'a>> {
        Self::build(data, opts, false, false)
    }

    /// [`decode_all`](Self::decode_all) with string contents left unchecked, as in
    /// [`decode_lazy`](Self::decode_lazy).
    pub fn decode_all_lazy(data: &'a [u8], opts: ReadOptions) -> Result<BorrowedNbt<'a>> {
        Self::build(data, opts, true, false)
    }

    /// Checks every string as [`decode`](Self::decode) does; after `Ok`, a
    /// [`decode_lazy`](Self::decode_lazy) document is one that [`decode`](Self::decode) would have
    /// accepted. The error is the owned reader's (offset and tag path of the first bad
    /// string). Documents from [`decode`](Self::decode) pass at once.
    pub fn validate_strings(&self) -> Result<()> {
        if self.checked {
            return Ok(());
        }
        Self::build(&self.data[..self.consumed()], self.opts, self.all, true).map(|_| ())
    }

    /// [`validate_strings`](Self::validate_strings), then
    /// [`to_owned_roots`](Self::to_owned_roots): the owned tree only if every string is valid.
    pub fn try_to_owned_roots(&self) -> Result<Vec<Nbt>> {
        self.validate_strings()?;
        Ok(self.to_owned_roots())
    }

    fn build(data: &'a [u8], opts: ReadOptions, all: bool, check: bool) -> Result<BorrowedNbt<'a>> {
        if data.len() >= u32::MAX as usize {
            return Err(NbtError::from(NbtErrorKind::InputTooLarge {
                len: data.len(),
            }));
        }
        match (opts.edition, check) {
            (Edition::Java, true) => Builder::<JavaFlavor, true>::run(data, opts, all),
            (Edition::Java, false) => Builder::<JavaFlavor, false>::run(data, opts, all),
            (Edition::Bedrock, true) => Builder::<BedrockFlavor, true>::run(data, opts, all),
            (Edition::Bedrock, false) => Builder::<BedrockFlavor, false>::run(data, opts, all),
            (Edition::BedrockNetwork, true) => Builder::<NetworkFlavor, true>::run(data, opts, all),
            (Edition::BedrockNetwork, false) => {
                Builder::<NetworkFlavor, false>::run(data, opts, all)
            }
        }
    }

    /// Bytes of input the roots took.
    pub fn consumed(&self) -> usize {
        self.consumed as usize
    }

    /// The flavour this was read in.
    pub fn edition(&self) -> Edition {
        self.edition
    }

    /// Number of roots.
    pub fn len(&self) -> usize {
        1 + self.more.len()
    }

    /// Whether there are no roots (always false: a successful read has at least one).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The first root.
    pub fn root(&self) -> RootRef<'_, 'a> {
        self.root_at(0)
    }

    fn root_at(&self, i: usize) -> RootRef<'_, 'a> {
        let r = if i == 0 { self.first } else { self.more[i - 1] };
        let value = self.child_at(r.kind, r.pos as usize, r.tape).0;
        RootRef {
            name: r.name.map(|(p, l)| self.str_ref(p as usize, l as usize)),
            value,
        }
    }

    /// All roots in order.
    pub fn roots(&self) -> impl Iterator<Item = RootRef<'_, 'a>> + '_ {
        (0..self.len()).map(move |i| self.root_at(i))
    }

    /// Copies everything into owned roots.
    pub fn to_owned_roots(&self) -> Vec<Nbt> {
        self.roots().map(|r| r.to_owned()).collect()
    }

    #[inline]
    fn str_ref(&self, pos: usize, len: usize) -> StrRef<'a> {
        StrRef {
            bytes: &self.data[pos..pos + len],
            offset: pos as u32,
            utf8: self.edition != Edition::Java,
            lenient: self.opts.lenient_utf8,
        }
    }

    /// The value of type `ty` whose payload starts at `pos`, where `j` is the next unread tape
    /// index; returns it with the offset and tape index after it.
    #[inline]
    fn child_at(&self, ty: TagType, pos: usize, j: u32) -> (TagRef<'_, 'a>, usize, u32) {
        match ty {
            TagType::Compound => {
                let e = self.tape[j as usize];
                (
                    TagRef::Compound(CompoundRef { doc: self, idx: j }),
                    e.byte_end as usize,
                    e.tape_end,
                )
            }
            TagType::List => {
                let elem = self.data[pos];
                let mut c = Cur {
                    data: self.data,
                    pos: pos + 1,
                };
                let count = by_edition!(self.edition, seq_len(&mut c))
                    .unwrap_or(0)
                    .max(0) as u32;
                let first = c.pos;
                if elem_on_tape(elem) {
                    let e = self.tape[j as usize];
                    let l = ListRef {
                        doc: self,
                        idx: j,
                        elem,
                        count,
                        pos: first as u32,
                    };
                    (TagRef::List(l), e.byte_end as usize, e.tape_end)
                } else {
                    let l = ListRef {
                        doc: self,
                        idx: NO_TAPE,
                        elem,
                        count,
                        pos: first as u32,
                    };
                    (
                        TagRef::List(l),
                        self.skip_elems(elem, count as usize, first),
                        j,
                    )
                }
            }
            _ => {
                let (t, next) = self.leaf_at(ty, pos);
                (t, next, j)
            }
        }
    }

    /// Offset after `n` leaf elements of type id `elem` starting at `pos` (validated input).
    fn skip_elems(&self, elem: u8, n: usize, pos: usize) -> usize {
        let fixed = |w: usize| pos + n * w;
        let varint = self.edition == Edition::BedrockNetwork;
        match TagType::from_id(elem).unwrap_or(TagType::End) {
            TagType::End => pos,
            TagType::Byte => fixed(1),
            TagType::Short => fixed(2),
            TagType::Float => fixed(4),
            TagType::Double => fixed(8),
            TagType::Int if !varint => fixed(4),
            TagType::Long if !varint => fixed(8),
            ty => {
                let mut p = pos;
                for _ in 0..n {
                    p = self.leaf_at(ty, p).1;
                }
                p
            }
        }
    }

    /// Decodes the (validated) leaf value at `pos`; returns it and the offset after it.
    fn leaf_at(&self, ty: TagType, pos: usize) -> (TagRef<'_, 'a>, usize) {
        let mut c = Cur {
            data: self.data,
            pos,
        };
        let (start, aux, end) =
            by_edition!(self.edition, skip_leaf(&mut c, ty)).unwrap_or((pos, 0, pos));
        (self.leaf(ty, start, aux, end), end)
    }

    /// Builds a leaf from its payload span (`aux`: string/array length).
    fn leaf(&self, ty: TagType, pos: usize, aux: usize, end: usize) -> TagRef<'_, 'a> {
        let d = self.data;
        let mut c = Cur { data: d, pos };
        macro_rules! num {
            ($m:ident) => {
                match self.edition {
                    Edition::Java => JavaFlavor::$m(&mut c),
                    Edition::Bedrock => BedrockFlavor::$m(&mut c),
                    Edition::BedrockNetwork => NetworkFlavor::$m(&mut c),
                }
                .unwrap_or_default()
            };
        }
        match ty {
            TagType::Byte => TagRef::Byte(d.get(pos).map_or(0, |&b| b as i8)),
            TagType::Short => TagRef::Short(num!(i16)),
            TagType::Int => TagRef::Int(num!(i32)),
            TagType::Long => TagRef::Long(num!(i64)),
            TagType::Float => TagRef::Float(num!(f32)),
            TagType::Double => TagRef::Double(num!(f64)),
            TagType::ByteArray => TagRef::ByteArray(&d[pos..pos + aux]),
            TagType::String => TagRef::String(self.str_ref(pos, aux)),
            TagType::IntArray | TagType::LongArray => {
                let a = ArrayRef {
                    bytes: &d[pos..end],
                    len: aux,
                    edition: self.edition,
                };
                if ty == TagType::IntArray {
                    TagRef::IntArray(a)
                } else {
                    TagRef::LongArray(a)
                }
            }
            // Containers and End never reach here.
            _ => TagRef::Byte(0),
        }
    }
}

/// Whether values of type id `id` get tape entries (lists holding containers do too).
#[inline]
fn elem_on_tape(id: u8) -> bool {
    id == TagType::List as u8 || id == TagType::Compound as u8
}

/// One root: its name (`None` when nameless) and value.
#[derive(Clone, Copy, Debug)]
pub struct RootRef<'d, 'a> {
    /// Root name.
    pub name: Option<StrRef<'a>>,
    /// Root value.
    pub value: TagRef<'d, 'a>,
}

impl RootRef<'_, '_> {
    /// Copies into an owned root.
    pub fn to_owned(&self) -> Nbt {
        Nbt {
            name: self.name.map(|n| n.to_nbt_string()),
            tag: self.value.to_owned(),
        }
    }
}

/// A string in place: MUTF-8 (Java) or UTF-8 (Bedrock) bytes, decoded on demand. Two are equal
/// when their bytes and encoding are (wherever they sit in the input).
#[derive(Clone, Copy, Debug)]
pub struct StrRef<'a> {
    bytes: &'a [u8],
    /// Input offset of the first byte (for errors).
    offset: u32,
    utf8: bool,
    /// Java: 4-byte UTF-8 accepted ([`ReadOptions::lenient_utf8`]).
    lenient: bool,
}

impl PartialEq for StrRef<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.bytes == other.bytes && self.utf8 == other.utf8
    }
}

impl Eq for StrRef<'_> {}

impl<'a> StrRef<'a> {
    /// The raw bytes as stored.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Checks the bytes as the owned reader does (Modified UTF-8 for Java, UTF-8 for Bedrock).
    /// Always `Ok` for documents from [`BorrowedNbt::decode`]; for [`BorrowedNbt::decode_lazy`] this
    /// is where a malformed string shows up, as [`NbtErrorKind::InvalidString`] with the input
    /// offset of the first bad byte.
    pub fn check(&self) -> Result<()> {
        let bad = if self.utf8 {
            std::str::from_utf8(self.bytes)
                .err()
                .map(|e| e.valid_up_to())
        } else {
            mutf8::validate(self.bytes, self.lenient).err()
        };
        match bad {
            None => Ok(()),
            Some(i) => Err(NbtError::bad_string(self.offset as usize + i)),
        }
    }

    /// The text (borrowed when ASCII / UTF-8), `None` if not valid Unicode.
    pub fn to_str(&self) -> Option<Cow<'a, str>> {
        if self.utf8 {
            std::str::from_utf8(self.bytes).ok().map(Cow::Borrowed)
        } else {
            mutf8::to_str(self.bytes)
        }
    }

    /// The text, lone surrogates replaced by U+FFFD.
    pub fn to_str_lossy(&self) -> Cow<'a, str> {
        if self.utf8 {
            String::from_utf8_lossy(self.bytes)
        } else {
            mutf8::to_str_lossy(self.bytes)
        }
    }

    /// Whether the text equals `s` (no allocation for ASCII).
    pub fn eq_str(&self, s: &str) -> bool {
        if self.utf8 || s.bytes().all(|b| b != 0 && b < 0x80) {
            self.bytes == s.as_bytes()
        } else {
            self.bytes == &*mutf8::from_str(s)
        }
    }

    /// Copies into an owned [`NbtString`] (MUTF-8). Java bytes are copied as they are, even
    /// malformed ones (possible after [`BorrowedNbt::decode_lazy`]; they then write back
    /// byte-identical); malformed Bedrock UTF-8 is converted lossily (U+FFFD). Call
    /// [`check`](Self::check) first to refuse such strings.
    pub fn to_nbt_string(&self) -> NbtString {
        if self.utf8 {
            match mutf8::from_utf8_bytes(self.bytes) {
                Some(b) => NbtString::from_mutf8(&b),
                None => {
                    NbtString::from_mutf8(mutf8::from_str(&String::from_utf8_lossy(self.bytes)))
                }
            }
        } else {
            NbtString::from_mutf8(self.bytes)
        }
    }
}

/// An int or long array in place.
#[derive(Clone, Copy, Debug)]
pub struct ArrayRef<'a> {
    bytes: &'a [u8],
    len: usize,
    edition: Edition,
}

impl<'a> ArrayRef<'a> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The encoded bytes.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Decodes as `i32`s.
    pub fn to_i32s(&self) -> Vec<i32> {
        let mut c = Cur::new(self.bytes);
        let fill = match self.edition {
            Edition::Java => JavaFlavor::i32s,
            Edition::Bedrock => BedrockFlavor::i32s,
            Edition::BedrockNetwork => NetworkFlavor::i32s,
        };
        // SAFETY: a flavour's reader writes every element when it returns `Ok`.
        unsafe { collect(self.len, |d| fill(&mut c, d)) }.unwrap_or_default()
    }

    /// Decodes as `i64`s.
    pub fn to_i64s(&self) -> Vec<i64> {
        let mut c = Cur::new(self.bytes);
        let fill = match self.edition {
            Edition::Java => JavaFlavor::i64s,
            Edition::Bedrock => BedrockFlavor::i64s,
            Edition::BedrockNetwork => NetworkFlavor::i64s,
        };
        // SAFETY: a flavour's reader writes every element when it returns `Ok`.
        unsafe { collect(self.len, |d| fill(&mut c, d)) }.unwrap_or_default()
    }
}

/// A value in place.
#[derive(Clone, Copy, Debug)]
pub enum TagRef<'d, 'a> {
    /// `TAG_Byte`.
    Byte(i8),
    /// `TAG_Short`.
    Short(i16),
    /// `TAG_Int`.
    Int(i32),
    /// `TAG_Long`.
    Long(i64),
    /// `TAG_Float`.
    Float(f32),
    /// `TAG_Double`.
    Double(f64),
    /// `TAG_Byte_Array` (bytes as stored; reinterpret as `i8`).
    ByteArray(&'a [u8]),
    /// `TAG_String`.
    String(StrRef<'a>),
    /// `TAG_List`.
    List(ListRef<'d, 'a>),
    /// `TAG_Compound`.
    Compound(CompoundRef<'d, 'a>),
    /// `TAG_Int_Array`.
    IntArray(ArrayRef<'a>),
    /// `TAG_Long_Array`.
    LongArray(ArrayRef<'a>),
}

impl<'d, 'a> TagRef<'d, 'a> {
    /// The tag type.
    pub fn tag_type(&self) -> TagType {
        match self {
            TagRef::Byte(_) => TagType::Byte,
            TagRef::Short(_) => TagType::Short,
            TagRef::Int(_) => TagType::Int,
            TagRef::Long(_) => TagType::Long,
            TagRef::Float(_) => TagType::Float,
            TagRef::Double(_) => TagType::Double,
            TagRef::ByteArray(_) => TagType::ByteArray,
            TagRef::String(_) => TagType::String,
            TagRef::List(_) => TagType::List,
            TagRef::Compound(_) => TagType::Compound,
            TagRef::IntArray(_) => TagType::IntArray,
            TagRef::LongArray(_) => TagType::LongArray,
        }
    }

    /// The compound, if this is one.
    pub fn as_compound(&self) -> Option<CompoundRef<'d, 'a>> {
        match *self {
            TagRef::Compound(c) => Some(c),
            _ => None,
        }
    }

    /// The list, if this is one.
    pub fn as_list(&self) -> Option<ListRef<'d, 'a>> {
        match *self {
            TagRef::List(l) => Some(l),
            _ => None,
        }
    }

    /// The string, if this is one.
    pub fn as_str_ref(&self) -> Option<StrRef<'a>> {
        match *self {
            TagRef::String(s) => Some(s),
            _ => None,
        }
    }

    /// Copies into an owned [`Tag`].
    pub fn to_owned(&self) -> Tag {
        match *self {
            TagRef::Byte(v) => Tag::Byte(v),
            TagRef::Short(v) => Tag::Short(v),
            TagRef::Int(v) => Tag::Int(v),
            TagRef::Long(v) => Tag::Long(v),
            TagRef::Float(v) => Tag::Float(v),
            TagRef::Double(v) => Tag::Double(v),
            TagRef::ByteArray(b) => Tag::ByteArray(b.iter().map(|&x| x as i8).collect()),
            TagRef::String(s) => Tag::String(s.to_nbt_string()),
            TagRef::List(l) => Tag::List(super::guard(0, || l.to_owned())),
            TagRef::Compound(c) => Tag::Compound(super::guard(0, || c.to_owned())),
            TagRef::IntArray(a) => Tag::IntArray(a.to_i32s().into()),
            TagRef::LongArray(a) => Tag::LongArray(a.to_i64s().into()),
        }
    }
}

/// A compound in place.
#[derive(Clone, Copy, Debug)]
pub struct CompoundRef<'d, 'a> {
    doc: &'d BorrowedNbt<'a>,
    idx: u32,
}

impl<'d, 'a> CompoundRef<'d, 'a> {
    /// Entries in file order.
    pub fn iter(&self) -> impl Iterator<Item = (StrRef<'a>, TagRef<'d, 'a>)> + 'd {
        let doc = self.doc;
        let e = doc.tape[self.idx as usize];
        let mut c = Cur {
            data: doc.data,
            pos: e.pos as usize,
        };
        let mut j = self.idx + 1;
        std::iter::from_fn(move || {
            let id = c.u8().ok()?;
            let ty = TagType::from_id(id).filter(|&t| t != TagType::End)?;
            let len = by_edition!(doc.edition, name_len(&mut c)).ok()?;
            let name = doc.str_ref(c.pos, len);
            c.pos += len;
            let (t, next, nj) = doc.child_at(ty, c.pos, j);
            c.pos = next;
            j = nj;
            Some((name, t))
        })
    }

    /// The value of `key` (the last one if it repeats).
    pub fn get(&self, key: &str) -> Option<TagRef<'d, 'a>> {
        let mut found = None;
        for (k, v) in self.iter() {
            if k.eq_str(key) {
                found = Some(v);
            }
        }
        found
    }

    /// Number of entries (walks the entries).
    pub fn len(&self) -> usize {
        self.iter().count()
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        let e = self.doc.tape[self.idx as usize];
        self.doc.data.get(e.pos as usize) == Some(&0)
    }

    /// Copies into an owned [`Compound`].
    pub fn to_owned(&self) -> Compound {
        Compound::from_entries(
            self.iter()
                .map(|(k, v)| (k.to_nbt_string(), v.to_owned()))
                .collect(),
        )
    }
}

/// A list in place.
#[derive(Clone, Copy, Debug)]
pub struct ListRef<'d, 'a> {
    doc: &'d BorrowedNbt<'a>,
    /// Tape index of a list of containers, `NO_TAPE` for a list of leaves.
    idx: u32,
    elem: u8,
    count: u32,
    /// Offset of the first element.
    pos: u32,
}

const NO_TAPE: u32 = u32::MAX;

impl<'d, 'a> ListRef<'d, 'a> {
    /// The declared element type.
    pub fn element_type(&self) -> TagType {
        TagType::from_id(self.elem).unwrap_or(TagType::End)
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.count as usize
    }

    /// Whether empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The elements in order.
    pub fn iter(&self) -> impl Iterator<Item = TagRef<'d, 'a>> + 'd {
        let doc = self.doc;
        let ty = self.element_type();
        let mut left = self.count as usize;
        let mut j = self.idx.wrapping_add(1);
        let mut pos = self.pos as usize;
        std::iter::from_fn(move || {
            if left == 0 {
                return None;
            }
            left -= 1;
            let (val, next, nj) = doc.child_at(ty, pos, j);
            pos = next;
            j = nj;
            Some(val)
        })
    }

    /// Copies into an owned [`List`].
    pub fn to_owned(&self) -> List {
        let mut l = List::empty(self.element_type());
        for t in self.iter() {
            // Elements have the declared type by construction.
            let _ = l.push(t.to_owned());
        }
        l
    }
}

#[inline]
fn name_len<F: Flavor>(c: &mut Cur) -> Result<usize> {
    F::str_len(c)
}

#[inline]
fn seq_len<F: Flavor>(c: &mut Cur) -> Result<i64> {
    F::seq_len(c)
}

/// Skips one validated leaf value: returns (payload start, aux, end) like a tape entry.
fn skip_leaf<F: Flavor>(c: &mut Cur, ty: TagType) -> Result<(usize, usize, usize)> {
    let at = c.pos;
    let (start, aux) = match ty {
        TagType::Byte => (c.take(1).map(|_| at)?, 0),
        TagType::Short => (F::i16(c).map(|_| at)?, 0),
        TagType::Int => (F::i32(c).map(|_| at)?, 0),
        TagType::Long => (F::i64(c).map(|_| at)?, 0),
        TagType::Float => (c.take(4).map(|_| at)?, 0),
        TagType::Double => (c.take(8).map(|_| at)?, 0),
        TagType::String => {
            let n = F::str_len(c)?;
            let s = c.pos;
            c.take(n)?;
            (s, n)
        }
        TagType::ByteArray => {
            let n = checked_len::<F>(c, 1)?;
            let s = c.pos;
            c.take(n)?;
            (s, n)
        }
        TagType::IntArray => {
            let n = checked_len::<F>(c, F::MIN_INT)?;
            let s = c.pos;
            skip_n::<F, _>(c, n, 4, F::i32)?;
            (s, n)
        }
        TagType::LongArray => {
            let n = checked_len::<F>(c, F::MIN_LONG)?;
            let s = c.pos;
            skip_n::<F, _>(c, n, 8, F::i64)?;
            (s, n)
        }
        _ => return Err(NbtError::bad_type(ty.id(), at)),
    };
    Ok((start, aux, c.pos))
}

/// Skips `n` ints/longs: a bulk skip for fixed widths, a decode loop for varints.
#[inline]
fn skip_n<F: Flavor, T>(
    c: &mut Cur,
    n: usize,
    width: usize,
    one: fn(&mut Cur) -> Result<T>,
) -> Result<()> {
    if F::EDITION == Edition::BedrockNetwork {
        for _ in 0..n {
            one(c)?;
        }
    } else {
        c.take(n * width)?;
    }
    Ok(())
}

/// The validating pass. It returns `None` on any fault and keeps no error details, so the hot
/// path moves nothing but offsets in registers; the caller then re-reads the input with the
/// owned reader, which applies the same checks in the same order and reports the precise error
/// (offset, tag path). The sample and fuzz tests check that both accept and reject alike.
struct Builder<'a, F, const CHECK: bool> {
    d: &'a [u8],
    p: usize,
    tape: Vec<Entry>,
    max_depth: usize,
    lenient: bool,
    _f: std::marker::PhantomData<F>,
}

/// Lists of at least this many compounds are read with shapes ([`Builder::compounds`]).
const ALIKE_FROM: usize = 8;

/// `p + n` if that is within `d` (`p <= d.len()` holds throughout).
#[inline(always)]
fn skip_at(d: &[u8], p: usize, n: usize) -> Option<usize> {
    if d.len() - p < n { None } else { Some(p + n) }
}

/// Encoded width of a list element type whose elements are all the same size in flavour `F`
/// (`TAG_End` counts as 0), `None` for the others.
#[inline(always)]
pub(super) fn fixed_width<F: Flavor>(elem: u8) -> Option<usize> {
    let varint = F::EDITION == Edition::BedrockNetwork;
    match elem {
        0 => Some(0),
        1 => Some(1),
        2 => Some(2),
        3 if !varint => Some(4),
        4 if !varint => Some(8),
        5 => Some(4),
        6 => Some(8),
        _ => None,
    }
}

/// A list/array length at `p` checked against the bytes after it at `elem` bytes each, and
/// the offset after the length field.
#[inline(always)]
pub(super) fn seq_len_at<F: Flavor>(d: &[u8], p: usize, elem: usize) -> Option<(usize, usize)> {
    let (n, q) = match F::EDITION {
        Edition::Java => {
            let b = d.get(p..p + 4)?;
            (i32::from_be_bytes([b[0], b[1], b[2], b[3]]), p + 4)
        }
        Edition::Bedrock => {
            let b = d.get(p..p + 4)?;
            (i32::from_le_bytes([b[0], b[1], b[2], b[3]]), p + 4)
        }
        Edition::BedrockNetwork => {
            let (v, q) = uvarint_at(d, p, 5)?;
            let v = v & 0xFFFF_FFFF;
            (((v >> 1) as i64 ^ -((v & 1) as i64)) as i32, q)
        }
    };
    if n < 0 || n as u64 * elem as u64 > (d.len() - q) as u64 {
        return None;
    }
    Some((n as usize, q))
}

/// An unsigned LEB128 of at most `max` bytes at `p`, and the offset after it.
#[inline(always)]
fn uvarint_at(d: &[u8], mut p: usize, max: u32) -> Option<(u64, usize)> {
    let mut v = 0u64;
    for i in 0..max {
        let b = *d.get(p)?;
        p += 1;
        v |= ((b & 0x7F) as u64) << (7 * i);
        if b & 0x80 == 0 {
            return Some((v, p));
        }
    }
    None
}

/// Whether `d[start..start + len]` is ASCII (masked words for short strings).
#[inline(always)]
fn ascii_at(d: &[u8], start: usize, len: usize) -> bool {
    mutf8::is_ascii_at(d, start, len)
}

impl<'a, F: Flavor, const CHECK: bool> Builder<'a, F, CHECK> {
    fn run(data: &'a [u8], opts: ReadOptions, all: bool) -> Result<BorrowedNbt<'a>> {
        let mut b = Builder::<F, CHECK> {
            d: data,
            p: 0,
            // About one entry per 48 input bytes on real files, but at most 84 up front
            // (1008 bytes, which malloc serves from its per-thread cache): a file of a few
            // long strings needs only a handful, and big files grow it a few times at little
            // cost next to the pass. A read of 1 KiB or more takes the tape its thread kept
            // when it is long enough.
            tape: {
                let n = (data.len() / 48 + 4).min(84);
                let kept = if data.len() >= REUSE_FROM {
                    TAPE.try_with(Cell::take).unwrap_or_default()
                } else {
                    Vec::new()
                };
                if kept.capacity() >= n {
                    kept
                } else {
                    Vec::with_capacity(n)
                }
            },
            max_depth: opts.depth_limit(),
            lenient: opts.lenient_utf8,
            _f: std::marker::PhantomData,
        };
        let Some(first) = b.root(opts.root) else {
            return Err(Self::explain(data, opts, all));
        };
        let mut more = Vec::new();
        while all && b.p < data.len() {
            match b.root(opts.root) {
                Some(r) => more.push(r),
                None => return Err(Self::explain(data, opts, all)),
            }
        }
        Ok(BorrowedNbt {
            data,
            edition: F::EDITION,
            tape: b.tape,
            first,
            more: more.into_boxed_slice(),
            consumed: b.p as u32,
            opts,
            all,
            checked: CHECK,
        })
    }

    #[cold]
    fn explain(data: &[u8], opts: ReadOptions, all: bool) -> NbtError {
        let r = if all {
            super::read::decode_all(data, opts).map(|_| ())
        } else {
            super::read::decode(data, opts).map(|_| ())
        };
        r.err().unwrap_or(NbtError::from(NbtErrorKind::Unwritable {
            reason: "internal: zero-copy and owned readers disagree",
        }))
    }

    #[inline(always)]
    fn u8(&mut self) -> Option<u8> {
        let b = *self.d.get(self.p)?;
        self.p += 1;
        Some(b)
    }

    #[inline(always)]
    fn skip(&mut self, n: usize) -> Option<()> {
        if self.d.len() - self.p < n {
            return None;
        }
        self.p += n;
        Some(())
    }

    #[inline(always)]
    fn fixed<const N: usize>(&mut self) -> Option<[u8; N]> {
        let s = self.d.get(self.p..self.p + N)?;
        self.p += N;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Some(a)
    }

    #[inline(always)]
    fn uvarint(&mut self, max: u32) -> Option<u64> {
        let mut v = 0u64;
        for i in 0..max {
            let b = self.u8()?;
            v |= ((b & 0x7F) as u64) << (7 * i);
            if b & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    }

    #[inline(always)]
    fn str_len(&mut self) -> Option<usize> {
        match F::EDITION {
            Edition::Java => Some(u16::from_be_bytes(self.fixed()?) as usize),
            Edition::Bedrock => Some(u16::from_le_bytes(self.fixed()?) as usize),
            Edition::BedrockNetwork => Some((self.uvarint(5)? & 0xFFFF_FFFF) as usize),
        }
    }

    /// A list/array length, checked against the remaining bytes at `elem` bytes each.
    #[inline(always)]
    fn seq_len(&mut self, elem: usize) -> Option<usize> {
        let n = match F::EDITION {
            Edition::Java => i32::from_be_bytes(self.fixed()?),
            Edition::Bedrock => i32::from_le_bytes(self.fixed()?),
            Edition::BedrockNetwork => {
                let v = self.uvarint(5)? & 0xFFFF_FFFF;
                ((v >> 1) as i64 ^ -((v & 1) as i64)) as i32
            }
        };
        if n < 0 || n as u64 * elem as u64 > (self.d.len() - self.p) as u64 {
            return None;
        }
        Some(n as usize)
    }

    #[inline(always)]
    fn int(&mut self) -> Option<()> {
        if F::EDITION == Edition::BedrockNetwork {
            self.uvarint(5).map(|_| ())
        } else {
            self.skip(4)
        }
    }

    #[inline(always)]
    fn long(&mut self) -> Option<()> {
        if F::EDITION == Edition::BedrockNetwork {
            self.uvarint(10).map(|_| ())
        } else {
            self.skip(8)
        }
    }

    #[inline(always)]
    fn root(&mut self, form: RootForm) -> Option<Root> {
        let ty = TagType::from_id(self.u8()?).filter(|&t| t != TagType::End)?;
        let name = match form {
            RootForm::Named => Some(self.string()?),
            RootForm::Nameless => None,
        };
        let pos = self.p as u32;
        let tape = self.tape.len() as u32;
        self.value(ty.id(), 0)?;
        Some(Root {
            kind: ty,
            name,
            pos,
            tape,
        })
    }

    /// Validates a string and returns (offset, length) of its bytes.
    #[inline(always)]
    fn string(&mut self) -> Option<(u32, u32)> {
        let len = self.str_len()?;
        let start = self.p;
        let bytes = self.d.get(start..start + len)?;
        self.p += len;
        if CHECK && !ascii_at(self.d, start, len) && !self.check_str(bytes) {
            return None;
        }
        Some((start as u32, len as u32))
    }

    #[cold]
    fn check_str(&self, bytes: &[u8]) -> bool {
        if F::EDITION == Edition::Java {
            mutf8::validate(bytes, self.lenient).is_ok()
        } else {
            std::str::from_utf8(bytes).is_ok()
        }
    }

    /// Validates one value of type id `id` (containers recorded on the tape).
    #[inline(always)]
    fn value(&mut self, id: u8, depth: usize) -> Option<()> {
        match id {
            1 => self.skip(1),
            2 => self.skip(2),
            3 => self.int(),
            4 => self.long(),
            5 => self.skip(4),
            6 => self.skip(8),
            7 => {
                let n = self.seq_len(1)?;
                self.skip(n)
            }
            8 => self.string().map(|_| ()),
            9 => super::guard(depth, || self.list(depth)),
            10 => super::guard(depth, || self.compound(depth)),
            11 => self.ints(),
            12 => self.longs(),
            _ => None,
        }
    }

    #[inline]
    fn ints(&mut self) -> Option<()> {
        if F::EDITION == Edition::BedrockNetwork {
            let n = self.seq_len(1)?;
            (0..n).try_for_each(|_| self.int())
        } else {
            let n = self.seq_len(4)?;
            self.skip(n * 4)
        }
    }

    #[inline]
    fn longs(&mut self) -> Option<()> {
        if F::EDITION == Edition::BedrockNetwork {
            let n = self.seq_len(1)?;
            (0..n).try_for_each(|_| self.long())
        } else {
            let n = self.seq_len(8)?;
            self.skip(n * 8)
        }
    }

    #[inline(always)]
    fn open(&mut self) -> usize {
        let idx = self.tape.len();
        self.tape.push(Entry {
            pos: self.p as u32,
            byte_end: 0,
            tape_end: 0,
        });
        idx
    }

    #[inline(always)]
    fn close(&mut self, idx: usize) {
        let end = self.tape.len() as u32;
        let e = &mut self.tape[idx];
        e.byte_end = self.p as u32;
        e.tape_end = end;
    }

    fn compound(&mut self, depth: usize) -> Option<()> {
        let depth = depth + 1;
        if depth > self.max_depth {
            return None;
        }
        let idx = self.open();
        // The hot loop keeps the cursor in a local: going through `self.p` put a store and a
        // dependent reload on every step. Containers and arrays go through `value`.
        let d = self.d;
        let mut p = self.p;
        let varint = F::EDITION == Edition::BedrockNetwork;
        loop {
            let id = *d.get(p)?;
            p += 1;
            if id == 0 {
                break;
            }
            p = self.str_at(p)?;
            p = match id {
                1 => skip_at(d, p, 1)?,
                2 => skip_at(d, p, 2)?,
                3 if varint => uvarint_at(d, p, 5)?.1,
                3 => skip_at(d, p, 4)?,
                4 if varint => uvarint_at(d, p, 10)?.1,
                4 => skip_at(d, p, 8)?,
                5 => skip_at(d, p, 4)?,
                6 => skip_at(d, p, 8)?,
                8 => self.str_at(p)?,
                9 if fixed_width::<F>(*d.get(p)?).is_some() => {
                    // A list of fixed-width leaves (`pos: [3 ints]`, empty lists): inline, no
                    // tape entry. It is a nesting level like any list.
                    if depth + 1 > self.max_depth {
                        return None;
                    }
                    let w = fixed_width::<F>(d[p])?;
                    let (n, q) = seq_len_at::<F>(d, p + 1, w.max(1))?;
                    if w == 0 && n > 0 {
                        return None;
                    }
                    skip_at(d, q, n * w)?
                }
                _ => {
                    self.p = p;
                    self.value(id, depth)?;
                    self.p
                }
            };
        }
        self.p = p;
        self.close(idx);
        Some(())
    }

    /// Validates the string at `p`, returning the offset after it.
    #[inline(always)]
    fn str_at(&self, p: usize) -> Option<usize> {
        let d = self.d;
        let (len, q) = match F::EDITION {
            Edition::Java => {
                let b = d.get(p..p + 2)?;
                (u16::from_be_bytes([b[0], b[1]]) as usize, p + 2)
            }
            Edition::Bedrock => {
                let b = d.get(p..p + 2)?;
                (u16::from_le_bytes([b[0], b[1]]) as usize, p + 2)
            }
            Edition::BedrockNetwork => {
                let (v, q) = uvarint_at(d, p, 5)?;
                ((v & 0xFFFF_FFFF) as usize, q)
            }
        };
        let end = skip_at(d, q, len)?;
        if CHECK && !ascii_at(d, q, len) && !self.check_str(&d[q..end]) {
            return None;
        }
        Some(end)
    }

    fn list(&mut self, depth: usize) -> Option<()> {
        let depth = depth + 1;
        if depth > self.max_depth {
            return None;
        }
        let id = self.u8()?;
        let ty = TagType::from_id(id)?;
        let n = self.seq_len(min_size::<F>(ty))?;
        if ty == TagType::End && n > 0 {
            return None;
        }
        // Only lists of containers go on the tape; a list of leaves is found (and skipped) from
        // its header when its parent is iterated.
        let idx = elem_on_tape(id).then(|| self.open());
        match ty {
            TagType::End => {}
            TagType::Byte => self.skip(n)?,
            TagType::Short => self.skip(n * 2)?,
            TagType::Float => self.skip(n * 4)?,
            TagType::Double => self.skip(n * 8)?,
            TagType::Int if F::EDITION != Edition::BedrockNetwork => self.skip(n * 4)?,
            TagType::Long if F::EDITION != Edition::BedrockNetwork => self.skip(n * 8)?,
            // Shapes are for long lists (a structure's blocks, a chunk's ticks); a short one is
            // read as it is.
            TagType::Compound if n >= ALIKE_FROM => self.compounds(n, depth)?,
            _ => {
                for _ in 0..n {
                    self.value(id, depth)?;
                }
            }
        }
        if let Some(idx) = idx {
            self.close(idx);
        }
        Some(())
    }

    /// The `n` compounds of a list at `depth`. Once three in a row, read in full, are as long,
    /// the last one lends its [`Shape`] to those after it ([`alike`](Self::alike)).
    fn compounds(&mut self, n: usize, depth: usize) -> Option<()> {
        // The length of the compounds read just before, how many of them in a row were as long
        // as it (alike compounds are as long: a hint that costs nothing), and how many shapes
        // in a row were taken without a match.
        let mut last = usize::MAX;
        let mut run = 0;
        let mut unmatched = 0;
        let mut i = 0;
        while i < n {
            let start = self.p;
            let first = self.tape.len();
            self.value(TagType::Compound as u8, depth)?;
            i += 1;
            let len = self.p - start;
            if len == last {
                run += 1;
            } else {
                (last, run) = (len, 0);
            }
            // Three as long in a row: a shape is taken, at most four times in a row without a
            // match.
            if run >= 2 && i < n && unmatched < 4 && self.tape.len() == first + 1 {
                let taken = self.alike(start, len, n - i);
                i += taken;
                unmatched = if taken == 0 { unmatched + 1 } else { 0 };
                (last, run) = (usize::MAX, 0);
            }
        }
        Some(())
    }

    /// Takes the shape of the compound of `len` bytes at `start` (read in full, no container
    /// inside), then the compounds after it that match it, at most `n`: each is taken whole,
    /// with the tape entry reading it would have made. The number taken.
    #[inline(never)]
    fn alike(&mut self, start: usize, len: usize, n: usize) -> usize {
        let mut shape = Shape::NONE;
        if !shape.take::<F>(self.d, start, len, CHECK) {
            return 0;
        }
        let d = self.d;
        let mut p = self.p;
        let mut taken = 0;
        while taken < n && shape.matches(d, p) {
            let tape_end = self.tape.len() as u32 + 1;
            self.tape.push(Entry {
                pos: p as u32,
                byte_end: (p + len) as u32,
                tape_end,
            });
            p += len;
            taken += 1;
        }
        self.p = p;
        taken
    }
}
