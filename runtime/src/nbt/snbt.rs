//! SNBT, the text form of NBT (`{name:"Steve",pos:[1.0d,64.0d,2.5d],id:3b}`), in both of
//! Minecraft's languages ([`Dialect`]): the classic one, and the one of Java Edition 1.21.5+.
//!
//! **Classic** ([`parse`], [`to_snbt`]; unchanged): printing uses suffixes `b s L f d`, typed
//! arrays `[B;…]`, `[I;…]`, `[L;…]`, keys unquoted when they are `[A-Za-z0-9._+-]+`, strings in
//! double quotes. Two things classic SNBT cannot say are printed as extensions our parser reads
//! back: a lone surrogate as `\uXXXX` inside a quoted string, a control, format or
//! bidirectional character (the workspace's hidden characters, `def_text::is_hidden`) as
//! `\uXXXX` or `\UXXXXXXXX`, so that printed SNBT cannot drive a terminal, and non-finite floats as `NaNf`,
//! `Infinityd`, `-Infinityf` (NaN payloads are lost). An empty list prints as `[]` and so parses
//! back as an untyped ([`List::End`]) list: SNBT has no way to write the element type of an
//! empty list. Parsing accepts the classic grammar plus the common newer conveniences:
//! single-quoted strings, the escapes listed below, `true`/`false`, unsuffixed decimals as
//! doubles. Bare words that are not numbers are strings, as in Minecraft before 1.21.5 (so
//! `123456789012` without `L` is a string, being out of int range, and so is `0x10`).
//!
//! **1.21.5+** ([`parse_in`] / [`to_snbt_in`] with [`Dialect::Modern`]), what changed:
//!
//! * integers in hexadecimal (`0xbad`) and binary (`0b101`), `_` between digits (`1_000`), a
//!   type letter `b s i l` (any case) optionally preceded by `s` (signed) or `u` (unsigned):
//!   `255ub` is the byte -1. Decimal is signed by default, hexadecimal and binary unsigned
//!   (`0xFFFFFFFF` is the int -1); out of range is an error, not a string. Since `b` is a
//!   hexadecimal digit, `0x1b` is the int 27 (a hexadecimal byte is `0x1bub` or `0x1bsb`). A
//!   decimal integer may not start with `0` (`01` is an error).
//! * floats `1.`, `.5`, `1e3`, `1.5e-3f`, with `_` between digits;
//! * unquoted strings may not start with `0-9 . + -` (such text is a number or an error);
//! * `bool(x)` (a byte: 1 if the number `x` is not 0) and `uuid(…)` (the four ints of a UUID);
//! * lists of mixed element types, stored as Minecraft stores them: a list of compounds where
//!   each element that is not a compound becomes `{"": element}` (and a compound of exactly
//!   that shape is wrapped once more); elements of one type still make a plain typed list;
//! * in arrays, an element without a type letter takes the array's type (`[B;1,2]`), and one
//!   with a letter may be narrower (`[I;1b,2s]`) but not wider (`[B;1s]` is an error);
//! * trailing commas in lists, arrays and compounds.
//!
//! Escapes in quoted strings (both dialects): `\\ \" \' \b \f \n \r \s \t`, `\xHH`,
//! `\uHHHH`, `\UHHHHHHHH` and `\N{name}`. **Decision for `\N{..}`:** the full Unicode name
//! list, looked up case-insensitively with the `unicode_names2` crate (as Java's
//! `Character.codePointOf` does, so `\N{snowman}` is `☃`); an unknown name is an error with its
//! position ([`NbtErrorKind::Snbt`]), never a guess.
//!
//! Writing [`Dialect::Modern`] differs from classic only where the new language needs it: keys
//! that start like a number are quoted, control characters are written with the short escapes
//! (`\n`, `\t`, `\xHH`), infinities are written
//! `1e999d` (Minecraft reads an overflowing literal as infinity) and NaN, which the language
//! cannot say, is refused. Nesting is limited like binary input ([`MAX_DEPTH_CAP`], default
//! 512): lists, compounds and operations each count one level.

