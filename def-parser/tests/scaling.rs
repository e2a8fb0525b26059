//! Parsing and resolving take time linear in the text: each shape that was quadratic before
//! (a name looked up by scanning its level, columns counted from the line's start for every
//! diagnostic, a look back through all earlier lines) at n and 10 n.

#[path = "../../runtime/tests/support/scaling.rs"]
mod scaling;

use def_parser::{Mode, compile_str};

fn compile(text: &str) {
    let _ = compile_str("S_SCALE.1.def", text, Mode::Compatible);
}

#[test]
fn distinct_fields_at_one_level() {
    scaling::assert_linear(
        "fields",
        2_000,
        |n| (0..n).map(|i| format!("int32 f{i}\n")).collect::<String>(),
        |t: &String| compile(t),
    );
}

#[test]
fn unknown_flags_on_one_line() {
    scaling::assert_linear(
        "flags",
        20_000,
        |n| format!("array[{}] a\n- int32 x\n", vec!["x"; n].join(",")),
        |t: &String| compile(t),
    );
}

#[test]
fn arrays_at_one_level() {
    scaling::assert_linear(
        "arrays",
        1_000,
        |n| {
            (0..n)
                .map(|i| format!("array a{i}\n- int32 x\n"))
                .collect::<String>()
        },
        |t: &String| compile(t),
    );
}

#[test]
fn refs_inside_objects() {
    // Every ref is looked up relative to the object (`o.s{i}`), then from the level.
    scaling::assert_linear(
        "refs",
        1_000,
        |n| {
            let mut t = String::from("object o\n");
            for i in 0..n {
                t.push_str(&format!("- ref s{i}\n- string s{i}\n"));
            }
            t
        },
        |t: &String| compile(t),
    );
}

#[test]
fn one_object_declared_many_times() {
    scaling::assert_linear(
        "object merges",
        1_000,
        |n| {
            (0..n)
                .map(|i| format!("object o\n- int32 f{i}\n"))
                .collect::<String>()
        },
        |t: &String| compile(t),
    );
}

#[test]
fn misplaced_nested_lines() {
    // Each line under the scalar `c` is an error whose message looked back through every line
    // kept before it. (A `count` line here would no longer do: the reference drops it before
    // it looks at nesting, so the lines after it still belong to `a`.)
    scaling::assert_linear(
        "misplaced lines",
        2_000,
        |n| {
            let mut t = String::from("array a\n");
            t.push_str(&"- int32 x\n".repeat(n));
            t.push_str("int32 c\n");
            t.push_str(&"- int32 y\n".repeat(n));
            t
        },
        |t: &String| compile(t),
    );
}

#[test]
fn refs_resolve_as_before() {
    // Relative refs inside objects, dotted paths from the level, and a ref to an object's field
    // from outside it: the hash look-ups find what the scans found. (A ref inside an object is a
    // warning: the reference refuses it, docs/grammar.md.)
    let text = "ref o.s\nref t\nobject o\n- ref u\n- string s\n- string u\nstring t\n";
    let c = compile_str("S_R.1.def", text, Mode::Compatible).expect("compiles");
    let codes: Vec<_> = c.warnings.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, [def_parser::diag::Code::RefInObject]);
    let names: Vec<String> = (0..c.layout.root.slots.len())
        .map(|s| c.layout.root.slot_name(s))
        .collect();
    assert_eq!(names, ["o.s", "o.u", "t"]);
    let bad = compile_str(
        "S_R.1.def",
        "object o\n- ref nothing\n- string s\n",
        Mode::Compatible,
    )
    .expect_err("a ref to nothing");
    assert!(
        bad.to_string().contains("`ref nothing` names no string"),
        "{bad}"
    );
}

#[test]
fn lines_that_make_the_reference_s_pattern_backtrack() {
    // The reference's line pattern backtracks over dashes, a lazy type and bracket groups; our
    // split decides each choice from tables over the line, once. Lines whose every prefix is a
    // candidate type, with brackets that almost close a group.
    type Make = fn(usize) -> String;
    let shapes: [(&str, Make); 4] = [
        ("dashes and `<`", |n| {
            format!("{} {}a\n", "- ".repeat(n), "<".repeat(n))
        }),
        ("`<` and `>` pairs", |n| {
            format!("array{} a\n", "<>".repeat(n))
        }),
        ("nested `[`", |n| {
            format!("array<int32>{}{} a\n", "[".repeat(n), "]x".repeat(n))
        }),
        ("groups with white space", |n| {
            format!("array{} a\n", "< x >".repeat(n))
        }),
    ];
    // Measured against a plain line of the same length, at sizes where both runs are out of the
    // caches (`<>` pairs: from 4 000 to 40 000 characters the time grew 32x, from 40 000 to 400 000 10x).
    for (name, make) in shapes {
        scaling::assert_linear_like(
            name,
            10_000,
            make,
            |t: &String| compile(t),
            |n| format!("int32 {}\n", "a".repeat(make(n).len())),
            |t: &String| compile(t),
        );
    }
}

#[test]
fn one_object_with_variable_fields_declared_many_times() {
    // Every declaration repeats the paths `o` and `o.s`: the check for paths that meet in the
    // reference's JavaScript keeps one entry per path, not one per declaration.
    scaling::assert_linear(
        "objects declared again",
        2_000,
        |n| "object o\n- string s\n- object p\n-- bytes b\n".repeat(n),
        |t: &String| compile(t),
    );
}
