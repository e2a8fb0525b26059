//! The JSON dump form of NBT (the "Dump format" of the sample set's MANIFEST): every node is
//! `{"type": T, "value": V}`, lists add `element_type`, compounds are objects in file order,
//! longs are exact integers, non-finite floats are strings with their `bits`, and strings are
//! written with `\uXXXX` escapes of their UTF-16 units, so even a lone surrogate survives.
//!
//! Because that last point is outside what `serde_json` accepts (it rejects lone surrogate
//! escapes), this module has its own small JSON value ([`Json`]), reader and writer; it keeps
//! object order, keeps numbers as their text (no `f64` rounding of longs) and bounds nesting.

use std::fmt::Write as _;

use super::error::{NbtError, NbtErrorKind, Result};
use super::file::NbtFile;
use super::read::MAX_DEPTH_CAP;
use super::tag::{Compound, List, Nbt, NbtString, Tag, TagType};
use super::view::TagView;
use crate::path::{PathSegment, ValuePath};

/// A JSON value with order-kept objects, numbers as text, strings as UTF-16 units.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A number, as written.
    Number(String),
    /// A string, as UTF-16 code units (lone surrogates allowed).
    String(Vec<u16>),
    /// An array.
    Array(Vec<Json>),
    /// An object, members in order.
    Object(Vec<(Vec<u16>, Json)>),
}

impl Json {
    /// Member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(m) => {
                let k: Vec<u16> = key.encode_utf16().collect();
                m.iter().find(|(n, _)| *n == k).map(|(_, v)| v)
            }
            _ => None,
        }
    }

    /// The string, if valid Unicode.
    pub fn as_str(&self) -> Option<String> {
        match self {
            Json::String(u) => String::from_utf16(u).ok(),
            _ => None,
        }
    }

    /// A copy of an object without member `key` (for ignoring `meta`).
    pub fn without(&self, key: &str) -> Json {
        match self {
            Json::Object(m) => {
                let k: Vec<u16> = key.encode_utf16().collect();
                Json::Object(m.iter().filter(|(n, _)| *n != k).cloned().collect())
            }
            other => other.clone(),
        }
    }

    /// Parses JSON text.
    pub fn parse(text: &str) -> Result<Json> {
        let mut p = Parser {
            s: text.as_bytes(),
            i: 0,
        };
        let v = p.value(0)?;
        p.ws();
        if p.i != p.s.len() {
            return Err(p.err("trailing characters after the JSON value"));
        }
        Ok(v)
    }

    /// Semantic equality for dumps: numbers compare by value (integers exactly; a `float`
    /// node's value through `f32`, other non-integers as `f64`), everything else structurally.
    pub fn same_as(&self, other: &Json) -> bool {
        json_eq(self, other, false)
    }
}

fn num_eq(a: &str, b: &str, as_f32: bool) -> bool {
    if a == b {
        return true;
    }
    if let (Ok(x), Ok(y)) = (a.parse::<i128>(), b.parse::<i128>()) {
        return x == y;
    }
    match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(x), Ok(y)) if as_f32 => (x as f32).to_bits() == (y as f32).to_bits(),
        (Ok(x), Ok(y)) => x.to_bits() == y.to_bits(),
        _ => false,
    }
}

fn json_eq(a: &Json, b: &Json, f32_ctx: bool) -> bool {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => num_eq(x, y, f32_ctx),
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_eq(p, q, false))
        }
        (Json::Object(x), Json::Object(y)) => {
            let is_float = |m: &[(Vec<u16>, Json)]| {
                m.iter().any(|(k, v)| {
                    *k == "type".encode_utf16().collect::<Vec<_>>()
                        && *v == Json::String("float".encode_utf16().collect())
                })
            };
            let fl = is_float(x) && is_float(y);
            x.len() == y.len()
                && x.iter().zip(y).all(|((ka, va), (kb, vb))| {
                    let value = *ka == "value".encode_utf16().collect::<Vec<_>>();
                    ka == kb && json_eq(va, vb, fl && value)
                })
        }
        _ => a == b,
    }
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

