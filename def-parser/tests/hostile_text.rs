//! Hostile text: CR-only line ends, bare CRs, odd file names, huge names in
//! diagnostics, encodings other than UTF-8.

use def_parser::ast::{DefName, FileNameError, Platform};
use def_parser::diag::{Code, SHOWN_MAX};
use def_parser::{LoadError, Mode, compile_str};

fn codes(file: &str, text: &str, mode: Mode) -> Vec<(Code, bool, usize, usize)> {
    match compile_str(file, text, mode) {
        Ok(c) => c
            .warnings
            .diagnostics
            .iter()
            .map(|d| (d.code, d.is_error(), d.line, d.column))
            .collect(),
        Err(r) => r
            .diagnostics
            .iter()
            .map(|d| (d.code, d.is_error(), d.line, d.column))
            .collect(),
    }
}

#[test]
fn a_cr_only_file_is_refused_not_read_as_one_comment() {
    // Read as the reference reads it this is one comment line: an empty definition.
    let text = "# majorPatchVersion >= 1\rint32 a\rstring b\r";
    for mode in [Mode::Compatible, Mode::Strict] {
        let c = codes("S_A.1.def", text, mode);
        assert!(c.contains(&(Code::BareCr, true, 1, 25)), "{mode:?}: {c:?}");
    }
    let e = compile_str("S_A.1.def", text, Mode::Compatible).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("carriage return (CR) without a line feed (2 more in the file)"),
        "{msg}"
    );
}

#[test]
fn a_bare_cr_inside_a_line_or_comment_is_refused_at_its_place() {
    assert_eq!(
        codes("S_A.1.def", "int32 a\nint32 b # x\ry\n", Mode::Compatible),
        [(Code::BareCr, true, 2, 12)]
    );
    assert_eq!(
        codes("S_A.1.def", "int32 a\r\nint32\rb\n", Mode::Compatible),
        [(Code::BareCr, true, 2, 6)]
    );
    // CR LF and LF are line ends; a CR LF file compiles as the LF one.
    let crlf = compile_str(
        "S_A.1.def",
        "int32 a\r\narray b\r\n- int32 c\r\n",
        Mode::Strict,
    )
    .unwrap()
    .layout;
    let lf = compile_str("S_A.1.def", "int32 a\narray b\n- int32 c\n", Mode::Strict)
        .unwrap()
        .layout;
    assert_eq!(crlf.root.members.len(), lf.root.members.len());
    assert_eq!(crlf.root.fixed_size, lf.root.fixed_size);
}

#[test]
fn file_names_say_why_they_are_refused() {
    let ok = DefName::parse_checked("S_A.0.ps4.def").unwrap();
    assert_eq!((ok.version, ok.platform), (0, Some(Platform::Ps4)));
    for (name, why) in [
        ("S_X.007.def", FileNameError::LeadingZero),
        ("S_B.1.PC.def", FileNameError::BadPlatform),
        ("S_C.99999999999.def", FileNameError::VersionTooLarge),
        ("S_C.4294967296.def", FileNameError::VersionTooLarge),
        ("S_D.1.pc.x.def", FileNameError::TooManyParts),
        ("S_E.def", FileNameError::NoVersion),
        ("S-F.1.def", FileNameError::BadName),
        (".1.def", FileNameError::BadName),
        ("S_G.x.def", FileNameError::BadVersion),
        ("S_G.1.txt", FileNameError::NotDef),
    ] {
        assert_eq!(DefName::parse_checked(name), Err(why), "{name}");
    }
    assert_eq!(
        DefName::parse_checked("S_C.4294967295.def")
            .unwrap()
            .version,
        u32::MAX
    );
    // The parser warns (an error in strict mode) with the reason.
    let e = compile_str("S_X.007.def", "int32 a\n", Mode::Strict).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("`S_X.007.def`") && msg.contains("leading zero"),
        "{msg}"
    );
}

#[test]
fn diagnostics_repeat_at_most_a_short_piece_of_a_huge_name() {
    let huge = "x".repeat(1_000_000);
    // An unknown type, an unknown element type, a name declared twice: each quotes the input.
    for text in [
        format!("{huge} a\n"),
        format!("array<{huge}> a\n"),
        format!("int32 {huge}\nstring {huge}\n"),
        format!("array[{huge}] a\n- int32 b\n"),
    ] {
        let e = compile_str("S_A.1.def", &text, Mode::Strict).unwrap_err();
        for d in &e.diagnostics {
            assert!(d.message.len() < 4 * SHOWN_MAX, "{} bytes", d.message.len());
        }
        let shown = e.to_string();
        assert!(
            shown.len() < 1000 * e.diagnostics.len(),
            "{} bytes",
            shown.len()
        );
        assert!(shown.contains('…'), "{shown}");
    }
    // The caret still points at the fault inside the shown window.
    let text = format!("int32 {huge} junk\n");
    let e = compile_str("S_A.1.def", &text, Mode::Strict).unwrap_err();
    let shown = e.to_string();
    assert!(shown.lines().count() < 10 * e.diagnostics.len(), "{shown}");
}

