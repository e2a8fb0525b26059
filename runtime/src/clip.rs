//! Shortening text from the input before it goes into an error message: a name, key or path
//! of megabytes (a 10 MB field name, a 1 MB SNBT key) is shown by its start and its length.

use core::fmt;

/// Longest name or key shown whole in a message, in bytes.
pub(crate) const NAME: usize = 96;

/// Longest message part (a JSON value, a message quoting one) shown whole, in bytes. Only the
/// dynamic, Godot and NBT codecs quote such text.
#[cfg_attr(
    not(any(feature = "dynamic", feature = "godot", feature = "nbt")),
    allow(dead_code)
)]
pub(crate) const TEXT: usize = 256;

/// Longest path of several names shown whole, in bytes.
pub(crate) const PATH: usize = 256;

/// Displays `.0` whole if it has at most `.1` bytes, else its first `.1` bytes (cut at a
/// character boundary) and `…(N bytes)`.
pub(crate) struct Clip<'a>(pub &'a str, pub usize);

impl fmt::Display for Clip<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Clip(s, max) = *self;
        if s.len() <= max {
            return f.write_str(s);
        }
        let mut end = max;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        write!(f, "{}…({} bytes)", &s[..end], s.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    #[test]
    fn short_text_is_whole_long_text_is_cut_at_a_character() {
        assert_eq!(Clip("abc", 3).to_string(), "abc");
        assert_eq!(Clip("abcd", 3).to_string(), "abc…(4 bytes)");
        assert_eq!(Clip("aé", 2).to_string(), "a…(3 bytes)");
    }
}
