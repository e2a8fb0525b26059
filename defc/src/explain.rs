//! `defc explain F.def [--svg FILE]`: the layout of a definition, read from def-parser's layout
//! IR, as a table per level (offset, size, field, what the bytes are, where variable data
//! goes), and as an SVG picture of a packet's regions: the header, the fixed part, metadata,
//! strings and bytes, and each array's elements with their `here`/`next` chain.
//!
//! Offsets are from the start of the level's body: the root's body starts after the header
//! (4 bytes, 12 with padding), an element's after its `here` and `next`. A run of fixed fields
//! that comes after variable data has no static offset: its fields are shown as `+N` from the
//! end of that data.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

use def_parser::ast::ElemType;
use def_parser::layout::{Fixed, Layout, Level, MemberKind, MetaKind, Step};

use crate::annotate::load;

/// One row of a level's table.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// `Ok(offset)` from the level's body, or `Err(n)`: `n` bytes after variable data.
    pub offset: Result<usize, usize>,
    /// Bytes, `None` for variable data.
    pub size: Option<usize>,
    /// Field path within the level.
    pub field: String,
    /// What the bytes are.
    pub what: String,
    /// The region kind, for the picture.
    pub region: Region,
}

/// The kinds of region the picture colours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Region {
    /// A fixed value.
    Value,
    /// Metadata: counts and offsets.
    Meta,
    /// A string's text.
    Text,
    /// Bytes data.
    Bytes,
    /// An array's elements.
    Elements,
}

/// A level's table and its name (`""` for the root, `items[]` for elements of `items`).
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// The level's name.
    pub name: String,
    /// Its rows, in wire order.
    pub rows: Vec<Row>,
    /// Least bytes of its body.
    pub fixed_size: usize,
}

fn elem_what(kind: &MemberKind) -> String {
    match kind {
        MemberKind::String => "string: UTF-16LE text and a 0 unit".into(),
        MemberKind::Bytes => "bytes data".into(),
        MemberKind::Array(_) => "array elements, each: here, next, body".into(),
        MemberKind::ArrayOf(ElemType::String) => {
            "array<string> elements, each: here, next, text offset; then the text".into()
        }
        MemberKind::ArrayOf(ElemType::Scalar(s)) => {
            format!("array<{}> elements, each: here, next, value", s.keyword())
        }
        _ => String::new(),
    }
}

fn region_of(kind: &MemberKind) -> Region {
    match kind {
        MemberKind::String => Region::Text,
        MemberKind::Bytes => Region::Bytes,
        _ => Region::Elements,
    }
}

/// The tables of a layout: the root, then each object-array's element level, depth first.
pub fn tables(layout: &Layout) -> Vec<Table> {
    let mut out = Vec::new();
    level_tables(&layout.root, "", &mut out);
    out
}

fn level_tables(level: &Level, name: &str, out: &mut Vec<Table>) {
    let mut rows = Vec::new();
    let mut nested = Vec::new();
    let mut var = |slot: usize, rows: &mut Vec<Row>| {
        let m = level.slot_member(slot);
        let field = level.slot_name(slot);
        if let MemberKind::Array(elem) = &m.kind {
            nested.push((field.clone(), elem.as_ref()));
        }
        rows.push(Row {
            offset: Err(0),
            size: None,
            what: elem_what(&m.kind),
            region: region_of(&m.kind),
            field,
        });
    };
    for step in &level.steps {
        match step {
            Step::Fixed(run) => {
                for &(at, f) in &run.fields {
                    let field = level.slot_name(f.slot());
                    let (what, region) = match f {
                        Fixed::Meta { kind, .. } => (
                            match kind {
                                MetaKind::Array => "count, offset of the first element",
                                MetaKind::Bytes => "offset, count of the bytes",
                                MetaKind::String => "offset of the text",
                            }
                            .to_string(),
                            Region::Meta,
                        ),
                        Fixed::Value { ty, .. } => (ty.keyword().to_string(), Region::Value),
                    };
                    rows.push(Row {
                        offset: run.offset.map(|o| o + at).ok_or(at),
                        size: Some(f.size()),
                        field,
                        what,
                        region,
                    });
                }
            }
            Step::Var(slot) => var(*slot, &mut rows),
            Step::Interleaved(slots) => {
                for &s in slots {
                    var(s, &mut rows);
                    if let Some(r) = rows.last_mut() {
                        r.what.push_str(" (interleaved)");
                    }
                }
            }
        }
    }
    out.push(Table {
        name: name.to_string(),
        rows,
        fixed_size: level.fixed_size,
    });
    for (field, elem) in nested {
        let sub = if name.is_empty() {
            format!("{field}[]")
        } else {
            format!("{name}.{field}[]")
        };
        level_tables(elem, &sub, out);
    }
}

