//! Blocks of memory shared by the compounds, lists and arrays one read builds.
//!
//! The reader does not give every container an allocation of its own: it moves each compound's
//! entries, and writes each list or array of numbers, into the current block, a buffer that
//! grows by doubling from block to block, and the container keeps a [`Pooled`] range of it. A
//! document of thousands of compounds and lists takes a dozen blocks instead of thousands of
//! allocations (and as many frees when it drops).
//!
//! Each range is owned by exactly one container, which reads and changes its elements in place.
//! A block counts the ranges still alive in it and is freed with the last one, so a compound or
//! list taken out of its tree stays valid on its own (and keeps its block's memory until it is
//! dropped or grown). An edit that changes a container's length moves the range's elements into
//! a `Vec` of their own first ([`Pooled::into_vec`]).
//!
//! A freed block goes back to its thread's spare blocks (up to [`SPARE_MAX`] bytes a thread)
//! for the next read, instead of to the allocator: freed whole, blocks of a large document
//! would make the allocator give its memory back to the system and fault it in again on the
//! next read, which costs more than the allocations saved. The spare blocks go to the thread
//! that drops a block's last range, and are freed when that thread exits: a thread that
//! only drops trees others read keeps up to [`SPARE_MAX`] that it does not use.
//!
//! While a reader fills a block it raises the block's count without an atomic operation:
//! nothing of the block can have reached another thread before the read returns, because a
//! read's blocks live in its `TreeBudget`, which never outlives the call that makes it.

use super::tag::Entry;
use std::alloc::{Layout, alloc, dealloc, handle_alloc_error};
use std::cell::Cell;
use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering, fence};

/// The start of a block; its ranges follow at [`OFFSET`]. Aligned as strictly as any element a
/// range holds (8 bytes, also where `usize` is 4).
#[repr(C, align(8))]
struct Header {
    /// Ranges alive in the block, plus one while the reader still fills it.
    refs: AtomicUsize,
    /// Bytes the block has room for after its header (its allocation's size).
    cap: usize,
}

/// Where the ranges start in a block.
const OFFSET: usize = std::mem::size_of::<Header>();
/// Every range starts at a multiple of this from [`OFFSET`], the strictest alignment of what
/// ranges hold (compound entries, numbers).
const ALIGN: usize = std::mem::align_of::<Header>();
const _: () = assert!(std::mem::align_of::<Entry>() <= ALIGN);
const _: () = assert!(OFFSET.is_multiple_of(ALIGN));
// A `Pooled<Entry>` is `Send` and `Sync` because the entries it owns are.
const _: fn() = || {
    fn is<T: Send + Sync>() {}
    is::<Entry>();
};

/// The first block's room, in bytes. Every block's room is a power of two from `FIRST` to
/// [`MAX_POOLED`].
const FIRST: usize = 2 << 10;
/// The number of block sizes.
const CLASSES: usize = (MAX_POOLED.trailing_zeros() - FIRST.trailing_zeros()) as usize + 1;
/// The bytes of freed blocks a thread keeps for its next read.
const SPARE_MAX: usize = 16 << 20;
/// The containers of a read of under 1 KiB that get vectors of their own before the rest go to
/// blocks: for a document of a few containers, a few small allocations cost less than a
/// block's bookkeeping. A read of 1 KiB or more takes blocks from its first container, so a
/// thread reading such documents one after another allocates no block after the first read
/// (the next takes the blocks the last one's tree gave back), however few containers they
/// have.
const UNPOOLED: u8 = 8;
/// The most bytes of a block one byte of input can fill: a compound entry (56 bytes) takes at
/// least 3 bytes on the wire (type id, name length, a one-byte payload); a list or array of
/// numbers takes as many bytes as it has on the wire, rounded up to [`ALIGN`] with a header of
/// at least 5 bytes.
const PER_INPUT_BYTE: usize = std::mem::size_of::<Entry>().div_ceil(3);
/// The shortest string a block places to agree with its input's address in the low 6 bits
/// ([`Blocks::copy_str`]): below, a copy gains less than the padding costs.
const LIKE_FROM: usize = 1 << 10;
/// The largest block's room (64 KiB, under the size from which glibc maps an allocation of its
/// own); a longer compound, list or array gets a `Vec` of its own.
pub(crate) const MAX_POOLED: usize = 64 << 10;

