//! One test per kind of diagnostic: its code, severity in both modes, line and column, and how
//! it renders.

use def_parser::diag::{Code, Severity};
use def_parser::{Mode, compile_str};

/// Diagnostics of `text` in `mode` as (code, severity, line, column).
fn diags(file: &str, text: &str, mode: Mode) -> Vec<(Code, Severity, usize, usize)> {
    let report = match compile_str(file, text, mode) {
        Ok(c) => c.warnings,
        Err(r) => r,
    };
    report
        .diagnostics
        .iter()
        .map(|d| (d.code, d.severity, d.line, d.column))
        .collect()
}

/// A warning in compatible mode (and the file compiles), an error in strict mode.
fn warning(text: &str, code: Code, line: usize, column: usize) {
    let file = "T_TEST.1.def";
    assert!(
        compile_str(file, text, Mode::Compatible).is_ok(),
        "compatible mode must accept:\n{text}"
    );
    assert_eq!(
        diags(file, text, Mode::Compatible),
        vec![(code, Severity::Warning, line, column)],
        "{text}"
    );
    assert!(
        compile_str(file, text, Mode::Strict).is_err(),
        "strict mode must reject:\n{text}"
    );
    assert_eq!(
        diags(file, text, Mode::Strict),
        vec![(code, Severity::Error, line, column)],
        "{text}"
    );
}

/// An error in both modes.
fn error(text: &str, code: Code, line: usize, column: usize) {
    for mode in [Mode::Compatible, Mode::Strict] {
        assert!(compile_str("T_TEST.1.def", text, mode).is_err(), "{text}");
        assert!(
            diags("T_TEST.1.def", text, mode).contains(&(code, Severity::Error, line, column)),
            "{mode:?}: {:?}\n{text}",
            diags("T_TEST.1.def", text, mode)
        );
    }
}

#[test]
fn malformed_line() {
    warning("int32 a\nint32\n", Code::MalformedLine, 2, 1);
    warning("int32 a b\n", Code::MalformedLine, 1, 1);
}

#[test]
fn unknown_type() {
    error("int32 a\n  int33 b\n", Code::UnknownType, 2, 3);
    error("array<object> a\n", Code::UnknownType, 1, 7);
}

#[test]
fn depth_jump() {
    warning("array a\n- - int32 b\n", Code::DepthJump, 2, 1);
}

#[test]
fn child_of_scalar() {
    error("int32 a\n- int32 b\n", Code::ChildOfScalar, 2, 1);
    error("- int32 b\n", Code::ChildOfScalar, 1, 1);
}

#[test]
fn subtype_and_flags() {
    warning("int32<int16> a\n", Code::SubtypeOnNonArray, 1, 7);
    warning("int32[interleaved] a\n", Code::FlagOnNonArray, 1, 7);
    warning("array[sorted] a\n- int32 b\n", Code::UnknownFlag, 1, 7);
}

#[test]
fn explicit_ref_mistakes() {
    error(
        "ref name\nint32 a\nstring name\nstring other\n",
        Code::MissingRef,
        4,
        8,
    );
    error("ref nothing\nint32 a\n", Code::RefToNothing, 1, 5);
    error("ref a\nint32 a\n", Code::RefToNothing, 1, 5);
    error("ref s\nstring s\nref s\n", Code::RefAfterField, 3, 1);
    error("ref s\nref s\nstring s\n", Code::DuplicateRef, 2, 1);
}

#[test]
fn legacy_lines() {
    warning(
        "count list\narray list\n- int32 a\n",
        Code::LegacyLine,
        1,
        1,
    );
    let d = diags("T_TEST.1.def", "offset s\nstring s\n", Mode::Compatible);
    assert_eq!(d, vec![(Code::LegacyLine, Severity::Warning, 1, 1)]);
    assert!(
        compile_str("T_TEST.1.def", "offset s\nstring s\n", Mode::Compatible)
            .unwrap()
            .layout
            .explicit_refs
    );
}

#[test]
fn names() {
    warning("int32 a\nint32 a\n", Code::DuplicateField, 2, 7);
    error("int32 a\nobject a\n- int32 b\n", Code::NameClash, 2, 8);
    error("string a\nint32 a\n", Code::NameClash, 2, 7);
}

#[test]
fn file_name_and_patch_range() {
    let d = diags("weird.def", "int32 a\n", Mode::Compatible);
    assert_eq!(d, vec![(Code::BadFileName, Severity::Warning, 1, 1)]);
    warning(
        "# majorPatchVersion >= banana\nint32 a\n",
        Code::BadPatchRange,
        1,
        3,
    );
    let c = compile_str(
        "S_X.3.ps4.def",
        "\u{feff}# majorPatchVersion >= 86 && majorPatchVersion < 114\nint32 a\n",
        Mode::Strict,
    )
    .unwrap();
    let r = c.layout.patch_range.unwrap();
    assert_eq!((r.min, r.max), (Some(86), Some(114)));
    let n = c.layout.name.unwrap();
    assert_eq!(
        (n.name.as_str(), n.version, n.platform.map(|p| p.as_str())),
        ("S_X", 3, Some("ps4"))
    );
}

#[test]
fn accepted_forms() {
    // Hyphens with and without spaces, byte-order marks, CRLF, comments, tabs.
    let text = "\u{feff}\u{feff}array a # c\r\n-int32 b\r\n- - \tint32 x\r\n--array c\n---int32 d\n\tint32 e\t# end\n";
    let text = text.replace("- - \tint32 x", "-array n\n- - \tint32 x");
    assert_eq!(diags("T_TEST.1.def", &text, Mode::Strict), vec![]);
}

#[test]
fn several_errors_in_one_pass() {
    let report = compile_str(
        "T_TEST.1.def",
        "int33 a\nint32 b\n- int32 c\nfoo bar\n",
        Mode::Compatible,
    )
    .unwrap_err();
    assert_eq!(report.errors(), 3, "{report}");
}

#[test]
fn rendering_shows_the_line_and_a_caret() {
    let report = compile_str(
        "defs/T_TEST.1.def",
        "int32 a\n  int33 count\n",
        Mode::Compatible,
    )
    .unwrap_err();
    let shown = report.to_string();
    let expected = "\
error: unknown type `int33`
 --> defs/T_TEST.1.def:2:3
  |
2 |   int33 count
  |   ^^^^^
  = expected one of bool, byte, int16, uint16, int32, uint32, int64, uint64, float, double, angle, vec3, vec3fa, skillid32, skillid, customize, string, bytes, array, array<T>, object, ref
";
    assert_eq!(shown, expected);
    let one = report.diagnostics[0].one_line("defs/T_TEST.1.def");
    assert!(
        one.starts_with("defs/T_TEST.1.def:2:3: error: unknown type `int33`"),
        "{one}"
    );
}
