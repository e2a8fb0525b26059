//! From `.def` text to the syntax tree ([`crate::ast`]), line by line.
//!
//! The line grammar (dashes, type, `<subtype>`, `[flags]`, name) is the reference's pattern
//! (`line.rs`); the rest is its line discipline: comments, trimming (JavaScript's white
//! space, byte-order mark included), nesting by the number of dashes, legacy `count`/`offset`
//! lines. docs/grammar.md is the table of every shape and what each mode does with it. Every line the reference would
//! skip or guess at yields a warning; in strict mode every warning is an error. All faults of a
//! file are reported in one pass.

use nom::{IResult, Parser, combinator::eof};

use crate::ast::{DefFile, DefName, ElemType, FieldType, Name, Node, NodeKind, PatchRange, Scalar};
use crate::diag::{Code, Diagnostic, LineIndex, Severity, Span};
use crate::line::{self, is_space};

/// How strictly to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Accept what the reference accepts; what it would skip or guess at is a warning.
    #[default]
    Compatible,
    /// Every warning is an error.
    Strict,
}

/// The result of parsing one file: the tree (when there were no errors) and all diagnostics.
#[derive(Debug, Clone)]
pub struct Parsed {
    /// The tree; `None` if any diagnostic is an error.
    pub file: Option<DefFile>,
    /// Errors and warnings in line order.
    pub diagnostics: Vec<Diagnostic>,
}

struct Ctx<'t> {
    text: &'t str,
    index: LineIndex,
    mode: Mode,
    diagnostics: Vec<Diagnostic>,
    /// The last position located: byte, line, column. A line yields its diagnostics left to
    /// right, so the next column is counted from here rather than from the line's start (one
    /// line with 100 000 bad flags would otherwise count its characters 100 000 times).
    cursor: (usize, usize, usize),
}

impl Ctx<'_> {
    /// Line and column of byte `at`, in time linear in the distance from the last position.
    fn locate(&mut self, at: usize) -> (usize, usize) {
        let (from, line, col) = self.cursor;
        let found = match self.text.get(from..at) {
            Some(between) if !between.contains(['\n', '\r']) => {
                (line, col + between.chars().count())
            }
            _ => self.index.locate(self.text, at),
        };
        self.cursor = (at, found.0, found.1);
        found
    }

    fn push(
        &mut self,
        severity: Severity,
        code: Code,
        span: Span,
        message: String,
        expected: Option<&str>,
    ) {
        let severity = match (severity, self.mode) {
            (Severity::Warning, Mode::Strict) => Severity::Error,
            (s, _) => s,
        };
        let (line, column) = self.locate(span.start);
        self.diagnostics.push(Diagnostic {
            severity,
            code,
            message: crate::diag::shorten_spans(message),
            expected: expected.map(str::to_string),
            span,
            line,
            column,
        });
    }
    fn error(&mut self, code: Code, span: Span, message: String, expected: Option<&str>) {
        self.push(Severity::Error, code, span, message, expected);
    }
    fn warn(&mut self, code: Code, span: Span, message: String, expected: Option<&str>) {
        self.push(Severity::Warning, code, span, message, expected);
    }
}

/// Deepest nesting accepted (the corpus uses 3). Resolution, code generation and the dynamic codec
/// recurse once per level, so hostile text with thousands of levels would overflow the stack;
/// deeper lines are errors ([`Code::TooDeep`]) and skipped.
pub const MAX_NESTING: usize = 64;

/// What the last line kept at a level does with lines nested under it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Holds {
    /// A scalar, `string`, `bytes` or `ref`: a nested line is an error (the reference throws).
    Nothing,
    /// `array` or `object`: its fields.
    Fields,
    /// `array<T>`: the reference keeps nested lines but never reads them (a warning).
    Ignored,
}