const JSON_MAX_DEPTH: usize = 2 * MAX_DEPTH_CAP + 64;

impl Parser<'_> {
    #[cold]
    fn err(&self, message: &str) -> NbtError {
        NbtError::from(NbtErrorKind::Json {
            at: self.i,
            message: message.to_string(),
        })
    }

    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.s.get(self.i) {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> Result<Json> {
        if depth > JSON_MAX_DEPTH {
            return Err(self.err("JSON nested too deeply"));
        }
        self.ws();
        match self.s.get(self.i) {
            None => Err(self.err("unexpected end of JSON")),
            Some(b'{' | b'[') => super::guard(depth, || self.container(depth)),
            Some(b'"') => Ok(Json::String(self.string()?)),
            Some(b't') if self.s[self.i..].starts_with(b"true") => {
                self.i += 4;
                Ok(Json::Bool(true))
            }
            Some(b'f') if self.s[self.i..].starts_with(b"false") => {
                self.i += 5;
                Ok(Json::Bool(false))
            }
            Some(b'n') if self.s[self.i..].starts_with(b"null") => {
                self.i += 4;
                Ok(Json::Null)
            }
            Some(b'-' | b'0'..=b'9') => {
                let start = self.i;
                while let Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') = self.s.get(self.i)
                {
                    self.i += 1;
                }
                let t = std::str::from_utf8(&self.s[start..self.i]).unwrap_or("");
                if t.parse::<f64>().is_err() {
                    return Err(self.err("malformed number"));
                }
                Ok(Json::Number(t.to_string()))
            }
            Some(_) => Err(self.err("unexpected character")),
        }
    }

    fn container(&mut self, depth: usize) -> Result<Json> {
        let open = self.s[self.i];
        self.i += 1;
        if open == b'{' {
            let mut m = Vec::new();
            if self.eat(b'}') {
                return Ok(Json::Object(m));
            }
            loop {
                self.ws();
                let k = self.string()?;
                if !self.eat(b':') {
                    return Err(self.err("expected ':'"));
                }
                let v = self.value(depth + 1)?;
                m.push((k, v));
                if self.eat(b',') {
                    continue;
                }
                if self.eat(b'}') {
                    return Ok(Json::Object(m));
                }
                return Err(self.err("expected ',' or '}'"));
            }
        }
        let mut a = Vec::new();
        if self.eat(b']') {
            return Ok(Json::Array(a));
        }
        loop {
            a.push(self.value(depth + 1)?);
            if self.eat(b',') {
                continue;
            }
            if self.eat(b']') {
                return Ok(Json::Array(a));
            }
            return Err(self.err("expected ',' or ']'"));
        }
    }

    fn hex4(&mut self) -> Result<u16> {
        let h = self
            .s
            .get(self.i..self.i + 4)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u16::from_str_radix(h, 16).ok())
            .ok_or_else(|| self.err("bad \\u escape"))?;
        self.i += 4;
        Ok(h)
    }

    fn string(&mut self) -> Result<Vec<u16>> {
        if self.s.get(self.i) != Some(&b'"') {
            return Err(self.err("expected a string"));
        }
        self.i += 1;
        let mut out = Vec::new();
        loop {
            let start = self.i;
            while let Some(&b) = self.s.get(self.i) {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.i += 1;
            }
            // The input is a &str, and we stopped at ASCII, so this slice is valid UTF-8.
            let chunk = std::str::from_utf8(&self.s[start..self.i]).unwrap_or("");
            out.extend(chunk.encode_utf16());
            match self.s.get(self.i) {
                Some(b'"') => {
                    self.i += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.i += 1;
                    let e = *self.s.get(self.i).ok_or_else(|| self.err("bad escape"))?;
                    self.i += 1;
                    out.push(match e {
                        b'"' => b'"' as u16,
                        b'\\' => b'\\' as u16,
                        b'/' => b'/' as u16,
                        b'b' => 8,
                        b'f' => 12,
                        b'n' => b'\n' as u16,
                        b'r' => b'\r' as u16,
                        b't' => b'\t' as u16,
                        b'u' => self.hex4()?,
                        _ => return Err(self.err("bad escape")),
                    });
                }
                _ => return Err(self.err("unterminated string")),
            }
        }
    }
}