use std::fmt::Write as _;

use super::error::{NbtError, NbtErrorKind, Result};
use super::read::{DEFAULT_MAX_DEPTH, MAX_DEPTH_CAP};
use super::tag::{Compound, List, Nbt, NbtString, Tag};
use super::view::TagView;

// ---------------------------------------------------------------- printing

/// Which SNBT language: Minecraft's classic one, or the one of Java Edition 1.21.5 and later.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Dialect {
    /// Before 1.21.5 (and our parser's conveniences, see the module docs).
    #[default]
    Classic,
    /// Java Edition 1.21.5 and later (snapshots 25w09a, 25w10a).
    Modern,
}

/// Prints a tag as compact classic SNBT.
pub fn to_snbt(tag: &Tag) -> String {
    let mut p = Printer::new(Dialect::Classic, false);
    p.tag(tag.view());
    p.out
}

/// Prints a tag as compact SNBT of `dialect`. In [`Dialect::Modern`], keys that start like a
/// number are quoted, control characters in strings are escaped (`\n`, `\t`, `\xHH`, …),
/// infinities are written `1e999f` / `-1e999d` (the language has no infinity, and Minecraft
/// reads an overflowing literal as one), and NaN, which has no form at all, is refused
/// ([`NbtErrorKind::Unwritable`]). [`Dialect::Classic`] gives [`to_snbt`]'s text.
pub fn to_snbt_in(tag: &Tag, dialect: Dialect) -> Result<String> {
    Printer::new(dialect, false).finish(tag)
}

/// Prints a tag as indented SNBT of `dialect`, one compound entry per line, for people to read:
/// four spaces per level (at most 16 levels' worth, so that deep nesting cannot multiply the
/// text's size), `key: value`, lists of lists, compounds or arrays one element per
/// line, other lists and arrays on one line (`[1.0d, 64.0d, 2.5d]`, `[I; 1, 2]`), empty ones
/// `{}` / `[]`. Values, keys and escapes are [`to_snbt_in`]'s, so the text parses back
/// ([`parse_in`]) to the same tree as the compact form, with the same error for NaN in
/// [`Dialect::Modern`]; only whitespace outside strings differs.
pub fn to_snbt_pretty(tag: &Tag, dialect: Dialect) -> Result<String> {
    Printer::new(dialect, true).finish(tag)
}

fn bare_ok(b: &[u8]) -> bool {
    !b.is_empty()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b'+'))
}

struct Printer {
    out: String,
    dialect: Dialect,
    nan: bool,
    /// Indented output ([`to_snbt_pretty`]).
    pretty: bool,
    /// Nesting level of what is being printed.
    depth: usize,
}

/// One level of [`to_snbt_pretty`]'s indentation.
const INDENT: &str = "    ";

/// Levels past this are indented as this one, so that the text stays within a constant factor
/// of the tree however deep it nests (512 levels of four spaces would be 2 KiB before every
/// entry). Real files nest up to about 12.
const MAX_INDENT: usize = 16;

impl Printer {
    fn new(dialect: Dialect, pretty: bool) -> Printer {
        Printer {
            out: String::new(),
            dialect,
            nan: false,
            pretty,
            depth: 0,
        }
    }

    fn finish(mut self, tag: &Tag) -> Result<String> {
        self.tag(tag.view());
        if self.nan {
            return Err(NbtError::unwritable(
                "NaN has no form in the SNBT of Minecraft 1.21.5+",
            ));
        }
        Ok(self.out)
    }

    /// Between two elements: `,`, and in pretty output a space, or a new line indented to
    /// `depth` when `lines`.
    fn sep(&mut self, lines: bool) {
        if lines {
            self.out.push('\n');
            for _ in 0..self.depth.min(MAX_INDENT) {
                self.out.push_str(INDENT);
            }
        } else if self.pretty {
            self.out.push(' ');
        }
    }
}

