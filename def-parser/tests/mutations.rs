//! Spacing, flags and comments do not change a layout (docs/grammar.md).
//!
//! Each case takes one definition of the real corpus and rewrites its field lines in ways the
//! reference reads the same: white space of every kind it knows (tabs, no-break and ideographic
//! spaces, byte-order marks) before, between and after the dashes, inside `< >` and `[ ]` and
//! before the name; comments after a line and comment or blank lines between lines; CR LF line
//! ends; a byte-order mark at the start; and flags it ignores (an unknown flag on an array,
//! `[interleaved]` on a scalar, `interleaved` twice). The layout in compatible mode must be the
//! one of the unchanged file; when only spacing and comments changed, strict mode must also
//! give what it gave for the unchanged file.
//!
//! Cost: 96 cases, each one compile of one definition and its mutation (under a second in a
//! debug build, most of it reading the corpus once).

#[path = "../../runtime/tests/support/mod.rs"]
mod support;

use std::sync::OnceLock;

use def_parser::layout::{Member, MemberKind};
use def_parser::{Layout, Mode, compile_str};
use proptest::prelude::*;

/// (file name, text) of every corpus definition, sorted by name; `None` without the corpus.
fn corpus() -> Option<&'static [(String, String)]> {
    static CORPUS: OnceLock<Option<Vec<(String, String)>>> = OnceLock::new();
    CORPUS
        .get_or_init(|| {
            let dir = support::tera_data("definitions")?;
            let mut files: Vec<(String, String)> = std::fs::read_dir(dir)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|e| e == "def"))
                .map(|p| {
                    let name = p.file_name().unwrap().to_string_lossy().into_owned();
                    (name, std::fs::read_to_string(&p).unwrap())
                })
                .collect();
            files.sort();
            Some(files)
        })
        .as_deref()
}

/// White space as the reference knows it (JavaScript's `\s`).
const SPACE: [&str; 8] = [
    "", " ", "\t", "  ", "\u{a0}", "\u{3000}", " \t ", "\u{feff}",
];
const COMMENT: [&str; 6] = ["", " # note", "#x", "\t# a # b", "# - int32 x", "#"];
const BETWEEN: [&str; 4] = ["", "\n", "# a comment line\n", " \t\n"];

/// A field or ref line of the corpus, in pieces.
struct Parts<'a> {
    depth: usize,
    ty: &'a str,
    subtype: Option<&'a str>,
    flags: Option<Vec<&'a str>>,
    name: &'a str,
    comment: Option<&'a str>,
}

/// The pieces of a plain corpus line; `None` for other lines (left as they are).
fn parts(line: &str) -> Option<Parts<'_>> {
    let (code, comment) = match line.find('#') {
        Some(i) => (&line[..i], Some(&line[i + 1..])),
        None => (line, None),
    };
    let mut rest = code.trim_matches([' ', '\t', '\r', '\u{feff}']);
    let mut depth = 0;
    while let Some(r) = rest.strip_prefix('-') {
        depth += 1;
        rest = r.trim_start_matches([' ', '\t']);
    }
    let mut words = rest.split([' ', '\t']).filter(|w| !w.is_empty());
    let (head, name) = (words.next()?, words.next()?);
    if words.next().is_some() {
        return None;
    }
    let ty_end = head.find(['<', '[']).unwrap_or(head.len());
    let (ty, mut after) = head.split_at(ty_end);
    if ty.is_empty() || !ty.chars().all(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    let mut subtype = None;
    if let Some(a) = after.strip_prefix('<') {
        let end = a.find('>')?;
        subtype = Some(&a[..end]);
        after = &a[end + 1..];
    }
    let flags = match after.strip_prefix('[') {
        Some(a) => Some(a.strip_suffix(']')?.split(',').collect()),
        None if after.is_empty() => None,
        None => return None,
    };
    Some(Parts {
        depth,
        ty,
        subtype,
        flags,
        name,
        comment,
    })
}

