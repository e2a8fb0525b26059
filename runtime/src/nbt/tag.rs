//! The owned NBT tree: [`Tag`], [`List`], [`Compound`], [`NbtString`] and the root [`Nbt`].
//!
//! The tree keeps everything a file says so that it writes back byte-identical: compound entries
//! stay in file order (a sequence, not a map), a list keeps its declared element type even when
//! it is empty (lists are typed: [`List::Int`] holds an [`NbtVec<i32>`](NbtVec)), floats keep
//! their bit patterns (NaN payloads included), and strings keep their raw Modified UTF-8 bytes.
//!
//! Equality ([`PartialEq`]) is structural and compares floats by bits, so `NaN == NaN` here when
//! the bits match and `0.0 != -0.0`: it answers "would these write the same bytes".

use super::block::Pooled;
use super::vec::NbtVec;
use std::borrow::Cow;
use std::fmt;

use super::mutf8;

/// The id of an NBT tag type, as written in the byte stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum TagType {
    /// `TAG_End` (0): ends a compound; the element type of an untyped empty list.
    End = 0,
    /// `TAG_Byte` (1).
    Byte = 1,
    /// `TAG_Short` (2).
    Short = 2,
    /// `TAG_Int` (3).
    Int = 3,
    /// `TAG_Long` (4).
    Long = 4,
    /// `TAG_Float` (5).
    Float = 5,
    /// `TAG_Double` (6).
    Double = 6,
    /// `TAG_Byte_Array` (7).
    ByteArray = 7,
    /// `TAG_String` (8).
    String = 8,
    /// `TAG_List` (9).
    List = 9,
    /// `TAG_Compound` (10).
    Compound = 10,
    /// `TAG_Int_Array` (11).
    IntArray = 11,
    /// `TAG_Long_Array` (12).
    LongArray = 12,
}

impl TagType {
    /// The tag type for an id byte, `None` for ids above 12.
    #[inline]
    pub fn from_id(id: u8) -> Option<TagType> {
        use TagType::*;
        Some(match id {
            0 => End,
            1 => Byte,
            2 => Short,
            3 => Int,
            4 => Long,
            5 => Float,
            6 => Double,
            7 => ByteArray,
            8 => String,
            9 => List,
            10 => Compound,
            11 => IntArray,
            12 => LongArray,
            _ => return None,
        })
    }

    /// The id byte.
    #[inline]
    pub fn id(self) -> u8 {
        self as u8
    }

    /// The lowercase name used by the JSON dump (`"byte_array"`, `"compound"`, …).
    pub fn name(self) -> &'static str {
        use TagType::*;
        match self {
            End => "end",
            Byte => "byte",
            Short => "short",
            Int => "int",
            Long => "long",
            Float => "float",
            Double => "double",
            ByteArray => "byte_array",
            String => "string",
            List => "list",
            Compound => "compound",
            IntArray => "int_array",
            LongArray => "long_array",
        }
    }

    /// The tag type for a dump name (inverse of [`TagType::name`]).
    pub fn from_name(name: &str) -> Option<TagType> {
        (0..=12)
            .filter_map(TagType::from_id)
            .find(|t| t.name() == name)
    }
}

impl fmt::Display for TagType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An NBT string: the raw Java Modified UTF-8 bytes, decoded on demand.
///
/// Keeping the bytes makes strings that are not valid Unicode (lone surrogates) lossless, and
/// makes reading cheap (no decoding). Bedrock's UTF-8 strings are converted to this form on read
/// and back on write; for ASCII the two are the same bytes. Strings of up to 22 bytes (most keys
/// and many values) are stored inline, without a heap allocation; longer ones the reader builds
/// (up to 64 KiB) lie in the blocks their read shares with the tree's containers. A string taken
/// out of its tree by value keeps its block's memory (up to 64 KiB) until it is dropped;
/// [`clone`](Clone::clone) makes a copy of its own (keep clones, or `String`s, of strings you
/// collect from many trees).
#[derive(Clone)]
pub struct NbtString(Repr);

pub(crate) const INLINE: usize = 22;

enum Repr {
    Inline {
        len: u8,
        buf: [u8; INLINE],
    },
    Heap(Box<[u8]>),
    /// Bytes in a block of the read that built the string ([`super::block`]).
    Pooled(Pooled<u8>),
}

