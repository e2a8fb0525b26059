//! A linear-time check for the scaling tests (included with `#[path]` by the tests of several
//! crates). Quadratic work in a parser shows as comparisons or scans that allocate nothing, so
//! it is timed: the best of a few runs at `n` and at `10 n`, whose ratio must stay under 15
//! (linear work gives about 10, quadratic about 100). Sizes are chosen so that the larger run
//! takes tens of milliseconds in a debug build; a ratio over the bound is measured again, up to
//! three times, before the test fails, so that a busy machine does not fail it.
#![allow(dead_code)]

use std::time::{Duration, Instant};

/// The best of three runs of `f`.
fn best(f: &mut dyn FnMut()) -> Duration {
    (0..3)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .expect("three runs")
}

/// The time of `run` at `10 n` over its time at `n` (best of three each).
pub fn ratio<T>(n: usize, make: &impl Fn(usize) -> T, run: &impl Fn(&T)) -> f64 {
    let (small, large) = (make(n), make(10 * n));
    let a = best(&mut || run(&small)).max(Duration::from_micros(200));
    let b = best(&mut || run(&large));
    b.as_secs_f64() / a.as_secs_f64()
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
    let mut last = (0.0, 0.0);
    for _ in 0..3 {
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
    let (small, large) = (make(n), make(10 * n));
    let mut ratio = 0.0;
    for _ in 0..3 {
        let a = best(&mut || run(&small)).max(Duration::from_micros(200));
        let b = best(&mut || run(&large));
        ratio = b.as_secs_f64() / a.as_secs_f64();
        eprintln!("{what}: n = {n}: {a:?}, 10 n: {b:?}, ratio {ratio:.1}");
        if ratio <= 15.0 {
            return;
        }
    }
    panic!("{what}: 10x the input took {ratio:.1}x the time (linear: about 10)");
}