// ---------------------------------------------------------------- writing

/// The text being written: kept whole (`sink` none), or handed to `sink` every 64 KiB.
struct Out<'w> {
    buf: String,
    sink: Option<&'w mut dyn std::io::Write>,
    error: Option<std::io::Error>,
}

impl<'w> Out<'w> {
    const PIECE: usize = 64 << 10;

    fn new(sink: Option<&'w mut dyn std::io::Write>) -> Self {
        Out {
            buf: String::new(),
            sink,
            error: None,
        }
    }

    fn push(&mut self, c: char) {
        self.buf.push(c);
        self.spill();
    }

    fn push_str(&mut self, s: &str) {
        self.buf.push_str(s);
        self.spill();
    }

    /// Hands a full piece to the sink (the first write error stops the writing).
    fn spill(&mut self) {
        if self.buf.len() >= Self::PIECE
            && let Some(w) = self.sink.as_mut()
        {
            if self.error.is_none() {
                self.error = w.write_all(self.buf.as_bytes()).err();
            }
            self.buf.clear();
        }
    }

    /// Writes the rest and says whether every write succeeded.
    fn finish(mut self) -> std::io::Result<()> {
        if let Some(w) = self.sink.as_mut()
            && self.error.is_none()
        {
            self.error = w.write_all(self.buf.as_bytes()).err();
        }
        self.error.map_or(Ok(()), Err)
    }
}

impl std::fmt::Write for Out<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.push_str(s);
        Ok(())
    }
}

fn push_str_units(out: &mut Out<'_>, units: impl IntoIterator<Item = u16>) {
    out.push('"');
    for u in units {
        match u {
            0x22 => out.push_str("\\\""),
            0x5C => out.push_str("\\\\"),
            0x0A => out.push_str("\\n"),
            0x0D => out.push_str("\\r"),
            0x09 => out.push_str("\\t"),
            0x20..=0x7E => out.push(u as u8 as char),
            _ => {
                let _ = write!(out, "\\u{u:04x}");
            }
        }
    }
    out.push('"');
}

fn push_nbt_str(out: &mut Out<'_>, s: &NbtString) {
    let b = s.as_mutf8();
    if b.is_ascii() {
        push_str_units(out, b.iter().map(|&c| c as u16));
    } else {
        push_str_units(out, s.to_utf16());
    }
}

fn push_plain(out: &mut Out<'_>, s: &str) {
    push_str_units(out, s.encode_utf16());
}

fn push_f32(out: &mut Out<'_>, v: f32) {
    if v.is_finite() {
        let _ = write!(out, "{v:?}");
    } else {
        push_nonfinite(out, v.is_nan(), v > 0.0, &format!("{:08x}", v.to_bits()));
    }
}

fn push_f64(out: &mut Out<'_>, v: f64) {
    if v.is_finite() {
        let _ = write!(out, "{v:?}");
    } else {
        push_nonfinite(out, v.is_nan(), v > 0.0, &format!("{:016x}", v.to_bits()));
    }
}

fn push_nonfinite(out: &mut Out<'_>, nan: bool, positive: bool, bits: &str) {
    if nan {
        let _ = write!(out, "\"NaN\",\"bits\":\"{bits}\"");
    } else if positive {
        out.push_str("\"Infinity\"");
    } else {
        out.push_str("\"-Infinity\"");
    }
}

fn push_ints<T: std::fmt::Display>(out: &mut Out<'_>, v: &[T]) {
    out.push('[');
    for (i, x) in v.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(out, "{x}");
    }
    out.push(']');
}