/// Field names become JavaScript in the reference (`result.NAME = ...`): a name that is no
/// JavaScript identifier makes it fail to load the definition (`a-b`, `1a`), throw on every packet
/// (`a.b`) or lose the value (`__proto__`). A warning in compatible mode (we read such fields as
/// written), an error in strict mode. JavaScript's identifier characters are approximated by
/// Unicode's Alphabetic and Numeric properties and the common combining accents (std has no
/// ID_Start table).
fn name_check(cx: &mut Ctx, name: &str, span: Span) {
    let start = |c: char| c == '$' || c == '_' || c.is_alphabetic();
    let rest = |c: char| {
        start(c)
            || c.is_alphanumeric()
            || matches!(c, '\u{300}'..='\u{36f}' | '\u{200c}' | '\u{200d}')
    };
    let mut chars = name.chars();
    let identifier = chars.next().is_some_and(start) && chars.all(rest);
    let why = if name == "__proto__" {
        "the reference sets the object's prototype instead, and the value is lost"
    } else if identifier {
        return;
    } else if name.contains('.') {
        "the reference reads it as a path through objects and fails on every packet"
    } else {
        "it is no JavaScript identifier, and the reference fails to load the definition"
    };
    cx.warn(
        Code::NameNotIdentifier,
        span,
        format!("field name `{name}`: {why}"),
        Some("letters, digits, `_` and `$`, not starting with a digit"),
    );
}

/// `majorPatchVersion OP N (&& majorPatchVersion OP N)*`
fn patch_range(i: &str) -> IResult<&str, Vec<(&str, u32)>> {
    use nom::branch::alt;
    use nom::bytes::complete::tag;
    use nom::character::complete::{space0, u32 as num};
    use nom::multi::separated_list1;
    use nom::sequence::preceded;
    let cond = preceded(
        (space0, tag("majorPatchVersion"), space0),
        (
            alt((tag(">="), tag("<="), tag("=="), tag(">"), tag("<"))),
            preceded(space0, num),
        ),
    );
    let (i, conds) = separated_list1((space0, tag("&&")), cond).parse(i)?;
    let (i, _) = (space0, eof).parse(i)?;
    Ok((i, conds))
}

const TYPE_NAMES: &str = "one of bool, byte, int16, uint16, int32, uint32, int64, uint64, float, double, angle, vec3, vec3fa, skillid32, skillid, customize, string, bytes, array, array<T>, object, ref";

/// Offset of `sub` (a slice of `whole`) within `whole`.
fn offset_in(whole: &str, sub: &str) -> usize {
    sub.as_ptr() as usize - whole.as_ptr() as usize
}

