//! Tag paths: the text form shared by lookups ([`Tag::get_path`], [`Tag::get_path_mut`]) and by
//! the paths in errors ([`ValuePath`]'s `Display`), so a path printed in an error can be pasted
//! into a lookup.
//!
//! Syntax: keys joined by `.`, list (or array) indices in brackets, from the root value down:
//! `Level.Sections[1].Palette[0].Name`. A path may start with an index (`[0].id`, a root list).
//! A key that is empty or holds any of `. [ ] " \` or white space is written in double quotes
//! with `\"` and `\\` escaped: `Data."a.b"[2]`. The empty path is the value itself. Errors say
//! where the text is wrong ([`NbtErrorKind::PathSyntax`], byte offset) or how far the lookup got
//! ([`NbtErrorKind::PathNotFound`], the path up to the step that failed).

use std::str::FromStr;

use super::error::{NbtError, NbtErrorKind, Result};
use crate::path::{PathSegment, ValuePath};

/// One step of a parsed path.
#[derive(Clone, Debug)]
pub(crate) enum Step {
    Key(String),
    Index(usize),
}

impl From<Step> for PathSegment {
    fn from(step: Step) -> PathSegment {
        match step {
            Step::Key(k) => PathSegment::Field(k.into()),
            Step::Index(i) => PathSegment::Index(i),
        }
    }
}
use super::tag::{Compound, List, Tag};
use super::view::{TagView, TagViewMut};

#[cold]
fn syntax(offset: usize, message: &'static str) -> NbtError {
    NbtError::from(NbtErrorKind::PathSyntax {
        at: offset,
        message,
    })
}

/// Parses the text form into segments, root first.
pub(crate) fn parse(text: &str) -> Result<Vec<Step>> {
    let b = text.as_bytes();
    let mut segs = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'[' {
            let start = i + 1;
            let mut j = start;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            if j == start {
                return Err(syntax(start, "expected a list index (digits) after `[`"));
            }
            if b.get(j) != Some(&b']') {
                return Err(syntax(j, "expected `]` after the index"));
            }
            let n = text[start..j]
                .parse::<usize>()
                .map_err(|_| syntax(start, "list index too large"))?;
            segs.push(Step::Index(n));
            i = j + 1;
        } else {
            if !segs.is_empty() {
                if b[i] != b'.' {
                    return Err(syntax(i, "expected `.` or `[` after a key or index"));
                }
                i += 1;
            }
            let (key, next) = parse_key(text, i)?;
            segs.push(Step::Key(key));
            i = next;
        }
    }
    Ok(segs)
}

fn parse_key(text: &str, at: usize) -> Result<(String, usize)> {
    let rest = &text[at..];
    if let Some(body) = rest.strip_prefix('"') {
        let mut key = String::new();
        let mut chars = body.char_indices();
        while let Some((k, c)) = chars.next() {
            match c {
                '"' => return Ok((key, at + 1 + k + 1)),
                '\\' => match chars.next() {
                    Some((_, e @ ('"' | '\\'))) => key.push(e),
                    Some((k2, _)) => return Err(syntax(at + 1 + k2, "only \\\" and \\\\ escape")),
                    None => break,
                },
                c => key.push(c),
            }
        }
        return Err(syntax(text.len(), "unterminated quoted key"));
    }
    let len = rest
        .char_indices()
        .find(|&(_, c)| !crate::path::plain_char(c))
        .map_or(rest.len(), |(k, _)| k);
    if len == 0 {
        return Err(syntax(
            at,
            "expected a key (quote keys that are empty or hold . [ ] \" \\ or spaces)",
        ));
    }
    Ok((rest[..len].to_string(), at + len))
}

/// A path in the text form (`Level.Sections[1].Name`; the module docs), as NBT lookups read it.
impl FromStr for ValuePath {
    type Err = NbtError;
    fn from_str(s: &str) -> Result<ValuePath> {
        Ok(ValuePath::from_root_first(
            parse(s)?.into_iter().map(PathSegment::from).collect(),
        ))
    }
}

