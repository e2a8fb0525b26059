//! Reading binary NBT into the owned tree.
//!
//! One root at a time from decompressed bytes, in any [`Edition`], named or nameless. The reader
//! recurses once per list/compound level and checks the depth limit on the way in, so the
//! recursion is bounded by [`ReadOptions::max_depth`] (clamped to [`MAX_DEPTH_CAP`]) whatever the
//! input says: 100 000 nested lists fail at level 513 with a few hundred stack frames in use.
//! Every declared length is checked against the bytes that remain before anything is allocated.

use super::block::Blocks;
use super::error::{NbtError, NbtErrorKind, Result};
use super::flavor::{BedrockFlavor, Cur, Edition, Flavor, JavaFlavor, NetworkFlavor, collect, i8s};
use super::mutf8;
use super::tag::{Compound, Entry, INLINE, List, Nbt, NbtString, Tag, TagType};
use super::vec::NbtVec;
use std::cell::Cell;
use std::mem::MaybeUninit;

/// Minecraft's nesting limit (NbtAccounter): lists and compounds, the root included.
pub const DEFAULT_MAX_DEPTH: usize = 512;

/// Highest depth limit accepted: a larger [`ReadOptions::max_depth`] is lowered to this so the
/// recursive reader stays far from the stack limit (a frame is a few hundred bytes).
pub const MAX_DEPTH_CAP: usize = 2048;

/// Default limit on decompressed size: 512 MiB.
pub const DEFAULT_MAX_DECOMPRESSED: usize = 512 << 20;

/// Default limit on the memory of the trees one read builds: 1 GiB, estimated from above as
/// the reader builds them ([`ReadOptions::max_memory`]). Real files take far less: a chunk a
/// few hundred KiB, the largest structure files of the samples tens of MiB.
pub const DEFAULT_MAX_MEMORY: usize = 1 << 30;

/// Whether roots carry a name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum RootForm {
    /// `type, name, payload` (files, Bedrock network).
    #[default]
    Named,
    /// `type, payload` (Java network NBT since 1.20.2); the root may be any tag type.
    Nameless,
}

/// How to read NBT.
#[derive(Clone, Copy, Debug)]
pub struct ReadOptions {
    /// Binary flavour.
    pub edition: Edition,
    /// Named or nameless roots.
    pub root: RootForm,
    /// Nesting limit for lists and compounds, root included (Minecraft: 512).
    pub max_depth: usize,
    /// Accept plain 4-byte UTF-8 in Java strings (kept as is; Java itself rejects them).
    pub lenient_utf8: bool,
    /// Limit on decompressed size for compressed input.
    pub max_decompressed: usize,
    /// Limit on the memory of the trees one read builds (all roots of the input together),
    /// estimated from above before each allocation: a list of millions of empty compounds is a
    /// few bytes each on the wire and tens in memory. Going over is
    /// [`NbtErrorKind::MemoryLimit`](super::NbtErrorKind::MemoryLimit) with the offset and path.
    /// Region files charge their own budget as well ([`super::region`]).
    pub max_memory: usize,
    /// Check Java strings' Modified UTF-8 while reading (the default), as Java's `readUTF`
    /// does. Off, the owned reader keeps string bytes unchecked, which is the contract of
    /// simdnbt's owned reader: [`NbtString`](super::NbtString) holds the raw bytes anyway
    /// (they write back byte-identical), and its decoding methods find malformed bytes on use
    /// ([`to_str`](super::NbtString::to_str) gives `None` for bytes that are neither MUTF-8 nor
    /// UTF-8). The structure, lengths, type ids and depth are checked either way; Bedrock
    /// strings, which are converted from UTF-8, are always checked. The borrowed reader's
    /// counterpart is
    /// [`BorrowedNbt::decode_lazy`](super::borrow::BorrowedNbt::decode_lazy).
    pub check_strings: bool,
}

impl Default for ReadOptions {
    fn default() -> ReadOptions {
        ReadOptions {
            edition: Edition::Java,
            root: RootForm::Named,
            max_depth: DEFAULT_MAX_DEPTH,
            lenient_utf8: false,
            max_decompressed: DEFAULT_MAX_DECOMPRESSED,
            max_memory: DEFAULT_MAX_MEMORY,
            check_strings: true,
        }
    }
}

impl ReadOptions {
    /// Options for an edition, defaults otherwise.
    pub fn new(edition: Edition) -> ReadOptions {
        ReadOptions {
            edition,
            ..ReadOptions::default()
        }
    }

    /// Sets the root form.
    pub fn root(mut self, root: RootForm) -> ReadOptions {
        self.root = root;
        self
    }

    /// Sets the depth limit.
    pub fn max_depth(mut self, max_depth: usize) -> ReadOptions {
        self.max_depth = max_depth;
        self
    }

    /// Sets lenient UTF-8.
    pub fn lenient_utf8(mut self, lenient: bool) -> ReadOptions {
        self.lenient_utf8 = lenient;
        self
    }

