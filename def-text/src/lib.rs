//! The one rule by which the workspace shows text that came from its input (a `.def` field name,
//! an opcode map line, a `deprecated.json` value, a packet string, an NBT key or string, a Godot
//! string) wherever it leaves: a terminal, a log, an error message, an SVG picture, a comment in
//! generated code.
//!
//! * Every [hidden](is_hidden) character — control characters (C0, DEL, C1), Unicode format
//!   characters (general category Cf: bidirectional overrides and isolates, zero-width
//!   characters, the byte-order mark, tag characters, …), the line and paragraph separators, the
//!   noncharacters (U+FDD0–U+FDEF and the last two code points of every plane) — is
//!   written as a visible escape in Rust's form, `\u{1b}`, `\u{202e}`. Input therefore cannot
//!   move the cursor, clear or retitle a terminal, reorder the text around it or hide part of
//!   itself.
//! * Text whose shown form is longer than a limit is cut at a character and followed by `…` and
//!   the input's length in bytes: `abc…(1000000 bytes)`. Every limit bounds the *shown* text,
//!   escapes included, so a message never grows with its input.
//! * In XML ([`xml`]), `& < > " '` are written as entity references too; with the escapes above,
//!   what is written is well-formed character data and attribute text (XML 1.0 allows no C0
//!   control other than tab, line feed and carriage return, and neither U+FFFE nor U+FFFF, not
//!   even as a reference).
//!
//! Backslashes are written as they are: a path or a name holding `\u{1b}` literally reads the
//! same as the escape, which costs nothing in a message and keeps Windows paths readable.
//!
//! ```
//! use def_text::{shown, escaped, xml};
//! assert_eq!(escaped("a\u{1b}[2Jb").to_string(), "a\\u{1b}[2Jb");
//! assert_eq!(escaped("x\u{202e}y").to_string(), "x\\u{202e}y");
//! assert_eq!(shown("abcdef", 3).to_string(), "abc…(6 bytes)");
//! assert_eq!(xml("<a&b>", usize::MAX).to_string(), "&lt;a&amp;b&gt;");
//! ```
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

use core::fmt::{self, Write as _};

/// Longest name or key shown whole, in bytes of shown text.
pub const NAME: usize = 96;

/// Longest message part (a value, a line of input, a message quoting one) shown whole, in bytes
/// of shown text.
pub const TEXT: usize = 256;

/// Longest path of several names shown whole, in bytes of shown text.
pub const PATH: usize = 256;

/// Whether `c` is written as an escape: a control character (`char::is_control`: U+0000–U+001F,
/// U+007F–U+009F), a format character (Unicode general category Cf, Unicode 16), the line
/// separator U+2028, the paragraph separator U+2029, or a noncharacter (U+FDD0–U+FDEF, and
/// U+xFFFE and U+xFFFF of every plane: never text, and U+FFFE and U+FFFF are not XML).
pub fn is_hidden(c: char) -> bool {
    c.is_control()
        || is_format(c)
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{fdd0}'..='\u{fdef}')
        || (c as u32) & 0xFFFE == 0xFFFE
}

/// Unicode 16's general category Cf (format characters), as ranges.
const FORMAT: &[(u32, u32)] = &[
    (0x00AD, 0x00AD),
    (0x0600, 0x0605),
    (0x061C, 0x061C),
    (0x06DD, 0x06DD),
    (0x070F, 0x070F),
    (0x0890, 0x0891),
    (0x08E2, 0x08E2),
    (0x180E, 0x180E),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x2064),
    (0x2066, 0x206F),
    (0xFEFF, 0xFEFF),
    (0xFFF9, 0xFFFB),
    (0x110BD, 0x110BD),
    (0x110CD, 0x110CD),
    (0x13430, 0x1343F),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0001, 0xE0001),
    (0xE0020, 0xE007F),
];

fn is_format(c: char) -> bool {
    let c = c as u32;
    if c < 0xAD {
        return false;
    }
    let i = FORMAT.partition_point(|&(_, hi)| hi < c);
    FORMAT.get(i).is_some_and(|&(lo, _)| lo <= c)
}

