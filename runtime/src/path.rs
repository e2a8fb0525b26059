//! Where in a value an error happened: one path type for the errors of every format (a TERA
//! packet's fields, a Godot Variant's containers, an NBT tree), with one text form.
//!
//! The text form, root first: names joined by `.` (`servants[3].name`, `Level.Sections[3]`),
//! indices in brackets; a name that is empty or holds any of `. [ ] " \` or white space is
//! written in double quotes with `"` and `\` escaped (`Data."a.b"[2]`), so an NBT error's path
//! pastes into [`Tag::get_path`](crate::nbt::Tag::get_path). Godot's dictionary steps read
//! `["key"]` (the entry whose key is shown) and `{key 2}` (the key of entry 2 itself), parts of
//! a value with a fixed role `<class name>`. The root (an empty path) reads `(root)`. Names and
//! keys from the input are shown by the workspace's one rule for untrusted text, and a path
//! deeper than 16 steps shows its first and last six.

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use crate::clip::{self, Clip};

/// One step of a [`ValuePath`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PathSegment {
    /// A named member: a TERA field, an NBT compound key, a Godot object property (`.name`).
    Field(Cow<'static, str>),
    /// An element of an array or list (`[3]`).
    Index(usize),
    /// Godot: the value of the dictionary entry whose key is shown (`["key"]`, `[7]`).
    Key(String),
    /// Godot: the key of dictionary entry `i` itself (`{key 2}`).
    KeyAt(usize),
    /// Godot: a part of a value with a fixed role (`<class name>`, `<element type>`).
    Part(&'static str),
}

/// A path from the top-level value down to the place of an error (module docs: the text form).
///
/// Built while the error travels outwards, so the happy path pays nothing for it: each step
/// is added in constant time.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct ValuePath {
    /// Innermost first.
    rev: Vec<PathSegment>,
}

impl ValuePath {
    /// The steps, from the root down.
    pub fn segments(&self) -> impl DoubleEndedIterator<Item = &PathSegment> + ExactSizeIterator {
        self.rev.iter().rev()
    }

    /// Whether this is the root (the value as a whole).
    pub fn is_empty(&self) -> bool {
        self.rev.is_empty()
    }

    /// A path from its steps, root first.
    #[cfg_attr(not(feature = "nbt"), allow(dead_code))]
    pub(crate) fn from_root_first(mut segments: Vec<PathSegment>) -> ValuePath {
        segments.reverse();
        ValuePath { rev: segments }
    }

    /// Adds the step that contains everything so far (called as an error travels outwards).
    #[cold]
    pub(crate) fn push_outer(&mut self, segment: PathSegment) {
        self.rev.push(segment);
    }
}

/// Whether `c` may stand unquoted in a name of the text form.
pub(crate) fn plain_char(c: char) -> bool {
    !matches!(c, '.' | '[' | ']' | '"' | '\\') && !c.is_whitespace() && !c.is_control()
}

/// Whether a name must be quoted in the text form.
pub(crate) fn needs_quotes(name: &str) -> bool {
    name.is_empty() || !name.chars().all(plain_char)
}

/// `name` quoted as the text form wants (`"` and `\` escaped).
pub(crate) fn quote(name: &str) -> String {
    let mut s = String::with_capacity(name.len() + 2);
    s.push('"');
    for c in name.chars() {
        if matches!(c, '"' | '\\') {
            s.push('\\');
        }
        s.push(c);
    }
    s.push('"');
    s
}

/// Writes one step in the text form; `first`: whether it is the path's first step. Names and
/// keys are shown by the rule for untrusted text when `shown` (messages), written whole when
/// not (tools that keep the path as data).
fn write_step(
    out: &mut impl fmt::Write,
    first: bool,
    segment: &PathSegment,
    shown: bool,
) -> fmt::Result {
    let text = |out: &mut dyn fmt::Write, t: &str| {
        if shown {
            write!(out, "{}", Clip(t, clip::NAME))
        } else {
            out.write_str(t)
        }
    };
    match segment {
        PathSegment::Field(name) => {
            if !first {
                out.write_str(".")?;
            }
            if needs_quotes(name) {
                text(out, &quote(name))
            } else {
                text(out, name)
            }
        }
        PathSegment::Index(i) => write!(out, "[{i}]"),
        PathSegment::Key(k) => {
            out.write_str("[")?;
            text(out, k)?;
            out.write_str("]")
        }
        PathSegment::KeyAt(i) => write!(out, "{{key {i}}}"),
        PathSegment::Part(p) => write!(out, "<{p}>"),
    }
}

/// Appends one step in the text form, whole (no clipping, hidden characters as they are): for
/// tools that keep the path as data. `first`: whether it is the path's first step.
#[cfg_attr(not(feature = "dynamic"), allow(dead_code))]
pub(crate) fn push_text(s: &mut String, first: bool, segment: &PathSegment) {
    // Writing to a String cannot fail.
    let _ = write_step(s, first, segment, false);
}

impl fmt::Display for ValuePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.rev.is_empty() {
            return f.write_str("(root)");
        }
        // Hostile input nests a thousand levels: show the ends of a long path.
        let n = self.rev.len();
        for (i, s) in self.segments().enumerate() {
            if n > 16 && (6..n - 6).contains(&i) {
                if i == 6 {
                    write!(f, "…({} levels)…", n - 12)?;
                }
                continue;
            }
            write_step(f, i == 0, s, true)?;
        }
        Ok(())
    }
}

impl fmt::Debug for ValuePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ValuePath({self})")
    }
}

/// Writes the place of an error the way every format's error says it: `at byte 18 (0x12)`,
/// then `` in `a.b[3]` `` unless the path is the root, then `: `.
pub(crate) fn write_place(
    f: &mut fmt::Formatter<'_>,
    offset: Option<usize>,
    path: &ValuePath,
) -> fmt::Result {
    if let Some(o) = offset {
        write!(f, " at byte {o} ({o:#x})")?;
    }
    if !path.is_empty() {
        write!(f, " in `{path}`")?;
    }
    f.write_str(": ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;
    use alloc::vec;

    fn path(segments: Vec<PathSegment>) -> ValuePath {
        ValuePath::from_root_first(segments)
    }

    #[test]
    fn the_text_form_joins_names_and_brackets_indices() {
        use PathSegment::*;
        assert_eq!(ValuePath::default().to_string(), "(root)");
        let p = path(vec![
            Field("servants".into()),
            Index(3),
            Field("name".into()),
        ]);
        assert_eq!(p.to_string(), "servants[3].name");
        let p = path(vec![Index(0), Field("a.b".into()), Field("".into())]);
        assert_eq!(p.to_string(), "[0].\"a.b\".\"\"");
        let p = path(vec![Key("\"k\"".into()), KeyAt(2), Part("class name")]);
        assert_eq!(p.to_string(), r#"["k"]{key 2}<class name>"#);
    }

    #[test]
    fn long_paths_show_their_ends() {
        let short = path((0..16).map(PathSegment::Index).collect());
        assert_eq!(short.to_string().matches('[').count(), 16);
        let long = path((0..1025).map(PathSegment::Index).collect());
        let text = long.to_string();
        assert!(
            text.starts_with("[0][1][2][3][4][5]…(1013 levels)…[1019]"),
            "{text}"
        );
        assert!(text.ends_with("[1023][1024]"), "{text}");
        assert_eq!(long.segments().len(), 1025);
    }
}
