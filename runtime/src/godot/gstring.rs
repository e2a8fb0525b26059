//! [`GString`]: a Godot string, lossless for everything the engine's string decoder accepts.
//!
//! Godot 3.2.3 holds a string as 32-bit code points and its UTF-8 parser accepts some that a
//! Rust `str` cannot hold: UTF-16 surrogates (`ED A0 80`, so CESU-8 pairs too), code points
//! above U+10FFFF and the old 5- and 6-byte forms (up to `0x7FFF_FFFF`). It writes them back
//! with the same generalized UTF-8 (measured against the engine: `ED A0 80` and `FD BF BF BF BF
//! BF` come back unchanged; an accepted overlong form comes back shortest, as here). A
//! [`GString`] is therefore text (`str`) when the code points are Unicode scalar values, else the
//! generalized UTF-8 bytes, so that decode → encode gives the engine's bytes either way.
//! Godot 4 parses strictly: its strings are always text.

use std::borrow::Cow;
use std::fmt;

/// A Godot `String` / `StringName` / `PackedStringArray` element: text, or (Godot 3 only) code
/// points that are not Unicode scalar values (see the module docs).
///
/// Compares and hashes by its wire bytes. Build one from `&str` / `String`
/// (`"abc".into()`), or from code points with [`GString::from_code_points`].
#[doc(alias = "String")]
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct GString(Repr);

/// `Raw` only ever holds generalized UTF-8 that is not valid UTF-8 (so equal strings have the
/// same representation).
#[derive(Clone, PartialEq, Eq, Hash)]
enum Repr {
    Text(String),
    Raw(Box<[u8]>),
}

impl Default for Repr {
    fn default() -> Self {
        Repr::Text(String::new())
    }
}

/// Largest code point a Godot 3 string holds (a 6-byte form).
pub const MAX_CODE_POINT: u32 = 0x7FFF_FFFF;

impl GString {
    /// An empty string.
    pub fn new() -> GString {
        GString::default()
    }

    /// The text, or `None` when the string holds a code point that is not a Unicode scalar value.
    #[inline]
    pub fn as_str(&self) -> Option<&str> {
        match &self.0 {
            Repr::Text(s) => Some(s),
            Repr::Raw(_) => None,
        }
    }

    /// The text with every code point that is not a Unicode scalar value replaced by U+FFFD.
    pub fn to_string_lossy(&self) -> Cow<'_, str> {
        match &self.0 {
            Repr::Text(s) => Cow::Borrowed(s),
            Repr::Raw(_) => Cow::Owned(
                self.code_points()
                    .map(|c| char::from_u32(c).unwrap_or('\u{FFFD}'))
                    .collect(),
            ),
        }
    }

    /// The bytes the engine writes for this string: UTF-8, generalized to surrogates and to code
    /// points up to 0x7FFF_FFFF (5- and 6-byte forms).
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        match &self.0 {
            Repr::Text(s) => s.as_bytes(),
            Repr::Raw(b) => b,
        }
    }

    /// Byte length of [`GString::as_bytes`].
    #[inline]
    pub fn len(&self) -> usize {
        self.as_bytes().len()
    }

    /// Whether the string is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.as_bytes().is_empty()
    }

    /// Whether the string is text (every code point a Unicode scalar value).
    #[inline]
    pub fn is_text(&self) -> bool {
        matches!(self.0, Repr::Text(_))
    }

    /// The code points.
    pub fn code_points(&self) -> impl Iterator<Item = u32> + '_ {
        let b = self.as_bytes();
        let mut i = 0;
        std::iter::from_fn(move || {
            let (cp, len) = next_code_point(&b[i..])?;
            i += len;
            Some(cp)
        })
    }

    /// A string of these code points, or the first one above 0x7FFF_FFFF (which no
    /// Godot string can hold) as the error.
    pub fn from_code_points(points: impl IntoIterator<Item = u32>) -> Result<GString, u32> {
        let mut out = Vec::new();
        for cp in points {
            if cp > MAX_CODE_POINT {
                return Err(cp);
            }
            push_code_point(&mut out, cp);
        }
        Ok(GString::from_canonical(out))
    }

    /// Wraps canonical generalized UTF-8 (what [`push_code_point`] writes).
    pub(crate) fn from_canonical(bytes: Vec<u8>) -> GString {
        match String::from_utf8(bytes) {
            Ok(s) => GString(Repr::Text(s)),
            Err(e) => GString(Repr::Raw(e.into_bytes().into_boxed_slice())),
        }
    }
}