    /// Checks Java strings while reading, or not (see [`ReadOptions::check_strings`]).
    pub fn check_strings(mut self, check: bool) -> ReadOptions {
        self.check_strings = check;
        self
    }

    /// Sets the decompression limit.
    pub fn max_decompressed(mut self, limit: usize) -> ReadOptions {
        self.max_decompressed = limit;
        self
    }

    /// Sets the limit on the trees' memory (see [`ReadOptions::max_memory`]).
    pub fn max_memory(mut self, limit: usize) -> ReadOptions {
        self.max_memory = limit;
        self
    }

    pub(crate) fn depth_limit(&self) -> usize {
        self.max_depth.min(MAX_DEPTH_CAP)
    }
}

/// Reads one root from uncompressed bytes; returns it and the number of bytes it took.
/// Bytes after the root are left alone (see [`decode_all`] and [`NbtErrorKind::TrailingBytes`]).
pub fn decode(data: &[u8], opts: ReadOptions) -> Result<(Nbt, usize)> {
    let mut c = Cur::new(data);
    let nbt = read_root_at(&mut c, opts)?;
    Ok((nbt, c.pos))
}

/// Reads exactly one root and fails with [`NbtErrorKind::TrailingBytes`] if bytes remain.
pub fn decode_exact(data: &[u8], opts: ReadOptions) -> Result<Nbt> {
    let (nbt, used) = decode(data, opts)?;
    if used != data.len() {
        return Err(NbtError::at(
            NbtErrorKind::TrailingBytes {
                count: data.len() - used,
            },
            used,
        ));
    }
    Ok(nbt)
}

/// Reads roots back to back until the input ends.
pub fn decode_all(data: &[u8], opts: ReadOptions) -> Result<Vec<Nbt>> {
    let mut c = Cur::new(data);
    let mut out = Vec::new();
    // One budget for all the roots: they are all held.
    let mut budget = TreeBudget::of(opts, c.remaining());
    while c.remaining() > 0 {
        out.push(read_root_limited(&mut c, opts, &mut budget)?);
    }
    Ok(out)
}

pub(crate) fn read_root_at(c: &mut Cur, opts: ReadOptions) -> Result<Nbt> {
    let input = c.remaining();
    read_root_limited(c, opts, &mut TreeBudget::of(opts, input))
}

/// The memory a tree may take while it is read, estimated from above as the reader builds it
/// (see `Reader::charge` for the estimate); going over is [`NbtErrorKind::MemoryLimit`]. The
/// roots of one read share it, and the blocks their compounds' entries go to. It lives only
/// within the call that makes it: the blocks count their ranges without atomics while they
/// are filled, which is sound only while nothing read can have reached another thread.
#[derive(Debug)]
pub(crate) struct TreeBudget {
    /// Bytes the estimate may reach.
    pub limit: usize,
    /// Bytes estimated so far (what was built before a failure included).
    pub used: usize,
    /// Where compounds' entries and lists' elements go when they are complete
    /// ([`super::block`]); one longer than a block's largest room gets a `Vec` of its own.
    pub blocks: Blocks,
    /// The reader's scratch vector and list piles, shared by the roots of a read like the
    /// blocks, and taken from and given back to the thread's kept ones when `reuse` holds.
    work: Working,
    /// Whether the read took the thread's kept working vectors ([`KEPT`]), and gives them back.
    reuse: bool,
}

impl TreeBudget {
    /// The budget of one read with `opts` ([`ReadOptions::max_memory`]) of `input` bytes; from
    /// [`REUSE_FROM`] bytes on, with the working vectors the thread's previous read left
    /// ([`KEPT`]) and blocks from its first container.
    pub(crate) fn of(opts: ReadOptions, input: usize) -> TreeBudget {
        let reuse = input >= REUSE_FROM;
        TreeBudget {
            limit: opts.max_memory,
            used: 0,
            blocks: Blocks::new(reuse),
            work: if reuse {
                KEPT.try_with(Cell::take).unwrap_or_default()
            } else {
                Working::default()
            },
            reuse,
        }
    }
}

/// Bytes of input from which a read uses what the thread kept from earlier reads (the owned
/// reader's working vectors and spare blocks from the first container on, the zero-copy
/// reader's tape): a smaller document, of a few containers, is read faster with a few small
/// allocations of its own than with the thread-local bookkeeping (a 33-byte document a third
/// faster).
pub(crate) const REUSE_FROM: usize = 1 << 10;

impl Drop for TreeBudget {
    fn drop(&mut self) {
        if !self.reuse {
            return;
        }
        let mut work = std::mem::take(&mut self.work);
        // The reader left the scratch vector with its placeholder entry alone (`Reader`'s
        // drop); elements a failed read left on the piles are dropped here.
        work.piles.clear();
        if work.bytes() <= KEPT_MAX {
            // A thread that is exiting keeps nothing: the vectors drop with `work`.
            let _ = KEPT.try_with(|k| k.set(work));
        }
    }
}