fn push_value(out: &mut Out<'_>, tag: TagView<'_>) {
    match tag {
        TagView::Byte(v) => {
            let _ = write!(out, "{v}");
        }
        TagView::Short(v) => {
            let _ = write!(out, "{v}");
        }
        TagView::Int(v) => {
            let _ = write!(out, "{v}");
        }
        TagView::Long(v) => {
            let _ = write!(out, "{v}");
        }
        TagView::Float(v) => push_f32(out, v),
        TagView::Double(v) => push_f64(out, v),
        TagView::ByteArray(v) => push_ints(out, v),
        TagView::IntArray(v) => push_ints(out, v),
        TagView::LongArray(v) => push_ints(out, v),
        TagView::String(s) => push_nbt_str(out, s),
        TagView::Compound(c) => super::guard(0, || push_compound(out, c)),
        TagView::List(l) => {
            // A list's "value" is its element array; element_type precedes it (written by caller).
            push_list_items(out, l);
        }
    }
}

fn push_compound(out: &mut Out<'_>, c: &Compound) {
    out.push('{');
    for (i, (k, v)) in c.entries().iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_nbt_str(out, k);
        out.push(':');
        push_full_node(out, v.view());
    }
    out.push('}');
}

/// Like `push_node` but lists carry `element_type` before `value`.
fn push_full_node(out: &mut Out<'_>, tag: TagView<'_>) {
    out.push('{');
    push_node_fields(out, tag);
}

/// A node's members after its `{`, and the closing `}`.
fn push_node_fields(out: &mut Out<'_>, tag: TagView<'_>) {
    match tag {
        TagView::List(l) => {
            let _ = write!(
                out,
                "\"type\":\"list\",\"element_type\":\"{}\",\"value\":",
                l.element_type().name()
            );
            super::guard(0, || push_list_items(out, l));
            out.push('}');
        }
        other => {
            let _ = write!(out, "\"type\":\"{}\",\"value\":", other.tag_type().name());
            push_value(out, other);
            out.push('}');
        }
    }
}

fn push_list_items(out: &mut Out<'_>, l: &List) {
    out.push('[');
    for (i, t) in l.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_full_node(out, t);
    }
    out.push(']');
}

/// `{"name":…,"type":…,"value":…}` (plus `element_type` for a list root) for one root.
pub fn root_to_json(nbt: &Nbt) -> String {
    let mut out = Out::new(None);
    out.push('{');
    push_root_fields(&mut out, nbt);
    out.buf
}

/// The members of a root's object after its `{`: `"name":…,"type":…,"value":…}`.
fn push_root_fields(out: &mut Out<'_>, nbt: &Nbt) {
    out.push_str("\"name\":");
    match &nbt.name {
        Some(n) => push_nbt_str(out, n),
        None => out.push_str("null"),
    }
    out.push(',');
    push_node_fields(out, nbt.tag.view());
}

/// The dump of a file: one root as `{name,type,value}`, several as `{"roots":[…]}`, with a
/// `meta` object first when `meta` is true (compression, sizes, trailing bytes).
pub fn file_to_json(file: &NbtFile, meta: bool) -> String {
    let mut out = Out::new(None);
    push_file(&mut out, file, meta);
    out.buf
}

/// [`file_to_json`] written to `w` as it is made, in pieces of 64 KiB: the dump of a large
/// array is some 2–4 bytes of text per byte of NBT, and is never held whole in memory.
pub fn write_file_json(
    file: &NbtFile,
    meta: bool,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let mut out = Out::new(Some(w));
    push_file(&mut out, file, meta);
    out.finish()
}

/// [`root_to_json`] written to `w` as it is made.
pub(crate) fn write_root_json(nbt: &Nbt, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    let mut out = Out::new(Some(w));
    out.push('{');
    push_root_fields(&mut out, nbt);
    out.finish()
}

