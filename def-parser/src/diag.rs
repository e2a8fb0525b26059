//! Diagnostics: what was wrong in a `.def` file, where, and what was expected.
//!
//! A [`Diagnostic`] is plain data (a byte span, its line and column, a message, an optional
//! "expected" note). [`Report`] renders a list of them against the source text, each with the line
//! it points into and a caret under the fault, the way rustc shows its own errors.

use std::borrow::Cow;
use std::fmt;

/// Longest piece of input (in characters) a diagnostic repeats: longer names in messages and
/// longer lines in snippets are cut with an ellipsis, so that a 10 MB name gives a short message.
pub const SHOWN_MAX: usize = 80;

/// `text` cut to [`SHOWN_MAX`] characters with an ellipsis.
pub fn shorten(text: &str) -> Cow<'_, str> {
    match text.char_indices().nth(SHOWN_MAX) {
        Some((i, _)) => Cow::Owned(format!("{}…", &text[..i])),
        None => Cow::Borrowed(text),
    }
}

/// A message with every code span (text between backticks) cut to [`SHOWN_MAX`] characters.
/// Messages quote input in code spans only, so this bounds what they repeat of it.
pub(crate) fn shorten_spans(message: String) -> String {
    if message.len() <= 2 * SHOWN_MAX {
        return message;
    }
    let mut out = String::with_capacity(4 * SHOWN_MAX);
    for (k, piece) in message.split('`').enumerate() {
        if k > 0 {
            out.push('`');
        }
        out.push_str(&shorten(piece));
    }
    out
}

/// A byte range in a `.def` file's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

impl Span {
    /// A span from `start` to `end`.
    pub fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }
}

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Severity {
    /// The reference implementation would skip or guess at this line; compatible mode goes on.
    Warning,
    /// The file cannot be compiled.
    Error,
}

/// What kind of fault a diagnostic reports; stable, so tests and tools can match on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Code {
    /// A line that is not `[-...] type name`.
    MalformedLine,
    /// A type name that the language does not have.
    UnknownType,
    /// A nesting depth that grows by more than one level.
    DepthJump,
    /// A nested line under a field that is neither `array` nor `object`.
    ChildOfScalar,
    /// A `<subtype>` on a type other than `array`.
    SubtypeOnNonArray,
    /// A `[flag]` on a type other than `array`.
    FlagOnNonArray,
    /// A flag other than `interleaved`.
    UnknownFlag,
    /// Explicit mode: a variable-length field without a `ref` line.
    MissingRef,
    /// A `ref` line that names no variable-length field of its level.
    RefToNothing,
    /// A `ref` line placed after the field it names.
    RefAfterField,
    /// Two `ref` lines for one field.
    DuplicateRef,
    /// A file name that is not `NAME.VERSION[.PLATFORM].def`.
    BadFileName,
    /// A patch-range header comment that cannot be read.
    BadPatchRange,
    /// A scalar name declared twice at one level (kept, see LAYOUT.md).
    DuplicateField,
    /// A name declared once as an object and once as something else.
    NameClash,
    /// A legacy `count` or `offset` line.
    LegacyLine,
    /// Nesting deeper than [`MAX_NESTING`](crate::parse::MAX_NESTING) levels.
    TooDeep,
    /// A carriage return not followed by a line feed (an error in every mode).
    BareCr,
    /// Lines nested under `array<T>`, which the reference keeps but never reads.
    ChildrenIgnored,
    /// A `<` or `>` inside a subtype, or a `[` or `]` inside a flag, which the reference drops
    /// (`array<<int32>>` is `array<int32>`).
    StrayBracket,
    /// A field name that is no JavaScript identifier: the reference fails on it.
    NameNotIdentifier,
    /// A `ref` line inside an `object`: the reference refuses the definition.
    RefInObject,
    /// `[interleaved]` arrays that are not consecutive fields of one level or object: the
    /// reference refuses the definition.
    InterleavedApart,
    /// An interleaved `array<string>`: the reference cannot write it and refuses the definition.
    InterleavedStrings,
    /// Two fields or objects of one level whose paths differ only by `.` against `_` (`o.b` and
    /// `o_b`): the reference's generated JavaScript declares one variable twice and it refuses
    /// the definition.
    JsVariableClash,
}

/// One fault in a `.def` file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Warning or error.
    pub severity: Severity,
    /// The kind of fault.
    pub code: Code,
    /// What is wrong, in one sentence.
    pub message: String,
    /// What would have been right here, if that can be said.
    pub expected: Option<String>,
    /// Where in the file.
    pub span: Span,
    /// 1-based line of `span.start`.
    pub line: usize,
    /// 1-based column (in characters) of `span.start`.
    pub column: usize,
}