/// The most bytes of working vectors a thread keeps between reads ([`KEPT`]).
const KEPT_MAX: usize = 1 << 20;

/// The reader's working vectors: where a compound's entries and a list's elements gather
/// before they move into a block or a vector of their own.
#[derive(Debug, Default)]
struct Working {
    /// Entries of the compounds being read (`Reader::scratch`, which takes it while it reads a
    /// root); empty until the first root is read.
    scratch: Vec<(NbtString, Tag)>,
    /// Elements of the lists of containers and strings being read, innermost last, one pile per
    /// element type: each list collects here and then moves its elements into a block, or into
    /// a vector of their own.
    piles: Piles,
}

impl Working {
    /// Bytes of the vectors' capacity.
    fn bytes(&self) -> usize {
        fn cap<T>(v: &Vec<T>) -> usize {
            v.capacity() * std::mem::size_of::<T>()
        }
        let p = &self.piles;
        cap(&self.scratch)
            + cap(&p.byte_arrays)
            + cap(&p.strings)
            + cap(&p.lists)
            + cap(&p.compounds)
            + cap(&p.int_arrays)
            + cap(&p.long_arrays)
    }
}

thread_local! {
    /// A thread's working vectors between reads, empty, up to [`KEPT_MAX`] bytes of capacity,
    /// so that a thread reading one document after another (chunks, packets) does not grow them
    /// again by doubling on every read. Like the spare blocks ([`super::block`]), this memory
    /// is the thread's, outside any tree's budget: a read charges the vectors only when they
    /// grow past what was kept.
    static KEPT: Cell<Working> = const {
        Cell::new(Working {
            scratch: Vec::new(),
            piles: Piles {
                byte_arrays: Vec::new(),
                strings: Vec::new(),
                lists: Vec::new(),
                compounds: Vec::new(),
                int_arrays: Vec::new(),
                long_arrays: Vec::new(),
            },
        })
    };
}

/// Reads one root within `budget`, adding the tree's estimated memory to `budget.used` (also
/// when the read fails).
pub(crate) fn read_root_limited(
    c: &mut Cur,
    opts: ReadOptions,
    budget: &mut TreeBudget,
) -> Result<Nbt> {
    match opts.edition {
        Edition::Java => Reader::<JavaFlavor>::new(c, opts, budget).root(opts.root),
        Edition::Bedrock => Reader::<BedrockFlavor>::new(c, opts, budget).root(opts.root),
        Edition::BedrockNetwork => Reader::<NetworkFlavor>::new(c, opts, budget).root(opts.root),
    }
}

/// Bytes of one compound entry. The blocks that compounds' entries (and lists' elements) go to
/// are charged whole when they are opened (a power of two of bytes, so more than they hold
/// where a read ends or a container did not fit the room left); a compound too long for a
/// block, or among the first few containers of a read, is charged its exactly sized vector. The
/// reader's scratch vector, where a compound's entries gather first, is charged when it grows
/// ([`Reader::charge_growth`]).
const ENTRY: usize = std::mem::size_of::<(NbtString, Tag)>();

/// Minimum encoded size of one element of a type (for length checks before allocation).
#[inline]
pub(crate) fn min_size<F: Flavor>(t: TagType) -> usize {
    match t {
        TagType::End => 0,
        TagType::Byte => 1,
        TagType::Short => 2,
        TagType::Int => F::MIN_INT,
        TagType::Long => F::MIN_LONG,
        TagType::Float => 4,
        TagType::Double => 8,
        TagType::ByteArray | TagType::IntArray | TagType::LongArray => F::MIN_LEN,
        TagType::String => F::MIN_LEN.min(2),
        TagType::List => 1 + F::MIN_LEN,
        TagType::Compound => 1,
    }
}

/// Reads a list/array length and checks `len * elem_size` against the remaining bytes.
#[inline]
pub(crate) fn checked_len<F: Flavor>(c: &mut Cur, elem_size: usize) -> Result<usize> {
    let at = c.pos;
    let len = F::seq_len(c)?;
    if len < 0 {
        return Err(NbtError::at(NbtErrorKind::NegativeLength { len }, at));
    }
    let needed = len as u64 * elem_size as u64;
    if needed > c.remaining() as u64 {
        return Err(NbtError::at(
            NbtErrorKind::LengthTooLarge {
                len,
                needed,
                remaining: c.remaining(),
            },
            at,
        ));
    }
    Ok(len as usize)
}

