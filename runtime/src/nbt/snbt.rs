//! SNBT, the text form of NBT (`{name:"Steve",pos:[1.0d,64.0d,2.5d],id:3b}`).
//!
//! Printing uses the classic grammar (Minecraft before 1.21.5, which newer versions still
//! read): suffixes `b s L f d`, typed arrays `[B;…]`, `[I;…]`, `[L;…]`, keys unquoted when they
//! are `[A-Za-z0-9._+-]+`, strings in double quotes. Two things classic SNBT cannot say are
//! printed as extensions our parser reads back: a lone surrogate as `\uXXXX` inside a quoted
//! string, and non-finite floats as `NaNf`, `Infinityd`, `-Infinityf` (NaN payloads are lost).
//! An empty list prints as `[]` and so parses back as an untyped ([`List::End`]) list: SNBT has
//! no way to write the element type of an empty list.
//!
//! Parsing accepts the classic grammar plus the common newer conveniences: single-quoted
//! strings, `\n \t \r \b \f \s \xXX \uXXXX \UXXXXXXXX` escapes, `true`/`false`, unsuffixed
//! decimals as doubles, and trailing whitespace. Bare words that are not numbers are strings,
//! as in Minecraft (so `123456789012` without `L` is a string, being out of int range).
//! Nesting is limited like binary input ([`MAX_DEPTH_CAP`], default 512).

use std::fmt::Write as _;

use super::error::{NbtError, Result};
use super::read::{DEFAULT_MAX_DEPTH, MAX_DEPTH_CAP};
use super::tag::{Compound, List, Nbt, NbtString, Tag};
use super::view::TagView;

// ---------------------------------------------------------------- printing

/// Prints a tag as compact classic SNBT.
pub fn to_snbt(tag: &Tag) -> String {
    let mut out = String::new();
    push_tag(&mut out, tag.view());
    out
}

fn bare_ok(b: &[u8]) -> bool {
    !b.is_empty()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b'+'))
}

fn push_quoted(out: &mut String, s: &NbtString) {
    out.push('"');
    let units = s.to_utf16();
    for ch in char::decode_utf16(units.iter().copied()) {
        match ch {
            Ok('"') => out.push_str("\\\""),
            Ok('\\') => out.push_str("\\\\"),
            Ok(c) => out.push(c),
            Err(e) => {
                let _ = write!(out, "\\u{:04X}", e.unpaired_surrogate());
            }
        }
    }
    out.push('"');
}

fn push_key(out: &mut String, k: &NbtString) {
    if bare_ok(k.as_mutf8()) {
        // Bare keys are ASCII, identical in MUTF-8.
        out.push_str(&k.to_str_lossy());
    } else {
        push_quoted(out, k);
    }
}

fn push_float(out: &mut String, v: f64, finite: bool, suffix: char, text: impl std::fmt::Debug) {
    if finite {
        let _ = write!(out, "{text:?}{suffix}");
    } else if v.is_nan() {
        let _ = write!(out, "NaN{suffix}");
    } else if v > 0.0 {
        let _ = write!(out, "Infinity{suffix}");
    } else {
        let _ = write!(out, "-Infinity{suffix}");
    }
}

fn push_seq<T>(out: &mut String, prefix: &str, v: &[T], mut f: impl FnMut(&mut String, &T)) {
    out.push('[');
    out.push_str(prefix);
    for (i, x) in v.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        f(out, x);
    }
    out.push(']');
}

fn push_tag(out: &mut String, tag: TagView<'_>) {
    match tag {
        TagView::Byte(v) => {
            let _ = write!(out, "{v}b");
        }
        TagView::Short(v) => {
            let _ = write!(out, "{v}s");
        }
        TagView::Int(v) => {
            let _ = write!(out, "{v}");
        }
        TagView::Long(v) => {
            let _ = write!(out, "{v}L");
        }
        TagView::Float(v) => push_float(out, v as f64, v.is_finite(), 'f', v),
        TagView::Double(v) => push_float(out, v, v.is_finite(), 'd', v),
        TagView::ByteArray(v) => push_seq(out, "B;", v, |o, x| {
            let _ = write!(o, "{x}b");
        }),
        TagView::IntArray(v) => push_seq(out, "I;", v, |o, x| {
            let _ = write!(o, "{x}");
        }),
        TagView::LongArray(v) => push_seq(out, "L;", v, |o, x| {
            let _ = write!(o, "{x}L");
        }),
        TagView::String(s) => push_quoted(out, s),
        TagView::List(l) => super::guard(0, || push_list(out, l)),
        TagView::Compound(c) => super::guard(0, || {
            out.push('{');
            for (i, (k, v)) in c.entries().iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_key(out, k);
                out.push(':');
                push_tag(out, v.view());
            }
            out.push('}');
        }),
    }
}

