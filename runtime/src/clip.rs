//! Text from the input in a message (a name, key, path or value): shown by the workspace's one
//! rule, `def_text` (hidden characters escaped, long text cut with its length), so that a 10 MB
//! field name or an NBT key holding terminal escapes gives a short, inert message.

use core::fmt;

#[cfg_attr(
    not(any(feature = "dynamic", feature = "godot", feature = "nbt")),
    allow(unused_imports)
)]
pub(crate) use def_text::{NAME, PATH, TEXT};

/// Displays `.0` by the rule of `def_text::shown`, cut after `.1` bytes of shown text.
pub(crate) struct Clip<'a>(pub &'a str, pub usize);

impl fmt::Display for Clip<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&def_text::shown(self.0, self.1), f)
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
        assert_eq!(
            Clip("a\u{1b}]0;t\u{7}", NAME).to_string(),
            "a\\u{1b}]0;t\\u{7}"
        );
    }
}
