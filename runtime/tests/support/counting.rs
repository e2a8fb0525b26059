//! A counting global allocator for the allocation-bound and leak tests (included with `#[path]`
//! by the tests of `runtime` and `def-tests`, each a test binary of its own with this as its
//! allocator).
//! It records the live bytes, their peak and the total ever allocated; [`measure`] reads them
//! around a decode, [`left`] what a piece of code leaves allocated.
// Each including test uses a part of this (the total, say, only in some).
#![allow(dead_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static TOTAL: AtomicUsize = AtomicUsize::new(0);
/// Calls to `alloc` (a `realloc` is one too: the default `GlobalAlloc::realloc` allocates anew).
static CALLS: AtomicUsize = AtomicUsize::new(0);
/// The counters are global: one measurement at a time.
static SERIAL: Mutex<()> = Mutex::new(());

thread_local! {
    /// The bytes this thread allocated less those it freed: what [`left`] reads, so that another
    /// thread freeing its own memory meanwhile (the test harness, after another test) does not
    /// count.
    static MINE: Cell<isize> = const { Cell::new(0) };
}

/// Adds `delta` to this thread's count (nothing while the thread is being torn down).
fn mine(delta: isize) {
    let _ = MINE.try_with(|c| c.set(c.get() + delta));
}

// SAFETY: forwards to the system allocator and only adds bookkeeping.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let now = LIVE.fetch_add(l.size(), Ordering::Relaxed) + l.size();
        PEAK.fetch_max(now, Ordering::Relaxed);
        TOTAL.fetch_add(l.size(), Ordering::Relaxed);
        CALLS.fetch_add(1, Ordering::Relaxed);
        mine(l.size() as isize);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
        mine(-(l.size() as isize));
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static A: Counting = Counting;

/// Held by every test for its whole run, so that no other test allocates while it measures.
pub fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// What `f` allocated.
pub struct Usage {
    /// The peak of live bytes above those live before `f`.
    pub peak: usize,
    /// All bytes allocated, freed or not.
    pub total: usize,
    /// Allocations made (a reallocation counts as one).
    pub allocs: usize,
}

/// Runs `f` (a decode that drops its result) and says what it allocated.
pub fn measure(f: impl FnOnce()) -> Usage {
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let total0 = TOTAL.load(Ordering::Relaxed);
    let calls0 = CALLS.load(Ordering::Relaxed);
    f();
    Usage {
        peak: PEAK.load(Ordering::Relaxed) - base,
        total: TOTAL.load(Ordering::Relaxed) - total0,
        allocs: CALLS.load(Ordering::Relaxed) - calls0,
    }
}

/// The bytes `f` leaves behind on this thread: what it allocated and did not free, less what it
/// freed of what was live before.
pub fn left(f: impl FnOnce()) -> isize {
    let before = MINE.with(Cell::get);
    f();
    MINE.with(Cell::get) - before
}

/// Bytes live in the whole process now.
pub fn live() -> usize {
    LIVE.load(Ordering::Relaxed)
}