/// Reads a string's raw bytes and checks them for the flavour (MUTF-8 or UTF-8), returning
/// them converted to MUTF-8.
#[inline(always)]
pub(crate) fn read_str_bytes<'a, F: Flavor>(
    c: &mut Cur<'a>,
    lenient: bool,
    check: bool,
) -> Result<std::borrow::Cow<'a, [u8]>> {
    let len = F::str_len(c)?;
    let start = c.pos;
    let data = c.data;
    let bytes = c.take(len)?;
    if F::EDITION == Edition::Java {
        if check && !mutf8::is_ascii_at(data, start, len) {
            mutf8::validate_slow(bytes, lenient).map_err(|i| NbtError::bad_string(start + i))?;
        }
        Ok(std::borrow::Cow::Borrowed(bytes))
    } else {
        mutf8::from_utf8_bytes(bytes).ok_or_else(|| {
            let bad = std::str::from_utf8(bytes)
                .err()
                .map_or(0, |e| e.valid_up_to());
            NbtError::bad_string(start + bad)
        })
    }
}

/// Marks a failure whose details wait in [`Reader::err`]: the reader's functions return
/// `Result<T, Fail>`, which stays as small as `T`, instead of carrying the large [`NbtError`]
/// through every frame of the hot path.
struct Fail;

/// Unwraps a `Result<T, NbtError>`, parking the error in the reader on failure.
macro_rules! tri {
    ($self:ident, $e:expr) => {
        match $e {
            Ok(v) => v,
            Err(e) => return Err($self.fail(e)),
        }
    };
}

/// Moves `x` to `dst` in 8-byte words, each read from `x` by a load of its own.
///
/// A value that reaches the stack one 8-byte field at a time and is then moved with the
/// compiler's wider loads, which straddle those stores, waits for the stores to reach the cache
/// (store forwarding fails) on every move: moving the containers of a list so is 8 % of the
/// owned parse of `complex_player.dat`. The loads are volatile so that they are not merged
/// again.
///
/// # Safety
/// `dst` is valid for a write of a `T` (its old value is not dropped).
#[inline(always)]
unsafe fn move_by_words<T>(dst: *mut T, x: T) {
    const {
        assert!(
            std::mem::size_of::<T>().is_multiple_of(8) && std::mem::align_of::<T>() >= 8,
            "a value moved by words is made of whole aligned words"
        )
    };
    let x = std::mem::ManuallyDrop::new(x);
    // Words as `MaybeUninit`: padding bytes are copied as they are, never read as integers.
    let src = (&raw const *x).cast::<MaybeUninit<u64>>();
    let dst = dst.cast::<MaybeUninit<u64>>();
    for k in 0..std::mem::size_of::<T>() / 8 {
        // SAFETY: both are `size_of::<T>()` bytes at `T`'s alignment (at least 8); `x` is not
        // dropped, so the value is moved, not copied.
        unsafe { dst.add(k).write(src.add(k).read_volatile()) };
    }
}

struct Reader<'c, 'a, F> {
    c: &'c mut Cur<'a>,
    max_depth: usize,
    lenient: bool,
    /// [`ReadOptions::check_strings`].
    check: bool,
    /// Entries of the compounds being read, innermost last: each compound collects here and
    /// then moves its entries into a block ([`super::block`]; one copy of the bytes), or, if it
    /// is too long for one, into an exactly sized vector (`split_off`). The first entry is a
    /// placeholder that is never taken, so that no compound starts at 0, where `split_off` would
    /// hand over the whole buffer instead. Taken from the budget and given back when the reader
    /// drops (the next root of the read uses it again, and the thread's next read: [`KEPT`]).
    scratch: Vec<(NbtString, Tag)>,
    /// The error behind a [`Fail`], its path growing as the failure unwinds.
    err: Option<NbtError>,
    /// Estimated memory of what was built, and its limit.
    budget: &'c mut TreeBudget,
    _f: std::marker::PhantomData<F>,
}

impl<F> Drop for Reader<'_, '_, F> {
    fn drop(&mut self) {
        // Back to the budget for the read's next root: the placeholder alone (entries left by
        // a failed read are dropped here).
        self.scratch.truncate(1);
        self.budget.work.scratch = std::mem::take(&mut self.scratch);
    }
}

impl<'c, 'a, F: Flavor> Reader<'c, 'a, F> {
    fn new(c: &'c mut Cur<'a>, opts: ReadOptions, budget: &'c mut TreeBudget) -> Self {
        Reader {
            c,
            max_depth: opts.depth_limit(),
            lenient: opts.lenient_utf8,
            check: opts.check_strings,
            scratch: {
                let mut v = std::mem::take(&mut budget.work.scratch);
                if v.is_empty() {
                    v.reserve(8);
                    v.push((NbtString::default(), Tag::Byte(0)));
                }
                v
            },
            err: None,
            budget,
            _f: std::marker::PhantomData,
        }
    }

    /// Adds `bytes` to the tree's estimated memory, before they are allocated: the heap bytes
    /// of a string (its length), of an array or a list (its block when it opens, or its exact
    /// vector), of a compound's entries (likewise, [`ENTRY`] each) and of the reader's scratch
    /// vector and piles when they grow. The tags themselves live inside those, so every byte
    /// the tree holds is counted; the allocator's own overhead per allocation is not.
    #[inline(always)]
    fn charge(&mut self, bytes: usize) -> Result<(), Fail> {
        let b = &mut *self.budget;
        b.used = b.used.saturating_add(bytes);
        if b.used > b.limit {
            return Err(self.over_budget());
        }
        Ok(())
    }