/// Rewrites `text` line by line with the choices in `styles` (taken in turn); returns the text
/// and whether any flags were changed (which adds warnings, so strict mode may differ).
fn mutate(text: &str, styles: &[[u8; 10]], bom: bool) -> (String, bool) {
    let pick = |set: &[&'static str], b: u8| set[b as usize % set.len()];
    let mut out = String::new();
    if bom {
        out.push('\u{feff}');
    }
    let mut flags_changed = false;
    let lines: Vec<&str> = text.split('\n').collect();
    for (i, line) in lines.iter().enumerate() {
        let s = styles[i % styles.len()];
        let last = i + 1 == lines.len();
        let Some(p) = parts(line) else {
            out.push_str(line);
            if !last {
                out.push('\n');
            }
            continue;
        };
        out.push_str(pick(&BETWEEN, s[0]));
        out.push_str(pick(&SPACE, s[1]));
        for d in 0..p.depth {
            out.push('-');
            out.push_str(pick(&SPACE, s[2].wrapping_add(d as u8)));
        }
        out.push_str(p.ty);
        if let Some(sub) = p.subtype {
            let pad = pick(&SPACE, s[3]);
            out.push_str(&format!("<{pad}{sub}{pad}>"));
        }
        let mut flags: Vec<&str> = p.flags.clone().unwrap_or_default();
        let is_ref = matches!(p.ty, "ref" | "offset" | "count");
        if !is_ref && s[4].is_multiple_of(4) {
            flags_changed = true;
            match (p.ty, flags.is_empty()) {
                ("array", true) => flags.push("sorted"),
                ("array", false) => flags.push("interleaved"),
                ("object", _) => flags.push("sorted"),
                _ => flags.push("interleaved"),
            }
        }
        if !flags.is_empty() {
            let pad = pick(&SPACE, s[5]);
            out.push_str(&format!("[{pad}{}{pad}]", flags.join(",")));
        }
        let gap = pick(&SPACE[1..], s[6]);
        out.push_str(gap);
        out.push_str(p.name);
        out.push_str(pick(&SPACE, s[7]));
        match p.comment {
            Some(c) => {
                out.push('#');
                out.push_str(c.trim_end_matches('\r'));
            }
            None => out.push_str(pick(&COMMENT, s[8])),
        }
        if !last {
            out.push_str(if s[9].is_multiple_of(2) { "\r\n" } else { "\n" });
        }
    }
    (out, flags_changed)
}

/// The layout without what depends on line numbers and text: where each member was declared
/// and the span of the patch-range comment.
fn shape(mut layout: Layout) -> Layout {
    fn members(ms: &mut [Member]) {
        for m in ms {
            m.decls.clear();
            match &mut m.kind {
                MemberKind::Object(inner) => members(inner),
                MemberKind::Array(inner) => members(&mut inner.members),
                _ => {}
            }
        }
    }
    members(&mut layout.root.members);
    if let Some(r) = &mut layout.patch_range {
        r.span = Default::default();
    }
    layout
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn spacing_flags_and_comments_keep_the_layout(
        file in any::<prop::sample::Index>(),
        styles in prop::collection::vec(any::<[u8; 10]>(), 1..12),
        bom in any::<bool>(),
    ) {
        let Some(corpus) = corpus() else { return Ok(()) };
        let (name, text) = &corpus[file.index(corpus.len())];
        let (mutated, flags_changed) = mutate(text, &styles, bom);
        let before = compile_str(name, text, Mode::Compatible).expect("the corpus compiles");
        let after = compile_str(name, &mutated, Mode::Compatible)
            .unwrap_or_else(|e| panic!("{name} mutated:\n{mutated}\n{e}"));
        prop_assert_eq!(shape(before.layout), shape(after.layout), "{} mutated:\n{}", name, mutated);
        if !flags_changed {
            let strict = |t: &str| compile_str(name, t, Mode::Strict).map(|c| shape(c.layout)).ok();
            prop_assert_eq!(strict(text), strict(&mutated), "{} mutated:\n{}", name, mutated);
        }
    }
}