impl Clone for Repr {
    /// A copy that owns its bytes (inline or on the heap).
    fn clone(&self) -> Repr {
        match self {
            Repr::Inline { len, buf } => Repr::Inline {
                len: *len,
                buf: *buf,
            },
            Repr::Heap(b) => Repr::Heap(b.clone()),
            Repr::Pooled(p) => Repr::Heap(p.as_slice().into()),
        }
    }
}

impl Default for NbtString {
    fn default() -> NbtString {
        NbtString(Repr::Inline {
            len: 0,
            buf: [0; INLINE],
        })
    }
}

impl PartialEq for NbtString {
    #[inline]
    fn eq(&self, other: &NbtString) -> bool {
        self.as_mutf8() == other.as_mutf8()
    }
}

impl Eq for NbtString {}

impl std::hash::Hash for NbtString {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.as_mutf8().hash(h)
    }
}

impl PartialOrd for NbtString {
    fn partial_cmp(&self, other: &NbtString) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for NbtString {
    fn cmp(&self, other: &NbtString) -> std::cmp::Ordering {
        self.as_mutf8().cmp(other.as_mutf8())
    }
}

impl NbtString {
    /// Copies MUTF-8 bytes as they are (not validated; decoding is lossy on malformed bytes).
    #[inline]
    pub fn from_mutf8_slice(bytes: &[u8]) -> NbtString {
        if bytes.len() <= INLINE {
            let mut buf = [0u8; INLINE];
            buf[..bytes.len()].copy_from_slice(bytes);
            NbtString(Repr::Inline {
                len: bytes.len() as u8,
                buf,
            })
        } else {
            NbtString(Repr::Heap(bytes.into()))
        }
    }

    /// Writes to `dst` a string of the first `len` bytes of `window` (`len <= INLINE`), kept
    /// inline. The bytes after `len` stay in the buffer unread: equality, ordering, hashing and
    /// [`as_mutf8`] see `len` bytes, and the writer, which copies the whole buffer, keeps `len`
    /// of them. The window is copied to `dst` directly: a string made on the stack and then
    /// moved is read back with loads that straddle the stores that made it, which stalls.
    ///
    /// # Safety
    /// `dst` is valid for a write of an `NbtString` (its old value is not dropped).
    ///
    /// [`as_mutf8`]: NbtString::as_mutf8
    #[inline(always)]
    pub(crate) unsafe fn write_inline_window(
        dst: *mut NbtString,
        window: &[u8; INLINE],
        len: usize,
    ) {
        debug_assert!(len <= INLINE);
        // SAFETY: the caller's contract; the value written is read back as what it is.
        unsafe {
            dst.write(NbtString(Repr::Inline {
                len: len as u8,
                buf: [0; INLINE],
            }));
            if let Repr::Inline { buf, .. } = &mut (*dst).0 {
                std::ptr::copy_nonoverlapping(window.as_ptr(), buf.as_mut_ptr(), INLINE);
            }
        }
    }

    /// Wraps MUTF-8 bytes as they are (not validated; decoding is lossy on malformed bytes).
    #[inline]
    pub fn from_mutf8(bytes: impl AsRef<[u8]>) -> NbtString {
        NbtString::from_mutf8_slice(bytes.as_ref())
    }

    /// Encodes UTF-16 code units (lone surrogates allowed).
    pub fn from_utf16(units: &[u16]) -> NbtString {
        NbtString::from_mutf8_slice(&mutf8::from_utf16(units))
    }

    /// The raw MUTF-8 bytes.
    #[inline]
    pub fn as_mutf8(&self) -> &[u8] {
        match &self.0 {
            Repr::Inline { len, buf } => &buf[..*len as usize],
            Repr::Heap(b) => b,
            Repr::Pooled(p) => p.as_slice(),
        }
    }

    /// A string of the reader's, whose bytes are a range of one of its blocks.
    #[inline(always)]
    pub(crate) fn pooled(p: Pooled<u8>) -> NbtString {
        NbtString(Repr::Pooled(p))
    }

    /// The inline buffer and length of a short string (`None` if it is on the heap).
    #[inline]
    pub(crate) fn inline_parts(&self) -> Option<(&[u8; INLINE], usize)> {
        match &self.0 {
            Repr::Inline { len, buf } => Some((buf, *len as usize)),
            Repr::Heap(_) | Repr::Pooled(_) => None,
        }
    }

