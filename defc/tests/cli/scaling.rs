//! Output that grows with its input, and no faster, counted in bytes and entries (never timed):
//! `guess --report` lists a bounded number of candidates per opcode and counts the rest, so the
//! report grows with the opcodes of the capture and not with the definitions that fit them;
//! `explain --svg` draws each field once; `check` summarises repeated warnings.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::run::defc;

fn dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A folder of `n` messages of one `int32` each: every one decodes every 8-byte packet.
fn twins(d: &Path, n: usize) -> PathBuf {
    let defs = d.join(format!("defs{n}"));
    std::fs::create_dir_all(&defs).unwrap();
    for i in 0..n {
        std::fs::write(defs.join(format!("S_T{i}.1.def")), "int32 x\n").unwrap();
    }
    defs
}

/// A capture of `n` opcodes, one 8-byte packet each.
fn capture(d: &Path, n: usize) -> PathBuf {
    let p = d.join(format!("cap{n}.txt"));
    let text: String = (0..n)
        .map(|op| format!("0800{}07000000\n", hex::encode((op as u16).to_le_bytes())))
        .collect();
    std::fs::write(&p, text).unwrap();
    p
}

/// Runs `guess --report` and returns the report's size in bytes and its JSON.
fn report(d: &Path, defs: &Path, cap: &Path, extra: &[&str]) -> (usize, Value) {
    let r = d.join("report.json");
    let mut args = vec![
        "guess",
        "--defs",
        defs.to_str().unwrap(),
        "--report",
        r.to_str().unwrap(),
    ];
    args.extend(extra);
    args.push(cap.to_str().unwrap());
    let out = defc(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&r).unwrap();
    (
        text.len(),
        serde_json::from_str(&text).expect("the report is JSON"),
    )
}

#[test]
fn guess_reports_a_bounded_number_of_candidates_per_opcode() {
    let d = dir("scaling-guess");
    let (few, many) = (twins(&d, 30), twins(&d, 300));
    let (small, large) = (capture(&d, 40), capture(&d, 400));

    let (a, ra) = report(&d, &few, &small, &[]);
    for o in ra["opcodes"].as_array().unwrap() {
        assert_eq!(o["candidates"].as_array().unwrap().len(), 20, "{o}");
        assert_eq!(o["more_candidates"], 10);
        assert_eq!(o["messages"], 30);
        assert_eq!(o["status"], "ambiguous");
    }
    // Ten times the opcodes: ten times the report (the opcode numbers grow a digit or two).
    let (b, rb) = report(&d, &few, &large, &[]);
    assert_eq!(rb["opcodes"].as_array().unwrap().len(), 400);
    assert!(b <= 10 * a + 10 * 400, "{a} bytes, then {b}");
    // Ten times the definitions that fit: the same number listed, the rest counted.
    let (c, rc) = report(&d, &many, &small, &[]);
    assert_eq!(rc["opcodes"][0]["more_candidates"], 280);
    assert!(
        c <= a + a / 10,
        "{a} bytes, then {c} with 10x the definitions"
    );
    // Asked for all of them, they are all there.
    let (_, rd) = report(&d, &few, &small, &["--report-candidates", "1000"]);
    assert_eq!(rd["opcodes"][0]["candidates"].as_array().unwrap().len(), 30);
    assert_eq!(rd["opcodes"][0]["more_candidates"], 0);
}

#[test]
fn explain_svg_draws_each_field_once() {
    let d = dir("scaling-explain");
    let svg_of = |text: String, n: usize| {
        let def = d.join(format!("S_S{n}.1.def"));
        std::fs::write(&def, text).unwrap();
        let (_, svg) = crate::explain::explain_with_svg(&def, &d.join(format!("{n}.svg")));
        let doc = roxmltree::Document::parse(&svg).expect("XML");
        (
            svg.len(),
            doc.descendants().filter(|n| n.has_tag_name("rect")).count(),
        )
    };
    // In objects of 1 000 (a level or object has at most 2 048 members); the picture draws an
    // object's fields in its level's row.
    let object = |i: usize| {
        if i.is_multiple_of(1000) {
            format!("object o{}\n", i / 1000)
        } else {
            String::new()
        }
    };
    let strings = |n: usize| {
        (0..n)
            .map(|i| format!("{}- string s{i}\n", object(i)))
            .collect::<String>()
    };
    let arrays = |n: usize| {
        (0..n)
            .map(|i| format!("{}- array a{i}\n- - int32 x\n", object(i)))
            .collect::<String>()
    };
    for (what, make) in [
        ("strings", &strings as &dyn Fn(usize) -> String),
        ("arrays", &arrays),
    ] {
        let (small, large) = (svg_of(make(500), 500), svg_of(make(5000), 5000));
        // Each string: a metadata box and a data box; each array: those and its element row.
        let per = if what == "strings" { 2 } else { 5 };
        assert_eq!(large.1 - small.1, per * 4500, "{what}");
        assert!(
            large.0 < 11 * small.0,
            "{what}: {} then {} bytes",
            small.0,
            large.0
        );
    }
}

#[test]
fn check_summarises_a_hundred_thousand_warnings() {
    let d = dir("scaling-check");
    let run = |n: usize| {
        let def = d.join(format!("S_F{n}.1.def"));
        std::fs::write(
            &def,
            format!("array[{}] a\n- int32 x\n", vec!["x"; n].join(",")),
        )
        .unwrap();
        let out = defc(&["check", def.to_str().unwrap()]);
        assert!(out.status.success());
        String::from_utf8(out.stderr).unwrap()
    };
    let (small, large) = (run(10_000), run(100_000));
    assert!(
        large.contains("and 99,990 more like this (UnknownFlag)"),
        "{large}"
    );
    assert!(
        large.len() <= small.len() + 64,
        "{} then {} bytes",
        small.len(),
        large.len()
    );
}