fn push_list(out: &mut String, l: &List) {
    out.push('[');
    for (i, t) in l.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_tag(out, t);
    }
    out.push(']');
}

// ---------------------------------------------------------------- parsing

/// Parses SNBT text (one value, surrounding whitespace allowed).
pub fn parse(text: &str) -> Result<Tag> {
    let mut p = Parser {
        s: text,
        i: 0,
        max_depth: DEFAULT_MAX_DEPTH.min(MAX_DEPTH_CAP),
    };
    let t = p.value(0)?;
    p.ws();
    if p.i != p.s.len() {
        return Err(p.err("trailing text after the value"));
    }
    Ok(t)
}

/// Parses SNBT text as a nameless root (SNBT has no root name).
pub fn parse_root(text: &str) -> Result<Nbt> {
    Ok(Nbt::nameless(parse(text)?))
}

struct Parser<'a> {
    s: &'a str,
    i: usize,
    max_depth: usize,
}

impl Parser<'_> {
    #[cold]
    fn err(&self, message: &str) -> NbtError {
        // The position may be inside a multi-byte character (after `\` and a non-ASCII byte).
        let mut end = self.i.min(self.s.len());
        while !self.s.is_char_boundary(end) {
            end -= 1;
        }
        let before = &self.s[..end];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        NbtError::Snbt {
            line,
            column,
            message: message.to_string(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.as_bytes().get(self.i).copied()
    }

    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.i += 1;
        }
    }

    fn expect(&mut self, c: u8) -> Result<()> {
        self.ws();
        if self.peek() == Some(c) {
            self.i += 1;
            Ok(())
        } else {
            Err(self.err(&format!("expected '{}'", c as char)))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Tag> {
        self.ws();
        match self.peek() {
            None => Err(self.err("expected a value")),
            Some(b'{') => {
                if depth + 1 > self.max_depth {
                    return Err(self.err("nested too deeply"));
                }
                super::guard(depth, || self.compound(depth + 1)).map(Tag::Compound)
            }
            Some(b'[') => {
                if depth + 1 > self.max_depth {
                    return Err(self.err("nested too deeply"));
                }
                super::guard(depth, || self.list_or_array(depth + 1))
            }
            Some(b'"' | b'\'') => Ok(Tag::String(self.quoted()?)),
            Some(_) => {
                let word = self.bare();
                if word.is_empty() {
                    return Err(self.err("expected a value"));
                }
                Ok(bare_value(word))
            }
        }
    }

    fn bare(&mut self) -> &str {
        let start = self.i;
        while let Some(c) = self.peek() {
            if c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b'+') {
                self.i += 1;
            } else {
                break;
            }
        }
        &self.s[start..self.i]
    }

    fn key(&mut self) -> Result<NbtString> {
        self.ws();
        match self.peek() {
            Some(b'"' | b'\'') => self.quoted(),
            _ => {
                let w = self.bare();
                if w.is_empty() {
                    return Err(self.err("expected a key"));
                }
                Ok(NbtString::from(w))
            }
        }
    }

    fn compound(&mut self, depth: usize) -> Result<Compound> {
        self.i += 1;
        let mut c = Compound::new();
        self.ws();
        if self.peek() == Some(b'}') {
            self.i += 1;
            return Ok(c);
        }
        loop {
            let k = self.key()?;
            self.expect(b':')?;
            let v = self.value(depth)?;
            c.entries_mut().push((k, v));
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    return Ok(c);
                }
                _ => return Err(self.err("expected ',' or '}'")),
            }
        }
    }

    fn list_or_array(&mut self, depth: usize) -> Result<Tag> {
        self.i += 1;
        self.ws();
        let b = self.s.as_bytes();
        if let (Some(&t @ (b'B' | b'I' | b'L')), Some(b';')) = (b.get(self.i), b.get(self.i + 1)) {
            self.i += 2;
            return self.array(t);
        }
        let mut list = List::End;
        self.ws();
        if self.peek() == Some(b']') {
            self.i += 1;
            return Ok(Tag::List(list));
        }
        loop {
            let v = self.value(depth)?;
            if list.push(v).is_err() {
                return Err(self.err("list elements must all have the same type"));
            }
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    return Ok(Tag::List(list));
                }
                _ => return Err(self.err("expected ',' or ']'")),
            }
        }
    }

    fn array(&mut self, kind: u8) -> Result<Tag> {
        let mut bytes = Vec::new();
        let mut ints = Vec::new();
        let mut longs = Vec::new();
        self.ws();
        if self.peek() != Some(b']') {
            loop {
                self.ws();
                let w = self.bare();
                let ok = match (kind, bare_value(w)) {
                    (b'B', Tag::Byte(v)) => {
                        bytes.push(v);
                        true
                    }
                    (b'I', Tag::Int(v)) => {
                        ints.push(v);
                        true
                    }
                    (b'L', Tag::Long(v)) => {
                        longs.push(v);
                        true
                    }
                    _ => false,
                };
                if !ok {
                    return Err(self.err("array element of the wrong type"));
                }
                self.ws();
                match self.peek() {
                    Some(b',') => self.i += 1,
                    Some(b']') => break,
                    _ => return Err(self.err("expected ',' or ']'")),
                }
            }
        }
        self.i += 1;
        Ok(match kind {
            b'B' => Tag::ByteArray(bytes),
            b'I' => Tag::IntArray(ints),
            _ => Tag::LongArray(longs),
        })
    }

    fn hex(&mut self, n: usize) -> Result<u32> {
        let h = self
            .s
            .get(self.i..self.i + n)
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .ok_or_else(|| self.err("bad hex escape"))?;
        self.i += n;
        Ok(h)
    }

    fn quoted(&mut self) -> Result<NbtString> {
        let q = self.peek().unwrap_or(b'"');
        self.i += 1;
        let mut units: Vec<u16> = Vec::new();
        loop {
            let rest = &self.s[self.i..];
            let Some(pos) = rest.find([q as char, '\\']) else {
                return Err(self.err("unterminated string"));
            };
            units.extend(rest[..pos].encode_utf16());
            self.i += pos;
            if self.peek() == Some(q) {
                self.i += 1;
                return Ok(NbtString::from_utf16(&units));
            }
            self.i += 1;
            let e = self.peek().ok_or_else(|| self.err("unterminated string"))?;
            self.i += 1;
            let cp = match e {
                b'\\' | b'"' | b'\'' => e as u32,
                b'n' => 10,
                b't' => 9,
                b'r' => 13,
                b'b' => 8,
                b'f' => 12,
                b's' => 32,
                b'x' => self.hex(2)?,
                b'u' => self.hex(4)?,
                b'U' => self.hex(8)?,
                _ => return Err(self.err("unknown escape")),
            };
            if cp <= 0xFFFF {
                units.push(cp as u16);
            } else {
                let c = char::from_u32(cp).ok_or_else(|| self.err("bad code point"))?;
                let mut buf = [0u16; 2];
                units.extend_from_slice(c.encode_utf16(&mut buf));
            }
        }
    }
}