impl Printer {
    fn quoted(&mut self, s: &NbtString) {
        let out = &mut self.out;
        out.push('"');
        let units = s.to_utf16();
        for ch in char::decode_utf16(units.iter().copied()) {
            match ch {
                Ok('"') => out.push_str("\\\""),
                Ok('\\') => out.push_str("\\\\"),
                Ok(c) if self.dialect == Dialect::Modern && c.is_control() => match c {
                    '\n' => out.push_str("\\n"),
                    '\t' => out.push_str("\\t"),
                    '\r' => out.push_str("\\r"),
                    '\u{8}' => out.push_str("\\b"),
                    '\u{c}' => out.push_str("\\f"),
                    c if (c as u32) < 0x100 => {
                        let _ = write!(out, "\\x{:02X}", c as u32);
                    }
                    c => {
                        let _ = write!(out, "\\u{:04X}", c as u32);
                    }
                },
                // The workspace's rule for text that reaches a terminal (`def_text`): control,
                // format and bidirectional characters are escapes, in the classic dialect too
                // (`\uXXXX`, `\UXXXXXXXX`: escapes the parser reads, as for lone surrogates).
                Ok(c) if def_text::is_hidden(c) => {
                    let _ = if (c as u32) <= 0xFFFF {
                        write!(out, "\\u{:04X}", c as u32)
                    } else {
                        write!(out, "\\U{:08X}", c as u32)
                    };
                }
                Ok(c) => out.push(c),
                Err(e) => {
                    let _ = write!(out, "\\u{:04X}", e.unpaired_surrogate());
                }
            }
        }
        out.push('"');
    }

    fn key(&mut self, k: &NbtString) {
        let b = k.as_mutf8();
        let number_like = self.dialect == Dialect::Modern
            && matches!(b.first(), Some(b'0'..=b'9' | b'.' | b'+' | b'-'));
        if bare_ok(b) && !number_like {
            // Bare keys are ASCII, identical in MUTF-8.
            self.out.push_str(&k.to_str_lossy());
        } else {
            self.quoted(k);
        }
    }

    fn float(&mut self, v: f64, finite: bool, suffix: char, text: impl std::fmt::Debug) {
        let out = &mut self.out;
        if finite {
            let _ = write!(out, "{text:?}{suffix}");
        } else if v.is_nan() {
            self.nan |= self.dialect == Dialect::Modern;
            let _ = write!(out, "NaN{suffix}");
        } else {
            let sign = if v > 0.0 { "" } else { "-" };
            match self.dialect {
                Dialect::Modern => write!(out, "{sign}1e999{suffix}"),
                _ => write!(out, "{sign}Infinity{suffix}"),
            }
            .expect("writing to a String cannot fail");
        }
    }

    fn seq<T: Copy>(&mut self, prefix: &str, v: &[T], f: impl Fn(&mut String, T)) {
        self.out.push('[');
        self.out.push_str(prefix);
        for (i, x) in v.iter().enumerate() {
            if i > 0 {
                self.out.push(',');
                self.sep(false);
            } else if self.pretty {
                self.out.push(' ');
            }
            f(&mut self.out, *x);
        }
        self.out.push(']');
    }

    /// A list or compound of `n` elements between `open` and `close`, each printed by `item`,
    /// one a line in pretty output when `lines`.
    fn container(
        &mut self,
        open: char,
        close: char,
        n: usize,
        lines: bool,
        mut item: impl FnMut(&mut Printer, usize),
    ) {
        let lines = lines && self.pretty && n > 0;
        self.out.push(open);
        self.depth += 1;
        super::guard(self.depth, || {
            for i in 0..n {
                if i > 0 {
                    self.out.push(',');
                    self.sep(lines);
                } else if lines {
                    self.sep(true);
                }
                item(self, i);
            }
        });
        self.depth -= 1;
        if lines {
            self.sep(true);
        }
        self.out.push(close);
    }

