//! The text the tools print from hostile input: any bytes as a `.def` field name, a definition, a
//! packet string, an NBT key and string, through `defc`'s own output functions (`out.rs` and
//! `explain.rs`, compiled here from defc's source: defc is a binary crate), def-parser's
//! diagnostics and the runtime's error `Display`s, SNBT and the NBT dump. Checks: no control,
//! format (bidirectional, zero-width, …) or separator character comes out raw (line breaks only
//! where the output puts them itself), SVG and XML text are well-formed (parsed with
//! `roxmltree`), JSON reads back as the same text.
#![no_main]

#[allow(dead_code)]
#[path = "../../defc/src/out.rs"]
mod out;

#[allow(dead_code)]
#[path = "../../defc/src/explain.rs"]
mod explain;

/// What `explain::run` calls in defc; `run` reads files, which the target does not reach.
mod annotate {
    pub fn load(_: &std::path::Path) -> Result<def_runtime::tera::dynamic::Definition, String> {
        Err("not read by the fuzz target".into())
    }

    pub fn print_out(_: &str) {}
}

/// The same, for `explain::run`'s error path.
mod tera {
    pub fn fail(_: impl std::fmt::Display) -> std::process::ExitCode {
        std::process::ExitCode::FAILURE
    }
}

use def_runtime::Options;
use def_runtime::nbt::{self, Compound, Edition, Nbt, ReadOptions, Tag};
use def_runtime::tera::dynamic::Definition;
use serde_json::Value;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check(data));

/// Panics if `text` holds a hidden character other than those in `allowed` (the output's own
/// line breaks).
fn no_raw(what: &str, text: &str, allowed: &[char]) {
    if let Some(c) = text
        .chars()
        .find(|&c| def_text::is_hidden(c) && !allowed.contains(&c))
    {
        let start: String = text.chars().take(200).collect();
        panic!("{what}: raw {c:?} in {start:?}");
    }
}

fn check(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let text = text.as_ref();

    // defc's message lines, table values and JSON.
    no_raw("out::message", &out::message(text), &['\n']);
    let value = Value::String(text.to_string());
    no_raw("out::value", &out::value(&value), &[]);
    let json = out::json(serde_json::to_string(&value).unwrap());
    no_raw("out::json", &json, &[]);
    assert_eq!(
        serde_json::from_str::<Value>(&json).unwrap(),
        value,
        "out::json changed the data"
    );

    // def-text's XML rule: the text as character data and as an attribute.
    let x = def_text::xml(text, def_text::PATH).to_string();
    no_raw("def_text::xml", &x, &[]);
    let doc = format!("<a b=\"{x}\">{x}</a>");
    if let Err(e) = roxmltree::Document::parse(&doc) {
        panic!("def_text::xml is not well-formed XML ({e}): {doc:?}");
    }

    // The text as a whole definition: its diagnostics, as `defc check` prints them.
    let file = "S_FUZZ.1.def";
    match def_parser::compile_str(file, text, def_parser::Mode::Compatible) {
        Ok(c) => {
            no_raw("warnings", &out::message(&c.warnings.to_string()), &['\n']);
            pictures("free-form definition", &c.layout);
        }
        Err(report) => no_raw("diagnostics", &out::message(&report.to_string()), &['\n']),
    }

    // The text as every field name of a definition (white space ends a name; `#` a line).
    let name: String = text
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '#')
        .take(200)
        .collect();
    let name = if name.is_empty() {
        "x".to_string()
    } else {
        name
    };
    let def = format!(
        "int32 {name}\nstring {name}_s\narray {name}_a\n- int16 {name}\n- string {name}_t\nobject {name}_o\n- bytes {name}\n"
    );
    match def_parser::compile_str(file, &def, def_parser::Mode::Compatible) {
        Ok(c) => {
            no_raw("warnings", &c.warnings.to_string(), &['\n']);
            pictures("named definition", &c.layout);
            let d = Definition::from_layout(c.layout);
            // Packets too short for the fields: the errors name the field.
            for packet in [&[4u8, 0, 0, 0][..], &[12, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0]] {
                if let Err(e) = d.decode(packet, Options::new()) {
                    no_raw("decode error", &e.to_string(), &[]);
                }
            }
        }
        Err(report) => no_raw("diagnostics", &report.to_string(), &['\n']),
    }

    // NBT: the text as a key and a string; an error whose path holds the key, SNBT, the dump.
    let mut inner = Compound::new();
    inner.insert(text, Tag::String(text.into()));
    let mut root = Compound::new();
    root.insert(text, Tag::Compound(inner));
    let nbt = Nbt {
        name: Some(text.into()),
        tag: Tag::Compound(root),
    };
    no_raw("SNBT", &nbt::snbt::to_snbt(&nbt.tag), &['\n']);
    let dump = nbt::dump::root_to_json(&nbt);
    if let Some(c) = dump
        .chars()
        .find(|c| !(c.is_ascii_graphic() || *c == ' ' || *c == '\n'))
    {
        panic!("NBT dump: {c:?} is not printable ASCII");
    }
    if let Ok(bytes) = nbt.encode(Edition::Java) {
        // Cut inside the inner string: the error's path is `text.text`.
        let cut = &bytes[..bytes.len() - 3];
        if let Err(e) = nbt::decode(cut, ReadOptions::default()) {
            no_raw("NBT read error", &e.to_string(), &[]);
        }
    }
}

/// `defc explain`'s table and SVG picture of a layout.
fn pictures(what: &str, layout: &def_parser::layout::Layout) {
    no_raw(what, &explain::render(layout), &['\n']);
    let svg = explain::svg(layout);
    no_raw(what, &svg, &['\n']);
    if let Err(e) = roxmltree::Document::parse(&svg) {
        panic!("{what}: the SVG is not well-formed XML ({e})");
    }
}