fn push_file(out: &mut Out<'_>, file: &NbtFile, meta: bool) {
    out.push('{');
    if meta {
        let _ = write!(
            out,
            "\"meta\":{{\"compression\":\"{}\",\"decompressed_size\":{},\"consumed\":{},\"trailing_bytes\":{},\"result\":\"ok\"}},",
            file.compression.name(),
            file.decompressed_size,
            file.consumed,
            file.trailing
        );
    }
    if file.roots.len() == 1 {
        push_root_fields(out, &file.roots[0]);
        return;
    }
    out.push_str("\"roots\":[");
    for (i, r) in file.roots.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push('{');
        push_root_fields(out, r);
    }
    out.push_str("]}");
}

/// JSON text of a string in dump form (UTF-16 escapes), for other dump writers.
pub(crate) fn json_string(s: &str) -> String {
    let mut out = Out::new(None);
    push_plain(&mut out, s);
    out.buf
}

// ---------------------------------------------------------------- reading

/// What is wrong with a node of a dump, and where: its tag path, built as the error travels
/// out. Made into
/// [`NbtErrorKind::DumpEntry`] once, by the root's reader.
#[derive(Debug)]
struct Bad {
    reason: String,
    path: ValuePath,
}

type Got<T> = core::result::Result<T, Bad>;

#[cold]
fn bad(message: impl Into<String>) -> Bad {
    Bad {
        reason: message.into(),
        path: ValuePath::default(),
    }
}

impl Bad {
    #[cold]
    fn within(mut self, step: PathSegment) -> Bad {
        self.path.push_outer(step);
        self
    }

    #[cold]
    fn at_root(self, root: Option<usize>) -> NbtError {
        NbtError::in_path(
            NbtErrorKind::DumpEntry {
                root,
                reason: self.reason,
            },
            self.path,
        )
    }
}

fn member<'j>(obj: &'j Json, key: &str) -> Got<&'j Json> {
    obj.get(key)
        .ok_or_else(|| bad(format!("missing \"{key}\"")))
}

fn tag_type_of(j: &Json) -> Got<TagType> {
    j.as_str()
        .and_then(|s| TagType::from_name(&s))
        .ok_or_else(|| bad("unknown tag type name"))
}

fn int<T: TryFrom<i128>>(j: &Json) -> Got<T> {
    match j {
        Json::Number(n) => n
            .parse::<i128>()
            .ok()
            .and_then(|v| T::try_from(v).ok())
            .ok_or_else(|| bad(format!("integer {n} out of range"))),
        _ => Err(bad("expected an integer")),
    }
}

fn ints<T: TryFrom<i128>>(j: &Json) -> Got<Vec<T>> {
    match j {
        Json::Array(a) => a
            .iter()
            .enumerate()
            .map(|(i, v)| int(v).map_err(|e| e.within(PathSegment::Index(i))))
            .collect(),
        _ => Err(bad("expected an array of integers")),
    }
}

fn float_bits(node: &Json, value: &Json) -> Got<Option<u64>> {
    match value {
        Json::Number(_) => Ok(None),
        Json::String(_) => {
            let s = value.as_str().unwrap_or_default();
            match s.as_str() {
                "NaN" => {
                    let bits = node
                        .get("bits")
                        .and_then(Json::as_str)
                        .ok_or_else(|| bad("NaN without \"bits\""))?;
                    let hex = bits.trim_start_matches("0x");
                    u64::from_str_radix(hex, 16)
                        .map(Some)
                        .map_err(|_| bad("bad NaN bits"))
                }
                "Infinity" => Ok(Some(u64::MAX)),
                "-Infinity" => Ok(Some(u64::MAX - 1)),
                _ => Err(bad("bad float string")),
            }
        }
        _ => Err(bad("expected a number")),
    }
}

fn num_f64(value: &Json) -> Got<f64> {
    match value {
        Json::Number(n) => n.parse().map_err(|_| bad("bad number")),
        _ => Err(bad("expected a number")),
    }
}

