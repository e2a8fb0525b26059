//! Where every byte of a packet belongs: a walk of a [`Layout`] over a packet that records the
//! byte range of each field, metadata slot, element link and piece of variable data, for tools
//! that show packets (`defc annotate`, `defc guess`).
//!
//! The walk reads through the wire reader of generated code (fixed runs, metadata, element
//! chains, strings, bytes) and the packet checks of [`Packet`](super::Packet), as the codecs do, so it accepts exactly the
//! packets they accept and no wire rule is written out again here. It produces ranges, not
//! values: callers that want values decode the packet as well.

use alloc::string::String;
use alloc::vec::Vec;

use def_parser::ast::{ElemType, Scalar};
use def_parser::layout::{Fixed as FixedItem, Layout, Level, MemberKind, MetaKind, Step};

use super::error::DecodeError;
use super::wire::{Fixed, Meta, Options, Reader};
use crate::path::PathSegment;

/// What a range of bytes is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpanKind {
    /// The header's `uint16` length.
    Length,
    /// The header's `uint16` opcode.
    Opcode,
    /// The eight bytes of padding after the header.
    Padding,
    /// A fixed-size value of this type.
    Value(Scalar),
    /// The count of an array or of bytes (metadata).
    Count,
    /// The offset of an array's first element, of a string or of bytes (metadata).
    Offset,
    /// An element's `here`: its own offset.
    Here,
    /// An element's `next`: the next element's offset, 0 for the last.
    Next,
    /// The offset of an `array<string>` element's text.
    TextOffset,
    /// A string's UTF-16 units and terminator.
    Text,
    /// The data of a `bytes` field.
    Bytes,
}

impl SpanKind {
    /// Whether the range is metadata (header, padding, counts, offsets, links) rather than data.
    pub fn is_meta(self) -> bool {
        !matches!(self, SpanKind::Value(_) | SpanKind::Text | SpanKind::Bytes)
    }

    /// A short name: the type for values, else `count`, `offset`, `here`, `next`, ...
    pub fn name(self) -> &'static str {
        match self {
            SpanKind::Length => "length",
            SpanKind::Opcode => "opcode",
            SpanKind::Padding => "padding",
            SpanKind::Value(s) => s.keyword(),
            SpanKind::Count => "count",
            SpanKind::Offset => "offset",
            SpanKind::Here => "here",
            SpanKind::Next => "next",
            SpanKind::TextOffset => "offset",
            SpanKind::Text => "string",
            SpanKind::Bytes => "bytes",
        }
    }
}

/// One labelled range of a packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    /// First byte (from the first header byte).
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
    /// The field path, outermost first: one [`PathSegment::Field`] per name (a field in an
    /// `object` is two), one [`PathSegment::Index`] per array element; a name is one segment
    /// whatever it holds (`.` and `[` included). `header` or `padding` for the packet's own
    /// bytes. [`path_text`] writes it.
    pub path: Vec<PathSegment>,
    /// What the bytes are.
    pub kind: SpanKind,
}

impl Span {
    /// The value this span's [`path`](Span::path) names in the packet's JSON object (the form
    /// `decode_json` gives and the vectors hold): `None` for the header, padding and metadata,
    /// whose paths name no value, or when `root` lacks the path.
    pub fn json_value<'v>(&self, root: &'v serde_json::Value) -> Option<&'v serde_json::Value> {
        self.path.iter().try_fold(root, |v, step| match step {
            PathSegment::Field(name) => v.get(&**name),
            PathSegment::Index(i) => v.get(*i),
            _ => None, // a TERA span's path holds names and indices only
        })
    }
}

/// A field path as text, outermost first: names joined by `.`, indices in brackets
/// (`items[2].name`). A name that would read as more than one step (empty, or holding `.`, `[`,
/// `]`, `"`, `\`, white space or a control character: the reference cannot read such names, but a
/// definition may hold them) is
/// written in double quotes with `"` and `\` escaped: `"a.b"[0]."c[1]"`. Hidden characters stay
/// as they are: show the text through `def_text` where it reaches a person.
pub fn path_text(path: &[PathSegment]) -> String {
    let mut s = String::new();
    for (i, step) in path.iter().enumerate() {
        crate::path::push_text(&mut s, i == 0, step);
    }
    s
}