#[test]
fn files_that_are_not_utf8_say_where_and_what() {
    let dir = std::env::temp_dir().join(format!("def-parser-hostile-text-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("S_A.1.def");
    let utf16: Vec<u8> = [0xFE, 0xFF]
        .into_iter()
        .chain("int32 a\n".encode_utf16().flat_map(u16::to_be_bytes))
        .collect();
    std::fs::write(&path, utf16).unwrap();
    let e = def_parser::load(&path, Mode::Compatible).unwrap_err();
    let LoadError::NotUtf8(_, why) = &e else {
        panic!("{e}")
    };
    assert_eq!(why.offset, 0);
    let msg = e.to_string();
    assert!(
        msg.contains("S_A.1.def") && msg.contains("UTF-16BE"),
        "{msg}"
    );
    std::fs::write(&path, b"int32 a\nint32 caf\xE9\n").unwrap();
    let msg = def_parser::load(&path, Mode::Compatible)
        .unwrap_err()
        .to_string();
    assert!(msg.contains("byte 0xE9 at byte offset 17"), "{msg}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(unix)]
#[test]
fn a_fifo_is_refused_not_read() {
    let dir = std::env::temp_dir().join(format!("def-parser-fifo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("S_F.1.def");
    let _ = std::fs::remove_file(&fifo);
    if !std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success())
    {
        eprintln!("mkfifo is not available; skipped");
        return;
    }
    // Reading would block for ever: the test would hang, not fail.
    let e = def_parser::load(&fifo, Mode::Compatible).unwrap_err();
    assert!(matches!(e, LoadError::Io(..)), "{e}");
    assert!(e.to_string().contains("not a regular file"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `?` out of `main` prints `Debug`: a report of a large file shows the file, the counts and the
/// first diagnostic, not the file's text.
#[test]
fn debug_of_a_report_is_short() {
    let text = format!("{}int33 x\n", "int32 a # padding the file\n".repeat(10_000));
    let report = def_parser::compile_str("S_BIG.1.def", &text, def_parser::Mode::Compatible)
        .expect_err("unknown type");
    let shown = format!("{report:?}");
    assert!(shown.len() < 500, "{} bytes: {shown}", shown.len());
    assert!(shown.contains("S_BIG.1.def:10001:1"), "{shown}");
    assert!(!shown.contains("padding the file"), "{shown}");
}

/// A line of `n` unknown flags: one warning each.
fn flags(n: usize) -> def_parser::Report {
    let text = format!("array[{}] a\n- int32 x\n", vec!["x"; n].join(","));
    match def_parser::compile_str("S_FLAGS.1.def", &text, def_parser::Mode::Compatible) {
        Ok(c) => c.warnings,
        Err(r) => r,
    }
}

#[test]
fn repeated_diagnostics_are_summarised_and_each_rendering_is_bounded() {
    let (small, large) = (flags(10_000), flags(100_000));
    let unknown = |r: &def_parser::Report| {
        r.diagnostics
            .iter()
            .filter(|d| d.code == Code::UnknownFlag)
            .count()
    };
    assert_eq!((unknown(&small), unknown(&large)), (10_000, 100_000));
    let (a, b) = (small.to_string(), large.to_string());
    assert!(
        b.contains("note: and 99,990 more like this (UnknownFlag), from line 1 on"),
        "{b}"
    );
    // Ten times the warnings, the same text but one digit of the count.
    assert_eq!(b.len(), a.len() + 1, "{a}\n---\n{b}");
    assert_eq!(
        b.matches("warning: ").count(),
        def_parser::diag::REPEATS_SHOWN
    );
    // The last flag of a 200 KB line renders a window around it, not the line.
    let last = large.diagnostics.last().unwrap();
    let shown = last.render(&large.file, &large.text);
    assert!(
        shown.len() < 4 * SHOWN_MAX + 200,
        "{} bytes: {shown}",
        shown.len()
    );
    assert!(shown.contains("…x,x"), "{shown}");
}

#[test]
fn snippets_escape_hidden_characters_and_keep_the_caret_under_the_fault() {
    let text = "int32 ok\nuint33 a\u{1b}[2J\u{202e}b\n";
    let r = def_parser::compile_str("S_C.1.def", text, def_parser::Mode::Compatible)
        .expect_err("unknown type");
    let d = &r.diagnostics[0];
    let shown = d.render("S\u{7}.def", text);
    assert!(
        !shown
            .chars()
            .any(|c| c.is_control() && c != '\n' || c == '\u{202e}'),
        "{shown:?}"
    );
    assert!(shown.contains(" --> S\\u{7}.def:2:1"), "{shown}");
    assert!(
        shown.contains("2 | uint33 a\\u{1b}[2J\\u{202e}b\n"),
        "{shown}"
    );
    assert!(shown.contains("  | ^^^^^^\n"), "{shown}");
}
