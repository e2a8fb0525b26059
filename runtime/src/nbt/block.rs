//! Blocks of compound entries shared by the compounds one read builds.
//!
//! The reader does not give every compound an allocation of its own: it moves each compound's
//! entries into the current block, a buffer of entries that grows by doubling from block to
//! block, and the compound keeps a [`Pooled`] range of it. A document of thousands of compounds
//! takes a dozen blocks instead of thousands of allocations (and as many frees when it drops).
//!
//! Each range is owned by exactly one compound, which reads and changes its entries in place.
//! A block counts the ranges still alive in it and is freed with the last one, so a compound
//! taken out of its tree stays valid on its own (and keeps its block's memory until it is
//! dropped or grown). An edit that changes a compound's length moves the range's
//! entries into a `Vec` of its own first ([`Pooled::into_vec`]).
//!
//! A freed block goes back to its thread's spare blocks (up to [`SPARE_MAX`] bytes a thread)
//! for the next read, instead of to the allocator: freed whole, blocks of a large document
//! would make the allocator give its memory back to the system and fault it in again on the
//! next read, which costs more than the allocations saved. The spare blocks go to the thread
//! that drops a block's last compound, and are freed when that thread exits: a thread that
//! only drops trees others read keeps up to [`SPARE_MAX`] that it does not use.
//!
//! While a reader fills a block it raises the block's count without an atomic operation:
//! nothing of the block can have reached another thread before the read returns, because a
//! read's blocks live in its `TreeBudget`, which never outlives the call that makes it.

use super::tag::Entry;
use std::alloc::{Layout, alloc, dealloc, handle_alloc_error};
use std::cell::Cell;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering, fence};

/// The start of a block; its entries follow at [`OFFSET`]. Aligned as strictly as any entry
/// (8 bytes, also where `usize` is 4).
#[repr(C, align(8))]
struct Header {
    /// Ranges alive in the block, plus one while the reader still fills it.
    refs: AtomicUsize,
    /// Entries the block has room for (its allocation's size).
    cap: usize,
}

/// Where the entries start in a block.
const OFFSET: usize = std::mem::size_of::<Header>();
const _: () = assert!(std::mem::align_of::<Entry>() <= std::mem::align_of::<Header>());
const _: () = assert!(OFFSET.is_multiple_of(std::mem::align_of::<Entry>()));
// `Pooled` is `Send` and `Sync` because the entries it owns are.
const _: fn() = || {
    fn is<T: Send + Sync>() {}
    is::<Entry>();
};

/// The first block's room, in entries. Every block's room is a power of two from `FIRST` to
/// [`MAX_POOLED`].
const FIRST: usize = 32;
/// The number of block sizes.
const CLASSES: usize = (MAX_POOLED.trailing_zeros() - FIRST.trailing_zeros()) as usize + 1;
/// The bytes of freed blocks a thread keeps for its next read.
const SPARE_MAX: usize = 4 << 20;
/// The compounds of a read that get vectors of their own before the rest go to blocks: a
/// block's fixed costs (taking it, counting its ranges atomically as they drop) are more than a
/// few small allocations.
const UNPOOLED: u8 = 8;
/// The fewest bytes an entry takes on the wire in any edition: type id, name length, and a
/// payload of one byte (a `TAG_Byte`, an empty compound's end).
const MIN_ENTRY: usize = 3;
/// The largest block's room (112 KiB of entries, under the size from which glibc maps an
/// allocation of its own); a longer compound gets a `Vec` of its own.
const MAX_POOLED: usize = 1 << 11;

fn layout(cap: usize) -> Layout {
    // `cap <= MAX_POOLED`, so the size cannot overflow.
    Layout::from_size_align(
        OFFSET + cap * std::mem::size_of::<Entry>(),
        std::mem::align_of::<Header>(),
    )
    .expect("a block of at most MAX_POOLED entries has a valid layout")
}

/// Freed blocks kept for the thread's next read: a list per size, linked through the first
/// bytes of each block's (unused) entries.
struct Spare {
    heads: Cell<[Option<NonNull<Header>>; CLASSES]>,
    bytes: Cell<usize>,
}

