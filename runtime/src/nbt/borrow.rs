//! Zero-copy reading: NBT viewed in place over the input bytes.
//!
//! [`BorrowedNbt::read`] makes one validating pass over the input (every length, type id,
//! string and the depth limit are checked, exactly as the owned reader checks them) and records
//! a *tape*: one 20-byte entry per tag that is not an element of a list of numbers, strings or
//! arrays. Entries of a compound or list are contiguous and each container records where its
//! subtree ends, so iteration skips whole subtrees in O(1). Values are decoded only when asked
//! for: numbers from their bytes, strings as [`StrRef`] slices (decoded on demand), numeric
//! arrays as [`ArrayRef`] slices. Nothing is copied, and the only allocation is the tape.
//!
//! Inputs are limited to 4 GiB (offsets are `u32`); [`NbtError::InputTooLarge`] otherwise.

use std::borrow::Cow;

use super::error::{NbtError, Result};
use super::flavor::{BedrockFlavor, Cur, Edition, Flavor, JavaFlavor, NetworkFlavor};
use super::mutf8;
use super::read::{ReadOptions, RootForm, checked_len, min_size};
use super::tag::{Compound, List, Nbt, NbtString, Tag, TagType};

const NO_NAME: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
struct Entry {
    kind: u8,
    /// Element type for lists.
    elem: u8,
    /// Offset of the name's bytes (after its length), `NO_NAME` for list elements and
    /// nameless roots.
    name: u32,
    /// Name length in bytes.
    name_len: u32,
    /// Payload offset: the value itself, a string's bytes, an array's or list's first element.
    pos: u32,
    /// Strings: byte length. Arrays and lists: element count. Compounds: unused.
    aux: u32,
    /// Containers: tape index after the subtree. Arrays and lists of leaves: byte end.
    end: u32,
}

/// A validated NBT stream (one or several roots) viewed in place.
#[derive(Clone, Debug)]
pub struct BorrowedNbt<'a> {
    data: &'a [u8],
    edition: Edition,
    tape: Vec<Entry>,
    roots: Vec<u32>,
    consumed: usize,
}

impl<'a> BorrowedNbt<'a> {
    /// Reads one root from uncompressed bytes. [`consumed`](Self::consumed) says how many
    /// bytes it took; the rest is left alone.
    pub fn read(data: &'a [u8], opts: &ReadOptions) -> Result<BorrowedNbt<'a>> {
        Self::build(data, opts, false)
    }

    /// Reads roots back to back until the input ends.
    pub fn read_all(data: &'a [u8], opts: &ReadOptions) -> Result<BorrowedNbt<'a>> {
        Self::build(data, opts, true)
    }

    fn build(data: &'a [u8], opts: &ReadOptions, all: bool) -> Result<BorrowedNbt<'a>> {
        if data.len() >= u32::MAX as usize {
            return Err(NbtError::InputTooLarge { len: data.len() });
        }
        match opts.edition {
            Edition::Java => Builder::<JavaFlavor>::run(data, opts, all),
            Edition::Bedrock => Builder::<BedrockFlavor>::run(data, opts, all),
            Edition::BedrockNetwork => Builder::<NetworkFlavor>::run(data, opts, all),
        }
    }

    /// Bytes of input the roots took.
    pub fn consumed(&self) -> usize {
        self.consumed
    }

    /// The flavour this was read in.
    pub fn edition(&self) -> Edition {
        self.edition
    }

    /// Number of roots.
    pub fn len(&self) -> usize {
        self.roots.len()
    }

    /// Whether there are no roots (never true for a successful read).
    pub fn is_empty(&self) -> bool {
        self.roots.is_empty()
    }

    /// The first root.
    pub fn root(&self) -> RootRef<'_, 'a> {
        self.root_at(0)
    }

    fn root_at(&self, i: usize) -> RootRef<'_, 'a> {
        let idx = self.roots[i];
        let e = self.tape[idx as usize];
        RootRef {
            name: self.name_of(&e),
            value: self.tag_at(idx),
        }
    }

    /// All roots in order.
    pub fn roots(&self) -> impl Iterator<Item = RootRef<'_, 'a>> + '_ {
        (0..self.roots.len()).map(move |i| self.root_at(i))
    }

    /// Copies everything into owned roots.
    pub fn to_owned_roots(&self) -> Vec<Nbt> {
        self.roots().map(|r| r.to_owned()).collect()
    }

    fn name_of(&self, e: &Entry) -> Option<StrRef<'a>> {
        (e.name != NO_NAME).then(|| StrRef {
            bytes: &self.data[e.name as usize..(e.name + e.name_len) as usize],
            utf8: self.edition != Edition::Java,
        })
    }

    fn tag_at(&self, idx: u32) -> TagRef<'_, 'a> {
        let e = self.tape[idx as usize];
        let ty = TagType::from_id(e.kind).unwrap_or(TagType::End);
        match ty {
            TagType::List => TagRef::List(ListRef { doc: self, idx }),
            TagType::Compound => TagRef::Compound(CompoundRef { doc: self, idx }),
            _ => self.leaf(ty, e.pos as usize, e.aux as usize, e.end as usize),
        }
    }

    /// Decodes a non-container value whose payload starts at `pos` (validated earlier).
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
            TagType::Byte => TagRef::Byte(d[pos] as i8),
            TagType::Short => TagRef::Short(num!(i16)),
            TagType::Int => TagRef::Int(num!(i32)),
            TagType::Long => TagRef::Long(num!(i64)),
            TagType::Float => TagRef::Float(num!(f32)),
            TagType::Double => TagRef::Double(num!(f64)),
            TagType::ByteArray => TagRef::ByteArray(&d[pos..pos + aux]),
            TagType::String => TagRef::String(StrRef {
                bytes: &d[pos..pos + aux],
                utf8: self.edition != Edition::Java,
            }),
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
            // Containers are never leaves; End never reaches here.
            _ => TagRef::Byte(0),
        }
    }

    /// The tape index after entry `idx`'s subtree.
    #[inline]
    fn next(&self, idx: u32) -> u32 {
        let e = &self.tape[idx as usize];
        if e.kind == TagType::Compound as u8 || (is_tape_list(e) && elem_on_tape(e.elem)) {
            e.end
        } else {
            idx + 1
        }
    }
}