fn layout(cap: usize) -> Layout {
    // `cap <= MAX_POOLED`, so the size cannot overflow.
    Layout::from_size_align(OFFSET + cap, ALIGN)
        .expect("a block of at most MAX_POOLED bytes has a valid layout")
}

/// The bytes a range of `n` elements of `T` takes in a block: a multiple of [`ALIGN`].
#[inline(always)]
fn range_bytes<T>(n: usize) -> usize {
    (n * std::mem::size_of::<T>()).next_multiple_of(ALIGN)
}

/// Freed blocks kept for the thread's next read: a list per size, linked through the first
/// bytes of each block's (unused) room.
///
/// It also holds the references to up to [`PENDING`] blocks that this thread's drops gave up but
/// did not yet take off the blocks' counts: ranges of one block are mostly dropped one after
/// another (a tree drops in the order it was read), so they are taken off in one atomic
/// operation when the block leaves the slots (another block's range drops and takes its slot,
/// a read needs a block of its size, or the thread exits), instead of one each. Strings and
/// containers that fill blocks of their own interleave a few blocks in the drop order, hence a
/// few slots.
struct Spare {
    heads: [Cell<Option<NonNull<Header>>>; CLASSES],
    bytes: Cell<usize>,
    pending: [Cell<Option<Given>>; PENDING],
    /// The slot of the block whose reference was given up last.
    last: Cell<usize>,
}

/// The blocks whose given-up references a thread holds before taking them off.
const PENDING: usize = 4;

/// A block and how many of its references a thread gave up without taking them off its count.
type Given = (NonNull<Header>, usize);

thread_local! {
    // No destructor of its own, so reaching it is an address and no check of the thread's
    // state: it is reached on every drop of a range. `EXIT` frees what it holds.
    static SPARE: Spare = const {
        Spare {
            heads: [const { Cell::new(None) }; CLASSES],
            bytes: Cell::new(0),
            pending: [const { Cell::new(None) }; PENDING],
            last: Cell::new(0),
        }
    };
    static EXIT: Exit = const { Exit };
}

/// Frees the thread's spare blocks and takes its pending references off when the thread
/// exits. Registered by the first block kept or reference deferred ([`keeps`]); once it has
/// run, nothing more is kept or deferred.
struct Exit;

impl Drop for Exit {
    fn drop(&mut self) {
        SPARE.with(|s| {
            // What this frees is not kept (`keeps` is false here), or is freed with the spare
            // blocks below.
            s.settle();
            for k in 0..CLASSES {
                while let Some(h) = s.take(FIRST << k) {
                    // SAFETY: a kept block, allocated with its room's layout.
                    unsafe { dealloc(h.as_ptr().cast(), layout(FIRST << k)) };
                }
            }
        });
    }
}

/// Whether the thread may keep blocks or defer references: not once it is exiting and [`Exit`]
/// has run (or is running).
fn keeps() -> bool {
    EXIT.try_with(|_| ()).is_ok()
}

fn class(cap: usize) -> usize {
    (cap.trailing_zeros() - FIRST.trailing_zeros()) as usize
}

/// The link to the next spare block, where the block's ranges would be.
fn next_of(h: NonNull<Header>) -> *mut Option<NonNull<Header>> {
    // SAFETY: a block has room for at least `FIRST` bytes after its header.
    unsafe { h.cast::<u8>().add(OFFSET).cast().as_ptr() }
}

impl Spare {
    /// Keeps the block `h` (no references, no ranges) if there is room; gives it back if not.
    fn put(&self, h: NonNull<Header>) -> Option<NonNull<Header>> {
        // SAFETY: the block is the caller's alone.
        let cap = unsafe { h.as_ref() }.cap;
        let size = layout(cap).size();
        if self.bytes.get() + size > SPARE_MAX || !keeps() {
            return Some(h);
        }
        let head = &self.heads[class(cap)];
        // SAFETY: as above; the link is written where ranges would be.
        unsafe { next_of(h).write(head.get()) };
        head.set(Some(h));
        self.bytes.set(self.bytes.get() + size);
        None
    }