#[cold]
fn not_found(walked: &[Step], reason: String) -> NbtError {
    NbtError::in_path(
        NbtErrorKind::PathNotFound { reason },
        ValuePath::from_root_first(walked.iter().cloned().map(PathSegment::from).collect()),
    )
}

fn missing(walked: &[Step], seg: &Step, ty: &str, len: Option<usize>) -> NbtError {
    let reason = match (seg, len) {
        (Step::Key(_), Some(_)) => "no such key in the compound".to_string(),
        (Step::Index(i), Some(n)) => format!("index {i} is out of range (length {n})"),
        (Step::Key(_), None) => format!("`{ty}` has no keys"),
        (Step::Index(_), None) => format!("`{ty}` has no elements"),
    };
    not_found(walked, reason)
}

/// The value at `path` below `start`.
pub(crate) fn lookup<'a>(start: TagView<'a>, path: &str) -> Result<TagView<'a>> {
    let segs = parse(path)?;
    let mut cur = start;
    for (n, seg) in segs.iter().enumerate() {
        let next = match seg {
            Step::Key(k) => cur.get(k),
            Step::Index(i) => cur.index(*i),
        };
        cur = match next {
            Some(v) => v,
            None => {
                let len = match (seg, cur) {
                    (Step::Key(_), TagView::Compound(c)) => Some(c.len()),
                    (Step::Index(_), TagView::List(l)) => Some(l.len()),
                    (Step::Index(_), TagView::ByteArray(a)) => Some(a.len()),
                    (Step::Index(_), TagView::IntArray(a)) => Some(a.len()),
                    (Step::Index(_), TagView::LongArray(a)) => Some(a.len()),
                    _ => None,
                };
                return Err(missing(&segs[..=n], seg, cur.tag_type().name(), len));
            }
        };
    }
    Ok(cur)
}

enum Cur<'a> {
    Tag(&'a mut Tag),
    Compound(&'a mut Compound),
    List(&'a mut List),
    /// A list element, only as the end of a path (see [`walk_mut`]'s `elem_end`).
    Elem(TagViewMut<'a>),
}

/// The tag at `path` below `start`, mutable; the path must end at a compound entry (or be
/// empty), since a list element is not a [`Tag`] in memory.
pub(crate) fn lookup_mut<'a>(start: &'a mut Tag, path: &str) -> Result<&'a mut Tag> {
    match walk_mut(Cur::Tag(start), path, false)? {
        Cur::Tag(t) => Ok(t),
        _ => unreachable!("walk_mut starting at a tag ends at a tag or fails"),
    }
}

/// The value at `path` below `start`, mutable, as a view: any path, list elements included.
fn lookup_view_mut<'a>(start: Cur<'a>, path: &str) -> Result<TagViewMut<'a>> {
    Ok(match walk_mut(start, path, true)? {
        Cur::Tag(t) => TagViewMut::from(t),
        Cur::Compound(c) => TagViewMut::Compound(c),
        Cur::List(l) => TagViewMut::List(l),
        Cur::Elem(v) => v,
    })
}

/// Sets the value at `path` below `start` to `value`, giving the old one: a compound entry (or
/// the start itself) takes any type, a list element only its list's element type.
fn set_at(start: Cur<'_>, path: &str, value: Tag) -> Result<Tag> {
    let wrong = |expected: &'static str, found: &'static str| -> Result<Tag> {
        let at =
            ValuePath::from_root_first(parse(path)?.into_iter().map(PathSegment::from).collect());
        Err(NbtError::in_path(
            NbtErrorKind::WrongType { expected, found },
            at,
        ))
    };
    match walk_mut(start, path, true)? {
        Cur::Tag(t) => Ok(std::mem::replace(t, value)),
        Cur::Elem(v) => {
            let expected = v.tag_type().name();
            v.set(value)
                .or_else(|v| wrong(expected, v.tag_type().name()))
        }
        Cur::Compound(c) => match value {
            Tag::Compound(v) => Ok(Tag::Compound(std::mem::replace(c, v))),
            v => wrong("compound", v.tag_type().name()),
        },
        Cur::List(l) => match value {
            Tag::List(v) => Ok(Tag::List(std::mem::replace(l, v))),
            v => wrong("list", v.tag_type().name()),
        },
    }
}

