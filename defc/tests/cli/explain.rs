//! `defc explain`: the table of `S_EXAMPLE.1.def` against offsets worked out by hand from
//! LAYOUT.md (metadata first, then fixed values, then variable data in declaration order), the
//! fixed-size tables of golden vectors' definitions against the vectors' lengths, and `--svg`
//! parsed as XML.

use std::path::Path;

use crate::run::defc;
use crate::support;

/// `defc explain DEF --svg SVG`, which must succeed: the table it prints and the SVG it wrote.
pub fn explain_with_svg(def: &Path, svg: &Path) -> (String, String) {
    let out = defc(&[
        "explain",
        def.to_str().unwrap(),
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8(out.stdout).unwrap(),
        std::fs::read_to_string(svg).unwrap(),
    )
}

#[test]
fn table_and_svg_of_the_example() {
    let def = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../protocol-defs/data/definitions/S_EXAMPLE.1.def");
    let (text, svg) = explain_with_svg(
        &def,
        &Path::new(env!("CARGO_TARGET_TMPDIR")).join("S_EXAMPLE.svg"),
    );
    let rows: Vec<Vec<&str>> = text
        .lines()
        .filter(|l| l.starts_with("  ") && !l.trim_start().starts_with("offset"))
        .map(|l| l.split_whitespace().take(3).collect())
        .collect();
    let want: Vec<Vec<&str>> = [
        ["0", "2", "name"],
        ["2", "4", "items"],
        ["6", "4", "level"],
        ["var", "var", "name"],
        ["var", "var", "items"],
        ["0", "4", "id"],
        ["4", "2", "amount"],
    ]
    .iter()
    .map(|r| r.to_vec())
    .collect();
    assert_eq!(rows, want, "{text}");
    assert!(text.contains("element of items[]"), "{text}");

    let doc = roxmltree::Document::parse(&svg).expect("well-formed XML");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert_eq!(
        root.tag_name().namespace(),
        Some("http://www.w3.org/2000/svg")
    );
    for a in ["width", "height", "viewBox"] {
        assert!(root.attribute(a).is_some(), "{a}");
    }
    // A box per field (with its path as a tooltip) on two rows: the packet and the element.
    let titles: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("title"))
        .filter_map(|n| n.text())
        .collect();
    for f in ["name", "items", "level", "id", "amount"] {
        assert!(
            titles.iter().any(|t| t.starts_with(&format!("{f}:"))),
            "{f}: {titles:?}"
        );
    }
    let arrows = doc
        .descendants()
        .filter(|n| n.has_tag_name("path") && n.attribute("marker-end").is_some())
        .count();
    // name and items: metadata to data; items to its elements; the elements' chain.
    assert_eq!(arrows, 4);
}

#[test]
fn names_that_are_markup_stay_text() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("defc-explain");
    std::fs::create_dir_all(&dir).unwrap();
    let def = dir.join("S_X.1.def");
    std::fs::write(&def, "int32 a # <script>&\nstring b\n").unwrap();
    let (_, svg) = explain_with_svg(&def, &dir.join("x.svg"));
    roxmltree::Document::parse(&svg).expect("well-formed XML");
    assert!(!svg.contains("<script"));
}

/// For every definition of the vectors whose body is fixed, the table's last fixed row ends
/// where the vectors' packets end.
#[test]
fn fixed_tables_match_the_golden_lengths() {
    let Some((text, defs)) = support::public_vectors() else {
        return;
    };
    let mut checked = 0;
    let mut last = String::new();
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let name = v["def"].as_str().unwrap();
        if name == last || v["padding"].as_bool().unwrap() {
            continue;
        }
        last = name.to_string();
        if checked >= 60 {
            break;
        }
        let def = defs.join(name);
        let out = defc(&["explain", def.to_str().unwrap()]);
        let t = String::from_utf8(out.stdout).unwrap();
        if t.contains("var") || t.contains("element of") {
            continue;
        }
        let end = t
            .lines()
            .filter(|l| l.starts_with("  ") && !l.trim_start().starts_with("offset"))
            .map(|l| {
                let f: Vec<usize> = l
                    .split_whitespace()
                    .take(2)
                    .map(|x| x.parse().unwrap())
                    .collect();
                f[0] + f[1]
            })
            .max()
            .unwrap_or(0);
        assert_eq!(4 + end, v["hex"].as_str().unwrap().len() / 2, "{name}\n{t}");
        checked += 1;
    }
    assert!(checked > 20, "{checked}");
}