    /// A kept block of room `cap`, if there is one.
    fn take(&self, cap: usize) -> Option<NonNull<Header>> {
        let head = &self.heads[class(cap)];
        let h = head.get()?;
        // SAFETY: a kept block is this list's alone, its link written by `put`.
        head.set(unsafe { next_of(h).read() });
        self.bytes.set(self.bytes.get() - layout(cap).size());
        Some(h)
    }

    /// Holds one more given-up reference to `h`, whose block is not the last one given up:
    /// in its slot, or in a new one, taking off the references of the block that held it.
    ///
    /// # Safety
    /// `h` is a live block and the caller owns one of its references.
    #[inline(never)]
    unsafe fn defer(&self, h: NonNull<Header>) {
        if !keeps() {
            // A thread that is exiting keeps nothing: `Exit` has run.
            // SAFETY: the caller's reference.
            unsafe { give_up(h, 1, None) };
            return;
        }
        for (k, slot) in self.pending.iter().enumerate() {
            if let Some((p, n)) = slot.get()
                && p == h
            {
                slot.set(Some((p, n + 1)));
                self.last.set(k);
                return;
            }
        }
        // The slot after the last one used: never the block whose ranges are dropping now.
        let k = (self.last.get() + 1) % PENDING;
        self.last.set(k);
        if let Some((p, n)) = self.pending[k].replace(Some((h, 1))) {
            // SAFETY: references this thread gave up and did not yet take off.
            unsafe { give_up(p, n, Some(self)) };
        }
    }

    /// Takes off every reference the slots hold: a read found no spare block of the size it
    /// needs (one may be waiting there), or the thread exits.
    fn settle(&self) {
        for slot in &self.pending {
            if let Some((p, n)) = slot.take() {
                // SAFETY: references this thread gave up and did not yet take off.
                unsafe { give_up(p, n, Some(self)) };
            }
        }
    }
}

/// Drops one reference to the block; the last one frees it (to the thread's spare blocks if
/// they have room). The count may be taken off later ([`Spare::pending`]), when the block
/// leaves the thread's slots: until then the block stays allocated.
///
/// # Safety
/// `h` is a live block and the caller owns one of its references.
#[inline]
unsafe fn release(h: NonNull<Header>) {
    SPARE.with(|s| {
        let last = &s.pending[s.last.get() % PENDING];
        match last.get() {
            Some((p, n)) if p == h => last.set(Some((p, n + 1))),
            // SAFETY: the caller's reference.
            _ => unsafe { s.defer(h) },
        }
    });
}

/// Takes `n` references off the block's count; the last ones free it, to `spare` if it has
/// room.
///
/// # Safety
/// `h` is a live block and the caller owns `n` of its references.
unsafe fn give_up(h: NonNull<Header>, n: usize, spare: Option<&Spare>) {
    // SAFETY: the caller's references keep the block alive until the decrement.
    let refs = unsafe { &h.as_ref().refs };
    // When the caller's references are all there are, no other thread can change the count
    // (it takes a reference to do so), and a load does what the decrement would without a
    // locked instruction, which waits for every store before it: the last owner of a block
    // is mostly the thread that read it. The acquiring load sees every other owner's writes,
    // as the fence below does.
    let last = refs.load(Ordering::Acquire) == n || {
        let last = refs.fetch_sub(n, Ordering::Release) == n;
        if last {
            // Every other owner's writes to the block happen before it is reused or freed.
            fence(Ordering::Acquire);
        }
        last
    };
    if last {
        let left = match spare {
            Some(s) => s.put(h),
            None => Some(h),
        };
        if let Some(h) = left {
            // SAFETY: no reference is left; the elements were dropped or moved out by their
            // ranges.
            unsafe {
                let cap = h.as_ref().cap;
                dealloc(h.as_ptr().cast(), layout(cap));
            }
        }
    }
}

/// A container's elements in a block: `len` elements of `T` from byte `off` of the block's room.
pub(crate) struct Pooled<T> {
    /// The first element.
    ptr: NonNull<T>,
    /// The byte offset of the first element in its block's room (to find the block's
    /// header) in the low 32 bits, the number of elements in the high 32: one word, stored and
    /// moved as one.
    span: u64,
    _owns: PhantomData<T>,
}