/// The ranges of a whole packet (header included), in the order they are read: the header, the
/// padding, then each level's fixed runs and variable data as the layout orders them.
///
/// Fails as the dynamic codec fails on the same bytes and options (in strict mode, a header
/// length other than the packet's, trailing bytes or a wrong `here`); bytes that nothing reads
/// (lenient mode) are in no span. The number of spans is bounded by the codec's read budget.
pub fn spans(layout: &Layout, bytes: &[u8], opts: Options) -> Result<Vec<Span>, DecodeError> {
    let mut out = Vec::new();
    super::packet::decode_whole(bytes, opts, |r| {
        let header = [PathSegment::Field("header".into())];
        push(&mut out, 0, 2, &header, SpanKind::Length);
        push(&mut out, 2, 4, &header, SpanKind::Opcode);
        if opts.padding {
            push(
                &mut out,
                4,
                12,
                &[PathSegment::Field("padding".into())],
                SpanKind::Padding,
            );
        }
        walk(&layout.root, r, &[], &mut out)
    })?;
    Ok(out)
}

fn push(out: &mut Vec<Span>, start: usize, end: usize, path: &[PathSegment], kind: SpanKind) {
    out.push(Span {
        start,
        end,
        path: path.to_vec(),
        kind,
    });
}

/// `prefix` and the names of `slot`'s members (one for a field, more through objects).
fn join(prefix: &[PathSegment], level: &Level, slot: usize) -> Vec<PathSegment> {
    let mut path = prefix.to_vec();
    let mut members = &level.members;
    for &i in &level.slots[slot].path {
        path.push(PathSegment::Field(members[i].name.clone().into()));
        if let MemberKind::Object(m) = &members[i].kind {
            members = m;
        }
    }
    path
}

/// The name an error in a fixed run gives its field: the plain path of `prefix` (names joined by
/// `.`, as the codecs name a field in an object) and `name`.
fn error_path(prefix: &[PathSegment], name: &str) -> String {
    let mut s = String::new();
    for step in prefix {
        match step {
            PathSegment::Field(n) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(n);
            }
            step => {
                let first = s.is_empty();
                crate::path::push_text(&mut s, first, step)
            }
        }
    }
    if !s.is_empty() {
        s.push('.');
    }
    s.push_str(name);
    s
}

/// `path` and one more step, the element `i` of the array there.
fn element(path: &[PathSegment], i: usize) -> Vec<PathSegment> {
    let mut el = Vec::with_capacity(path.len() + 1);
    el.extend_from_slice(path);
    el.push(PathSegment::Index(i));
    el
}

fn walk(
    level: &Level,
    r: &mut Reader<'_>,
    prefix: &[PathSegment],
    out: &mut Vec<Span>,
) -> Result<(), DecodeError> {
    let mut metas: Vec<Meta> = alloc::vec![Meta::default(); level.slots.len()];
    for step in &level.steps {
        match step {
            Step::Fixed(run) => {
                let start = r.pos();
                let Some(b) = r.take(run.size) else {
                    // Name the first field that does not fit, with the codec's own search.
                    let (e, i) = r.cut_run(run.size, run.fields.iter().map(|(at, _)| *at));
                    return Err(match i {
                        Some(i) => {
                            let f = run.fields[i].1;
                            e.in_field(error_path(prefix, &level.slot_name(f.slot())))
                        }
                        None => e,
                    });
                };
                for &(at, f) in &run.fields {
                    let path = join(prefix, level, f.slot());
                    let s = start + at;
                    match f {
                        FixedItem::Meta { slot, kind } => {
                            let m = &b[at..];
                            match kind {
                                MetaKind::Array => {
                                    metas[slot] = Meta::array(first::<4>(m), 0);
                                    push(out, s, s + 2, &path, SpanKind::Count);
                                    push(out, s + 2, s + 4, &path, SpanKind::Offset);
                                }
                                MetaKind::Bytes => {
                                    metas[slot] = Meta::bytes(first::<4>(m), 0);
                                    push(out, s, s + 2, &path, SpanKind::Offset);
                                    push(out, s + 2, s + 4, &path, SpanKind::Count);
                                }
                                MetaKind::String => {
                                    metas[slot] = Meta::string(first::<2>(m), 0);
                                    push(out, s, s + 2, &path, SpanKind::Offset);
                                }
                            }
                        }
                        FixedItem::Value { ty, .. } => {
                            push(out, s, s + ty.size(), &path, SpanKind::Value(ty))
                        }
                    }
                }
            }
            Step::Var(slot) => var(level, *slot, metas[*slot], r, prefix, out)?,
            Step::Interleaved(slots) => {
                for &slot in slots {
                    var(level, slot, metas[slot], r, prefix, out)?;
                }
            }
        }
    }
    Ok(())
}