/// As [`lookup_mut`], starting at a compound; the empty path is refused (a compound is not a
/// [`Tag`]).
pub(crate) fn lookup_mut_in<'a>(start: &'a mut Compound, path: &str) -> Result<&'a mut Tag> {
    match walk_mut(Cur::Compound(start), path, false)? {
        Cur::Tag(t) => Ok(t),
        _ => Err(not_found(
            &[],
            "the empty path names the compound itself".into(),
        )),
    }
}

/// Walks `path` from `start`. A path ending at a list element is an error, unless `elem_end`:
/// then it ends in [`Cur::Elem`].
fn walk_mut<'a>(start: Cur<'a>, path: &str, elem_end: bool) -> Result<Cur<'a>> {
    let segs = parse(path)?;
    let mut cur = start;
    for (n, seg) in segs.iter().enumerate() {
        let walked = &segs[..=n];
        // A tag that is a compound or list continues as one.
        cur = match cur {
            Cur::Tag(Tag::Compound(c)) => Cur::Compound(c),
            Cur::Tag(Tag::List(l)) => Cur::List(l),
            other => other,
        };
        cur = match (cur, seg) {
            (Cur::Compound(c), Step::Key(k)) => {
                let len = c.len();
                match c.get_mut(k) {
                    Some(t) => Cur::Tag(t),
                    None => return Err(missing(walked, seg, "compound", Some(len))),
                }
            }
            (Cur::List(l), Step::Index(i)) => {
                let len = l.len();
                let last = n + 1 == segs.len();
                let ety = l.element_type().name();
                if last && elem_end && *i < len {
                    cur = Cur::Elem(l.get_mut(*i).expect("index below len"));
                    continue;
                }
                match l {
                    List::Compound(v) if *i < len && !last => Cur::Compound(&mut v[*i]),
                    List::List(v) if *i < len && !last => Cur::List(&mut v[*i]),
                    _ if *i >= len => return Err(missing(walked, seg, "list", Some(len))),
                    _ if last => {
                        return Err(not_found(
                            walked,
                            "a list element is not a standalone tag: use get_path_view_mut \
                             (or List::get_mut on the list)"
                                .into(),
                        ));
                    }
                    _ => return Err(missing(&segs[..n + 2], &segs[n + 1], ety, None)),
                }
            }
            (c, _) => {
                let ty = match &c {
                    Cur::Tag(t) => t.tag_type().name(),
                    Cur::Compound(_) => "compound",
                    Cur::List(_) => "list",
                    Cur::Elem(v) => v.tag_type().name(),
                };
                return Err(missing(walked, seg, ty, None));
            }
        };
    }
    Ok(cur)
}