    /// Byte length of the MUTF-8 form.
    #[inline]
    pub fn len(&self) -> usize {
        self.as_mutf8().len()
    }

    /// Whether the string is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The text, borrowed, when the stored bytes are UTF-8 as they are: every string without
    /// U+0000 or a character beyond U+FFFF (which MUTF-8 writes as `C0 80` and as a surrogate
    /// pair, both invalid in UTF-8). `None` otherwise; [`to_str`](Self::to_str) decodes those.
    #[inline]
    pub fn as_str(&self) -> Option<&str> {
        std::str::from_utf8(self.as_mutf8()).ok()
    }

    /// The text, decoded from MUTF-8 (borrowed when the bytes are UTF-8 already), or `None` if
    /// it is not valid Unicode (a lone surrogate, malformed bytes).
    pub fn to_str(&self) -> Option<Cow<'_, str>> {
        mutf8::to_str(self.as_mutf8())
    }

    /// The text with lone surrogates replaced by U+FFFD.
    pub fn to_str_lossy(&self) -> Cow<'_, str> {
        mutf8::to_str_lossy(self.as_mutf8())
    }

    /// The text as UTF-16 code units (exact, lone surrogates included).
    pub fn to_utf16(&self) -> Vec<u16> {
        mutf8::to_utf16(self.as_mutf8())
    }

    /// Whether the text equals `s` (compares encoded bytes, no allocation for ASCII).
    pub fn eq_str(&self, s: &str) -> bool {
        if s.bytes().all(|b| b != 0 && b < 0x80) {
            self.as_mutf8() == s.as_bytes()
        } else {
            self.as_mutf8() == &*mutf8::from_str(s)
        }
    }
}

impl From<&str> for NbtString {
    fn from(s: &str) -> NbtString {
        if s.bytes().all(|b| b != 0 && b < 0x80) {
            return NbtString::from_mutf8_slice(s.as_bytes());
        }
        NbtString::from_mutf8_slice(&mutf8::from_str(s))
    }
}

impl From<String> for NbtString {
    fn from(s: String) -> NbtString {
        NbtString::from(s.as_str())
    }
}

impl From<&String> for NbtString {
    fn from(s: &String) -> NbtString {
        NbtString::from(s.as_str())
    }
}

impl fmt::Debug for NbtString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.to_str_lossy(), f)
    }
}

impl fmt::Display for NbtString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_str_lossy())
    }
}

/// One NBT value (any tag but `TAG_End`).
#[derive(Clone, Debug)]
pub enum Tag {
    /// `TAG_Byte`.
    Byte(i8),
    /// `TAG_Short`.
    Short(i16),
    /// `TAG_Int`.
    Int(i32),
    /// `TAG_Long`.
    Long(i64),
    /// `TAG_Float` (bits preserved).
    Float(f32),
    /// `TAG_Double` (bits preserved).
    Double(f64),
    /// `TAG_Byte_Array`.
    ByteArray(NbtVec<i8>),
    /// `TAG_String`.
    String(NbtString),
    /// `TAG_List`.
    List(List),
    /// `TAG_Compound`.
    Compound(Compound),
    /// `TAG_Int_Array`.
    IntArray(NbtVec<i32>),
    /// `TAG_Long_Array`.
    LongArray(NbtVec<i64>),
}

impl Tag {
    /// The tag type of this value.
    pub fn tag_type(&self) -> TagType {
        match self {
            Tag::Byte(_) => TagType::Byte,
            Tag::Short(_) => TagType::Short,
            Tag::Int(_) => TagType::Int,
            Tag::Long(_) => TagType::Long,
            Tag::Float(_) => TagType::Float,
            Tag::Double(_) => TagType::Double,
            Tag::ByteArray(_) => TagType::ByteArray,
            Tag::String(_) => TagType::String,
            Tag::List(_) => TagType::List,
            Tag::Compound(_) => TagType::Compound,
            Tag::IntArray(_) => TagType::IntArray,
            Tag::LongArray(_) => TagType::LongArray,
        }
    }
}

impl PartialEq for Tag {
    /// Equality of the two values' views: floats by their bits, so NaN equals itself and
    /// `0.0 != -0.0` (a tree compares equal to what it reads back from its own bytes).
    fn eq(&self, other: &Tag) -> bool {
        self.view() == other.view()
    }
}