/// What one character of input is shown as.
enum Piece {
    Plain(char),
    Escape(u32),
    Entity(&'static str),
}

impl Piece {
    fn of(c: char, xml: bool) -> Piece {
        if is_hidden(c) {
            return Piece::Escape(c as u32);
        }
        if xml {
            match c {
                '&' => return Piece::Entity("&amp;"),
                '<' => return Piece::Entity("&lt;"),
                '>' => return Piece::Entity("&gt;"),
                '"' => return Piece::Entity("&quot;"),
                '\'' => return Piece::Entity("&apos;"),
                _ => {}
            }
        }
        Piece::Plain(c)
    }

    /// Length in bytes of the shown form.
    fn len(&self) -> usize {
        match *self {
            Piece::Plain(c) => c.len_utf8(),
            // `\u{` + hex digits + `}`
            Piece::Escape(n) => 4 + (32 - (n | 1).leading_zeros() as usize).div_ceil(4),
            Piece::Entity(e) => e.len(),
        }
    }

    fn write(&self, w: &mut dyn fmt::Write) -> fmt::Result {
        match *self {
            Piece::Plain(c) => w.write_char(c),
            Piece::Escape(n) => write!(w, "\\u{{{n:x}}}"),
            Piece::Entity(e) => w.write_str(e),
        }
    }
}

/// Text from the input as it is shown: made by [`shown`], [`escaped`] or [`xml`], written by its
/// `Display` (which honours a width and alignment, `{:<20}`, counting shown characters).
#[derive(Clone, Copy, Debug)]
pub struct Shown<'a> {
    text: &'a str,
    max: usize,
    xml: bool,
}

/// `text` shown by the rule: hidden characters escaped, and cut after at most `max` bytes of
/// shown text, followed by `…(N bytes)` (N the length of `text`), when its shown form is longer.
pub fn shown(text: &str, max: usize) -> Shown<'_> {
    Shown {
        text,
        max,
        xml: false,
    }
}

/// `text` with hidden characters escaped, never cut: for text that is bounded already (a value of
/// a packet of at most 64 KiB) and must be shown whole.
pub fn escaped(text: &str) -> Shown<'_> {
    shown(text, usize::MAX)
}

/// `text` for XML character data or an attribute value: escaped as [`shown`] does, `& < > " '`
/// written as entity references, cut after `max` bytes of shown text.
pub fn xml(text: &str, max: usize) -> Shown<'_> {
    Shown {
        text,
        max,
        xml: true,
    }
}

/// Counts what is written, in bytes and characters.
struct Count {
    bytes: usize,
    chars: usize,
}

impl fmt::Write for Count {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.bytes += s.len();
        self.chars += s.chars().count();
        Ok(())
    }
}

