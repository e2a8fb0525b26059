//! Hostile `.def` text: the definitions are third-party files, so the parser must turn anything
//! into diagnostics, in time linear in the input and with bounded stack. Figures in
//! docs/reliability.md; the fuzz target `def_parser` runs the same entry points on random text.

use def_parser::diag::{Code, Severity};
use def_parser::{LoadError, Mode, compile_str, parse};

fn errors(text: &str, mode: Mode) -> Vec<(Code, Severity, usize)> {
    compile_str("S_HOSTILE.1.def", text, mode)
        .err()
        .map(|r| {
            r.diagnostics
                .iter()
                .map(|d| (d.code, d.severity, d.line))
                .collect()
        })
        .unwrap_or_default()
}

/// `levels` arrays, each nested in the one before (each line has more dashes than it may, which
/// reads as one level deeper), so that 100 000 levels take 10 MB rather than 5 GB of text.
fn nested(levels: usize) -> String {
    let mut s = String::from("array a\n");
    for _ in 1..levels {
        s.push_str(&"-".repeat(100));
        s.push_str(" array a\n");
    }
    s
}

#[test]
fn hundred_thousand_nesting_levels_stop_at_the_limit() {
    // Before the limit, building the tree recursed once per level: a stack overflow (abort) at a
    // few thousand levels. Run on a small stack to keep it honest.
    std::thread::Builder::new()
        .stack_size(512 << 10)
        .spawn(|| {
            for mode in [Mode::Compatible, Mode::Strict] {
                let e = errors(&nested(100_000), mode);
                let deep: Vec<_> = e.iter().filter(|d| d.0 == Code::TooDeep).collect();
                assert_eq!(
                    deep.len(),
                    100_000 - def_parser::parse::MAX_NESTING - 1,
                    "{mode:?}"
                );
                assert!(deep.iter().all(|d| d.1 == Severity::Error));
                assert_eq!(deep[0].2, def_parser::parse::MAX_NESTING + 2);
            }
            // At the limit it compiles.
            let ok = nested(def_parser::parse::MAX_NESTING) + &"-".repeat(100) + " int32 x\n";
            assert!(errors(&ok, Mode::Compatible).is_empty());
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn a_hundred_thousand_dashes_on_one_line() {
    let text = format!("array a\n{} int32 x\n", "-".repeat(100_000));
    // Read as depth 1, with a warning in compatible mode.
    let c = compile_str("S_HOSTILE.1.def", &text, Mode::Compatible).unwrap();
    assert_eq!(c.warnings.diagnostics[0].code, Code::DepthJump);
}

#[test]
fn garbage_lines_are_reported_each_in_linear_time() {
    // 100 000 malformed lines: one diagnostic each, none lost, no quadratic blowup.
    let text = "\u{0}\u{1}\u{7f} ??? !!!\n".repeat(100_000);
    let started = std::time::Instant::now();
    let parsed = parse("S_HOSTILE.1.def", &text, Mode::Compatible);
    assert_eq!(parsed.diagnostics.len(), 100_000);
    assert!(
        parsed
            .diagnostics
            .iter()
            .all(|d| d.code == Code::MalformedLine)
    );
    assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
}

#[test]
fn huge_names_and_odd_bytes() {
    // A 1 MB field name, a BOM, CR line ends, NUL and tab inside names.
    let long = format!("int32 {}\n", "n".repeat(1 << 20));
    assert!(compile_str("S_HOSTILE.1.def", &long, Mode::Strict).is_ok());
    for text in [
        "\u{feff}int32 a\r\nint32 b\r\n",
        "int32 a\u{0}b\n",
        "array\n",
        "- - -\n",
        "array<",
        "array<array<int32>> x\n",
        "array[interleaved,interleaved,] x\n- int32 y\n",
        "ref\n",
        "#\n# majorPatchVersion >= 99999999999999999999999\nint32 a\n",
    ] {
        // Never a panic; whatever happens is a report or a layout.
        let _ = compile_str("S_HOSTILE.1.def", text, Mode::Compatible);
        let _ = compile_str("S_HOSTILE.1.def", text, Mode::Strict);
    }
    let e = errors("int32\n", Mode::Strict);
    assert_eq!(e[0].0, Code::MalformedLine, "{e:?}");
}

#[test]
fn invalid_utf8_files_are_refused() {
    let dir = std::env::temp_dir().join(format!("def-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("S_HOSTILE.1.def");
    std::fs::write(&path, b"int32 a\n\xff\xfe string b\n").unwrap();
    let e = def_parser::load(&path, Mode::Compatible).unwrap_err();
    assert!(matches!(e, LoadError::NotUtf8(..)), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `n` `int32` fields, each line prefixed with `dashes`.
fn fields(n: usize, dashes: &str) -> String {
    (0..n).map(|i| format!("{dashes}int32 f{i}\n")).collect()
}

#[test]
fn levels_wider_than_the_limit_are_refused_at_the_first_member_past_it() {
    use def_parser::diag::Code;
    use def_parser::layout::MAX_MEMBERS;
    let compile = |text: &str| def_parser::compile_str("S_W.1.def", text, Mode::Compatible);
    // At the limit: accepted, at the root, in an object and in an array's elements.
    assert!(compile(&fields(MAX_MEMBERS, "")).is_ok());
    assert!(compile(&format!("object o\n{}", fields(MAX_MEMBERS, "- "))).is_ok());
    assert!(compile(&format!("array a\n{}", fields(MAX_MEMBERS, "- "))).is_ok());
    // One more: refused, the error at the first member past the limit (line 2049 of the
    // root's, one line further under an `object` or `array` line).
    for (text, line) in [
        (fields(MAX_MEMBERS + 1, ""), MAX_MEMBERS + 1),
        (
            format!("object o\n{}", fields(MAX_MEMBERS + 1, "- ")),
            MAX_MEMBERS + 2,
        ),
        (
            format!("array a\n{}", fields(MAX_MEMBERS + 1, "- ")),
            MAX_MEMBERS + 2,
        ),
        // An object declared twice counts its members together.
        (
            format!(
                "object o\n{}object o\n{}",
                fields(MAX_MEMBERS, "- "),
                (0..2)
                    .map(|i| format!("- int32 g{i}\n"))
                    .collect::<String>()
            ),
            MAX_MEMBERS + 3,
        ),
    ] {
        let r = compile(&text).expect_err("too wide");
        let d: Vec<_> = r
            .diagnostics
            .iter()
            .filter(|d| d.code == Code::TooWide)
            .collect();
        assert_eq!(d.len(), 1, "{r}");
        assert!(d[0].is_error());
        assert_eq!(d[0].line, line, "{}", d[0].message);
        assert!(
            d[0].message.starts_with("more than 2048 members"),
            "{}",
            d[0].message
        );
    }
    // 10 000 fields (whose code overflowed rustc's stack): refused in either mode.
    for mode in [Mode::Compatible, Mode::Strict] {
        let r = def_parser::compile_str("S_W.1.def", &fields(10_000, ""), mode).unwrap_err();
        assert_eq!(r.errors(), 1, "{r}");
    }
}