    /// Charges the block that `n` elements of `T` would open (nothing if they fit the current
    /// one), and gives the bytes of input left, which the block's size depends on.
    #[inline(always)]
    fn charge_block<T>(&mut self, n: usize) -> Result<usize, Fail> {
        let rest = self.c.remaining();
        if let Some(bytes) = self.budget.blocks.new_block_bytes::<T>(n, rest) {
            self.charge(bytes)?;
        }
        Ok(rest)
    }

    /// Charges the growth of a vector of `T` about to take one more element: its whole new
    /// capacity when it is full (`len == cap`), so a reallocation's old and new buffers are
    /// both covered.
    #[inline(always)]
    fn charge_growth<T>(&mut self, len: usize, cap: usize) -> Result<(), Fail> {
        if len < cap {
            return Ok(());
        }
        self.charge((2 * cap).max(4) * std::mem::size_of::<T>())
    }

    #[cold]
    #[inline(never)]
    fn over_budget(&mut self) -> Fail {
        let e = NbtError::at(
            NbtErrorKind::MemoryLimit {
                limit: self.budget.limit,
            },
            self.c.pos,
        );
        self.fail(e)
    }

    #[cold]
    #[inline(never)]
    fn fail(&mut self, e: NbtError) -> Fail {
        self.err = Some(e);
        Fail
    }

    #[cold]
    #[inline(never)]
    fn at_key(&mut self, key: &[u8]) -> Fail {
        self.err = self.err.take().map(|e| e.in_key(key));
        Fail
    }

    /// Adds the key of the entry about to be read (at the cursor) to the path of the error
    /// that stopped it before its key was read.
    #[cold]
    #[inline(never)]
    fn key_after_failure(&mut self) -> Fail {
        let err = self.err.take();
        let key = read_str_bytes::<F>(self.c, true, false).map(|k| k.into_owned());
        self.err = err;
        match key {
            Ok(k) => self.at_key(&k),
            Err(_) => Fail,
        }
    }

    #[cold]
    #[inline(never)]
    fn at_index(&mut self, i: usize) -> Fail {
        self.err = self.err.take().map(|e| e.in_index(i));
        Fail
    }

    fn root(&mut self, form: RootForm) -> Result<Nbt> {
        let at = self.c.pos;
        let id = self.c.u8()?;
        let ty = TagType::from_id(id).ok_or_else(|| NbtError::bad_type(id, at))?;
        if ty == TagType::End {
            return Err(NbtError::at(NbtErrorKind::EndRoot, at));
        }
        let r = (|| {
            let name = match form {
                RootForm::Named => Some(self.string()?),
                RootForm::Nameless => None,
            };
            let tag = self.payload(ty, 0)?;
            Ok(Nbt { name, tag })
        })();
        r.map_err(|Fail| {
            self.err
                .take()
                .unwrap_or(NbtError::from(NbtErrorKind::Unwritable {
                    reason: "internal: failure without an error",
                }))
        })
    }

    #[inline(always)]
    fn string(&mut self) -> Result<NbtString, Fail> {
        let mut s = MaybeUninit::uninit();
        // SAFETY: `s` is a local, valid for the write; `string_to` wrote it when it returns `Ok`.
        unsafe {
            self.string_to(s.as_mut_ptr())?;
            Ok(s.assume_init())
        }
    }

    /// Reads a string into `dst` (nothing on failure). Each way of making the string writes
    /// straight to `dst`: a string returned by value is assembled on the stack in pieces and
    /// read back with wider loads as it moves, which stalls store forwarding on every entry of
    /// a compound.
    ///
    /// # Safety
    /// `dst` is valid for a write of an `NbtString` (its old value is not dropped).
    #[inline(always)]
    unsafe fn string_to(&mut self, dst: *mut NbtString) -> Result<(), Fail> {
        let b = tri!(self, read_str_bytes::<F>(self.c, self.lenient, self.check));
        if b.len() > INLINE {
            let n = b.len();
            if self.budget.blocks.takes::<u8>(n) {
                let rest = self.charge_block::<u8>(Blocks::str_room(n))?;
                // SAFETY: `b` is `n` bytes long.
                let p = unsafe { self.budget.blocks.copy_str(b.as_ptr(), n, rest) };
                // SAFETY: the caller's contract.
                unsafe { dst.write(NbtString::pooled(p)) };
                return Ok(());
            }
            self.charge(n)?;
            // SAFETY: the caller's contract.
            unsafe { dst.write(NbtString::from_mutf8(b)) };
            return Ok(());
        }
        // A short string (most keys) takes the fixed-size window of input that starts with it
        // when the input is long enough, instead of a zeroed buffer and a copy of its length:
        // that copy's small stores, read back at once as the string moves, stall the loop.
        // The string's bytes as read end where the cursor is (a converted Bedrock string is
        // not the input's bytes and takes the copy).
        let window = match b {
            std::borrow::Cow::Borrowed(s) => {
                let start = self.c.pos - s.len();
                debug_assert_eq!(s.as_ptr(), self.c.data[start..].as_ptr());
                self.c.data[start..].first_chunk::<INLINE>()
            }
            std::borrow::Cow::Owned(_) => None,
        };
        // SAFETY: the caller's contract.
        unsafe {
            match window {
                Some(w) => NbtString::write_inline_window(dst, w, b.len()),
                None => dst.write(NbtString::from_mutf8(b)),
            }
        }
        Ok(())
    }