// SAFETY: a `Pooled` owns its elements alone (no other range overlaps them), like a `Vec`, and
// touches the block it shares with other ranges only through the atomic reference count.
unsafe impl<T: Send> Send for Pooled<T> {}
// SAFETY: as above; `&Pooled<T>` gives only `&[T]`.
unsafe impl<T: Sync> Sync for Pooled<T> {}

impl<T> Pooled<T> {
    #[inline(always)]
    fn off(&self) -> usize {
        self.span as u32 as usize
    }

    #[inline(always)]
    fn len(&self) -> usize {
        (self.span >> 32) as usize
    }

    fn header(&self) -> NonNull<Header> {
        // SAFETY: `ptr` is byte `off` of the room of a block whose header is `OFFSET` bytes
        // before the room.
        unsafe { self.ptr.cast::<u8>().sub(self.off() + OFFSET).cast() }
    }

    #[inline(always)]
    pub(crate) fn as_slice(&self) -> &[T] {
        // SAFETY: the range's `len` elements are initialised and owned by `self`.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len()) }
    }

    #[inline(always)]
    pub(crate) fn as_mut_slice(&mut self) -> &mut [T] {
        // SAFETY: as above, and `&mut self` is the only way to the range.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len()) }
    }

    /// Takes the last element out (the range stays where it is, one shorter).
    pub(crate) fn pop(&mut self) -> Option<T> {
        let last = self.len().checked_sub(1)?;
        self.span -= 1 << 32;
        // SAFETY: the element at the old last index was initialised and owned by the range,
        // which no longer counts it, so it is moved out once.
        Some(unsafe { self.ptr.add(last).read() })
    }

    /// Moves the elements into a `Vec` of their own and gives the range back to its block.
    pub(crate) fn into_vec(self) -> Vec<T> {
        let me = std::mem::ManuallyDrop::new(self);
        let len = me.len();
        let mut v = Vec::with_capacity(len);
        // SAFETY: the elements are moved bitwise into `v`, which has room for them; `me` is
        // never dropped, so each element is owned once, by `v`. The range's reference is given
        // up.
        unsafe {
            std::ptr::copy_nonoverlapping(me.ptr.as_ptr(), v.as_mut_ptr(), len);
            v.set_len(len);
            release(me.header());
        }
        v
    }
}

impl<T> Drop for Pooled<T> {
    fn drop(&mut self) {
        // SAFETY: the range's elements are dropped once, here, and its reference given up.
        unsafe {
            std::ptr::drop_in_place(self.as_mut_slice());
            release(self.header());
        }
    }
}

/// The blocks of one read: the block being filled and the size of the next one.
#[derive(Debug)]
pub(crate) struct Blocks {
    /// The block being filled (the reader holds one reference to it).
    cur: Option<NonNull<Header>>,
    /// Bytes used in `cur`'s room.
    used: usize,
    /// Room of `cur`.
    cap: usize,
    /// Containers still to be given vectors of their own before blocks are used.
    unpooled: u8,
    /// Bytes of ranges in the blocks filled before `cur`.
    filled: usize,
    /// Bytes of input that were left when the first block opened.
    rest_at_first: usize,
}

impl Blocks {
    /// The blocks of a read; with `reuse` (a read of 1 KiB or more), taken from the first
    /// container on.
    pub(crate) fn new(reuse: bool) -> Blocks {
        Blocks {
            cur: None,
            used: 0,
            cap: 0,
            unpooled: if reuse { 0 } else { UNPOOLED },
            filled: 0,
            rest_at_first: 0,
        }
    }

    /// Whether a container or string of `n` elements of `T` goes to a block: not the first
    /// [`UNPOOLED`] of a read of under 1 KiB (a document of a few containers is read faster
    /// without a block), nor one longer than [`MAX_POOLED`] bytes.
    #[inline(always)]
    pub(crate) fn takes<T>(&mut self, n: usize) -> bool {
        if n > MAX_POOLED / std::mem::size_of::<T>() {
            return false;
        }
        if self.unpooled > 0 {
            self.unpooled -= 1;
            return false;
        }
        true
    }

