//! A small deterministic generator (xorshift64) for the tests and benches that want varied but
//! repeatable input: the same sequence on every run for the same seed.
#![allow(dead_code)]

/// xorshift64 state; any seed but 0.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number below `n` (`n > 0`; the small modulo bias does not matter here).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// `N` bytes, one from each of the next `N` numbers.
    pub fn bytes<const N: usize>(&mut self) -> [u8; N] {
        std::array::from_fn(|_| self.next() as u8)
    }
}