/// Parses the text of one `.def` file. `file_name` is only used for the name grammar
/// (`NAME.VERSION[.PLATFORM].def`); pass the bare file name.
pub fn parse(file_name: &str, text: &str, mode: Mode) -> Parsed {
    let mut cx = Ctx {
        text,
        index: LineIndex::new(text),
        mode,
        diagnostics: Vec::new(),
        cursor: (0, 1, 1),
    };
    let name = match DefName::parse_checked(file_name) {
        Ok(n) => Some(n),
        Err(why) => {
            if file_name.ends_with(".def") {
                cx.warn(
                    Code::BadFileName,
                    Span::new(0, 0),
                    format!("file name `{file_name}` does not follow the definition naming scheme: {why}"),
                    Some("NAME.VERSION.def or NAME.VERSION.PLATFORM.def (platform pc, ps4 or xb1)"),
                );
            }
            None
        }
    };
    bare_cr(&mut cx);

    // Flat pass: one entry per meaningful line, with its effective depth.
    let mut flat: Vec<(usize, Node)> = Vec::new();
    // For each open level, what the last node at that level does with nested lines.
    let mut open: Vec<Holds> = vec![Holds::Nothing];
    // For each open level, whether it lies under an `array<T>`: the reference never compiles
    // those lines, so a type it does not know there is no error (their nesting still is).
    let mut unread: Vec<bool> = vec![false];
    // For each depth, whether a node was kept at it (for the message of a misplaced nested line;
    // looking back through `flat` for one made a file of such lines quadratic).
    let mut kept_at: Vec<bool> = vec![false; MAX_NESTING + 1];
    let mut patch: Option<PatchRange> = None;
    let mut seen_field = false;
    let mut line_start = 0;
    for (lineno0, raw) in text.split('\n').enumerate() {
        let this_start = line_start;
        line_start += raw.len() + 1;
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        let (code, comment) = line::strip_comment(raw);
        let content = code.trim_matches(is_space);
        let comment_text = comment.map(|c| c.trim_matches(is_space));
        if content.is_empty() {
            if let (Some(c), false, None) = (comment_text, seen_field, patch)
                && c.starts_with("majorPatchVersion")
            {
                let cstart = this_start + offset_in(raw, c);
                let span = Span::new(cstart, cstart + c.len());
                match patch_range(c) {
                    Ok((_, conds)) => {
                        let mut r = PatchRange {
                            span,
                            ..PatchRange::default()
                        };
                        for (op, n) in conds {
                            match op {
                                ">=" => r.min = Some(n),
                                ">" => r.min = Some(n.saturating_add(1)),
                                "<" => r.max = Some(n),
                                "<=" => r.max = Some(n.saturating_add(1)),
                                _ => {
                                    r.min = Some(n);
                                    r.max = Some(n.saturating_add(1));
                                }
                            }
                        }
                        patch = Some(r);
                    }
                    Err(_) => cx.warn(
                        Code::BadPatchRange,
                        span,
                        "patch-range comment cannot be read; it is ignored".into(),
                        Some("`majorPatchVersion >= A && majorPatchVersion < B`"),
                    ),
                }
            }
            continue;
        }
        let _ = lineno0;
        let cstart = this_start + offset_in(raw, content);
        let span = Span::new(cstart, cstart + content.len());
        let Some(l) = line::split(content) else {
            cx.warn(
                Code::MalformedLine,
                span,
                "line is not a field definition; it is skipped".into(),
                Some("`[-...] TYPE NAME`, for example `- int32 id`"),
            );
            continue;
        };
        seen_field = true;
        let at = |s: &str| cstart + offset_in(content, s);
        let ty_end = [Some(l.ty), l.subtype, l.flags]
            .into_iter()
            .flatten()
            .map(|s| at(s) + s.len())
            .max()
            .unwrap_or(at(l.ty));
        let ty_span = Span::new(at(l.ty), ty_end);
        let name_span = Span::new(at(l.name), at(l.name) + l.name.len());
        let (line, _) = cx.locate(cstart);

        // The reference drops `count` lines before it looks at their dashes: they open and
        // close no level.
        if l.ty == "count" {
            cx.warn(
                Code::LegacyLine,
                span,
                "legacy `count` line; it is dropped (counts are implied)".into(),
                None,
            );
            continue;
        }

        // Nesting.
        let cur = open.len() - 1;
        let mut depth = l.depth;
        if depth > cur {
            if depth > cur + 1 {
                cx.warn(
                    Code::DepthJump,
                    span,
                    format!(
                        "nesting jumps from depth {cur} to {depth}; read as depth {}",
                        cur + 1
                    ),
                    Some(&format!("at most {} dash(es)", cur + 1)),
                );
                depth = cur + 1;
            }
            if depth > MAX_NESTING {
                cx.error(
                    Code::TooDeep,
                    span,
                    format!("nesting deeper than {MAX_NESTING} levels; the line is skipped"),
                    Some(&format!("at most {MAX_NESTING} dash(es)")),
                );
                continue;
            }
            match open[cur] {
                Holds::Nothing => {
                    let msg = if kept_at[cur] {
                        "nested line under a field that is neither `array` nor `object`"
                    } else {
                        "nested line without an `array` or `object` line above it"
                    };
                    cx.error(
                        Code::ChildOfScalar,
                        span,
                        msg.into(),
                        Some(&format!("at most {cur} dash(es)")),
                    );
                    continue;
                }
                Holds::Ignored => cx.warn(
                    Code::ChildrenIgnored,
                    span,
                    "lines under `array<T>` are ignored (its elements are single values); the reference ignores them too".into(),
                    Some("no nested lines under `array<T>`"),
                ),
                Holds::Fields => {}
            }
            unread.push(unread[cur] || open[cur] == Holds::Ignored);
            open.push(Holds::Nothing);
        } else {
            open.truncate(depth + 1);
            unread.truncate(depth + 1);
        }
        let unread = unread[depth];

        let kind = match l.ty {
            "ref" | "offset" => {
                if l.subtype.is_some() || l.flags.is_some() {
                    cx.warn(
                        Code::SubtypeOnNonArray,
                        ty_span,
                        "`ref` takes no subtype or flags; they are ignored".into(),
                        None,
                    );
                }
                if l.ty == "offset" {
                    cx.warn(
                        Code::LegacyLine,
                        span,
                        "legacy `offset` line; read as `ref`".into(),
                        Some("`ref NAME`"),
                    );
                }
                NodeKind::Ref {
                    legacy: l.ty == "offset",
                }
            }
            t => {
                let base = match t {
                    "string" => Some(FieldType::String),
                    "bytes" => Some(FieldType::Bytes),
                    "array" => Some(FieldType::Array),
                    "object" => Some(FieldType::Object),
                    _ => Scalar::from_keyword(t).map(FieldType::Scalar),
                };
                let Some(mut ty) = base else {
                    if unread {
                        *open.last_mut().expect("level") = Holds::Nothing;
                        continue;
                    }
                    cx.error(
                        Code::UnknownType,
                        Span::new(at(l.ty), at(l.ty) + l.ty.len()),
                        format!("unknown type `{t}`"),
                        Some(TYPE_NAMES),
                    );
                    *open.last_mut().expect("level") = Holds::Nothing;
                    continue;
                };
                if let Some(group) = l.subtype {
                    let sub = line::subtype_value(group);
                    // The word between the brackets (the whole group if it has none).
                    let inner = group[1..group.len() - 1].trim_matches(is_space);
                    let sub_span = Span::new(at(inner), at(inner) + inner.len());
                    if group[1..group.len() - 1].contains(['<', '>']) {
                        let read = if sub.is_empty() {
                            "no subtype".to_string()
                        } else {
                            format!("`<{sub}>`")
                        };
                        cx.warn(
                            Code::StrayBracket,
                            sub_span,
                            format!(
                                "`{group}` is read as {read}: every `<` and `>` in it is dropped"
                            ),
                            Some(&format!("`<{sub}>`")),
                        );
                    }
                    if sub.is_empty() {
                        // Nothing left: the reference keeps no subtype (`array<<>>` is `array`).
                    } else if ty == FieldType::Array {
                        let elem = if sub == "string" {
                            Some(ElemType::String)
                        } else {
                            Scalar::from_keyword(&sub).map(ElemType::Scalar)
                        };
                        match elem {
                            Some(e) => ty = FieldType::ArrayOf(e),
                            None if unread => {
                                *open.last_mut().expect("level") = Holds::Nothing;
                                continue;
                            }
                            None => {
                                cx.error(
                                    Code::UnknownType,
                                    sub_span,
                                    format!("unknown element type `{sub}` in `array<{sub}>`"),
                                    Some("a fixed type or `string`"),
                                );
                                *open.last_mut().expect("level") = Holds::Nothing;
                                continue;
                            }
                        }
                    } else {
                        cx.warn(
                            Code::SubtypeOnNonArray,
                            sub_span,
                            format!("`<{sub}>` on `{t}` is ignored"),
                            Some("a subtype only on `array`"),
                        );
                    }
                }
                let mut interleaved = false;
                if let Some(group) = l.flags {
                    for (f, range) in line::flag_values(group) {
                        let raw_flag = &group[range.clone()];
                        let fs = if raw_flag.is_empty() {
                            Span::new(at(group), at(group) + group.len())
                        } else {
                            Span::new(at(group) + range.start, at(group) + range.end)
                        };
                        if raw_flag.contains(['[', ']']) {
                            cx.warn(
                                Code::StrayBracket,
                                fs,
                                format!("flag `{raw_flag}` is read as `{f}`: every `[` and `]` in it is dropped"),
                                Some(&format!("`{f}`")),
                            );
                        }
                        if f != "interleaved" {
                            cx.warn(
                                Code::UnknownFlag,
                                fs,
                                format!("unknown flag `{f}` is ignored"),
                                Some("`interleaved`"),
                            );
                        } else if !matches!(ty, FieldType::Array | FieldType::ArrayOf(_)) {
                            cx.warn(
                                Code::FlagOnNonArray,
                                fs,
                                format!("`[interleaved]` on `{t}` is ignored"),
                                Some("a flag only on an array"),
                            );
                        } else {
                            interleaved = true;
                        }
                    }
                }
                if !unread {
                    name_check(&mut cx, l.name, name_span);
                }
                NodeKind::Field {
                    ty,
                    ty_span,
                    interleaved,
                }
            }
        };
        *open.last_mut().expect("level") = match kind {
            NodeKind::Field {
                ty: FieldType::Array | FieldType::Object,
                ..
            } => Holds::Fields,
            NodeKind::Field {
                ty: FieldType::ArrayOf(_),
                ..
            } => Holds::Ignored,
            _ => Holds::Nothing,
        };
        kept_at[depth] = true;
        flat.push((
            depth,
            Node {
                kind,
                name: Name {
                    text: l.name.to_string(),
                    span: name_span,
                },
                span,
                line,
                comment: comment_text.filter(|c| !c.is_empty()).map(str::to_string),
                children: Vec::new(),
            },
        ));
    }

    let has_errors = cx.diagnostics.iter().any(Diagnostic::is_error);
    let file = (!has_errors).then(|| DefFile {
        name,
        patch_range: patch,
        nodes: build_tree(&mut flat.into_iter().peekable(), 0),
    });
    Parsed {
        file,
        diagnostics: cx.diagnostics,
    }
}