    /// The bytes a new block would take if `n` elements of `T` were stored now (`None` when
    /// they fit in the current one), with `rest` bytes of input left to read. `takes::<T>(n)`
    /// said yes.
    #[inline]
    pub(crate) fn new_block_bytes<T>(&self, n: usize, rest: usize) -> Option<usize> {
        let bytes = range_bytes::<T>(n);
        (self.cap - self.used < bytes).then(|| layout(self.next_cap(bytes, rest)).size())
    }

    /// Twice the last block's room, but no more than the rest of the input is likely to fill,
    /// so that the last block is not mostly empty; a power of two. Once a few KiB of input are
    /// read, the rest is expected to fill blocks as densely as what was read did (with a
    /// quarter more); before, as densely as it could ([`PER_INPUT_BYTE`]).
    fn next_cap(&self, bytes: usize, rest: usize) -> usize {
        let read = self.rest_at_first.saturating_sub(rest);
        let likely = if read >= 4 << 10 {
            // In 64 bits (a 128-bit division is a call); a product past them is past the cap.
            let filled = (self.filled + self.used) as u64;
            (rest as u64)
                .checked_mul(filled * 5)
                .map_or(MAX_POOLED, |x| {
                    (x / (4 * read as u64)).min(MAX_POOLED as u64) as usize
                })
        } else {
            rest.saturating_mul(PER_INPUT_BYTE)
        };
        let fill = bytes.saturating_add(likely).min(MAX_POOLED);
        (2 * self.cap)
            .clamp(FIRST, MAX_POOLED)
            .min(fill.next_power_of_two().max(FIRST))
            .max(bytes.next_power_of_two())
    }

    /// Room for `bytes` (a multiple of [`ALIGN`], at most [`MAX_POOLED`]) at the end of the
    /// current block, opening a new one if it has less, given `rest` bytes of input left.
    #[inline(always)]
    fn room(&mut self, bytes: usize, rest: usize) -> NonNull<u8> {
        debug_assert!(bytes <= MAX_POOLED && bytes.is_multiple_of(ALIGN));
        if self.cap - self.used < bytes {
            if self.cur.is_none() {
                self.rest_at_first = rest;
            }
            self.open(self.next_cap(bytes, rest));
        }
        let h = self.cur.expect("a block with room was opened above");
        // SAFETY: `used + bytes <= cap`, inside the block's room.
        unsafe { h.cast::<u8>().add(OFFSET + self.used) }
    }

