//! One `.def` line, split exactly as the reference splits it.
//!
//! The reference (tera-data-parser) strips a comment, trims the line and matches it against one
//! regular expression: dashes (each followed by optional white space), then the shortest type
//! for which an optional `<subtype>` and an optional `[flags]` reach the white space before the
//! name, then the name (the last word). Its `\s` is JavaScript's white space ([`is_space`]), which
//! is not Rust's. This module gives the same split in linear time, without a regex engine and
//! without backtracking: the pattern is simple enough that each of its choices can be decided from
//! a few tables over the line. docs/grammar.md lists what follows from it (spaces inside `< >`
//! and `[ ]` are fine, `array<<int32>>` is `array<int32>`, `array[] a` has the type `array[]`).

/// JavaScript's white space (`\s`, `String.prototype.trim`): Unicode's `Zs` spaces, tab, vertical
/// tab, form feed, the byte-order mark and the line terminators. U+0085 (NEL), white space to
/// Rust, is not white space here.
pub(crate) fn is_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

/// The reference's comment rule, `replace(/#.*$/, '')`: `.` does not match a line terminator
/// (U+2028, U+2029, CR) and `$` is the end of the line, so the comment is the text from the
/// first `#` after the last line terminator in the line. Returns the code and the comment (after
/// its `#`). A CR inside a line is an error of its own ([`crate::diag::Code::BareCr`]), so it is
/// left out here: the line is not reported a second time.
pub(crate) fn strip_comment(raw: &str) -> (&str, Option<&str>) {
    let from = raw
        .rfind(['\u{2028}', '\u{2029}'])
        .map_or(0, |i| i + raw[i..].chars().next().map_or(1, char::len_utf8));
    match raw[from..].find('#') {
        Some(i) => (&raw[..from + i], Some(&raw[from + i + 1..])),
        None => (raw, None),
    }
}

/// The pieces of one field line, as slices of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Line<'a> {
    /// The number of `-` before the type.
    pub depth: usize,
    /// The type: any text without white space (`int32`, but also `array<>` or `-`).
    pub ty: &'a str,
    /// `<...>` as written, brackets included.
    pub subtype: Option<&'a str>,
    /// `[...]` as written, brackets included.
    pub flags: Option<&'a str>,
    /// The name: the last word of the line.
    pub name: &'a str,
}

/// What the reference reads from a subtype group: the text without white space, `<` and `>`.
pub(crate) fn subtype_value(group: &str) -> String {
    group
        .chars()
        .filter(|&c| !is_space(c) && c != '<' && c != '>')
        .collect()
}

/// The flags of a flags group, as the reference splits them (white space, `[` and `]` removed,
/// then split at `,`), each with its byte range in `group` (brackets inside it included).
pub(crate) fn flag_values(group: &str) -> Vec<(String, std::ops::Range<usize>)> {
    let inner_start = 1;
    let inner_end = group.len().saturating_sub(1).max(inner_start);
    let inner = &group[inner_start..inner_end];
    let lead = inner.len() - inner.trim_start_matches(is_space).len();
    let core = inner.trim_matches(is_space);
    let mut out = Vec::new();
    let mut at = inner_start + lead;
    for piece in core.split(',') {
        let value = piece.chars().filter(|&c| c != '[' && c != ']').collect();
        out.push((value, at..at + piece.len()));
        at += piece.len() + 1;
    }
    out
}

