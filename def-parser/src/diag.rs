//! Diagnostics: what was wrong in a `.def` file, where, and what was expected.
//!
//! A [`Diagnostic`] is plain data (a byte span, its line and column, a message, an optional
//! "expected" note). [`Report`] renders a list of them against the source text, each with the line
//! it points into and a caret under the fault, the way rustc shows its own errors.

use std::borrow::Cow;
use std::fmt;

/// Longest piece of input a diagnostic repeats, in bytes of shown text: longer names in messages
/// are cut and followed by their length, so that a 10 MB name gives a short message. Snippets
/// show a window of `2 * SHOWN_MAX` characters of a line around the caret.
pub const SHOWN_MAX: usize = 80;

/// `text` as messages quote input, by the workspace's one rule ([`def_text`]): control, format
/// and bidirectional characters escaped (`\u{1b}`), and cut after [`SHOWN_MAX`] bytes of shown
/// text with `…(N bytes)`.
pub fn shorten(text: &str) -> Cow<'_, str> {
    if text.len() <= SHOWN_MAX && !text.chars().any(def_text::is_hidden) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(def_text::shown(text, SHOWN_MAX).to_string())
}

/// A message with its hidden characters escaped and, when it is long, every code span (text
/// between backticks) cut by [`shorten`]. Messages quote input in code spans only, so this bounds
/// what they repeat of it.
pub(crate) fn shorten_spans(message: String) -> String {
    if message.len() <= 2 * SHOWN_MAX {
        if !message.chars().any(def_text::is_hidden) {
            return message;
        }
        return def_text::escaped(&message).to_string();
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
    /// A level or object with more than [`MAX_MEMBERS`](crate::layout::MAX_MEMBERS) members:
    /// the struct generated for it would not compile (an error in every mode).
    TooWide,
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
            "{}:{}:{}: {sev}: {}",
            def_text::shown(file, def_text::PATH),
            self.line,
            self.column,
            def_text::escaped(&self.message)
        );
        if let Some(e) = &self.expected {
            s.push_str(&format!(" (expected {})", def_text::escaped(e)));
        }
        s
    }

    /// The diagnostic rendered with the faulty line and a caret under the fault. The line is
    /// shown as a window of at most `2 * SHOWN_MAX` characters around the caret, its hidden
    /// characters escaped (tabs and byte-order marks as spaces, so that columns stay aligned);
    /// the cost is bounded by that window, not by the line's length.
    pub fn render(&self, file: &str, text: &str) -> String {
        let mut out = String::new();
        let sev = match self.severity {
            Severity::Warning => "warning",
            Severity::Error => "error",
        };
        out.push_str(&format!("{sev}: {}\n", def_text::escaped(&self.message)));
        out.push_str(&format!(
            " --> {}:{}:{}\n",
            def_text::shown(file, def_text::PATH),
            self.line,
            self.column
        ));
        let num = self.line.to_string();
        let pad = " ".repeat(num.len());
        let (shown, caret_start, width) = window(text, self.span);
        out.push_str(&format!(
            "{pad} |\n{num} | {shown}\n{pad} | {}{}\n",
            " ".repeat(caret_start),
            "^".repeat(width)
        ));
        if let Some(e) = &self.expected {
            out.push_str(&format!("{pad} = expected {}\n", def_text::escaped(e)));
        }
        out
    }
}

/// The piece of the line holding `span.start` that a snippet shows (at most `SHOWN_MAX / 2`
/// characters before it, `2 * SHOWN_MAX` in all, `…` where the line goes on), with the column
/// of the caret and its width, both in shown characters.
fn window(text: &str, span: Span) -> (String, usize, usize) {
    let mut at = span.start.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let mut from = at;
    let mut taken = 0;
    let mut cut_before = false;
    for (i, c) in text[..at].char_indices().rev() {
        if c == '\n' {
            break;
        }
        if taken == SHOWN_MAX / 2 {
            cut_before = true;
            break;
        }
        from = i;
        taken += 1;
    }
    let mut shown = String::new();
    let mut chars = 0;
    if cut_before {
        shown.push('…');
        chars += 1;
    }
    for c in text[from..at].chars() {
        chars += push_shown(&mut shown, c);
    }
    let caret_start = chars;
    let mut width = 0;
    let mut rest = text[at..].char_indices().peekable();
    while let Some((i, c)) = rest.next() {
        if c == '\n' || c == '\r' && matches!(rest.peek(), None | Some((_, '\n'))) {
            break;
        }
        if taken == 2 * SHOWN_MAX {
            shown.push('…');
            break;
        }
        taken += 1;
        let n = push_shown(&mut shown, c);
        if at + i < span.end {
            width += n;
        }
    }
    (shown, caret_start, width.max(1))
}

/// Appends `c` as a snippet shows it (a tab or byte-order mark as a space, a hidden character
/// escaped); returns how many characters that took.
fn push_shown(shown: &mut String, c: char) -> usize {
    match c {
        '\t' | '\u{feff}' => {
            shown.push(' ');
            1
        }
        c if def_text::is_hidden(c) => {
            let before = shown.len();
            shown.push_str(&def_text::escaped(c.encode_utf8(&mut [0; 4])).to_string());
            shown.len() - before
        }
        c => {
            shown.push(c);
            1
        }
    }
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

/// Diagnostics of one file together with its text, rendered by `Display` (repeats of one kind
/// summarised, see its impl). `Debug` (what
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

/// How many diagnostics of one [`Code`] a [`Report`] renders in full; the rest of that code are
/// counted in one closing note ("and 99,990 more like this").
pub const REPEATS_SHOWN: usize = 10;

/// `n` with a comma between each group of three digits (`99,990`).
fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Renders the first [`REPEATS_SHOWN`] diagnostics of each [`Code`] in full (in line order) and
/// then, for each code that had more, one note with their number and the line of the first one
/// not shown. The work and the text are linear in the number of diagnostics (each rendering is
/// bounded, see [`Diagnostic::render`]) and the text is bounded by the number of codes.
impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut seen: std::collections::HashMap<Code, (usize, usize)> =
            std::collections::HashMap::new();
        let mut order: Vec<Code> = Vec::new();
        let mut first = true;
        for d in &self.diagnostics {
            let (n, from) = seen.entry(d.code).or_insert_with(|| {
                order.push(d.code);
                (0, 0)
            });
            *n += 1;
            if *n > REPEATS_SHOWN {
                if *n == REPEATS_SHOWN + 1 {
                    *from = d.line;
                }
                continue;
            }
            if !first {
                writeln!(f)?;
            }
            first = false;
            f.write_str(&d.render(&self.file, &self.text))?;
        }
        for code in order {
            let (n, from) = seen[&code];
            if n > REPEATS_SHOWN {
                writeln!(
                    f,
                    "\nnote: and {} more like this ({code:?}), from line {from} on",
                    grouped(n - REPEATS_SHOWN)
                )?;
            }
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