    fn tag(&mut self, tag: TagView<'_>) {
        match tag {
            TagView::Byte(v) => {
                let _ = write!(self.out, "{v}b");
            }
            TagView::Short(v) => {
                let _ = write!(self.out, "{v}s");
            }
            TagView::Int(v) => {
                let _ = write!(self.out, "{v}");
            }
            TagView::Long(v) => {
                let _ = write!(self.out, "{v}L");
            }
            TagView::Float(v) => self.float(v as f64, v.is_finite(), 'f', v),
            TagView::Double(v) => self.float(v, v.is_finite(), 'd', v),
            TagView::ByteArray(v) => self.seq("B;", v, |o, x| {
                let _ = write!(o, "{x}b");
            }),
            TagView::IntArray(v) => self.seq("I;", v, |o, x| {
                let _ = write!(o, "{x}");
            }),
            TagView::LongArray(v) => self.seq("L;", v, |o, x| {
                let _ = write!(o, "{x}L");
            }),
            TagView::String(s) => self.quoted(s),
            TagView::List(l) => {
                let lines = matches!(
                    l,
                    List::List(_)
                        | List::Compound(_)
                        | List::ByteArray(_)
                        | List::IntArray(_)
                        | List::LongArray(_)
                );
                self.container('[', ']', l.len(), lines, |p, i| {
                    p.tag(l.get(i).expect("index below the length"))
                });
            }
            TagView::Compound(c) => {
                let entries = c.entries();
                self.container('{', '}', entries.len(), true, |p, i| {
                    let (k, v) = &entries[i];
                    p.key(k);
                    p.out.push(':');
                    if p.pretty {
                        p.out.push(' ');
                    }
                    p.tag(v.view());
                });
            }
        }
    }
}

// ---------------------------------------------------------------- parsing

/// Parses classic SNBT text (one value, surrounding whitespace allowed).
pub fn parse(text: &str) -> Result<Tag> {
    parse_in(text, Dialect::Classic)
}

/// Parses SNBT text of `dialect` (one value, surrounding whitespace allowed).
pub fn parse_in(text: &str, dialect: Dialect) -> Result<Tag> {
    let mut p = Parser {
        s: text,
        i: 0,
        max_depth: DEFAULT_MAX_DEPTH.min(MAX_DEPTH_CAP),
        dialect,
    };
    let t = p.value(0)?;
    p.ws();
    if p.i != p.s.len() {
        return Err(p.err("trailing text after the value"));
    }
    Ok(t)
}

/// Parses classic SNBT text as a nameless root (SNBT has no root name).
pub fn parse_root(text: &str) -> Result<Nbt> {
    Ok(Nbt::nameless(parse(text)?))
}

struct Parser<'a> {
    s: &'a str,
    i: usize,
    max_depth: usize,
    dialect: Dialect,
}

fn unquoted_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b'+')
}

/// An integer literal of the 1.21.5 grammar, before it gets its type.
#[derive(Clone, Copy)]
struct IntLit {
    negative: bool,
    magnitude: u128,
    /// `Some(true)` signed (`s`), `Some(false)` unsigned (`u`), `None`: the base's default.
    signed: Option<bool>,
    /// Hexadecimal or binary (unsigned unless said otherwise).
    based: bool,
    /// Type letter, lowercase (`b s i l`), if written.
    ty: Option<u8>,
}

/// A number of the 1.21.5 grammar.
enum Num {
    Int(IntLit),
    Float(Tag),
}