    /// Reads a payload; `depth` is the number of containers already entered.
    #[inline(always)]
    fn payload(&mut self, ty: TagType, depth: usize) -> Result<Tag, Fail> {
        let mut t = MaybeUninit::uninit();
        // SAFETY: `t` is a local, valid for the write; `payload_to` wrote it when it returns
        // `Ok`.
        unsafe {
            self.payload_to(ty, depth, t.as_mut_ptr())?;
            Ok(t.assume_init())
        }
    }

    /// Reads a payload into `dst`, each kind of value written there directly
    /// ([`string_to`](Self::string_to) says why). On failure `dst` holds nothing or a value
    /// that owns nothing (an empty string), which need not be dropped.
    ///
    /// # Safety
    /// `dst` is valid for a write of a `Tag` (its old value is not dropped) until this returns,
    /// through the reading of a container too: it may not point into the reader's scratch
    /// vector, which a container's entries grow.
    #[inline(always)]
    unsafe fn payload_to(&mut self, ty: TagType, depth: usize, dst: *mut Tag) -> Result<(), Fail> {
        let c = &mut *self.c;
        let v = match ty {
            TagType::Byte => Tag::Byte(tri!(self, c.u8()) as i8),
            TagType::Short => Tag::Short(tri!(self, F::i16(c))),
            TagType::Int => Tag::Int(tri!(self, F::i32(c))),
            TagType::Long => Tag::Long(tri!(self, F::i64(c))),
            TagType::Float => Tag::Float(tri!(self, F::f32(c))),
            TagType::Double => Tag::Double(tri!(self, F::f64(c))),
            TagType::ByteArray => Tag::ByteArray(self.byte_array()?),
            // The string is read into an empty one written first, which owns nothing if the
            // read fails. SAFETY: the caller's contract; `dst` holds a string when it is read.
            TagType::String => unsafe {
                dst.write(Tag::String(NbtString::default()));
                let Tag::String(s) = &mut *dst else {
                    unreachable!()
                };
                return self.string_to(s);
            },
            TagType::List => Tag::List(super::guard(depth, || self.list(depth))?),
            TagType::Compound => Tag::Compound(super::guard(depth, || self.compound(depth))?),
            TagType::IntArray => {
                let n = tri!(self, checked_len::<F>(c, F::MIN_INT));
                Tag::IntArray(self.numbers(n, F::i32s)?)
            }
            TagType::LongArray => {
                let n = tri!(self, checked_len::<F>(c, F::MIN_LONG));
                Tag::LongArray(self.numbers(n, F::i64s)?)
            }
            TagType::End => {
                let at = c.pos;
                return Err(self.fail(NbtError::bad_type(0, at)));
            }
        };
        // SAFETY: the caller's contract.
        unsafe { dst.write(v) };
        Ok(())
    }

    #[inline]
    fn byte_array(&mut self) -> Result<NbtVec<i8>, Fail> {
        let n = tri!(self, checked_len::<F>(self.c, 1));
        self.numbers(n, i8s)
    }

    /// Reads `n` numbers (checked against the remaining bytes) with `fill`, into the read's
    /// current block ([`super::block`]) or, among the first few containers of a read or when
    /// longer than a block, into a vector of their own. The block is charged to the budget
    /// whole when it is opened; a vector, its exact size.
    #[inline(always)]
    fn numbers<T: Copy>(
        &mut self,
        n: usize,
        fill: fn(&mut Cur, &mut [MaybeUninit<T>]) -> Result<()>,
    ) -> Result<NbtVec<T>, Fail> {
        if n == 0 {
            return Ok(NbtVec::new());
        }
        if self.budget.blocks.takes::<T>(n) {
            let rest = self.charge_block::<T>(n)?;
            let c = &mut *self.c;
            // SAFETY: the flavour's `fill` writes every element when it returns `Ok`.
            let r = unsafe { self.budget.blocks.fill(n, rest, |d| fill(c, d)) };
            return Ok(NbtVec::pooled(tri!(self, r)));
        }
        self.charge(n * std::mem::size_of::<T>())?;
        let c = &mut *self.c;
        // SAFETY: as above.
        let r = unsafe { collect(n, |d| fill(c, d)) };
        Ok(NbtVec::from(tri!(self, r)))
    }