impl Shown<'_> {
    /// Whether the shown form is cut (its length goes past the limit). Stops counting at the
    /// limit, so it costs at most the limit's worth of input.
    fn cut(&self) -> bool {
        if self.max == usize::MAX
            || self.text.len() <= self.max
                && !self
                    .text
                    .chars()
                    .any(|c| is_hidden(c) || self.xml && matches!(c, '&' | '<' | '>' | '"' | '\''))
        {
            return false;
        }
        let mut n = 0usize;
        for c in self.text.chars() {
            n += Piece::of(c, self.xml).len();
            if n > self.max {
                return true;
            }
        }
        false
    }

    fn write_all(&self, w: &mut dyn fmt::Write) -> fmt::Result {
        if !self.cut() {
            let mut plain = 0;
            for (i, c) in self.text.char_indices() {
                let p = Piece::of(c, self.xml);
                if !matches!(p, Piece::Plain(_)) {
                    w.write_str(&self.text[plain..i])?;
                    p.write(w)?;
                    plain = i + c.len_utf8();
                }
            }
            return w.write_str(&self.text[plain..]);
        }
        let mut n = 0usize;
        for c in self.text.chars() {
            let p = Piece::of(c, self.xml);
            n += p.len();
            if n > self.max {
                break;
            }
            p.write(w)?;
        }
        write!(w, "…({} bytes)", self.text.len())
    }
}

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(width) = f.width() else {
            return self.write_all(f);
        };
        let mut count = Count { bytes: 0, chars: 0 };
        self.write_all(&mut count)?;
        let fill = width.saturating_sub(count.chars);
        let (before, after) = match f.align() {
            Some(fmt::Alignment::Right) => (fill, 0),
            Some(fmt::Alignment::Center) => (fill / 2, fill - fill / 2),
            _ => (0, fill),
        };
        let pad = f.fill();
        for _ in 0..before {
            f.write_char(pad)?;
        }
        self.write_all(f)?;
        for _ in 0..after {
            f.write_char(pad)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::format;
    use std::string::ToString;

    #[test]
    fn every_control_and_format_character_is_escaped() {
        for c in [
            '\0', '\t', '\n', '\r', '\u{1b}', '\u{7f}', '\u{80}', '\u{9b}', '\u{9f}',
        ] {
            assert!(is_hidden(c), "{c:?}");
        }
        for c in [
            '\u{ad}',
            '\u{61c}',
            '\u{200b}',
            '\u{200e}',
            '\u{200f}',
            '\u{202a}',
            '\u{202e}',
            '\u{2066}',
            '\u{2069}',
            '\u{2028}',
            '\u{2029}',
            '\u{feff}',
            '\u{e0001}',
            '\u{e007f}',
            '\u{fdd0}',
            '\u{fdef}',
            '\u{fffe}',
            '\u{ffff}',
            '\u{1fffe}',
            '\u{10ffff}',
        ] {
            assert!(is_hidden(c), "{c:?}");
        }
        for c in [
            'a',
            ' ',
            '~',
            '\u{a0}',
            'é',
            '\u{2010}',
            '\u{2070}',
            '☃',
            '\u{1f600}',
            '\u{fffd}',
        ] {
            assert!(!is_hidden(c), "{c:?}");
        }
        assert_eq!(
            escaped("a\u{1b}[2J\u{1b}]0;title\u{7}b").to_string(),
            "a\\u{1b}[2J\\u{1b}]0;title\\u{7}b"
        );
        assert_eq!(
            escaped("\u{0}\u{9b}\u{e007f}").to_string(),
            "\\u{0}\\u{9b}\\u{e007f}"
        );
    }

    #[test]
    fn the_format_table_is_sorted_and_disjoint() {
        for w in FORMAT.windows(2) {
            assert!(w[0].0 <= w[0].1 && w[0].1 < w[1].0, "{w:?}");
        }
    }

    #[test]
    fn the_escape_lengths_are_what_is_written() {
        for c in [
            '\0',
            '\u{f}',
            '\u{10}',
            '\u{9b}',
            '\u{200b}',
            '\u{feff}',
            '\u{110bd}',
            '\u{e0020}',
        ] {
            let p = Piece::of(c, false);
            let mut s = std::string::String::new();
            p.write(&mut s).unwrap();
            assert_eq!(s.len(), p.len(), "{s}");
        }
    }

    #[test]
    fn long_text_is_cut_with_its_length() {
        assert_eq!(shown("abc", 3).to_string(), "abc");
        assert_eq!(shown("abcd", 3).to_string(), "abc…(4 bytes)");
        assert_eq!(shown("aé", 2).to_string(), "a…(3 bytes)");
        // The limit counts the escapes: a megabyte of ESC shows a few of them.
        let esc = "\u{1b}".repeat(1_000_000);
        let s = shown(&esc, 20).to_string();
        assert_eq!(s, format!("{}…(1000000 bytes)", "\\u{1b}".repeat(3)));
        // Exactly at the limit, escapes included: whole.
        assert_eq!(shown("\u{1b}", 6).to_string(), "\\u{1b}");
        assert_eq!(shown("\u{1b}", 5).to_string(), "…(1 bytes)");
    }

    #[test]
    fn xml_escapes_markup_and_hidden_characters() {
        assert_eq!(
            xml("<a href=\"x\">&'\u{1}", usize::MAX).to_string(),
            "&lt;a href=&quot;x&quot;&gt;&amp;&apos;\\u{1}"
        );
        assert_eq!(xml("&&&", 10).to_string(), "&amp;&amp;…(3 bytes)");
        // Not XML characters at all (the text_output fuzz target found U+FFFF).
        assert_eq!(
            xml("y\u{fffe}\u{ffff}z", usize::MAX).to_string(),
            "y\\u{fffe}\\u{ffff}z"
        );
    }

    #[test]
    fn width_counts_shown_characters() {
        assert_eq!(format!("[{:<8}]", escaped("a\u{1b}")), "[a\\u{1b} ]");
        assert_eq!(format!("[{:>4}]", escaped("ab")), "[  ab]");
    }
}