thread_local! {
    static SPARE: Spare = const {
        Spare {
            heads: Cell::new([None; CLASSES]),
            bytes: Cell::new(0),
        }
    };
}

fn class(cap: usize) -> usize {
    (cap.trailing_zeros() - FIRST.trailing_zeros()) as usize
}

/// The link to the next spare block, where the block's entries would be.
fn next_of(h: NonNull<Header>) -> *mut Option<NonNull<Header>> {
    // SAFETY: a block has room for at least `FIRST` entries after its header.
    unsafe { h.cast::<u8>().add(OFFSET).cast().as_ptr() }
}

impl Spare {
    /// Keeps the block `h` (no references, no entries) if there is room; gives it back if not.
    fn put(&self, h: NonNull<Header>) -> Option<NonNull<Header>> {
        // SAFETY: the block is the caller's alone.
        let cap = unsafe { h.as_ref() }.cap;
        let size = layout(cap).size();
        if self.bytes.get() + size > SPARE_MAX {
            return Some(h);
        }
        let mut heads = self.heads.get();
        let k = class(cap);
        // SAFETY: as above; the link is written where entries would be.
        unsafe { next_of(h).write(heads[k]) };
        heads[k] = Some(h);
        self.heads.set(heads);
        self.bytes.set(self.bytes.get() + size);
        None
    }

    /// A kept block of room `cap`, if there is one.
    fn take(&self, cap: usize) -> Option<NonNull<Header>> {
        let mut heads = self.heads.get();
        let k = class(cap);
        let h = heads[k]?;
        // SAFETY: a kept block is this list's alone, its link written by `put`.
        heads[k] = unsafe { next_of(h).read() };
        self.heads.set(heads);
        self.bytes.set(self.bytes.get() - layout(cap).size());
        Some(h)
    }
}

impl Drop for Spare {
    fn drop(&mut self) {
        for k in 0..CLASSES {
            while let Some(h) = self.take(FIRST << k) {
                // SAFETY: a kept block, allocated with its room's layout.
                unsafe { dealloc(h.as_ptr().cast(), layout(FIRST << k)) };
            }
        }
    }
}

/// Drops one reference to the block; the last one frees it (to the thread's spare blocks if
/// they have room).
///
/// # Safety
/// `h` is a live block and the caller owns one of its references.
unsafe fn release(h: NonNull<Header>) {
    // SAFETY: the caller's reference keeps the block alive until the decrement.
    if unsafe { h.as_ref() }.refs.fetch_sub(1, Ordering::Release) == 1 {
        // Every other owner's writes to the block happen before it is reused or freed.
        fence(Ordering::Acquire);
        // A thread that is exiting has no spare blocks any more.
        let left = SPARE.try_with(|s| s.put(h)).unwrap_or(Some(h));
        if let Some(h) = left {
            // SAFETY: no reference is left; the entries were dropped or moved out by their
            // ranges.
            unsafe {
                let cap = h.as_ref().cap;
                dealloc(h.as_ptr().cast(), layout(cap));
            }
        }
    }
}

/// A compound's entries in a block: `len` entries from index `start` of the block.
pub(crate) struct Pooled {
    /// The first entry.
    ptr: NonNull<Entry>,
    /// Index of the first entry in its block (to find the block's header).
    start: u32,
    len: u32,
}

// SAFETY: a `Pooled` owns its entries alone (no other range overlaps them), like a `Vec`, and
// touches the block it shares with other ranges only through the atomic reference count.
unsafe impl Send for Pooled {}
// SAFETY: as above; `&Pooled` gives only `&[Entry]`.
unsafe impl Sync for Pooled {}

impl Pooled {
    fn header(&self) -> NonNull<Header> {
        // SAFETY: `ptr` is entry `start` of a block whose header is `OFFSET` bytes before its
        // entry 0.
        unsafe {
            self.ptr
                .sub(self.start as usize)
                .cast::<u8>()
                .sub(OFFSET)
                .cast()
        }
    }

    #[inline(always)]
    pub(crate) fn as_slice(&self) -> &[Entry] {
        // SAFETY: the range's `len` entries are initialised and owned by `self`.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len as usize) }
    }

    #[inline(always)]
    pub(crate) fn as_mut_slice(&mut self) -> &mut [Entry] {
        // SAFETY: as above, and `&mut self` is the only way to the range.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len as usize) }
    }