    #[inline]
    fn enter(&mut self, depth: usize) -> Result<usize, Fail> {
        let d = depth + 1;
        if d > self.max_depth {
            let e = NbtError::too_deep(self.max_depth, self.c.pos);
            return Err(self.fail(e));
        }
        Ok(d)
    }

    #[inline]
    fn type_id(&mut self) -> Result<(u8, TagType), Fail> {
        let at = self.c.pos;
        let id = tri!(self, self.c.u8());
        match TagType::from_id(id) {
            Some(t) => Ok((id, t)),
            None => Err(self.fail(NbtError::bad_type(id, at))),
        }
    }

    /// Reads a compound. Its entries are read by [`entries`](Self::entries); what makes them
    /// a `Compound` is inlined where the compound goes, so that the value is written there
    /// directly rather than returned through the stack (see [`string_to`](Self::string_to)).
    #[inline(always)]
    fn compound(&mut self, depth: usize) -> Result<Compound, Fail> {
        let start = self.entries(depth)?;
        let len = self.scratch.len() - start;
        if len == 0 {
            return Ok(Compound::new());
        }
        if self.budget.blocks.takes::<Entry>(len) {
            let rest = self.charge_block::<Entry>(len)?;
            let p = self.budget.blocks.store(&mut self.scratch, start, rest);
            return Ok(Compound::pooled(p));
        }
        self.charge(len * ENTRY)?;
        Ok(Compound::from_entries(self.scratch.split_off(start)))
    }

    /// Reads a compound's entries onto the end of the scratch vector; where they start.
    fn entries(&mut self, depth: usize) -> Result<usize, Fail> {
        let depth = self.enter(depth)?;
        let start = self.scratch.len();
        loop {
            let (id, ty) = self.type_id()?;
            if id == 0 {
                break;
            }
            // The entry is read into its place at the end of the scratch vector, key and value
            // each written there as it is made: a key or value returned by value is assembled
            // on the stack in pieces and copied out with wider loads that straddle them, which
            // stalls store forwarding on every entry (a third of the owned parse of
            // `complex_player.dat` on one Intel machine).
            let (len, cap) = (self.scratch.len(), self.scratch.capacity());
            if let Err(Fail) = self.charge_growth::<Entry>(len, cap) {
                return Err(self.key_after_failure());
            }
            self.scratch.reserve(1);
            let slot = self.scratch.as_mut_ptr().wrapping_add(len);
            // SAFETY: `reserve(1)` left room for an element at `len`, which nothing else
            // touches while the key is read (no reference to the uninitialised slot is made).
            unsafe { self.string_to(&raw mut (*slot).0)? };
            if matches!(ty, TagType::List | TagType::Compound) {
                // A container's own entries go after this one, and may move the vector: the
                // entry counts at once, with a placeholder value replaced when it is read.
                // SAFETY: the key was written; the placeholder makes the element whole.
                unsafe {
                    (&raw mut (*slot).1).write(Tag::Byte(0));
                    self.scratch.set_len(len + 1);
                }
                match self.payload(ty, depth) {
                    // SAFETY: the placeholder owns nothing and is overwritten without a drop;
                    // the vector holds `len + 1` elements.
                    Ok(v) => unsafe {
                        move_by_words(&raw mut (*self.scratch.as_mut_ptr().add(len)).1, v)
                    },
                    Err(Fail) => {
                        let key = self.scratch[len].0.clone();
                        return Err(self.at_key(key.as_mutf8()));
                    }
                }
            } else {
                // SAFETY: the slot's value is valid for a write, and a value that is not a
                // container leaves the scratch vector alone while it is read.
                match unsafe { self.payload_to(ty, depth, &raw mut (*slot).1) } {
                    // SAFETY: both fields are written.
                    Ok(()) => unsafe { self.scratch.set_len(len + 1) },
                    Err(Fail) => {
                        // SAFETY: the key was written and is not counted by the vector: it is
                        // taken out (and dropped) here.
                        let key = unsafe { (&raw const (*slot).0).read() };
                        return Err(self.at_key(key.as_mutf8()));
                    }
                }
            }
        }
        Ok(start)
    }