macro_rules! tag_from {
    ($($t:ty => $v:ident),* $(,)?) => {$(
        impl From<$t> for Tag {
            fn from(v: $t) -> Tag { Tag::$v(v.into()) }
        }
    )*};
}
tag_from!(i8 => Byte, bool => Byte, i16 => Short, i32 => Int, i64 => Long, f32 => Float,
    f64 => Double, Vec<i8> => ByteArray, NbtString => String, &str => String, String => String,
    List => List, Compound => Compound, Vec<i32> => IntArray, Vec<i64> => LongArray,
    NbtVec<i8> => ByteArray, NbtVec<i32> => IntArray, NbtVec<i64> => LongArray);

/// A `TAG_List`: a typed sequence. The variant is the declared element type, so an empty list
/// keeps it ([`List::End`] is the untyped empty list, element type `TAG_End`).
#[derive(Clone, Debug, Default)]
pub enum List {
    /// Empty list of element type `TAG_End`.
    #[default]
    End,
    /// List of `TAG_Byte`.
    Byte(NbtVec<i8>),
    /// List of `TAG_Short`.
    Short(NbtVec<i16>),
    /// List of `TAG_Int`.
    Int(NbtVec<i32>),
    /// List of `TAG_Long`.
    Long(NbtVec<i64>),
    /// List of `TAG_Float`.
    Float(NbtVec<f32>),
    /// List of `TAG_Double`.
    Double(NbtVec<f64>),
    /// List of `TAG_Byte_Array`.
    ByteArray(NbtVec<NbtVec<i8>>),
    /// List of `TAG_String`.
    String(NbtVec<NbtString>),
    /// List of `TAG_List`.
    List(NbtVec<List>),
    /// List of `TAG_Compound`.
    Compound(NbtVec<Compound>),
    /// List of `TAG_Int_Array`.
    IntArray(NbtVec<NbtVec<i32>>),
    /// List of `TAG_Long_Array`.
    LongArray(NbtVec<NbtVec<i64>>),
}

fn bits_eq<T: Copy, U: PartialEq>(a: &[T], b: &[T], f: impl Fn(T) -> U) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| f(*x) == f(*y))
}

impl PartialEq for List {
    fn eq(&self, other: &List) -> bool {
        use List as L;
        match (self, other) {
            (L::End, L::End) => true,
            (L::Byte(a), L::Byte(b)) => a == b,
            (L::Short(a), L::Short(b)) => a == b,
            (L::Int(a), L::Int(b)) => a == b,
            (L::Long(a), L::Long(b)) => a == b,
            (L::Float(a), L::Float(b)) => bits_eq(a, b, f32::to_bits),
            (L::Double(a), L::Double(b)) => bits_eq(a, b, f64::to_bits),
            (L::ByteArray(a), L::ByteArray(b)) => a == b,
            (L::String(a), L::String(b)) => a == b,
            (L::List(a), L::List(b)) => a == b,
            (L::Compound(a), L::Compound(b)) => a == b,
            (L::IntArray(a), L::IntArray(b)) => a == b,
            (L::LongArray(a), L::LongArray(b)) => a == b,
            _ => false,
        }
    }
}

impl List {
    /// The declared element type.
    pub fn element_type(&self) -> TagType {
        match self {
            List::End => TagType::End,
            List::Byte(_) => TagType::Byte,
            List::Short(_) => TagType::Short,
            List::Int(_) => TagType::Int,
            List::Long(_) => TagType::Long,
            List::Float(_) => TagType::Float,
            List::Double(_) => TagType::Double,
            List::ByteArray(_) => TagType::ByteArray,
            List::String(_) => TagType::String,
            List::List(_) => TagType::List,
            List::Compound(_) => TagType::Compound,
            List::IntArray(_) => TagType::IntArray,
            List::LongArray(_) => TagType::LongArray,
        }
    }