/// The first `N` bytes of a run's tail (the layout guarantees they are there).
fn first<const N: usize>(b: &[u8]) -> &[u8; N] {
    b[..N].try_into().expect("the run holds the metadata")
}

fn var(
    level: &Level,
    slot: usize,
    meta: Meta,
    r: &mut Reader<'_>,
    prefix: &[PathSegment],
    out: &mut Vec<Span>,
) -> Result<(), DecodeError> {
    let path = join(prefix, level, slot);
    let named = |e: DecodeError| e.in_field(level.slot_name(slot));
    let links = |out: &mut Vec<Span>, r: &Reader<'_>, el: &[PathSegment]| {
        let body = r.pos();
        push(out, body - 4, body - 2, el, SpanKind::Here);
        push(out, body - 2, body, el, SpanKind::Next);
    };
    match &level.slot_member(slot).kind {
        MemberKind::String => {
            let at = meta.offset as usize;
            let s = r.text_at(at).map_err(named)?;
            push(out, at, at + text_len(&s), &path, SpanKind::Text);
        }
        MemberKind::Bytes => {
            let b = r.bytes(meta).map_err(named)?;
            if !b.is_empty() {
                let at = meta.offset as usize;
                push(out, at, at + b.len(), &path, SpanKind::Bytes);
            }
        }
        MemberKind::Array(elem) => {
            r.chain(meta, 4 + elem.fixed_size, |r, i| {
                let el = element(&path, i);
                links(out, r, &el);
                walk(elem, r, &el, out)
            })
            .map_err(named)?;
        }
        MemberKind::ArrayOf(ElemType::String) => {
            r.chain(meta, 8, |r, i| {
                let el = element(&path, i);
                links(out, r, &el);
                let pos = r.pos();
                let b = r.take(2).ok_or_else(|| r.cut_run(2, []).0)?;
                let at = <u16 as Fixed>::read(b) as usize;
                push(out, pos, pos + 2, &el, SpanKind::TextOffset);
                let s = r.text_at(at)?;
                push(out, at, at + text_len(&s), &el, SpanKind::Text);
                Ok(())
            })
            .map_err(named)?;
        }
        MemberKind::ArrayOf(ElemType::Scalar(ty)) => {
            let ty = *ty;
            r.chain(meta, 4 + ty.size(), |r, i| {
                let el = element(&path, i);
                links(out, r, &el);
                let pos = r.pos();
                r.take(ty.size())
                    .ok_or_else(|| r.cut_run(ty.size(), []).0)?;
                push(out, pos, pos + ty.size(), &el, SpanKind::Value(ty));
                Ok(())
            })
            .map_err(named)?;
        }
        MemberKind::Scalar(_) | MemberKind::Object(_) => unreachable!("not variable"),
    }
    Ok(())
}

/// Bytes a decoded string took: its UTF-16 units and the terminator.
fn text_len(s: &str) -> usize {
    2 * super::utf16::units_len(s) + 2
}