impl Tag {
    /// The value at `path` below this one, borrowed: `Level.Sections[1].Palette[0].Name`
    /// (syntax in [`ValuePath`]'s docs; the same text errors print). Works through lists and
    /// arrays, nothing is copied.
    ///
    /// ```
    /// use def_runtime::nbt::{nbt, Tag};
    /// let t: Tag = nbt!({"Level": {"Sections": [{"Y": 0i8}, {"Y": 1i8}]}});
    /// assert_eq!(t.get_path("Level.Sections[1].Y").unwrap().as_byte(), Some(1));
    /// assert!(t.get_path("Level.Sections[2]").is_err()); // PathNotFound, says the length
    /// ```
    pub fn get_path(&self, path: &str) -> Result<TagView<'_>> {
        lookup(self.view(), path)
    }

    /// The tag at `path` below this one, mutable, to change or replace in one assignment:
    ///
    /// ```
    /// use def_runtime::nbt::{nbt, Tag};
    /// let mut t: Tag = nbt!({"Palette": [{"Name": "minecraft:air"}]});
    /// *t.get_path_mut("Palette[0].Name").unwrap() = "minecraft:stone".into();
    /// assert_eq!(t.get_path("Palette[0].Name").unwrap().as_str().unwrap(), "minecraft:stone");
    /// ```
    ///
    /// The path must end at a compound entry (or be empty): a list element is not a `Tag` in
    /// memory (lists are typed), so for `Pos[0]` use [`get_path_view_mut`](Tag::get_path_view_mut).
    pub fn get_path_mut(&mut self, path: &str) -> Result<&mut Tag> {
        lookup_mut(self, path)
    }

    /// The value at any `path` below this one, list elements included, as a [`TagViewMut`]:
    /// change it in place, or replace it with [`TagViewMut::set`] (same type).
    ///
    /// ```
    /// use def_runtime::nbt::{nbt, Tag};
    /// let mut t: Tag = nbt!({"Pos": [1.0f64, 64.0f64, 2.0f64]});
    /// t.get_path_view_mut("Pos[1]").unwrap().set(70.0f64).unwrap();
    /// assert_eq!(t.get_path("Pos[1]").unwrap().as_double(), Some(70.0));
    /// ```
    pub fn get_path_view_mut(&mut self, path: &str) -> Result<TagViewMut<'_>> {
        lookup_view_mut(Cur::Tag(self), path)
    }

    /// Sets the value at `path` below this one, list elements included, and gives the old
    /// value: the `?`-friendly form of the getters above. A compound entry takes a value of any
    /// type; a list element must keep its list's element type, else
    /// [`NbtErrorKind::WrongType`] with the path.
    ///
    /// ```
    /// use def_runtime::nbt::{nbt, NbtError, NbtErrorKind, Tag};
    /// let mut t: Tag = nbt!({"Motion": [0.0f64, 0.0f64, 0.0f64], "Name": "Steve"});
    /// t.set_path("Motion[1]", 0.5f64)?;
    /// t.set_path("Name", 7i32)?; // an entry may change type
    /// assert_eq!(t.get_path("Motion[1]")?.as_double(), Some(0.5));
    /// let e = t.set_path("Motion[2]", 1i32).unwrap_err();
    /// assert!(matches!(e.kind(), NbtErrorKind::WrongType { expected: "double", found: "int" }));
    /// assert_eq!(e.path().to_string(), "Motion[2]");
    /// # Ok::<(), NbtError>(())
    /// ```
    pub fn set_path(&mut self, path: &str, value: impl Into<Tag>) -> Result<Tag> {
        set_at(Cur::Tag(self), path, value.into())
    }
}

impl Compound {
    /// The value at `path` below this compound (see [`Tag::get_path`]).
    pub fn get_path(&self, path: &str) -> Result<TagView<'_>> {
        lookup(TagView::Compound(self), path)
    }

    /// The tag at `path` below this compound, mutable (see [`Tag::get_path_mut`]).
    pub fn get_path_mut(&mut self, path: &str) -> Result<&mut Tag> {
        lookup_mut_in(self, path)
    }

    /// The value at any `path` below this compound, mutable (see [`Tag::get_path_view_mut`]).
    pub fn get_path_view_mut(&mut self, path: &str) -> Result<TagViewMut<'_>> {
        lookup_view_mut(Cur::Compound(self), path)
    }

    /// Sets the value at `path` below this compound (see [`Tag::set_path`]).
    pub fn set_path(&mut self, path: &str, value: impl Into<Tag>) -> Result<Tag> {
        set_at(Cur::Compound(self), path, value.into())
    }
}