    /// An empty list of the given element type.
    pub fn empty(element: TagType) -> List {
        match element {
            TagType::End => List::End,
            TagType::Byte => List::Byte(NbtVec::new()),
            TagType::Short => List::Short(NbtVec::new()),
            TagType::Int => List::Int(NbtVec::new()),
            TagType::Long => List::Long(NbtVec::new()),
            TagType::Float => List::Float(NbtVec::new()),
            TagType::Double => List::Double(NbtVec::new()),
            TagType::ByteArray => List::ByteArray(NbtVec::new()),
            TagType::String => List::String(NbtVec::new()),
            TagType::List => List::List(NbtVec::new()),
            TagType::Compound => List::Compound(NbtVec::new()),
            TagType::IntArray => List::IntArray(NbtVec::new()),
            TagType::LongArray => List::LongArray(NbtVec::new()),
        }
    }

    /// Number of elements.
    #[inline]
    pub fn len(&self) -> usize {
        match self {
            List::End => 0,
            List::Byte(v) => v.len(),
            List::Short(v) => v.len(),
            List::Int(v) => v.len(),
            List::Long(v) => v.len(),
            List::Float(v) => v.len(),
            List::Double(v) => v.len(),
            List::ByteArray(v) => v.len(),
            List::String(v) => v.len(),
            List::List(v) => v.len(),
            List::Compound(v) => v.len(),
            List::IntArray(v) => v.len(),
            List::LongArray(v) => v.len(),
        }
    }

    /// Whether the list has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Builds a list from tags, which must all have the same type; `None` if they do not.
    /// An empty input gives [`List::End`].
    pub fn from_tags(tags: Vec<Tag>) -> Option<List> {
        let Some(first) = tags.first() else {
            return Some(List::End);
        };
        let mut list = List::empty(first.tag_type());
        for t in tags {
            list.push(t).ok()?;
        }
        Some(list)
    }

    /// Appends a tag. An [`List::End`] list takes the type of its first element; a tag of
    /// another type is handed back as the error.
    pub fn push(&mut self, tag: Tag) -> Result<(), Tag> {
        if let List::End = self {
            *self = List::empty(tag.tag_type());
        }
        match (self, tag) {
            (List::Byte(v), Tag::Byte(x)) => v.push(x),
            (List::Short(v), Tag::Short(x)) => v.push(x),
            (List::Int(v), Tag::Int(x)) => v.push(x),
            (List::Long(v), Tag::Long(x)) => v.push(x),
            (List::Float(v), Tag::Float(x)) => v.push(x),
            (List::Double(v), Tag::Double(x)) => v.push(x),
            (List::ByteArray(v), Tag::ByteArray(x)) => v.push(x),
            (List::String(v), Tag::String(x)) => v.push(x),
            (List::List(v), Tag::List(x)) => v.push(x),
            (List::Compound(v), Tag::Compound(x)) => v.push(x),
            (List::IntArray(v), Tag::IntArray(x)) => v.push(x),
            (List::LongArray(v), Tag::LongArray(x)) => v.push(x),
            (_, t) => return Err(t),
        }
        Ok(())
    }
}

/// A `TAG_Compound`: named tags in file order.
///
/// Entries are kept in a `Vec` so order and even duplicate keys survive a round trip; [`get`]
/// returns the *last* entry of a key, as Minecraft's map would after reading duplicates.
///
/// Lookups in a compound of fewer than 32 entries (nearly all that NBT is made of) are linear
/// scans, which beat hashing there. A compound of 32 entries or more builds a hash index of its
/// keys the first time it is edited by key ([`insert`], [`get_mut`], [`remove`]) and keeps it
/// through those edits, so a thousand inserts into a parsed compound cost a thousand hash
/// lookups, not a thousand scans; [`get`] uses the index once there is one. The index holds a
/// copy of each key and its position, hashed with std's keyed hasher (keys from a hostile file
/// cannot be made to collide). The reader builds no index (reading pays nothing for it), and
/// [`entries_mut`] drops the index, since the entries may change behind it (the next
/// edit by key builds it again). [`remove`] takes time linear in the compound's length (it keeps
/// the order of the others).
///
/// A compound the reader builds (but among the first 8 containers of a read of under 1 KiB, and
/// any over 64 KiB of entries, about 1,170) does not have an allocation of its own: its entries
/// are a range of a block shared with the other compounds and the lists of the same read
/// (blocks hold 2 KiB, then twice as much each, up to 64 KiB: a parse makes a few allocations
/// for all its compounds, not one each, and a thread keeps up to 16 MiB of freed blocks for its
/// next read). It is read and
/// changed in place there ([`get_mut`], [`insert`] of an existing key, below 32 entries); the
/// first edit that changes its length ([`insert`] of a new key, [`remove`], [`entries_mut`],
/// [`into_entries`]), or the first edit by key of a compound of 32 entries or more (which builds
/// its index), moves its entries into a vector of its own, once. A compound taken out of its
/// tree stays valid on its own, and keeps its block's memory until it is dropped or its length
/// changes; [`clone`](Clone::clone) makes a copy that owns its entries.
///
/// [`get`]: Compound::get
/// [`get_mut`]: Compound::get_mut
/// [`insert`]: Compound::insert
/// [`remove`]: Compound::remove
/// [`entries_mut`]: Compound::entries_mut
/// [`into_entries`]: Compound::into_entries
#[derive(Clone, Default)]
pub struct Compound {
    repr: Entries,
}