/// The tables as text.
pub fn render(layout: &Layout) -> String {
    let mut s = String::new();
    if let Some(n) = &layout.name {
        let _ = writeln!(
            s,
            "{}.{}",
            def_text::shown(&n.name, def_text::NAME),
            n.version
        );
    }
    for t in tables(layout) {
        let _ = writeln!(s);
        if t.name.is_empty() {
            let _ = writeln!(
                s,
                "packet: header (length, opcode: 4 bytes; 8 more of padding on padded opcodes), then a body of {} fixed bytes; offsets from the body",
                t.fixed_size
            );
        } else {
            let _ = writeln!(
                s,
                "element of {}: here (2), next (2), then a body of {} fixed bytes; offsets from the body",
                def_text::shown(&t.name, def_text::PATH),
                t.fixed_size
            );
        }
        let _ = writeln!(s, "  {:<8} {:<5} {:<28} what", "offset", "size", "field");
        for r in &t.rows {
            let off = match r.offset {
                Ok(o) => o.to_string(),
                Err(0) if r.size.is_none() => "var".to_string(),
                Err(n) => format!("+{n}"),
            };
            let size = r.size.map_or("var".to_string(), |n| n.to_string());
            let _ = writeln!(
                s,
                "  {off:<8} {size:<5} {:<28} {}",
                def_text::shown(&r.field, def_text::PATH),
                r.what
            );
        }
    }
    s
}

/// Text from the definition in the picture, by the rule for input text in XML
/// (`def_text::xml`): markup and hidden characters escaped, cut after `def_text::PATH` bytes.
fn xml(s: &str) -> String {
    def_text::xml(s, def_text::PATH).to_string()
}