    /// Reads a list. Inlined where the list goes, as a compound's tail is
    /// ([`compound`](Self::compound)): a list returned from a call is stored in 4-byte pieces
    /// and moved in 8-byte ones, which stalls.
    #[inline(always)]
    fn list(&mut self, depth: usize) -> Result<List, Fail> {
        let depth = self.enter(depth)?;
        let at = self.c.pos;
        let (_, ty) = self.type_id()?;
        let n = tri!(self, checked_len::<F>(self.c, min_size::<F>(ty)));
        Ok(match ty {
            TagType::End => {
                if n > 0 {
                    return Err(self.fail(NbtError::at(
                        NbtErrorKind::EndListNotEmpty { len: n as i64 },
                        at,
                    )));
                }
                List::End
            }
            TagType::Byte => List::Byte(self.numbers(n, i8s)?),
            TagType::Short => List::Short(self.numbers(n, F::i16s)?),
            TagType::Int => List::Int(self.numbers(n, F::i32s)?),
            TagType::Long => List::Long(self.numbers(n, F::i64s)?),
            TagType::Float => List::Float(self.numbers(n, F::f32s)?),
            TagType::Double => List::Double(self.numbers(n, F::f64s)?),
            TagType::ByteArray => List::ByteArray(self.each(n, |r| r.byte_array())?),
            TagType::String => List::String(self.each(n, |r| r.string())?),
            TagType::List => List::List(super::guard(depth, || self.each(n, |r| r.list(depth)))?),
            TagType::Compound => {
                List::Compound(super::guard(depth, || self.each(n, |r| r.compound(depth)))?)
            }
            TagType::IntArray => List::IntArray(self.each(n, |r| {
                let k = tri!(r, checked_len::<F>(r.c, F::MIN_INT));
                r.numbers(k, F::i32s)
            })?),
            TagType::LongArray => List::LongArray(self.each(n, |r| {
                let k = tri!(r, checked_len::<F>(r.c, F::MIN_LONG));
                r.numbers(k, F::i64s)
            })?),
        })
    }

    /// Reads `n` elements onto their pile, then moves them into the read's current block (or,
    /// among the first few containers of a read or when longer than a block, into a vector of
    /// their own). The pile grows with what is actually read (charged to the budget as it
    /// grows, its whole new capacity): `n` is only checked against the remaining bytes, and
    /// reserving it at every nesting level of hostile input would multiply up. The block is
    /// charged whole when it is opened; a vector, its exact size.
    #[inline]
    fn each<T: Piled>(
        &mut self,
        n: usize,
        mut f: impl FnMut(&mut Self) -> Result<T, Fail>,
    ) -> Result<NbtVec<T>, Fail> {
        let start = T::pile(&mut self.budget.work.piles).len();
        for i in 0..n {
            match f(self) {
                Ok(x) => {
                    let pile = T::pile(&mut self.budget.work.piles);
                    let (len, cap) = (pile.len(), pile.capacity());
                    if let Err(Fail) = self.charge_growth::<T>(len, cap) {
                        T::pile(&mut self.budget.work.piles).truncate(start);
                        return Err(self.at_index(i));
                    }
                    let pile = T::pile(&mut self.budget.work.piles);
                    pile.reserve(1);
                    // SAFETY: `reserve(1)` left room for an element at `len`, now written.
                    unsafe {
                        move_by_words(pile.as_mut_ptr().add(len), x);
                        pile.set_len(len + 1);
                    }
                }
                Err(Fail) => {
                    T::pile(&mut self.budget.work.piles).truncate(start);
                    return Err(self.at_index(i));
                }
            }
        }
        if n == 0 {
            return Ok(NbtVec::new());
        }
        if self.budget.blocks.takes::<T>(n) {
            let rest = match self.charge_block::<T>(n) {
                Ok(rest) => rest,
                Err(Fail) => {
                    T::pile(&mut self.budget.work.piles).truncate(start);
                    return Err(Fail);
                }
            };
            let p = self
                .budget
                .blocks
                .store(T::pile(&mut self.budget.work.piles), start, rest);
            return Ok(NbtVec::pooled(p));
        }
        // An exactly sized vector; the pile keeps its capacity for the lists still to be read
        // and for the thread's next read ([`KEPT`]).
        let pile = T::pile(&mut self.budget.work.piles);
        Ok(NbtVec::from(if start == 0 {
            // `split_off(0)` would hand over the pile's buffer, capacity and all.
            let mut v = Vec::with_capacity(pile.len());
            v.append(pile);
            v
        } else {
            pile.split_off(start)
        }))
    }
}

/// The piles of list elements of a read, one per element type that is not a number.
#[derive(Debug, Default)]
struct Piles {
    byte_arrays: Vec<NbtVec<i8>>,
    strings: Vec<NbtString>,
    lists: Vec<List>,
    compounds: Vec<Compound>,
    int_arrays: Vec<NbtVec<i32>>,
    long_arrays: Vec<NbtVec<i64>>,
}

impl Piles {
    /// Drops every element, keeping the capacity.
    fn clear(&mut self) {
        self.byte_arrays.clear();
        self.strings.clear();
        self.lists.clear();
        self.compounds.clear();
        self.int_arrays.clear();
        self.long_arrays.clear();
    }
}

/// An element type of lists read onto a pile.
trait Piled: Sized {
    fn pile(p: &mut Piles) -> &mut Vec<Self>;
}

macro_rules! piled {
    ($($t:ty => $f:ident),*) => {$(
        impl Piled for $t {
            #[inline(always)]
            fn pile(p: &mut Piles) -> &mut Vec<$t> {
                &mut p.$f
            }
        }
    )*};
}
piled!(NbtVec<i8> => byte_arrays, NbtString => strings, List => lists, Compound => compounds,
    NbtVec<i32> => int_arrays, NbtVec<i64> => long_arrays);