/// One entry of a compound.
pub(crate) type Entry = (NbtString, Tag);

/// The number of entries at which a compound indexes its keys on its first edit by key.
const INDEX_FROM: usize = 32;

/// A compound's entries, with or without the index of its keys (same size as a `Vec`: the
/// indexed form is boxed, and the two share the `Vec`'s niche).
enum Entries {
    Plain(Vec<Entry>),
    Indexed(Box<Indexed>),
    /// A range of a block the reader filled ([`super::block`]); made `Plain` by the first
    /// edit that changes the length.
    Pooled(Pooled<Entry>),
}

/// Entries with the position of each key's last entry.
struct Indexed {
    entries: Vec<Entry>,
    index: std::collections::HashMap<NbtString, usize>,
}

impl Indexed {
    fn new(entries: Vec<Entry>) -> Box<Indexed> {
        let mut index = std::collections::HashMap::with_capacity(entries.len());
        for (i, (k, _)) in entries.iter().enumerate() {
            index.insert(k.clone(), i);
        }
        Box::new(Indexed { entries, index })
    }
}

impl Default for Entries {
    fn default() -> Entries {
        Entries::Plain(Vec::new())
    }
}

impl Clone for Entries {
    /// A copy without the index (it is built again on the copy's first edit by key).
    fn clone(&self) -> Entries {
        Entries::Plain(self.as_slice().to_vec())
    }
}

impl Entries {
    #[inline(always)]
    fn as_slice(&self) -> &[Entry] {
        match self {
            Entries::Plain(v) => v,
            Entries::Indexed(x) => &x.entries,
            Entries::Pooled(p) => p.as_slice(),
        }
    }

    /// The entries as a plain `Vec`, dropping the index.
    fn plain(&mut self) -> &mut Vec<Entry> {
        match self {
            Entries::Plain(_) => {}
            Entries::Indexed(x) => {
                let entries = std::mem::take(&mut x.entries);
                *self = Entries::Plain(entries);
            }
            Entries::Pooled(_) => {
                if let Entries::Pooled(p) = std::mem::take(self) {
                    *self = Entries::Plain(p.into_vec());
                }
            }
        }
        match self {
            Entries::Plain(v) => v,
            Entries::Indexed(_) | Entries::Pooled(_) => unreachable!("made plain above"),
        }
    }

    /// The position of the last entry of `key`, indexing the keys first if the compound is
    /// large enough.
    fn find_mut(&mut self, key: &NbtString) -> Option<usize> {
        if let Entries::Indexed(x) = self {
            return x.index.get(key).copied();
        }
        let entries = self.as_slice();
        if entries.len() < INDEX_FROM {
            return entries.iter().rposition(|(n, _)| n == key);
        }
        let x = Indexed::new(std::mem::take(self.plain()));
        let at = x.index.get(key).copied();
        *self = Entries::Indexed(x);
        at
    }

    /// The entries, mutable in place (the index stays: keys are not changed through this).
    fn as_mut_slice(&mut self) -> &mut [Entry] {
        match self {
            Entries::Plain(v) => v,
            Entries::Indexed(x) => &mut x.entries,
            Entries::Pooled(p) => p.as_mut_slice(),
        }
    }

    fn push(&mut self, key: NbtString, value: Tag) {
        match self {
            Entries::Plain(v) => v.push((key, value)),
            Entries::Pooled(_) => self.plain().push((key, value)),
            Entries::Indexed(x) => {
                x.index.insert(key.clone(), x.entries.len());
                x.entries.push((key, value));
            }
        }
    }
}

