//! A linear-time check for the scaling tests (included with `#[path]` by the tests of several
//! crates). Quadratic work in a parser shows as comparisons or scans that allocate nothing, so
//! it is timed: the best of a few runs at `n` and at `10 n`, whose ratio must stay under 15
//! (linear work gives about 10, quadratic about 100). Sizes are chosen so that the larger run
//! takes tens of milliseconds in a debug build; a ratio over the bound is measured again, up to
//! five times in all, before the test fails, so that a busy machine does not fail it (linear
//! work measured 9–15 on a shared 2-core VM, quadratic 30–120).
#![allow(dead_code)]

use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Held while timing: the tests of one binary run on parallel threads, and two timed at once on
/// a 2-core machine disturb each other.
static TIMING: Mutex<()> = Mutex::new(());

/// Measurements of a ratio over its bound before a test fails (a busy machine gives a few).
const TRIES: usize = 5;

fn timing() -> MutexGuard<'static, ()> {
    TIMING.lock().unwrap_or_else(|e| e.into_inner())
}

/// The time of `run` at `10 n` over its time at `n`: the best of three runs each, taken in
/// turn (small, large, small, ...) so that a burst of load on the machine hits both.
pub fn ratio<T>(n: usize, make: &impl Fn(usize) -> T, run: &impl Fn(&T)) -> f64 {
    let (small, large) = (make(n), make(10 * n));
    let time = |input: &T| {
        let t = Instant::now();
        run(input);
        t.elapsed()
    };
    let (mut a, mut b) = (Duration::MAX, Duration::MAX);
    for _ in 0..3 {
        a = a.min(time(&small));
        b = b.min(time(&large));
    }
    b.as_secs_f64() / a.max(Duration::from_micros(200)).as_secs_f64()
}

/// Asserts that `run` scales like `base`, a linear operation on data of the same shape and
/// size: the ratio of `run` may exceed 15 only as far as the baseline's does (up to five times
/// it). Caches make the larger input cost more per byte than the smaller one, for both alike,
/// though not equally (a hash index suffers more than a list: 25 against 7 was seen for
/// Godot Color keys on a busy 2-core VM); quadratic work gave 110 against 8 (the old Color key
/// hash). A coarse guard: what it guards is also checked exactly where that can be counted.
pub fn assert_linear_like<T, B>(
    what: &str,
    n: usize,
    make: impl Fn(usize) -> T,
    run: impl Fn(&T),
    make_base: impl Fn(usize) -> B,
    base: impl Fn(&B),
) {
    let _t = timing();
    let mut last = (0.0, 0.0);
    for _ in 0..TRIES {
        let r = ratio(n, &make, &run);
        let b = ratio(n, &make_base, &base);
        eprintln!("{what}: n = {n}: ratio {r:.1}, baseline {b:.1}");
        if r <= 15.0 || r <= 5.0 * b {
            return;
        }
        last = (r, b);
    }
    panic!(
        "{what}: 10x the input took {:.1}x the time, the linear baseline {:.1}x",
        last.0, last.1
    );
}

/// Asserts that `run(10 n)` takes at most 15 times as long as `run(n)`. `make(n)` builds the
/// input (not timed), `run` consumes a reference to it.
pub fn assert_linear<T>(what: &str, n: usize, make: impl Fn(usize) -> T, run: impl Fn(&T)) {
    let _t = timing();
    let mut r = 0.0;
    for _ in 0..TRIES {
        r = ratio(n, &make, &run);
        eprintln!("{what}: n = {n}: ratio {r:.1}");
        if r <= 15.0 {
            return;
        }
    }
    panic!("{what}: 10x the input took {r:.1}x the time (linear: about 10)");
}