/// Splits a trimmed, comment-free line as the reference's pattern
/// `^((?:-\s*)*)(\S+?)(<\s*\S+\s*>)?(\[\s*\S+\s*\])?\s+(\S+)$` does, or `None` where it does not
/// match (the reference skips the line).
pub(crate) fn split(line: &str) -> Option<Line<'_>> {
    // The name is the last word; the white space before it is the `\s+`. What comes before is
    // the head: dashes, type, subtype and flags, which end in a character that is not white space.
    let name_start = line
        .char_indices()
        .rev()
        .find(|&(_, c)| is_space(c))
        .map(|(i, c)| i + c.len_utf8())?;
    let name = &line[name_start..];
    let head = line[..name_start].trim_end_matches(is_space);
    if name.is_empty() || head.is_empty() {
        return None;
    }
    // Positions are character indices; the tables hold them as u32 (a head of 4 G characters
    // or more is not split: it cannot be a field line anyone wrote).
    let h: Vec<char> = head.chars().collect();
    let n = h.len();
    let top = u32::try_from(n).ok()?;
    let byte = |i: usize| head.char_indices().nth(i).map_or(head.len(), |(b, _)| b);
    let ch = |i: usize| h[i];
    let ws = |i: usize| is_space(h[i]);

    // next_ws(i): first white space at or after i (n if none); next_solid(i): first non-space.
    let mut next_ws_at = vec![top; n + 1];
    let mut next_solid_at = vec![top; n + 1];
    for i in (0..n).rev() {
        next_ws_at[i] = if ws(i) { i as u32 } else { next_ws_at[i + 1] };
        next_solid_at[i] = if ws(i) {
            next_solid_at[i + 1]
        } else {
            i as u32
        };
    }
    let next_ws = |i: usize| next_ws_at[i] as usize;
    let next_solid = |i: usize| next_solid_at[i] as usize;
    // The closing bracket of a group that runs to the end of the head is its last character;
    // `\s*\S+\s*` between the brackets is one word with optional white space around it.
    let last_solid_before_end = (0..n.saturating_sub(1)).rev().find(|&i| !ws(i));
    let inner_is_one_word = |from: usize| -> bool {
        // h[from .. n-1] is `\s*\S+\s*`
        let s = next_solid(from);
        match last_solid_before_end {
            Some(e) => s <= e && s < n - 1 && next_ws(s) > e,
            None => false,
        }
    };
    // flags_to_end[i]: h[i..] is exactly `\[\s*\S+\s*\]`.
    let flags_to_end: Vec<bool> = (0..=n)
        .map(|i| i + 1 < n && ch(i) == '[' && ch(n - 1) == ']' && inner_is_one_word(i + 1))
        .collect();
    // A `>` that may close a subtype: what follows it is flags to the end, or nothing.
    let closes = |k: usize| ch(k) == '>' && (k + 1 == n || flags_to_end[k + 1]);
    let mut next_close_at = vec![top; n + 1];
    for k in (0..n).rev() {
        next_close_at[k] = if closes(k) {
            k as u32
        } else {
            next_close_at[k + 1]
        };
    }
    let next_close = |i: usize| next_close_at[i] as usize;
    // The ways a subtype group starting at i can close, in the pattern's order of preference:
    // after the whole word and the white space that follows it, else at the last `>` inside
    // the word that works.
    let subtype_end = |i: usize| -> Option<usize> {
        if i + 1 >= n || ch(i) != '<' {
            return None;
        }
        let s = next_solid(i + 1);
        if s >= n {
            return None;
        }
        let r = next_ws(s);
        if r < n {
            let g = next_solid(r);
            if g < n && closes(g) {
                return Some(g + 1);
            }
        }
        if next_close(s + 1) < r {
            return (s + 1..r).rev().find(|&k| closes(k)).map(|k| k + 1);
        }
        None
    };
    // rest_ok[i]: h[i..] is `(<...>)?(\[...\])?` exactly.
    let has_subtype_end = |i: usize| -> bool {
        if i + 1 >= n || ch(i) != '<' {
            return false;
        }
        let s = next_solid(i + 1);
        if s >= n {
            return false;
        }
        let r = next_ws(s);
        (r < n && next_solid(r) < n && closes(next_solid(r))) || next_close(s + 1) < r
    };
    let rest_ok: Vec<bool> = (0..=n)
        .map(|i| i == n || flags_to_end[i] || has_subtype_end(i))
        .collect();
    let mut next_rest_ok_at = vec![top; n + 1];
    for i in (0..n).rev() {
        next_rest_ok_at[i] = if rest_ok[i] {
            i as u32
        } else {
            next_rest_ok_at[i + 1]
        };
    }
    let next_rest_ok = |i: usize| next_rest_ok_at[i] as usize;

    // The dashes take as much as they can; when nothing fits after them they give back, and the
    // type may then start at one of their `-`.
    let mut max_dashes = 0;
    while max_dashes < n && ch(max_dashes) == '-' {
        max_dashes += 1;
        while max_dashes < n && ws(max_dashes) {
            max_dashes += 1;
        }
    }
    let starts = (max_dashes < n)
        .then_some(max_dashes)
        .into_iter()
        .chain((0..max_dashes).rev().filter(|&q| ch(q) == '-'));
    for p in starts {
        // The type is the shortest word from p after which the rest fits.
        let e = next_rest_ok(p + 1);
        if e > next_ws(p) || e > n || !rest_ok[e] {
            continue;
        }
        let depth = h[..p].iter().filter(|&&c| c == '-').count();
        let (subtype, flags_from) = match if e < n { subtype_end(e) } else { None } {
            Some(j) => (Some(&head[byte(e)..byte(j)]), j),
            None => (None, e),
        };
        let flags = (flags_from < n).then(|| &head[byte(flags_from)..]);
        return Some(Line {
            depth,
            ty: &head[byte(p)..byte(e)],
            subtype,
            flags,
            name,
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Depth, type, subtype, flags, name.
    type Parts<'a> = (usize, &'a str, Option<&'a str>, Option<&'a str>, &'a str);

    fn parts(line: &str) -> Option<Parts<'_>> {
        split(line).map(|l| (l.depth, l.ty, l.subtype, l.flags, l.name))
    }

    #[test]
    fn the_pattern_s_choices() {
        assert_eq!(parts("int32 a"), Some((0, "int32", None, None, "a")));
        assert_eq!(parts("- - int32 a"), Some((2, "int32", None, None, "a")));
        assert_eq!(
            parts("array< int32 >[ interleaved ] a"),
            Some((0, "array", Some("< int32 >"), Some("[ interleaved ]"), "a"))
        );
        assert_eq!(
            parts("array<<int32>> a"),
            Some((0, "array", Some("<<int32>>"), None, "a"))
        );
        assert_eq!(parts("array[] a"), Some((0, "array[]", None, None, "a")));
        assert_eq!(parts("array<> a"), Some((0, "array<>", None, None, "a")));
        assert_eq!(
            parts("array[interleaved]<int32> a"),
            Some((0, "array[interleaved]", Some("<int32>"), None, "a"))
        );
        assert_eq!(
            parts("array<int32>x a"),
            Some((0, "array<int32>x", None, None, "a"))
        );
        assert_eq!(parts("- - b"), Some((1, "-", None, None, "b")));
        assert_eq!(parts("array <int32> a"), None);
        assert_eq!(parts("array<int 32> a"), None);
        assert_eq!(parts("array[interleaved, sorted] a"), None);
        assert_eq!(parts("int32"), None);
        assert_eq!(parts("int32\u{85}a"), None);
        assert_eq!(parts("int32\u{feff}a"), Some((0, "int32", None, None, "a")));
    }

    #[test]
    fn comments_stop_at_line_terminators() {
        assert_eq!(strip_comment("int32 a # c"), ("int32 a ", Some(" c")));
        assert_eq!(
            strip_comment("int32 a # x\u{2028}y"),
            ("int32 a # x\u{2028}y", None)
        );
        assert_eq!(
            strip_comment("int32 a\u{2028}# x"),
            ("int32 a\u{2028}", Some(" x"))
        );
    }
}

#[cfg(test)]
mod against_the_reference {
    /// Undoes the data file's escapes: `\u{..}`, `\e` for the empty text.
    fn unescape(s: &str) -> String {
        if s == "\\e" {
            return String::new();
        }
        let mut out = String::new();
        let mut rest = s;
        while let Some(i) = rest.find("\\u{") {
            out.push_str(&rest[..i]);
            let end = rest[i..].find('}').expect("closed escape") + i;
            let code = u32::from_str_radix(&rest[i + 3..end], 16).expect("hex");
            out.push(char::from_u32(code).expect("a character"));
            rest = &rest[end + 1..];
        }
        out.push_str(rest);
        out
    }

    /// 600 random lines (dashes, spaces of several kinds, brackets, commas, `#`, U+0085,
    /// U+2028) and what the reference's own steps made of each: comment removed, trimmed,
    /// matched against its pattern (depth, type, subtype and flags groups, name) or skipped. A
    /// sample of 400 000 lines compared when the split was written, all alike.
    #[test]
    fn random_lines_split_as_the_reference_splits_them() {
        let data = include_str!("../tests/data/reference_lines.tsv");
        for row in data.lines().skip(1) {
            let f: Vec<&str> = row.split('\t').collect();
            let raw = unescape(f[0]);
            let (code, _) = super::strip_comment(&raw);
            let line = code.trim_matches(super::is_space);
            let got = super::split(line).map(|l| {
                let own = |s: Option<&str>| s.map(str::to_string);
                (
                    l.depth,
                    l.ty.to_string(),
                    own(l.subtype),
                    own(l.flags),
                    l.name.to_string(),
                )
            });
            let want = (f[1] != "skipped").then(|| {
                let group = |x: &str| (x != "-").then(|| unescape(x));
                let depth = f[1].parse().expect("depth");
                (
                    depth,
                    unescape(f[2]),
                    group(f[3]),
                    group(f[4]),
                    unescape(f[5]),
                )
            });
            assert_eq!(got, want, "{raw:?}");
        }
    }
}