impl fmt::Debug for Compound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Compound")
            .field("entries", &self.entries())
            .finish()
    }
}

impl PartialEq for Compound {
    /// Equal entries in the same order (whether either has built its index does not matter).
    fn eq(&self, other: &Compound) -> bool {
        self.entries() == other.entries()
    }
}

impl Compound {
    /// An empty compound.
    pub fn new() -> Compound {
        Compound::default()
    }

    /// An empty compound with room for `n` entries.
    pub fn with_capacity(n: usize) -> Compound {
        Compound::from_entries(Vec::with_capacity(n))
    }

    /// A compound of the reader's, whose entries are a range of one of its blocks.
    #[inline(always)]
    pub(crate) fn pooled(p: Pooled<Entry>) -> Compound {
        Compound {
            repr: Entries::Pooled(p),
        }
    }

    /// Wraps entries as they are (order and duplicates kept).
    pub fn from_entries(entries: Vec<(NbtString, Tag)>) -> Compound {
        Compound {
            repr: Entries::Plain(entries),
        }
    }

    /// The entries in order.
    #[inline(always)]
    pub fn entries(&self) -> &[(NbtString, Tag)] {
        self.repr.as_slice()
    }

    /// The entries, mutable (for edits that keep or change order). Drops the compound's key
    /// index, if it has one: the next edit by key builds it again.
    pub fn entries_mut(&mut self) -> &mut Vec<(NbtString, Tag)> {
        self.repr.plain()
    }

    /// Consumes the compound, giving its entries.
    pub fn into_entries(mut self) -> Vec<(NbtString, Tag)> {
        std::mem::take(self.repr.plain())
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries().len()
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.entries().is_empty()
    }

    /// The value of `key` (the last one if the key repeats).
    pub fn get(&self, key: &str) -> Option<&Tag> {
        let k = NbtString::from(key);
        match &self.repr {
            Entries::Indexed(x) => x.index.get(&k).map(|&i| &x.entries[i].1),
            e => e
                .as_slice()
                .iter()
                .rev()
                .find(|(n, _)| *n == k)
                .map(|(_, t)| t),
        }
    }

    /// The value of `key`, mutable.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Tag> {
        let i = self.repr.find_mut(&NbtString::from(key))?;
        Some(&mut self.repr.as_mut_slice()[i].1)
    }

    /// Sets `key`: replaces the value in place if the key exists (keeping its position),
    /// appends otherwise. Returns the old value.
    pub fn insert(&mut self, key: impl Into<NbtString>, value: impl Into<Tag>) -> Option<Tag> {
        let key = key.into();
        let value = value.into();
        if let Some(i) = self.repr.find_mut(&key) {
            return Some(std::mem::replace(&mut self.repr.as_mut_slice()[i].1, value));
        }
        self.repr.push(key, value);
        None
    }

    /// Appends an entry without looking for an existing key (builder style).
    pub fn with(mut self, key: impl Into<NbtString>, value: impl Into<Tag>) -> Compound {
        self.repr.push(key.into(), value.into());
        self
    }

    /// Removes every entry of `key`, returning the last value.
    pub fn remove(&mut self, key: &str) -> Option<Tag> {
        let k = NbtString::from(key);
        self.repr.find_mut(&k)?;
        let indexed = matches!(self.repr, Entries::Indexed(_));
        let entries = self.repr.plain();
        let mut out = None;
        entries.retain_mut(|(n, t)| {
            if *n == k {
                out = Some(std::mem::replace(t, Tag::Byte(0)));
                false
            } else {
                true
            }
        });
        if indexed {
            self.repr = Entries::Indexed(Indexed::new(std::mem::take(entries)));
        }
        out
    }

    /// Iterates over `(key, value)` pairs in order.
    pub fn iter(&self) -> impl Iterator<Item = (&NbtString, &Tag)> {
        self.entries().iter().map(|(k, v)| (k, v))
    }
}

impl<K: Into<NbtString>, V: Into<Tag>> FromIterator<(K, V)> for Compound {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Compound {
        Compound::from_entries(
            iter.into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        )
    }
}

/// One root of an NBT stream: its name (`None` for the nameless network form) and its value.
#[derive(Clone, Debug, PartialEq)]
pub struct Nbt {
    /// The root name; `None` for a nameless root (Java network NBT since 1.20.2, SNBT).
    pub name: Option<NbtString>,
    /// The root value; a compound in files, any tag in network NBT.
    pub tag: Tag,
}

