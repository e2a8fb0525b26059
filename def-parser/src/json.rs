//! A small JSON reader for `deprecated.json` (see [`crate::protocol`]), on `nom` (already a
//! dependency) rather than serde_json: with serde_json, serde and their helpers a build script that uses
//! def-codegen compiled 16 crates or more; with this reader, 12 (see the README).
//!
//! It reads RFC 8259 JSON and keeps what the generator's checks need: the byte offset of every
//! value (errors say `line:column`), object members in file order, and numbers as their exact
//! text (no float rounding: a number is its text, read exactly where it is used). It refuses what would make
//! the data ambiguous: a key twice in one object (with the line of both), nesting deeper than
//! [`MAX_DEPTH`], unpaired UTF-16 surrogates in `\u` escapes, trailing text. A leading UTF-8 byte
//! order mark is skipped, as RFC 8259 allows. Time and memory are linear in the input.

use std::collections::HashMap;
use std::fmt;

use nom::IResult;
use nom::bytes::complete::take_while;
use nom::character::complete::digit1;

/// Deepest nesting of arrays and objects accepted (as serde_json's default).
pub const MAX_DEPTH: usize = 128;

/// A JSON value and where it starts in the text.
#[derive(Debug, Clone, PartialEq)]
pub struct Value {
    /// Byte offset of its first character in the text.
    pub offset: usize,
    /// The value.
    pub kind: Kind,
}

/// The kinds of JSON value.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as written (valid JSON number syntax).
    Number(String),
    /// A string, unescaped.
    String(String),
    /// An array.
    Array(Vec<Value>),
    /// An object's members in file order; keys are unique.
    Object(Vec<(String, Value)>),
}

impl Value {
    /// The members of an object.
    pub fn as_object(&self) -> Option<&Vec<(String, Value)>> {
        match &self.kind {
            Kind::Object(m) => Some(m),
            _ => None,
        }
    }

    #[cfg(test)]
    /// The member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.as_object()?
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }

    #[cfg(test)]
    /// A number written as a plain non-negative integer (no sign, fraction or exponent) that fits
    /// in a `u64`.
    pub fn as_u64(&self) -> Option<u64> {
        match &self.kind {
            Kind::Number(n) if n.bytes().all(|b| b.is_ascii_digit()) => n.parse().ok(),
            _ => None,
        }
    }

    #[cfg(test)]
    /// A boolean.
    pub fn as_bool(&self) -> Option<bool> {
        match self.kind {
            Kind::Bool(b) => Some(b),
            _ => None,
        }
    }
}

/// Why a text is not the JSON this reader accepts, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    /// Line, from 1.
    pub line: usize,
    /// Column in characters, from 1.
    pub column: usize,
    /// What was wrong.
    pub message: String,
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}: {}",
            self.line,
            self.column,
            def_text::shown(&self.message, def_text::TEXT)
        )
    }
}

impl std::error::Error for JsonError {}

/// The line and column (both from 1, the column in characters, a byte order mark not counted)
/// of a byte offset of `text`.
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = &before[line_start..];
    (
        before.matches('\n').count() + 1,
        line.strip_prefix('\u{feff}')
            .unwrap_or(line)
            .chars()
            .count()
            + 1,
    )
}

/// Reads a whole JSON text.
pub fn parse(text: &str) -> Result<Value, JsonError> {
    let p = Reader { text };
    let rest = ws(text.strip_prefix('\u{feff}').unwrap_or(text));
    let (rest, v) = p.value(rest, 0)?;
    let rest = ws(rest);
    if !rest.is_empty() {
        return Err(p.error(rest, "unexpected text after the JSON value".into()));
    }
    Ok(v)
}

/// Skips JSON whitespace (space, tab, line feed, carriage return).
fn ws(i: &str) -> &str {
    let r: IResult<&str, &str> = take_while(|c| matches!(c, ' ' | '\t' | '\n' | '\r'))(i);
    r.map_or(i, |(rest, _)| rest)
}