#[inline]
fn is_tape_list(e: &Entry) -> bool {
    e.kind == TagType::List as u8
}

#[inline]
fn elem_on_tape(elem: u8) -> bool {
    elem == TagType::List as u8 || elem == TagType::Compound as u8
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

/// A string in place: MUTF-8 (Java) or UTF-8 (Bedrock) bytes, decoded on demand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StrRef<'a> {
    bytes: &'a [u8],
    utf8: bool,
}

impl<'a> StrRef<'a> {
    /// The raw bytes as stored.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
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

    /// Copies into an owned [`NbtString`] (MUTF-8).
    pub fn to_nbt_string(&self) -> NbtString {
        if self.utf8 {
            match mutf8::from_utf8_bytes(self.bytes) {
                Some(b) => NbtString::from_mutf8(b.into_owned()),
                None => NbtString::default(),
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
        match self.edition {
            Edition::Java => JavaFlavor::i32s(&mut c, self.len),
            Edition::Bedrock => BedrockFlavor::i32s(&mut c, self.len),
            Edition::BedrockNetwork => NetworkFlavor::i32s(&mut c, self.len),
        }
        .unwrap_or_default()
    }

    /// Decodes as `i64`s.
    pub fn to_i64s(&self) -> Vec<i64> {
        let mut c = Cur::new(self.bytes);
        match self.edition {
            Edition::Java => JavaFlavor::i64s(&mut c, self.len),
            Edition::Bedrock => BedrockFlavor::i64s(&mut c, self.len),
            Edition::BedrockNetwork => NetworkFlavor::i64s(&mut c, self.len),
        }
        .unwrap_or_default()
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
            TagRef::List(l) => Tag::List(l.to_owned()),
            TagRef::Compound(c) => Tag::Compound(c.to_owned()),
            TagRef::IntArray(a) => Tag::IntArray(a.to_i32s()),
            TagRef::LongArray(a) => Tag::LongArray(a.to_i64s()),
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
        let end = doc.tape[self.idx as usize].end;
        let mut j = self.idx + 1;
        std::iter::from_fn(move || {
            if j >= end {
                return None;
            }
            let e = doc.tape[j as usize];
            let item = (
                doc.name_of(&e).unwrap_or(StrRef {
                    bytes: &[],
                    utf8: true,
                }),
                doc.tag_at(j),
            );
            j = doc.next(j);
            Some(item)
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
        self.doc.tape[self.idx as usize].end == self.idx + 1
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
    idx: u32,
}

impl<'d, 'a> ListRef<'d, 'a> {
    fn entry(&self) -> Entry {
        self.doc.tape[self.idx as usize]
    }

    /// The declared element type.
    pub fn element_type(&self) -> TagType {
        TagType::from_id(self.entry().elem).unwrap_or(TagType::End)
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.entry().aux as usize
    }

    /// Whether empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The elements in order.
    pub fn iter(&self) -> impl Iterator<Item = TagRef<'d, 'a>> + 'd {
        let doc = self.doc;
        let e = self.entry();
        let ty = self.element_type();
        let mut left = e.aux as usize;
        let mut j = self.idx + 1;
        let mut pos = e.pos as usize;
        std::iter::from_fn(move || {
            if left == 0 {
                return None;
            }
            left -= 1;
            if elem_on_tape(e.elem) {
                let t = doc.tag_at(j);
                j = doc.next(j);
                return Some(t);
            }
            let (val, next) = leaf_in_list(doc, ty, pos);
            pos = next;
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

/// Decodes the list element at `pos`, returning it and the next element's offset.
fn leaf_in_list<'d, 'a>(
    doc: &'d BorrowedNbt<'a>,
    ty: TagType,
    pos: usize,
) -> (TagRef<'d, 'a>, usize) {
    let mut c = Cur {
        data: doc.data,
        pos,
    };
    macro_rules! with {
        ($f:ident) => {
            match doc.edition {
                Edition::Java => $f::<JavaFlavor>(&mut c, ty),
                Edition::Bedrock => $f::<BedrockFlavor>(&mut c, ty),
                Edition::BedrockNetwork => $f::<NetworkFlavor>(&mut c, ty),
            }
        };
    }
    let (start, aux, end) = with!(skip_leaf).unwrap_or((pos, 0, pos));
    (doc.leaf(ty, start, aux, end), end)
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

struct Builder<'c, 'a, F> {
    c: Cur<'a>,
    tape: &'c mut Vec<Entry>,
    max_depth: usize,
    lenient: bool,
    _f: std::marker::PhantomData<F>,
}

impl<'a, F: Flavor> Builder<'_, 'a, F> {
    fn run(data: &'a [u8], opts: &ReadOptions, all: bool) -> Result<BorrowedNbt<'a>> {
        // A tape entry per ~12 input bytes is typical of real files; start there.
        let mut tape = Vec::with_capacity(data.len() / 12 + 4);
        let mut roots = Vec::new();
        let mut b = Builder::<F> {
            c: Cur::new(data),
            tape: &mut tape,
            max_depth: opts.depth_limit(),
            lenient: opts.lenient_utf8,
            _f: std::marker::PhantomData,
        };
        loop {
            roots.push(b.tape.len() as u32);
            b.root(opts.root)?;
            if !all || b.c.remaining() == 0 {
                break;
            }
        }
        let consumed = b.c.pos;
        Ok(BorrowedNbt {
            data,
            edition: F::EDITION,
            tape,
            roots,
            consumed,
        })
    }

    fn root(&mut self, form: RootForm) -> Result<()> {
        let at = self.c.pos;
        let id = self.c.u8()?;
        let ty = TagType::from_id(id).ok_or_else(|| NbtError::bad_type(id, at))?;
        if ty == TagType::End {
            return Err(NbtError::EndRoot { offset: at });
        }
        let (name, name_len) = match form {
            RootForm::Named => self.name()?,
            RootForm::Nameless => (NO_NAME, 0),
        };
        self.value(ty, name, name_len, 0)
    }

    /// Validates a string and returns (offset, length) of its bytes.
    #[inline]
    fn name(&mut self) -> Result<(u32, u32)> {
        let len = F::str_len(&mut self.c)?;
        let start = self.c.pos;
        let bytes = self.c.take(len)?;
        self.check_str(bytes, start)?;
        Ok((start as u32, len as u32))
    }

    #[inline]
    fn check_str(&self, bytes: &[u8], start: usize) -> Result<()> {
        if bytes.is_ascii() {
            return Ok(());
        }
        if F::EDITION == Edition::Java {
            mutf8::validate(bytes, self.lenient).map_err(|i| NbtError::bad_string(start + i))
        } else {
            std::str::from_utf8(bytes)
                .map(|_| ())
                .map_err(|e| NbtError::bad_string(start + e.valid_up_to()))
        }
    }

    #[inline]
    fn enter(&self, depth: usize) -> Result<usize> {
        let d = depth + 1;
        if d > self.max_depth {
            return Err(NbtError::too_deep(self.max_depth, self.c.pos));
        }
        Ok(d)
    }

    #[inline]
    fn push(&mut self, kind: u8, name: u32, name_len: u32, pos: usize, aux: usize, end: usize) {
        self.tape.push(Entry {
            kind,
            elem: 0,
            name,
            name_len,
            pos: pos as u32,
            aux: aux as u32,
            end: end as u32,
        });
    }

    fn value(&mut self, ty: TagType, name: u32, name_len: u32, depth: usize) -> Result<()> {
        match ty {
            TagType::Compound => self.compound(name, name_len, depth),
            TagType::List => self.list(name, name_len, depth),
            TagType::String => {
                let (pos, len) = self.name()?;
                self.push(ty as u8, name, name_len, pos as usize, len as usize, 0);
                Ok(())
            }
            _ => {
                let (pos, aux, end) = skip_leaf::<F>(&mut self.c, ty)?;
                self.push(ty as u8, name, name_len, pos, aux, end);
                Ok(())
            }
        }
    }

    fn compound(&mut self, name: u32, name_len: u32, depth: usize) -> Result<()> {
        let depth = self.enter(depth)?;
        let idx = self.tape.len();
        self.push(TagType::Compound as u8, name, name_len, self.c.pos, 0, 0);
        loop {
            let at = self.c.pos;
            let id = self.c.u8()?;
            if id == 0 {
                break;
            }
            let ty = TagType::from_id(id).ok_or_else(|| NbtError::bad_type(id, at))?;
            let (n, nl) = self.name()?;
            if let Err(e) = self.value(ty, n, nl, depth) {
                let key = &self.c.data[n as usize..(n + nl) as usize];
                return Err(e.in_key(key));
            }
        }
        self.tape[idx].end = self.tape.len() as u32;
        Ok(())
    }

    fn list(&mut self, name: u32, name_len: u32, depth: usize) -> Result<()> {
        let depth = self.enter(depth)?;
        let at = self.c.pos;
        let id = self.c.u8()?;
        let ty = TagType::from_id(id).ok_or_else(|| NbtError::bad_type(id, at))?;
        let n = checked_len::<F>(&mut self.c, min_size::<F>(ty))?;
        if ty == TagType::End && n > 0 {
            return Err(NbtError::EndListNotEmpty {
                len: n as i64,
                offset: at,
                path: Default::default(),
            });
        }
        let idx = self.tape.len();
        self.push(TagType::List as u8, name, name_len, self.c.pos, n, 0);
        self.tape[idx].elem = id;
        let c = &mut self.c;
        match ty {
            TagType::End => {}
            TagType::Byte => {
                c.take(n)?;
            }
            TagType::Short => {
                c.take(n * 2)?;
            }
            TagType::Float => {
                c.take(n * 4)?;
            }
            TagType::Double => {
                c.take(n * 8)?;
            }
            TagType::Int => skip_n::<F, _>(c, n, 4, F::i32)?,
            TagType::Long => skip_n::<F, _>(c, n, 8, F::i64)?,
            TagType::String => {
                for i in 0..n {
                    let len = F::str_len(&mut self.c).map_err(|e| e.in_index(i))?;
                    let start = self.c.pos;
                    let bytes = self.c.take(len).map_err(|e| e.in_index(i))?;
                    self.check_str(bytes, start).map_err(|e| e.in_index(i))?;
                }
            }
            TagType::ByteArray | TagType::IntArray | TagType::LongArray => {
                for i in 0..n {
                    skip_leaf::<F>(&mut self.c, ty).map_err(|e| e.in_index(i))?;
                }
            }
            TagType::List => {
                for i in 0..n {
                    self.list(NO_NAME, 0, depth).map_err(|e| e.in_index(i))?;
                }
            }
            TagType::Compound => {
                for i in 0..n {
                    self.compound(NO_NAME, 0, depth)
                        .map_err(|e| e.in_index(i))?;
                }
            }
        }
        // Lists of containers: end is a tape index; lists of leaves: a byte end.
        self.tape[idx].end = if elem_on_tape(id) {
            self.tape.len() as u32
        } else {
            self.c.pos as u32
        };
        Ok(())
    }
}