impl Nbt {
    /// A named root.
    pub fn named(name: impl Into<NbtString>, tag: impl Into<Tag>) -> Nbt {
        Nbt {
            name: Some(name.into()),
            tag: tag.into(),
        }
    }

    /// A nameless root.
    pub fn nameless(tag: impl Into<Tag>) -> Nbt {
        Nbt {
            name: None,
            tag: tag.into(),
        }
    }

    /// The root compound, if the root is one.
    pub fn compound(&self) -> Option<&Compound> {
        self.tag.as_compound()
    }

    /// The root compound, mutable, if the root is one.
    pub fn compound_mut(&mut self) -> Option<&mut Compound> {
        self.tag.as_compound_mut()
    }

    /// The value at `path` below the root value (the root's name is not part of the path);
    /// see [`Tag::get_path`].
    pub fn get_path(&self, path: &str) -> super::Result<super::TagView<'_>> {
        self.tag.get_path(path)
    }

    /// The tag at `path` below the root value, mutable; see [`Tag::get_path_mut`].
    pub fn get_path_mut(&mut self, path: &str) -> super::Result<&mut Tag> {
        self.tag.get_path_mut(path)
    }

    /// The value at any `path` below the root value, mutable; see [`Tag::get_path_view_mut`].
    pub fn get_path_view_mut(&mut self, path: &str) -> super::Result<super::TagViewMut<'_>> {
        self.tag.get_path_view_mut(path)
    }

    /// Sets the value at `path` below the root value; see [`Tag::set_path`].
    pub fn set_path(&mut self, path: &str, value: impl Into<Tag>) -> super::Result<Tag> {
        self.tag.set_path(path, value)
    }
}

/// Builds a [`Tag`] from a JSON-like literal.
///
/// ```
/// use def_runtime::nbt::{nbt, Tag};
/// let t: Tag = nbt!({
///     "name": "Steve",
///     "health": 20.0f32,
///     "pos": [1.5f64, 64.0f64, (-3.25f64)],
///     "inv": [{ "id": "minecraft:stone", "count": 3i8 }],
///     "empty": [],
/// });
/// assert_eq!(t.as_compound().unwrap().len(), 5);
/// ```
///
/// Leaves are any expression convertible with `Tag::from` (`i8`/`bool` → byte, `i32` → int,
/// `&str` → string, `Vec<i64>` → long array, …). `[a, b]` builds a [`List`] (elements must share a
/// type; a mixed list panics, as a literal bug); `[]` is an empty [`List::End`]. A negative
/// number is more than one token: wrap it in parentheses, `(-1i32)`.
#[doc(hidden)]
#[macro_export]
macro_rules! __nbt_tag {
    ({ $($key:literal : $value:tt),* $(,)? }) => {
        $crate::nbt::Tag::Compound($crate::nbt::Compound::from_entries(::std::vec![
            $( (::core::convert::Into::into($key), $crate::__nbt_tag!($value)) ),*
        ]))
    };
    ([ $($value:tt),* $(,)? ]) => {
        $crate::nbt::Tag::List(
            $crate::nbt::List::from_tags(::std::vec![$($crate::__nbt_tag!($value)),*])
                .expect("nbt!: list elements must all have the same tag type"),
        )
    };
    ($value:expr) => {
        $crate::nbt::Tag::from($value)
    };
}

/// Builds a [`Compound`] from `key: value` pairs, values written as in [`nbt!`](crate::nbt::nbt).
///
/// ```
/// use def_runtime::nbt::{compound, Compound, Nbt};
/// let block: Compound = compound! {
///     "Name": "minecraft:oak_stairs",
///     "Properties": { "facing": "north", "half": "bottom" },
/// };
/// assert_eq!(block.get_path("Properties.facing").unwrap().as_str().unwrap(), "north");
/// let root = Nbt::named("", block); // a file's root
/// # let _ = root;
/// ```
#[doc(hidden)]
#[macro_export]
macro_rules! __nbt_compound {
    ($($key:literal : $value:tt),* $(,)?) => {
        $crate::nbt::Compound::from_entries(::std::vec![
            $( (::core::convert::Into::into($key), $crate::__nbt_tag!($value)) ),*
        ])
    };
}