impl Diagnostic {
    /// Whether this diagnostic stops compilation.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// One line: `FILE:LINE:COL: error: MESSAGE (expected ...)`.
    pub fn one_line(&self, file: &str) -> String {
        let sev = match self.severity {
            Severity::Warning => "warning",
            Severity::Error => "error",
        };
        let mut s = format!(
            "{file}:{}:{}: {sev}: {}",
            self.line, self.column, self.message
        );
        if let Some(e) = &self.expected {
            s.push_str(&format!(" (expected {e})"));
        }
        s
    }

    /// The diagnostic rendered with the faulty line and a caret under the fault.
    pub fn render(&self, file: &str, text: &str) -> String {
        let mut out = String::new();
        let sev = match self.severity {
            Severity::Warning => "warning",
            Severity::Error => "error",
        };
        out.push_str(&format!("{sev}: {}\n", self.message));
        out.push_str(&format!(" --> {file}:{}:{}\n", self.line, self.column));
        let line_text = line_of(text, self.span.start);
        let num = self.line.to_string();
        let pad = " ".repeat(num.len());
        let caret_start = self.column.saturating_sub(1);
        let line_chars: Vec<char> = line_text.chars().collect();
        let width = text
            .get(self.span.start..self.span.end.min(self.span.start + line_text.len()))
            .map(|s| s.chars().count())
            .unwrap_or(1)
            .max(1)
            .min(line_chars.len().saturating_sub(caret_start).max(1));
        // A long line is shown as a window of 2 * SHOWN_MAX characters around the caret.
        let from = caret_start.saturating_sub(SHOWN_MAX / 2);
        let to = line_chars.len().min(from + 2 * SHOWN_MAX);
        let mut shown: String = if from > 0 {
            "…".into()
        } else {
            String::new()
        };
        let caret_start = caret_start - from + usize::from(from > 0);
        let width = width.min((to + 1).saturating_sub(caret_start).max(1));
        shown.extend(
            line_chars[from.min(to)..to]
                .iter()
                .map(|c| if *c == '\t' { ' ' } else { *c }),
        );
        if to < line_chars.len() {
            shown.push('…');
        }
        out.push_str(&format!(
            "{pad} |\n{num} | {shown}\n{pad} | {}{}\n",
            " ".repeat(caret_start),
            "^".repeat(width)
        ));
        if let Some(e) = &self.expected {
            out.push_str(&format!("{pad} = expected {e}\n"));
        }
        out
    }
}

/// The text of the line holding byte `at`, without its line break and with byte-order marks shown
/// as spaces (so that columns stay aligned).
fn line_of(text: &str, at: usize) -> String {
    let at = at.min(text.len());
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    text[start..end]
        .trim_end_matches('\r')
        .replace('\u{feff}', " ")
}

/// Maps byte offsets of a text to 1-based lines and columns.
#[derive(Debug, Clone)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    /// Indexes `text`.
    pub fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    /// 1-based line and character column of byte `at` in `text`.
    pub fn locate(&self, text: &str, at: usize) -> (usize, usize) {
        let line = self.starts.partition_point(|&s| s <= at);
        let start = self.starts[line - 1];
        let col = text.get(start..at).map_or(1, |s| s.chars().count() + 1);
        (line, col)
    }
}

/// Diagnostics of one file together with its text, rendered in full by `Display`. `Debug` (what
/// `?` out of `main` prints) shows the file, the counts and the first diagnostic, never the text.
#[derive(Clone)]
pub struct Report {
    /// The file's name as shown in messages.
    pub file: String,
    /// The file's text.
    pub text: String,
    /// Errors and warnings, in line order.
    pub diagnostics: Vec<Diagnostic>,
}

impl Report {
    /// Number of errors.
    pub fn errors(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }

    /// Number of warnings.
    pub fn warnings(&self) -> usize {
        self.diagnostics.len() - self.errors()
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.diagnostics.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            f.write_str(&d.render(&self.file, &self.text))?;
        }
        Ok(())
    }
}

impl fmt::Debug for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("Report");
        d.field("file", &shorten(&self.file))
            .field("errors", &self.errors())
            .field("warnings", &self.warnings());
        if let Some(first) = self.diagnostics.first() {
            d.field(
                "first",
                &format_args!(
                    "{}:{}:{}: {}",
                    shorten(&self.file).escape_debug(),
                    first.line,
                    first.column,
                    shorten(&first.message).escape_debug()
                ),
            );
        }
        d.finish_non_exhaustive()
    }
}

impl std::error::Error for Report {}