/// A CR not followed by LF is an error, in every mode. The reference splits lines on LF (an
/// optional CR before it), so a file with old Mac line ends is one line to it, most often one
/// comment: an empty definition. That is never what the author meant, and a CR inside a line
/// cannot be carried into generated code either. One diagnostic, at the first bare CR.
fn bare_cr(cx: &mut Ctx) {
    let bytes = cx.text.as_bytes();
    let mut bare = bytes
        .iter()
        .enumerate()
        .filter(|&(i, &b)| b == b'\r' && bytes.get(i + 1) != Some(&b'\n'))
        .map(|(i, _)| i);
    if let Some(first) = bare.next() {
        let more = bare.count();
        let also = match more {
            0 => String::new(),
            n => format!(" ({n} more in the file)"),
        };
        cx.error(
            Code::BareCr,
            Span::new(first, first + 1),
            format!("carriage return (CR) without a line feed{also}; the reference does not end a line here"),
            Some("LF or CR LF line ends"),
        );
    }
}

/// Nests the flat list of `(depth, node)`, whose depths only grow one at a time.
fn build_tree(
    it: &mut std::iter::Peekable<std::vec::IntoIter<(usize, Node)>>,
    depth: usize,
) -> Vec<Node> {
    let mut out: Vec<Node> = Vec::new();
    while let Some((d, _)) = it.peek() {
        let d = *d;
        if d < depth {
            break;
        }
        if d > depth {
            let children = build_tree(it, d);
            if let Some(last) = out.last_mut() {
                last.children.extend(children);
            }
            continue;
        }
        let (_, node) = it.next().expect("peeked");
        out.push(node);
    }
    out
}