    /// Counts a range of `bytes` at the end of the current block, written by the caller, and
    /// gives it to its owner; its elements start `pad` bytes into it.
    ///
    /// # Safety
    /// `len` elements of `T` were written from `pad` bytes after where [`room`](Self::room) for
    /// `bytes` pointed, within those bytes, and nothing else owns them.
    #[inline(always)]
    unsafe fn commit<T>(
        &mut self,
        room: NonNull<u8>,
        pad: usize,
        bytes: usize,
        len: usize,
    ) -> Pooled<T> {
        let h = self.cur.expect("the range's block is current");
        // The count of the block is changed only by this reader while it fills the block (no
        // range of it has left the tree being built), so a plain load and store suffice.
        // SAFETY: `h` is live (the reader holds a reference).
        let refs = unsafe { &h.as_ref().refs };
        refs.store(refs.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
        let p = Pooled {
            // SAFETY: `pad` bytes into the room (the caller's promise).
            ptr: unsafe { room.add(pad) }.cast(),
            span: (self.used + pad) as u32 as u64 | (len as u64) << 32,
            _owns: PhantomData,
        };
        self.used += bytes;
        p
    }

    /// Moves the elements of `v` from `start` on into the current block (a new one if they do
    /// not fit, given `rest` bytes of input left) and gives their range. `takes::<T>` said yes
    /// for them, and there is at least one.
    #[inline]
    pub(crate) fn store<T>(&mut self, v: &mut Vec<T>, start: usize, rest: usize) -> Pooled<T> {
        let len = v.len() - start;
        let bytes = range_bytes::<T>(len);
        debug_assert!(len > 0 && bytes <= MAX_POOLED);
        let first = self.room(bytes, rest);
        // SAFETY: the room holds `bytes` ≥ `len` elements of `T`, aligned to `ALIGN`; they are
        // moved bitwise from `v`, which forgets them by shrinking to `start`, so the range owns
        // them alone.
        unsafe {
            std::ptr::copy_nonoverlapping(v.as_ptr().add(start), first.cast().as_ptr(), len);
            v.set_len(start);
            self.commit(first, 0, bytes, len)
        }
    }

    /// Writes `n` numbers (at least one; `takes::<T>(n)` said yes) into the current block with
    /// `fill` (a new block if they do not fit, given `rest` bytes of input left) and gives their
    /// range; nothing is kept if `fill` fails.
    ///
    /// # Safety
    /// `fill` writes every element of the slice it is given when it returns `Ok`.
    #[inline]
    pub(crate) unsafe fn fill<T: Copy, E>(
        &mut self,
        n: usize,
        rest: usize,
        fill: impl FnOnce(&mut [MaybeUninit<T>]) -> Result<(), E>,
    ) -> Result<Pooled<T>, E> {
        let bytes = range_bytes::<T>(n);
        let first = self.room(bytes, rest);
        // SAFETY: the room holds `n` elements of `T`, aligned, not yet any range's.
        let dst = unsafe { std::slice::from_raw_parts_mut(first.cast().as_ptr(), n) };
        fill(dst)?;
        // SAFETY: `fill` returned `Ok`, so it wrote all `n` (the caller's promise); numbers need
        // no drop if it failed part way.
        Ok(unsafe { self.commit(first, 0, bytes, n) })
    }

    /// The bytes of block room a string of `n` bytes takes ([`copy_str`](Self::copy_str)):
    /// `n`, and 63 more for the padding of one of [`LIKE_FROM`] bytes or more.
    #[inline(always)]
    pub(crate) fn str_room(n: usize) -> usize {
        if n >= LIKE_FROM && n + 63 <= MAX_POOLED {
            n + 63
        } else {
            n
        }
    }

    /// Copies a string's `n` bytes from `src` into the current block (a new one if they do not
    /// fit, given `rest` bytes of input left) and gives their range; `takes::<u8>(n)` said yes.
    /// A string of [`LIKE_FROM`] bytes or more is placed so that its address agrees with
    /// `src`'s in the low 6 bits, with up to 63 bytes of padding: copying it back out to a
    /// buffer aligned as its input was then runs at full speed (a long `rep movsb` takes a
    /// fifth longer when source and destination disagree there).
    ///
    /// # Safety
    /// `src` is valid for reads of `n` bytes.
    #[inline(always)]
    pub(crate) unsafe fn copy_str(&mut self, src: *const u8, n: usize, rest: usize) -> Pooled<u8> {
        let room_bytes = Self::str_room(n);
        let bytes = range_bytes::<u8>(room_bytes);
        let room = self.room(bytes, rest);
        let pad = if room_bytes > n {
            (src as usize).wrapping_sub(room.as_ptr() as usize) % 64
        } else {
            0
        };
        // SAFETY: `pad + n <= bytes`, inside the room, not yet any range's; `src` the caller's.
        // The range then owns the `n` bytes it was given.
        unsafe {
            std::ptr::copy_nonoverlapping(src, room.as_ptr().add(pad), n);
            self.commit(room, pad, bytes, n)
        }
    }

    #[cold]
    #[inline(never)]
    fn open(&mut self, cap: usize) {
        let spare = SPARE.with(|s| {
            s.take(cap).or_else(|| {
                s.settle();
                s.take(cap)
            })
        });
        let h = match spare {
            Some(h) => h,
            None => {
                let l = layout(cap);
                // SAFETY: the layout has a non-zero size (a header at least).
                match NonNull::new(unsafe { alloc(l) }.cast::<Header>()) {
                    Some(h) => h,
                    None => handle_alloc_error(l),
                }
            }
        };
        // SAFETY: fresh memory for a header; the reader's reference is the block's first.
        unsafe {
            h.write(Header {
                refs: AtomicUsize::new(1),
                cap,
            })
        };
        if let Some(old) = self.cur.replace(h) {
            // SAFETY: the reader's reference to the block it filled.
            unsafe { release(old) };
        }
        self.filled += self.used;
        self.used = 0;
        self.cap = cap;
    }
}

impl Drop for Blocks {
    fn drop(&mut self) {
        if let Some(h) = self.cur {
            // SAFETY: the reader's reference to the block it filled.
            unsafe { release(h) };
        }
    }
}
