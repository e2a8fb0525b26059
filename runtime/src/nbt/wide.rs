//! Loops compiled twice: for AVX2 where the CPU has it, for the baseline target otherwise.
//!
//! The baseline x86-64 target only has SSE2, so the compiler vectorises a loop 16 bytes at a
//! time, and byte-swapping takes about eight shuffles per 16 bytes. The same loop compiled with
//! AVX2 works on 32 bytes and swaps them with one `vpshufb`. Java's arrays are big-endian (every
//! element of a chunk's block states is swapped on read and write) and its files are mostly ASCII
//! strings, so the array conversions and the ASCII check run through [`wide!`]: one source, two
//! builds, chosen at run time by std's feature check (cached after the first call). The two
//! cannot differ in what they compute; a unit test of the arrays runs both anyway.

/// Whether the AVX2 build of a loop may run: the CPU has AVX2, and (in unit tests) the thread
/// did not ask for the baseline build with [`BASELINE`].
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn has_avx2() -> bool {
    #[cfg(test)]
    if BASELINE.with(|b| b.get()) {
        return false;
    }
    std::is_x86_feature_detected!("avx2")
}

#[cfg(test)]
thread_local! {
    /// Set to run the baseline build of every loop on this thread even where the CPU has AVX2.
    pub(crate) static BASELINE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// `wide!(from MIN, LEN; fn name(arg: Type, ...) -> Ret { body })` defines the loop as an
/// inline function, builds it a second time with AVX2 enabled, and calls it with the variables
/// of the same names: the AVX2 build when `LEN >= MIN` and [`has_avx2`] allows it, the inline
/// one otherwise (for short inputs the call costs more than the wider vectors give).
macro_rules! wide {
    (from $min:expr, $len:expr; fn $f:ident($($a:ident: $t:ty),*) $(-> $r:ty)? $body:block) => {{
        #[inline(always)]
        fn $f($($a: $t),*) $(-> $r)? $body
        #[cfg(target_arch = "x86_64")]
        {
            #[target_feature(enable = "avx2")]
            fn avx2($($a: $t),*) $(-> $r)? {
                $f($($a),*)
            }
            if $len >= $min && $crate::nbt::wide::has_avx2() {
                // SAFETY: the CPU has AVX2, which is all `avx2` requires of it.
                unsafe { avx2($($a),*) }
            } else {
                $f($($a),*)
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = ($len, $min);
            $f($($a),*)
        }
    }};
}