/// Classifies a bare word: number with suffix, `true`/`false`, or a string.
fn bare_value(w: &str) -> Tag {
    let (body, last) = match w.as_bytes().last() {
        Some(&c) => (&w[..w.len() - 1], c.to_ascii_lowercase()),
        None => return Tag::String(NbtString::default()),
    };
    let is_int = |s: &str| {
        let d = s.strip_prefix(['-', '+']).unwrap_or(s);
        !d.is_empty() && d.bytes().all(|c| c.is_ascii_digit())
    };
    let is_float = |s: &str| {
        let d = s.strip_prefix(['-', '+']).unwrap_or(s);
        let (mant, exp) = match d.find(['e', 'E']) {
            Some(p) => (&d[..p], Some(&d[p + 1..])),
            None => (d, None),
        };
        let mut parts = mant.splitn(2, '.');
        let a = parts.next().unwrap_or("");
        let b = parts.next();
        let digits = |x: &str| x.bytes().all(|c| c.is_ascii_digit());
        let mant_ok = digits(a) && b.is_none_or(digits) && (a.len() + b.map_or(0, str::len)) > 0;
        let exp_ok = exp.is_none_or(|e| {
            let e = e.strip_prefix(['-', '+']).unwrap_or(e);
            !e.is_empty() && digits(e)
        });
        mant_ok && exp_ok
    };
    let special = |s: &str| matches!(s, "NaN" | "Infinity" | "-Infinity" | "+Infinity");
    let parsed: Option<Tag> = match last {
        b'b' if is_int(body) => body.parse().ok().map(Tag::Byte),
        b's' if is_int(body) => body.parse().ok().map(Tag::Short),
        b'l' if is_int(body) => body.parse().ok().map(Tag::Long),
        b'f' if is_float(body) || special(body) => body.parse().ok().map(Tag::Float),
        b'd' if is_float(body) || special(body) => body.parse().ok().map(Tag::Double),
        _ if is_int(w) => w.parse().ok().map(Tag::Int),
        _ if is_float(w) && (w.contains('.') || w.contains(['e', 'E'])) => {
            w.parse().ok().map(Tag::Double)
        }
        _ => None,
    };
    match parsed {
        Some(t) => t,
        None if w == "true" => Tag::Byte(1),
        None if w == "false" => Tag::Byte(0),
        None => Tag::String(NbtString::from(w)),
    }
}

impl std::fmt::Display for Tag {
    /// Formats as compact SNBT.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&to_snbt(self))
    }
}