/// Digits, at least one.
fn digits(i: &str) -> Option<&str> {
    let r: IResult<&str, &str> = digit1(i);
    r.ok().map(|(rest, _)| rest)
}

/// The text after a JSON number at `i` (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`), or
/// where it goes wrong.
fn number(i: &str) -> Result<&str, &str> {
    let sign = i.strip_prefix('-').unwrap_or(i);
    let mut rest = match sign.strip_prefix('0') {
        Some(rest) => rest,
        None => digits(sign).ok_or(sign)?,
    };
    if let Some(frac) = rest.strip_prefix('.') {
        rest = digits(frac).ok_or(frac)?;
    }
    if let Some(exp) = rest.strip_prefix(['e', 'E']) {
        let exp = exp.strip_prefix(['+', '-']).unwrap_or(exp);
        rest = digits(exp).ok_or(exp)?;
    }
    Ok(rest)
}

/// At most this many characters of input are quoted in an error message.
const QUOTE_MAX: usize = 40;

/// `s` for an error message: quoted, escaped, cut at [`QUOTE_MAX`] characters.
fn quote(s: &str) -> String {
    let mut out: String = s.chars().take(QUOTE_MAX).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    format!("{out:?}")
}

struct Reader<'a> {
    text: &'a str,
}

impl<'a> Reader<'a> {
    fn offset(&self, rest: &str) -> usize {
        self.text.len() - rest.len()
    }

    fn error(&self, rest: &str, message: String) -> JsonError {
        let (line, column) = line_column(self.text, self.offset(rest));
        JsonError {
            line,
            column,
            message,
        }
    }

    fn unexpected(&self, rest: &str, expected: &str) -> JsonError {
        let message = match rest.chars().next() {
            None => format!("expected {expected}, found the end of the text"),
            Some(c) => format!("expected {expected}, found {c:?}"),
        };
        self.error(rest, message)
    }