impl Parser<'_> {
    #[cold]
    fn err(&self, message: &str) -> NbtError {
        self.err_at(self.i, message)
    }

    #[cold]
    fn err_at(&self, at: usize, message: &str) -> NbtError {
        // The position may be inside a multi-byte character (after `\` and a non-ASCII byte).
        let mut end = at.min(self.s.len());
        while !self.s.is_char_boundary(end) {
            end -= 1;
        }
        let before = &self.s[..end];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        NbtError::from(NbtErrorKind::Snbt {
            line,
            column,
            message: message.to_string(),
        })
    }

    fn peek(&self) -> Option<u8> {
        self.s.as_bytes().get(self.i).copied()
    }

    fn peek_at(&self, k: usize) -> Option<u8> {
        self.s.as_bytes().get(self.i + k).copied()
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

    fn modern(&self) -> bool {
        self.dialect == Dialect::Modern
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
            Some(b'0'..=b'9' | b'.' | b'+' | b'-') if self.modern() => {
                let at = self.i;
                match self.number()? {
                    Num::Int(lit) => self.int_tag(lit, lit.ty.unwrap_or(b'i'), at),
                    Num::Float(t) => Ok(t),
                }
            }
            Some(_) => {
                let start = self.i;
                let text = self.s;
                self.bare();
                let word = &text[start..self.i];
                if word.is_empty() {
                    return Err(self.err("expected a value"));
                }
                if !self.modern() {
                    return Ok(bare_value(word));
                }
                self.ws();
                if self.peek() == Some(b'(') {
                    if depth + 1 > self.max_depth {
                        return Err(self.err("nested too deeply"));
                    }
                    return super::guard(depth, || self.operation(start, depth + 1));
                }
                Ok(match word {
                    "true" => Tag::Byte(1),
                    "false" => Tag::Byte(0),
                    w => Tag::String(NbtString::from(w)),
                })
            }
        }
    }

    fn bare(&mut self) -> &str {
        let start = self.i;
        while let Some(c) = self.peek() {
            if unquoted_char(c) {
                self.i += 1;
            } else {
                break;
            }
        }
        &self.s[start..self.i]
    }

    /// Digits of `radix` and `_` separators (not first or last); the digits without `_`.
    fn digits(&mut self, radix: u32) -> Result<String> {
        let start = self.i;
        while let Some(c) = self.peek() {
            if c == b'_' || (c as char).is_digit(radix) {
                self.i += 1;
            } else {
                break;
            }
        }
        let run = &self.s[start..self.i];
        if run.starts_with('_') || run.ends_with('_') {
            return Err(self.err_at(
                if run.starts_with('_') {
                    start
                } else {
                    self.i - 1
                },
                "'_' may only stand between digits",
            ));
        }
        Ok(run.replace('_', ""))
    }

    /// A number of the 1.21.5 grammar, up to the end of its suffix.
    fn number(&mut self) -> Result<Num> {
        let start = self.i;
        let negative = match self.peek() {
            Some(b'-') => {
                self.i += 1;
                true
            }
            Some(b'+') => {
                self.i += 1;
                false
            }
            _ => false,
        };
        let radix = match (self.peek(), self.peek_at(1).map(|c| c.to_ascii_lowercase())) {
            (Some(b'0'), Some(b'x')) => 16,
            (Some(b'0'), Some(b'b')) if matches!(self.peek_at(2), Some(b'0' | b'1')) => 2,
            _ => 10,
        };
        let num = if radix != 10 {
            self.i += 2;
            let at = self.i;
            let d = self.digits(radix)?;
            if d.is_empty() {
                return Err(self.err_at(at, "expected digits after the base prefix"));
            }
            Num::Int(self.int_suffix(negative, &d, radix, at)?)
        } else {
            let int_at = self.i;
            let int = self.digits(10)?;
            let mut frac = None;
            if self.peek() == Some(b'.') {
                self.i += 1;
                frac = Some(if self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    self.digits(10)?
                } else {
                    String::new()
                });
            }
            if int.is_empty() && frac.as_ref().is_none_or(String::is_empty) {
                return Err(self.err_at(
                    start,
                    "unquoted strings may not start with a digit, '.', '+' or '-' (quote it)",
                ));
            }
            let mut exp = None;
            if matches!(self.peek(), Some(b'e' | b'E'))
                && match self.peek_at(1) {
                    Some(b'+' | b'-') => self.peek_at(2).is_some_and(|c| c.is_ascii_digit()),
                    c => c.is_some_and(|c| c.is_ascii_digit()),
                }
            {
                self.i += 1;
                let sign = match self.peek() {
                    Some(c @ (b'+' | b'-')) => {
                        self.i += 1;
                        c as char
                    }
                    _ => '+',
                };
                exp = Some(format!("{sign}{}", self.digits(10)?));
            }
            let suffix = self.peek().map(|c| c.to_ascii_lowercase());
            let is_float = frac.is_some() || exp.is_some() || matches!(suffix, Some(b'f' | b'd'));
            if is_float {
                let text = format!(
                    "{}{int}.{}e{}",
                    if negative { "-" } else { "" },
                    frac.as_deref().filter(|f| !f.is_empty()).unwrap_or("0"),
                    exp.as_deref().unwrap_or("0")
                );
                let text = text.replacen("-.", "-0.", 1);
                let text = if text.starts_with('.') {
                    format!("0{text}")
                } else {
                    text
                };
                let tag = match suffix {
                    Some(b'f') => {
                        self.i += 1;
                        text.parse::<f32>().ok().map(Tag::Float)
                    }
                    Some(b'd') => {
                        self.i += 1;
                        text.parse::<f64>().ok().map(Tag::Double)
                    }
                    _ => text.parse::<f64>().ok().map(Tag::Double),
                };
                Num::Float(tag.ok_or_else(|| self.err_at(start, "malformed number"))?)
            } else {
                if int.len() > 1 && int.starts_with('0') {
                    return Err(self.err_at(int_at, "decimal integers may not start with 0"));
                }
                Num::Int(self.int_suffix(negative, &int, 10, int_at)?)
            }
        };
        if self.peek().is_some_and(unquoted_char) {
            return Err(self.err_at(
                start,
                "unquoted strings may not start with a digit, '.', '+' or '-' (quote it), \
                 and a number ends at its suffix",
            ));
        }
        Ok(num)
    }

    /// The signedness and type letters after an integer's digits.
    fn int_suffix(
        &mut self,
        negative: bool,
        digits: &str,
        radix: u32,
        at: usize,
    ) -> Result<IntLit> {
        let magnitude = u128::from_str_radix(digits, radix)
            .map_err(|_| self.err_at(at, "integer too large"))?;
        let lower = |c: Option<u8>| c.map(|c| c.to_ascii_lowercase());
        let (signed, ty) = match (lower(self.peek()), lower(self.peek_at(1))) {
            (Some(s @ (b's' | b'u')), Some(t @ (b'b' | b's' | b'i' | b'l'))) => {
                self.i += 2;
                (Some(s == b's'), Some(t))
            }
            (Some(t @ (b'b' | b's' | b'i' | b'l')), _) => {
                self.i += 1;
                (None, Some(t))
            }
            _ => (None, None),
        };
        Ok(IntLit {
            negative,
            magnitude,
            signed,
            based: radix != 10,
            ty,
        })
    }

    /// The tag of an integer literal as type `ty` (`b s i l`), range-checked.
    fn int_tag(&self, lit: IntLit, ty: u8, at: usize) -> Result<Tag> {
        let bits = match ty {
            b'b' => 8,
            b's' => 16,
            b'i' => 32,
            _ => 64,
        };
        let signed = lit.signed.unwrap_or(!lit.based);
        let m = lit.magnitude;
        let v: i64 = if signed {
            let max = 1u128 << (bits - 1);
            if (lit.negative && m > max) || (!lit.negative && m >= max) {
                return Err(self.err_at(at, "integer out of range for its type"));
            }
            if lit.negative {
                (m as i128).wrapping_neg() as i64
            } else {
                m as i64
            }
        } else {
            if lit.negative && m != 0 {
                return Err(self.err_at(at, "an unsigned integer cannot be negative"));
            }
            if m >> bits != 0 {
                return Err(self.err_at(at, "integer out of range for its type"));
            }
            m as u64 as i64
        };
        Ok(match ty {
            b'b' => Tag::Byte(v as i8),
            b's' => Tag::Short(v as i16),
            b'i' => Tag::Int(v as i32),
            _ => Tag::Long(v),
        })
    }

    /// `bool(x)` and `uuid(s)`, the operations of the 1.21.5 grammar.
    fn operation(&mut self, start: usize, depth: usize) -> Result<Tag> {
        let name = &self.s[start..];
        let name = &name[..name
            .find(|c: char| !unquoted_char(c as u8) || !c.is_ascii())
            .unwrap_or(name.len())];
        self.i += 1;
        let mut args = Vec::new();
        self.ws();
        if self.peek() == Some(b')') {
            self.i += 1;
        } else {
            loop {
                args.push(self.value(depth)?);
                self.ws();
                match self.peek() {
                    Some(b',') => self.i += 1,
                    Some(b')') => {
                        self.i += 1;
                        break;
                    }
                    _ => return Err(self.err("expected ',' or ')'")),
                }
            }
        }
        match (name, args.as_slice()) {
            ("bool", [a]) => match a.as_f64().or_else(|| a.as_i64().map(|v| v as f64)) {
                Some(v) => Ok(Tag::Byte((v != 0.0) as i8)),
                None => Err(self.err_at(start, "bool(..) takes a number or a boolean")),
            },
            ("uuid", [a]) => (a.as_string())
                .and_then(|s| uuid(&s.to_str_lossy()))
                .map(|u| Tag::IntArray(u.into()))
                .ok_or_else(|| {
                    self.err_at(start, "uuid(..) takes a UUID like 8-4-4-4-12 hex digits")
                }),
            ("bool" | "uuid", _) => Err(self.err_at(start, "wrong arguments for the operation")),
            _ => Err(self.err_at(
                start,
                "unknown operation (1.21.5 has bool(..) and uuid(..))",
            )),
        }
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

    /// After a `,` in a collection: whether the collection closes here (a trailing comma,
    /// allowed by the 1.21.5 grammar).
    fn trailing_close(&mut self, close: u8) -> bool {
        if !self.modern() {
            return false;
        }
        self.ws();
        if self.peek() == Some(close) {
            self.i += 1;
            return true;
        }
        false
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
                Some(b',') => {
                    self.i += 1;
                    if self.trailing_close(b'}') {
                        return Ok(c);
                    }
                }
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
            return if self.modern() {
                self.modern_array(t)
            } else {
                self.array(t)
            };
        }
        self.ws();
        if self.peek() == Some(b']') {
            self.i += 1;
            return Ok(Tag::List(List::End));
        }
        let mut list = List::End;
        // 1.21.5: elements of different types make a list of compounds (see `wrap`).
        let mut mixed: Option<Vec<Tag>> = None;
        loop {
            let at = self.i;
            let v = self.value(depth)?;
            if let Some(m) = &mut mixed {
                m.push(v);
            } else if let Err(v) = list.push(v) {
                if !self.modern() {
                    return Err(self.err_at(at, "list elements must all have the same type"));
                }
                let mut m: Vec<Tag> = std::mem::take(&mut list)
                    .iter()
                    .map(|t| t.to_tag())
                    .collect();
                m.push(v);
                mixed = Some(m);
            }
            self.ws();
            match self.peek() {
                Some(b',') => {
                    self.i += 1;
                    if self.trailing_close(b']') {
                        break;
                    }
                }
                Some(b']') => {
                    self.i += 1;
                    break;
                }
                _ => return Err(self.err("expected ',' or ']'")),
            }
        }
        Ok(Tag::List(match mixed {
            None => list,
            Some(m) => List::Compound(m.into_iter().map(wrap).collect()),
        }))
    }

    /// `[B;…]`, `[I;…]`, `[L;…]` of the 1.21.5 grammar: an element without a type letter takes
    /// the array's type; one with a letter must be of that type or narrower (widened).
    fn modern_array(&mut self, kind: u8) -> Result<Tag> {
        let ty = kind.to_ascii_lowercase();
        let rank = |t: u8| match t {
            b'b' => 0,
            b's' => 1,
            b'i' => 2,
            _ => 3,
        };
        let mut vals: Vec<i64> = Vec::new();
        loop {
            self.ws();
            if self.peek() == Some(b']') {
                self.i += 1;
                break;
            }
            let at = self.i;
            let v = match self.value_for_array()? {
                Num::Int(lit) => {
                    let t = lit.ty.unwrap_or(ty);
                    if rank(t) > rank(ty) {
                        return Err(self.err_at(at, "array element of a wider type than the array"));
                    }
                    self.int_tag(lit, t, at)?.as_i64().expect("an integer tag")
                }
                Num::Float(_) => return Err(self.err_at(at, "array element of the wrong type")),
            };
            vals.push(v);
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    break;
                }
                _ => return Err(self.err("expected ',' or ']'")),
            }
        }
        Ok(match kind {
            b'B' => Tag::ByteArray(vals.into_iter().map(|v| v as i8).collect()),
            b'I' => Tag::IntArray(vals.into_iter().map(|v| v as i32).collect()),
            _ => Tag::LongArray(vals.into()),
        })
    }

    /// An array element: a number, or `true` / `false` (bytes).
    fn value_for_array(&mut self) -> Result<Num> {
        for (word, v) in [("true", 1), ("false", 0)] {
            if self.s[self.i..].starts_with(word)
                && !self.peek_at(word.len()).is_some_and(unquoted_char)
            {
                self.i += word.len();
                return Ok(Num::Int(IntLit {
                    negative: false,
                    magnitude: v,
                    signed: None,
                    based: false,
                    ty: Some(b'b'),
                }));
            }
        }
        match self.peek() {
            Some(b'0'..=b'9' | b'.' | b'+' | b'-') => self.number(),
            _ => Err(self.err("array element of the wrong type")),
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
            b'B' => Tag::ByteArray(bytes.into()),
            b'I' => Tag::IntArray(ints.into()),
            _ => Tag::LongArray(longs.into()),
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

    /// `\N{name}`: the character of that Unicode name (case-insensitive, as Java's
    /// `Character.codePointOf`); an unknown name is an error.
    fn named_char(&mut self) -> Result<u32> {
        if self.peek() != Some(b'{') {
            return Err(self.err("expected '{' after \\N"));
        }
        let rest = &self.s[self.i + 1..];
        let Some(end) = rest.find('}').filter(|&e| e <= 128) else {
            return Err(self.err("expected a character name and '}' after \\N{"));
        };
        let name = &rest[..end];
        // No character's name starts with a hyphen, and unicode_names2 (4.0) looks behind a
        // hyphen by subtracting 1 from its index, which overflows (a panic where overflow is
        // checked, as in debug builds) when the name starts with one: refused here.
        let c = (!name.starts_with('-'))
            .then(|| unicode_names2::character(name))
            .flatten()
            .ok_or_else(|| self.err("unknown Unicode character name in \\N{..}"))?;
        self.i += end + 2;
        Ok(c as u32)
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
                b'N' => self.named_char()?,
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

/// An element of a list whose elements differ in type, as Minecraft stores it: a compound
/// `{"": value}`; a compound that is not already of that shape stays as it is.
fn wrap(t: Tag) -> Compound {
    match t {
        Tag::Compound(c) if !(c.len() == 1 && c.entries()[0].0.is_empty()) => c,
        t => Compound::new().with("", t),
    }
}

/// A UUID (`8-4-4-4-12` hex digits; Java's `UUID.fromString` also takes shorter groups) as the
/// four ints Minecraft stores, most significant first.
fn uuid(s: &str) -> Option<Vec<i32>> {
    let parts: Vec<&str> = s.split('-').collect();
    let widths = [8, 4, 4, 4, 12];
    if parts.len() != 5 || s.len() > 36 {
        return None;
    }
    let mut v = 0u128;
    for (p, w) in parts.iter().zip(widths) {
        if p.is_empty() || p.len() > w || !p.bytes().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        v = (v << (4 * w)) | u128::from_str_radix(p, 16).ok()?;
    }
    Some(
        (0..4)
            .rev()
            .map(|k| (v >> (32 * k)) as u32 as i32)
            .collect(),
    )
}

impl std::fmt::Display for Tag {
    /// Formats as compact SNBT.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&to_snbt(self))
    }
}