/// Appends `cp` (at most [`MAX_CODE_POINT`]) in the shortest generalized UTF-8 form.
pub(crate) fn push_code_point(out: &mut Vec<u8>, cp: u32) {
    let len = match cp {
        0..=0x7F => return out.push(cp as u8),
        0x80..=0x7FF => 2,
        0x800..=0xFFFF => 3,
        0x1_0000..=0x1F_FFFF => 4,
        0x20_0000..=0x3FF_FFFF => 5,
        _ => 6,
    };
    let lead_mark: u8 = [0, 0, 0xC0, 0xE0, 0xF0, 0xF8, 0xFC][len];
    out.push(lead_mark | (cp >> (6 * (len - 1))) as u8);
    for k in (0..len - 1).rev() {
        out.push(0x80 | ((cp >> (6 * k)) & 0x3F) as u8);
    }
}

/// The first code point of canonical generalized UTF-8 and its length.
fn next_code_point(b: &[u8]) -> Option<(u32, usize)> {
    let lead = *b.first()?;
    let len = match lead {
        0x00..=0x7F => return Some((u32::from(lead), 1)),
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        0xF8..=0xFB => 5,
        _ => 6,
    };
    let mut cp = u32::from(lead & (0x7F >> len));
    for &c in b.get(1..len)? {
        cp = (cp << 6) | u32::from(c & 0x3F);
    }
    Some((cp, len))
}

impl From<String> for GString {
    #[inline]
    fn from(s: String) -> GString {
        GString(Repr::Text(s))
    }
}

impl From<&str> for GString {
    fn from(s: &str) -> GString {
        GString(Repr::Text(s.to_owned()))
    }
}

impl PartialEq<str> for GString {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == Some(other)
    }
}

impl PartialEq<&str> for GString {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == Some(*other)
    }
}

impl fmt::Debug for GString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Repr::Text(s) => fmt::Debug::fmt(s, f),
            Repr::Raw(_) => f
                .debug_tuple("GString::from_code_points")
                .field(&self.code_points().collect::<Vec<_>>())
                .finish(),
        }
    }
}

/// The text; code points that are not Unicode scalar values show as U+FFFD.
impl fmt::Display for GString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_string_lossy())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_points_round_trip_in_the_engines_forms() {
        // Bytes the 3.2.3 engine writes for these code points (measured with var2bytes).
        let cases: [(u32, &[u8]); 6] = [
            (0xD800, &[0xED, 0xA0, 0x80]),
            (0x11_0000, &[0xF4, 0x90, 0x80, 0x80]),
            (0x20_0000, &[0xF8, 0x88, 0x80, 0x80, 0x80]),
            (0x400_0000, &[0xFC, 0x84, 0x80, 0x80, 0x80, 0x80]),
            (0x7FFF_FFFF, &[0xFD, 0xBF, 0xBF, 0xBF, 0xBF, 0xBF]),
            (0x7FF, &[0xDF, 0xBF]),
        ];
        for (cp, bytes) in cases {
            let s = GString::from_code_points([cp]).unwrap();
            assert_eq!(s.as_bytes(), bytes, "{cp:#x}");
            assert_eq!(s.code_points().collect::<Vec<_>>(), [cp]);
            assert_eq!(s.is_text(), char::from_u32(cp).is_some());
        }
        assert_eq!(GString::from_code_points([0x8000_0000]), Err(0x8000_0000));
        let text = GString::from_code_points("héllo ✓".chars().map(u32::from)).unwrap();
        assert_eq!(text, "héllo ✓");
        let mixed = GString::from_code_points([0x41, 0xD800, 0x42]).unwrap();
        assert_eq!(mixed.to_string_lossy(), "A\u{FFFD}B");
        assert_eq!(mixed.as_str(), None);
    }
}