    /// A value at `i` (no leading whitespace), `depth` arrays and objects deep.
    fn value(&self, i: &'a str, depth: usize) -> Result<(&'a str, Value), JsonError> {
        let offset = self.offset(i);
        let (rest, kind) = match i.as_bytes().first() {
            Some(b'{') | Some(b'[') if depth >= MAX_DEPTH => {
                return Err(self.error(i, format!("nested deeper than {MAX_DEPTH} levels")));
            }
            Some(b'{') => self.object(&i[1..], depth + 1)?,
            Some(b'[') => self.array(&i[1..], depth + 1)?,
            Some(b'"') => {
                let (rest, s) = self.string(i)?;
                (rest, Kind::String(s))
            }
            Some(b'-' | b'0'..=b'9') => match number(i) {
                Ok(rest) => {
                    if rest.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '.') {
                        return Err(self.unexpected(rest, "the end of the number"));
                    }
                    let n = &i[..i.len() - rest.len()];
                    (rest, Kind::Number(n.to_string()))
                }
                Err(at) => return Err(self.unexpected(at, "a digit")),
            },
            _ => {
                if let Some(rest) = i.strip_prefix("null") {
                    (rest, Kind::Null)
                } else if let Some(rest) = i.strip_prefix("true") {
                    (rest, Kind::Bool(true))
                } else if let Some(rest) = i.strip_prefix("false") {
                    (rest, Kind::Bool(false))
                } else {
                    return Err(self.unexpected(i, "a JSON value"));
                }
            }
        };
        Ok((rest, Value { offset, kind }))
    }

    /// The members of an object after its `{`.
    fn object(&self, i: &'a str, depth: usize) -> Result<(&'a str, Kind), JsonError> {
        let mut members: Vec<(String, Value)> = Vec::new();
        let mut seen: HashMap<String, usize> = HashMap::new();
        let mut i = ws(i);
        if let Some(rest) = i.strip_prefix('}') {
            return Ok((rest, Kind::Object(members)));
        }
        loop {
            if !i.starts_with('"') {
                return Err(self.unexpected(i, "a key (a string)"));
            }
            let key_at = i;
            let (rest, key) = self.string(i)?;
            if let Some(&first) = seen.get(&key) {
                let (line, _) = line_column(self.text, first);
                return Err(self.error(
                    key_at,
                    format!("duplicate key {} (first at line {line})", quote(&key)),
                ));
            }
            seen.insert(key.clone(), self.offset(key_at));
            let rest = ws(rest);
            let Some(rest) = rest.strip_prefix(':') else {
                return Err(self.unexpected(rest, "`:`"));
            };
            let (rest, v) = self.value(ws(rest), depth)?;
            members.push((key, v));
            let rest = ws(rest);
            if let Some(rest) = rest.strip_prefix(',') {
                i = ws(rest);
            } else if let Some(rest) = rest.strip_prefix('}') {
                return Ok((rest, Kind::Object(members)));
            } else {
                return Err(self.unexpected(rest, "`,` or `}`"));
            }
        }
    }

    /// The elements of an array after its `[`.
    fn array(&self, i: &'a str, depth: usize) -> Result<(&'a str, Kind), JsonError> {
        let mut items = Vec::new();
        let mut i = ws(i);
        if let Some(rest) = i.strip_prefix(']') {
            return Ok((rest, Kind::Array(items)));
        }
        loop {
            let (rest, v) = self.value(i, depth)?;
            items.push(v);
            let rest = ws(rest);
            if let Some(rest) = rest.strip_prefix(',') {
                i = ws(rest);
            } else if let Some(rest) = rest.strip_prefix(']') {
                return Ok((rest, Kind::Array(items)));
            } else {
                return Err(self.unexpected(rest, "`,` or `]`"));
            }
        }
    }

    /// A string at its opening quote, unescaped.
    fn string(&self, i: &'a str) -> Result<(&'a str, String), JsonError> {
        let mut out = String::new();
        let mut i = &i[1..];
        loop {
            let plain: IResult<&str, &str> =
                take_while(|c: char| c != '"' && c != '\\' && c >= ' ')(i);
            let (rest, run) = plain.unwrap_or((i, ""));
            out.push_str(run);
            i = rest;
            match i.chars().next() {
                Some('"') => return Ok((&i[1..], out)),
                Some('\\') => {
                    let (rest, c) = self.escape(i)?;
                    out.push(c);
                    i = rest;
                }
                Some(c) => {
                    return Err(self.error(
                        i,
                        format!("control character {c:?} in a string (write it as an escape)"),
                    ));
                }
                None => return Err(self.error(i, "string not closed".into())),
            }
        }
    }

    /// One escape at its backslash.
    fn escape(&self, i: &'a str) -> Result<(&'a str, char), JsonError> {
        let simple = match i[1..].chars().next() {
            Some('"') => '"',
            Some('\\') => '\\',
            Some('/') => '/',
            Some('b') => '\u{8}',
            Some('f') => '\u{c}',
            Some('n') => '\n',
            Some('r') => '\r',
            Some('t') => '\t',
            Some('u') => {
                let (rest, hi) = self.hex4(i)?;
                if !(0xD800..0xE000).contains(&hi) {
                    let c = char::from_u32(hi).expect("not a surrogate");
                    return Ok((rest, c));
                }
                let lo = if hi < 0xDC00 && rest.starts_with("\\u") {
                    let (rest2, lo) = self.hex4(rest)?;
                    (0xDC00..0xE000).contains(&lo).then_some((rest2, lo))
                } else {
                    None
                };
                let Some((rest, lo)) = lo else {
                    return Err(self.error(i, format!("unpaired UTF-16 surrogate \\u{hi:04x}")));
                };
                let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                return Ok((rest, char::from_u32(c).expect("a surrogate pair is a char")));
            }
            _ => return Err(self.unexpected(&i[1..], "an escape (one of \"\\/bfnrtu)")),
        };
        Ok((&i[2..], simple))
    }

    /// `\uXXXX` at its backslash.
    fn hex4(&self, i: &'a str) -> Result<(&'a str, u32), JsonError> {
        let digits = i
            .get(2..6)
            .filter(|d| d.bytes().all(|b| b.is_ascii_hexdigit()));
        match digits {
            Some(d) => Ok((
                &i[6..],
                u32::from_str_radix(d, 16).expect("four hex digits"),
            )),
            None => Err(self.error(i, "expected four hex digits after \\u".into())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        parse(text).expect_err(text).to_string()
    }

    #[test]
    fn reads_values() {
        let v = parse("\u{feff} {\"a\": [1, -2.5e3, true, null], \"b\": {\"c\": \"x\\u00e9\\ud83d\\ude00\\n\"}}\n")
            .unwrap();
        assert_eq!(v.offset, 4);
        assert_eq!(line_column("\u{feff} {", 4), (1, 2));
        let a = v.get("a").unwrap();
        let Kind::Array(items) = &a.kind else {
            panic!("{a:?}")
        };
        assert_eq!(items[0].as_u64(), Some(1));
        assert_eq!(items[1].kind, Kind::Number("-2.5e3".into()));
        assert_eq!(items[1].as_u64(), None);
        assert_eq!(items[2].as_bool(), Some(true));
        assert_eq!(items[3].kind, Kind::Null);
        let c = v.get("b").and_then(|b| b.get("c")).unwrap();
        assert_eq!(c.kind, Kind::String("xé😀\n".into()));
        assert_eq!(line_column("{\"a\":\n  1}", 8), (2, 3));
    }

    #[test]
    fn integers_are_exact() {
        assert_eq!(
            parse("18446744073709551615").unwrap().as_u64(),
            Some(u64::MAX)
        );
        assert_eq!(parse("18446744073709551616").unwrap().as_u64(), None);
        assert_eq!(parse("-1").unwrap().as_u64(), None);
        assert_eq!(parse("1.0").unwrap().as_u64(), None);
    }

    #[test]
    fn refuses_with_a_position() {
        assert_eq!(
            err("{\n  \"a\": 1,\n  \"a\": 2\n}"),
            "3:3: duplicate key \"a\" (first at line 2)"
        );
        assert_eq!(err("{\"a\" 1}"), "1:6: expected `:`, found '1'");
        assert_eq!(err("[1,]"), "1:4: expected a JSON value, found ']'");
        assert_eq!(err("[1 2]"), "1:4: expected `,` or `]`, found '2'");
        assert_eq!(err("01"), "1:2: expected the end of the number, found '1'");
        assert_eq!(err("{} x"), "1:4: unexpected text after the JSON value");
        assert_eq!(
            err("\"a\tb\""),
            "1:3: control character '\\t' in a string (write it as an escape)"
        );
        assert_eq!(
            err("\"\\ud800x\""),
            "1:2: unpaired UTF-16 surrogate \\ud800"
        );
        assert_eq!(
            err("\"\\x\""),
            "1:3: expected an escape (one of \"\\/bfnrtu), found 'x'"
        );
        assert_eq!(err("\"abc"), "1:5: string not closed");
        assert_eq!(
            err(""),
            "1:1: expected a JSON value, found the end of the text"
        );
        assert_eq!(err("tru"), "1:1: expected a JSON value, found 't'");
        assert_eq!(err("[-]"), "1:3: expected a digit, found ']'");
        assert_eq!(err("1.e5"), "1:3: expected a digit, found 'e'");
        assert_eq!(
            err("1e+"),
            "1:4: expected a digit, found the end of the text"
        );
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let deep = "[".repeat(100_000);
        assert_eq!(
            err(&deep),
            format!("1:{}: nested deeper than {MAX_DEPTH} levels", MAX_DEPTH + 1)
        );
        let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(parse(&ok).is_ok());
    }

    /// Our value as serde_json's, numbers through serde_json's own number parser.
    fn to_serde(v: &Value) -> serde_json::Value {
        match &v.kind {
            Kind::Null => serde_json::Value::Null,
            Kind::Bool(b) => serde_json::Value::Bool(*b),
            Kind::Number(n) => serde_json::from_str(n).expect("serde_json reads our number"),
            Kind::String(s) => serde_json::Value::String(s.clone()),
            Kind::Array(a) => serde_json::Value::Array(a.iter().map(to_serde).collect()),
            Kind::Object(m) => {
                serde_json::Value::Object(m.iter().map(|(k, v)| (k.clone(), to_serde(v))).collect())
            }
        }
    }

    #[test]
    fn the_real_deprecated_json_reads_as_serde_json_reads_it() {
        let dir = std::env::var_os("TERA_DATA_DIR").map_or_else(
            || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/tera-data"),
            std::path::PathBuf::from,
        );
        let Ok(text) = std::fs::read_to_string(dir.join("deprecated.json")) else {
            assert!(
                std::env::var_os("CI").is_none(),
                "no deprecated.json in {}",
                dir.display()
            );
            eprintln!("SKIPPED: no deprecated.json in {}", dir.display());
            return;
        };
        let ours = to_serde(&parse(&text).unwrap());
        let theirs: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(ours, theirs);
    }

    fn json_value() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<bool>().prop_map(serde_json::Value::Bool),
            any::<u64>().prop_map(Into::into),
            any::<i64>().prop_map(Into::into),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(Into::into),
            any::<String>().prop_map(serde_json::Value::String),
        ];
        leaf.prop_recursive(4, 64, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::Array),
                proptest::collection::btree_map(any::<String>(), inner, 0..6)
                    .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        /// Whatever serde_json writes, we read back to the same value (compact and pretty).
        #[test]
        fn reads_what_serde_json_writes(v in json_value()) {
            for text in [serde_json::to_string(&v).unwrap(), serde_json::to_string_pretty(&v).unwrap()] {
                let ours = parse(&text).map_err(|e| proptest::test_runner::TestCaseError::fail(format!("{e}: {text}")))?;
                proptest::prop_assert_eq!(to_serde(&ours), v.clone());
            }
        }

        /// A valid text with one character removed, replaced or inserted: we accept it exactly when
        /// serde_json does (leaving out duplicate keys, which serde_json's `Value` lets through),
        /// and read the same value.
        #[test]
        fn accepts_what_serde_json_accepts(
            v in json_value(),
            at in proptest::prelude::any::<proptest::sample::Index>(),
            op in 0..3u8,
            c in proptest::sample::select(vec!['"', '\\', ',', ':', '[', ']', '{', '}', '0', '-', '.', 'e', ' ', '\n', 'u', 'a', '\u{1}']),
        ) {
            let mut chars: Vec<char> = serde_json::to_string_pretty(&v).unwrap().chars().collect();
            let i = at.index(chars.len() + 1);
            match op {
                0 if i < chars.len() => { chars.remove(i); }
                1 if i < chars.len() => chars[i] = c,
                _ => chars.insert(i, c),
            }
            let text: String = chars.into_iter().collect();
            let theirs = serde_json::from_str::<serde_json::Value>(&text);
            match parse(&text) {
                // serde_json refuses a number whose f64 is infinite (`1e400`); we keep its text.
                Ok(_) if theirs.as_ref().is_err_and(|e| e.to_string().starts_with("number out of range")) => {}
                Ok(ours) => proptest::prop_assert_eq!(to_serde(&ours), theirs.expect("serde_json refused what we accepted")),
                Err(e) if e.message.starts_with("duplicate key") => {}
                Err(e) => proptest::prop_assert!(theirs.is_err(), "we refused what serde_json reads: {}: {:?}", e, text),
            }
        }
    }

    #[test]
    fn long_keys_are_not_echoed_whole() {
        let key = "k".repeat(10_000);
        let e = err(&format!("{{\"{key}\": 1, \"{key}\": 2}}"));
        assert!(e.len() < 120, "{e}");
    }
}