fn node_to_tag(node: &Json, depth: usize) -> Got<Tag> {
    if depth > MAX_DEPTH_CAP {
        return Err(bad("nested too deeply"));
    }
    let ty = tag_type_of(member(node, "type")?)?;
    let v = member(node, "value")?;
    Ok(match ty {
        TagType::End => return Err(bad("a node cannot be of type end")),
        TagType::Byte => Tag::Byte(int(v)?),
        TagType::Short => Tag::Short(int(v)?),
        TagType::Int => Tag::Int(int(v)?),
        TagType::Long => Tag::Long(int(v)?),
        TagType::Float => Tag::Float(match float_bits(node, v)? {
            None => num_f64(v)? as f32,
            Some(u64::MAX) => f32::INFINITY,
            Some(b) if b == u64::MAX - 1 => f32::NEG_INFINITY,
            Some(b) => f32::from_bits(u32::try_from(b).map_err(|_| bad("bad NaN bits"))?),
        }),
        TagType::Double => Tag::Double(match float_bits(node, v)? {
            None => num_f64(v)?,
            Some(u64::MAX) => f64::INFINITY,
            Some(b) if b == u64::MAX - 1 => f64::NEG_INFINITY,
            Some(b) => f64::from_bits(b),
        }),
        TagType::ByteArray => Tag::ByteArray(ints(v)?.into()),
        TagType::IntArray => Tag::IntArray(ints(v)?.into()),
        TagType::LongArray => Tag::LongArray(ints(v)?.into()),
        TagType::String => match v {
            Json::String(u) => Tag::String(NbtString::from_utf16(u)),
            _ => return Err(bad("expected a string")),
        },
        TagType::Compound => Tag::Compound(super::guard(depth, || object_to_compound(v, depth))?),
        TagType::List => {
            let et = tag_type_of(member(node, "element_type")?)?;
            let Json::Array(items) = v else {
                return Err(bad("expected a list array"));
            };
            let mut list = List::empty(et);
            for (i, it) in items.iter().enumerate() {
                let at = || PathSegment::Index(i);
                let t = super::guard(depth, || node_to_tag(it, depth + 1))
                    .map_err(|e| e.within(at()))?;
                if t.tag_type() != et {
                    return Err(bad("list element of the wrong type").within(at()));
                }
                list.push(t)
                    .map_err(|_| bad("list element of the wrong type").within(at()))?;
            }
            Tag::List(list)
        }
    })
}

fn object_to_compound(v: &Json, depth: usize) -> Got<Compound> {
    let Json::Object(m) = v else {
        return Err(bad("expected a compound object"));
    };
    let mut c = Compound::with_capacity(m.len());
    for (k, n) in m {
        let key = NbtString::from_utf16(k);
        let t = node_to_tag(n, depth + 1)
            .map_err(|e| e.within(PathSegment::Field(key.to_str_lossy().into_owned().into())))?;
        c.entries_mut().push((key, t));
    }
    Ok(c)
}

/// One root from its dump object `{name, type, value}`. An error is
/// [`NbtErrorKind::DumpEntry`] with the tag path of the node that is wrong.
pub fn root_from_json(j: &Json) -> Result<Nbt> {
    decode(j).map_err(|e| e.at_root(None))
}

fn decode(j: &Json) -> Got<Nbt> {
    let name = match member(j, "name")? {
        Json::Null => None,
        Json::String(u) => Some(NbtString::from_utf16(u)),
        _ => return Err(bad("\"name\" must be a string or null")),
    };
    Ok(Nbt {
        name,
        tag: node_to_tag(j, 0)?,
    })
}

/// The roots of a dump: `roots: [...]` or the single root at the top level. An error is
/// [`NbtErrorKind::DumpEntry`] naming the root (its index in `roots`) and the tag path in it.
pub fn roots_from_json(j: &Json) -> Result<Vec<Nbt>> {
    match j.get("roots") {
        Some(Json::Array(a)) => a
            .iter()
            .enumerate()
            .map(|(i, r)| decode(r).map_err(|e| e.at_root(Some(i))))
            .collect(),
        Some(_) => Err(bad("\"roots\" must be an array").at_root(None)),
        None => Ok(vec![root_from_json(j)?]),
    }
}