    /// Moves the entries into a `Vec` of their own and gives the range back to its block.
    pub(crate) fn into_vec(self) -> Vec<Entry> {
        let me = std::mem::ManuallyDrop::new(self);
        let len = me.len as usize;
        let mut v = Vec::with_capacity(len);
        // SAFETY: the entries are moved bitwise into `v`, which has room for them; `me` is
        // never dropped, so each entry is owned once, by `v`. The range's reference is given up.
        unsafe {
            std::ptr::copy_nonoverlapping(me.ptr.as_ptr(), v.as_mut_ptr(), len);
            v.set_len(len);
            release(me.header());
        }
        v
    }
}

impl Drop for Pooled {
    fn drop(&mut self) {
        // SAFETY: the range's entries are dropped once, here, and its reference given up.
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
    /// Entries used in `cur`.
    used: usize,
    /// Room of `cur`.
    cap: usize,
    /// Compounds still to be given vectors of their own before blocks are used.
    unpooled: u8,
}

impl Blocks {
    pub(crate) fn new() -> Blocks {
        Blocks {
            cur: None,
            used: 0,
            cap: 0,
            unpooled: UNPOOLED,
        }
    }

    /// Whether a compound of `len` entries goes to a block: not the first [`UNPOOLED`] of a read
    /// (a document of a few compounds is read faster without a block), nor one longer than
    /// [`MAX_POOLED`].
    #[inline(always)]
    pub(crate) fn takes(&mut self, len: usize) -> bool {
        if len > MAX_POOLED {
            return false;
        }
        if self.unpooled > 0 {
            self.unpooled -= 1;
            return false;
        }
        true
    }

    /// The bytes a new block would take if `len` entries were stored now (`None` when they
    /// fit in the current one), with `rest` bytes of input left to read. `len` is at most
    /// [`MAX_POOLED`].
    #[inline]
    pub(crate) fn new_block_bytes(&self, len: usize, rest: usize) -> Option<usize> {
        (self.cap - self.used < len).then(|| layout(self.next_cap(len, rest)).size())
    }

    /// Twice the last block's room, but no more than what the rest of the input can fill (an
    /// entry takes at least [`MIN_ENTRY`] bytes), so that the last block is not mostly empty;
    /// a power of two.
    fn next_cap(&self, len: usize, rest: usize) -> usize {
        let fill = len.saturating_add(rest / MIN_ENTRY).min(MAX_POOLED);
        (2 * self.cap)
            .clamp(FIRST, MAX_POOLED)
            .min(fill.next_power_of_two().max(FIRST))
            .max(len.next_power_of_two())
    }

    /// Moves the entries of `v` from `start` on into the current block (a new one if they do
    /// not fit, given `rest` bytes of input left) and gives their range. `v.len() - start` is
    /// 1 to [`MAX_POOLED`].
    #[inline]
    pub(crate) fn store(&mut self, v: &mut Vec<Entry>, start: usize, rest: usize) -> Pooled {
        let len = v.len() - start;
        debug_assert!((1..=MAX_POOLED).contains(&len));
        if self.cap - self.used < len {
            self.open(self.next_cap(len, rest));
        }
        let h = self.cur.expect("a block with room was opened above");
        // SAFETY: the block has room for `len` entries from `used`; they are moved bitwise from
        // `v`, which forgets them by shrinking to `start`. The count of the block is changed
        // only by this reader while it fills the block (no range of it has left the tree being
        // built), so a plain load and store suffice.
        unsafe {
            let first = h.cast::<u8>().add(OFFSET).cast::<Entry>().add(self.used);
            std::ptr::copy_nonoverlapping(v.as_ptr().add(start), first.as_ptr(), len);
            v.set_len(start);
            let refs = &h.as_ref().refs;
            refs.store(refs.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
            let p = Pooled {
                ptr: first,
                start: self.used as u32,
                len: len as u32,
            };
            self.used += len;
            p
        }
    }

    #[cold]
    #[inline(never)]
    fn open(&mut self, cap: usize) {
        let spare = SPARE.try_with(|s| s.take(cap)).ok().flatten();
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