/// A picture of a packet's regions: one row per level, boxes as wide as their bytes (variable
/// data drawn as a dashed box), arrows from each array's metadata to its element row and from
/// each element row back to itself (the `next` chain).
pub fn svg(layout: &Layout) -> String {
    const UNIT: f64 = 20.0;
    const ROW: f64 = 100.0;
    const LEFT: f64 = 10.0;
    let colour = |r: Region| match r {
        Region::Value => "#b7e1a1",
        Region::Meta => "#a9c8f0",
        Region::Text => "#f6e08a",
        Region::Bytes => "#f3c39b",
        Region::Elements => "#f4a9a8",
    };
    let width_of = |size: Option<usize>| size.map_or(6.0 * UNIT, |n| (n.max(1) as f64) * UNIT);
    let ts = tables(layout);
    let mut body = String::new();
    // Where each level's row starts (for arrows), and where each array's meta box is.
    let mut meta_at: Vec<(String, f64, f64)> = Vec::new();
    // Each variable field's metadata box and data box in its row: (meta x, data x, row y).
    let mut arcs: Vec<(f64, f64, f64)> = Vec::new();
    let mut widest: f64 = 0.0;
    for (i, t) in ts.iter().enumerate() {
        let y = 44.0 + i as f64 * ROW;
        let mut x = LEFT;
        let title = if t.name.is_empty() {
            layout.name.as_ref().map_or("packet".to_string(), |n| {
                format!("{}.{} packet", n.name, n.version)
            })
        } else {
            format!("element of {}", t.name)
        };
        let _ = writeln!(
            body,
            r#"<text x="{LEFT}" y="{:.1}" font-size="12" font-weight="bold">{}</text>"#,
            y - 22.0,
            xml(&title)
        );
        let mut lead: Vec<(&str, usize, &str)> = Vec::new();
        if t.name.is_empty() {
            lead.push(("len", 2, "#d0d0d0"));
            lead.push(("opcode", 2, "#d0d0d0"));
        } else {
            lead.push(("here", 2, colour(Region::Meta)));
            lead.push(("next", 2, colour(Region::Meta)));
        }
        for (label, n, fill) in lead {
            let w = n as f64 * UNIT;
            let _ = writeln!(
                body,
                r##"<rect x="{x:.1}" y="{y:.1}" width="{w:.1}" height="30" fill="{fill}" stroke="#333"/><text x="{:.1}" y="{:.1}" font-size="9" text-anchor="middle">{label}</text>"##,
                x + w / 2.0,
                y + 19.0
            );
            x += w;
        }
        if !t.name.is_empty() {
            // The chain: `next` leads to the next element, laid out the same way.
            let _ = writeln!(
                body,
                r##"<path d="M {:.1} {:.1} C {:.1} {:.1}, {:.1} {:.1}, {:.1} {:.1}" fill="none" stroke="#c0392b" marker-end="url(#arrow)"/>"##,
                LEFT + 3.0 * UNIT,
                y + 30.0,
                LEFT + 3.0 * UNIT,
                y + 48.0,
                LEFT,
                y + 48.0,
                LEFT + 1.0,
                y + 31.0
            );
        }
        // A field's metadata box by its name, the first one as a search from the start found it
        // (one lookup per row: linear in the fields).
        let mut metas: HashMap<&str, f64> = HashMap::new();
        for r in &t.rows {
            let w = width_of(r.size);
            if r.region == Region::Meta {
                metas.entry(&r.field).or_insert(x + w / 2.0);
            } else if let (None, Some(mx)) = (r.size, metas.get(r.field.as_str())) {
                arcs.push((*mx, x + w / 2.0, y));
            }
            if let Ok(o) = r.offset {
                let _ = writeln!(
                    body,
                    r##"<text x="{:.1}" y="{:.1}" font-size="8" fill="#555">{}</text>"##,
                    x + 1.0,
                    y + 40.0,
                    o + 4
                );
            }
            let dash = if r.size.is_none() {
                r#" stroke-dasharray="4 2""#
            } else {
                ""
            };
            let _ = writeln!(
                body,
                r##"<rect x="{x:.1}" y="{y:.1}" width="{w:.1}" height="30" fill="{}" stroke="#333"{dash}><title>{}: {}</title></rect>"##,
                colour(r.region),
                xml(&r.field),
                xml(&r.what)
            );
            let label: String = r.field.chars().take((w / 5.5) as usize).collect();
            let _ = writeln!(
                body,
                r#"<text x="{:.1}" y="{:.1}" font-size="9" text-anchor="middle">{}</text>"#,
                x + w / 2.0,
                y + 19.0,
                xml(&label)
            );
            if r.region == Region::Elements {
                let full = if t.name.is_empty() {
                    format!("{}[]", r.field)
                } else {
                    format!("{}.{}[]", t.name, r.field)
                };
                meta_at.push((full, x + w / 2.0, y + 30.0));
            }
            x += w;
        }
        widest = widest.max(x);
    }
    // Arcs above each row from a field's metadata to its data.
    for (mx, dx, y) in &arcs {
        let _ = writeln!(
            body,
            r##"<path d="M {mx:.1} {y:.1} C {mx:.1} {:.1}, {dx:.1} {:.1}, {dx:.1} {y:.1}" fill="none" stroke="#2c3e50" stroke-dasharray="3 2" marker-end="url(#arrow)"/>"##,
            y - 16.0,
            y - 16.0
        );
    }
    // Arrows from each array's elements to its element row (the first row of that name).
    let mut row_of: HashMap<&str, usize> = HashMap::new();
    for (i, t) in ts.iter().enumerate() {
        row_of.entry(&t.name).or_insert(i);
    }
    for (name, x, y) in &meta_at {
        if let Some(&i) = row_of.get(name.as_str()) {
            let ty = 44.0 + i as f64 * ROW;
            let _ = writeln!(
                body,
                r##"<path d="M {x:.1} {y:.1} C {x:.1} {:.1}, {:.1} {:.1}, {:.1} {ty:.1}" fill="none" stroke="#2c3e50" marker-end="url(#arrow)"/>"##,
                y + 20.0,
                LEFT + UNIT,
                ty - 30.0,
                LEFT + UNIT
            );
        }
    }
    let legend_y = 30.0 + ts.len() as f64 * ROW;
    let mut x = LEFT;
    for (label, r) in [
        ("value", Region::Value),
        ("metadata", Region::Meta),
        ("string", Region::Text),
        ("bytes", Region::Bytes),
        ("elements", Region::Elements),
    ] {
        let _ = writeln!(
            body,
            r##"<rect x="{x:.1}" y="{legend_y:.1}" width="12" height="12" fill="{}" stroke="#333"/><text x="{:.1}" y="{:.1}" font-size="10">{label}</text>"##,
            colour(r),
            x + 16.0,
            legend_y + 10.0
        );
        x += 80.0;
    }
    let width = widest.max(x) + LEFT;
    let height = legend_y + 24.0;
    format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="sans-serif">
<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto"><path d="M 0 0 L 10 5 L 0 10 z" fill="#333"/></marker></defs>
<rect width="100%" height="100%" fill="white"/>
{body}</svg>
"##
    )
}

/// `defc explain`.
pub fn run(def: &Path, svg_out: Option<&Path>) -> ExitCode {
    let d = match load(def) {
        Ok(d) => d,
        Err(e) => {
            crate::tera::fail(e);
            return ExitCode::FAILURE;
        }
    };
    crate::annotate::print_out(&render(d.layout()));
    if let Some(p) = svg_out
        && let Err(e) = std::fs::write(p, svg(d.layout()))
    {
        return crate::tera::fail(format!("{}: {e}", p.display()));
    }
    ExitCode::SUCCESS
}
