//! Rust names for `.def` and map names: the one naming pass of the generator. Every identifier
//! generated code takes from user text is made here, so that no definition, file name or map can
//! produce a name that does not compile, collides, or draws a warning the user cannot silence.
//!
//! # The rule
//!
//! * **Words.** A name is split into words at every character that is not an ASCII letter or digit
//!   and at case changes (`huntingZoneID` → `hunting`, `zone`, `id`). A non-ASCII letter or digit
//!   becomes a word of its own, `u` and its code point in hex (`größe` → `gr`, `u00f6`, `u00df`,
//!   `e`): identifiers stay ASCII (non-ASCII ones draw `uncommon_codepoints` and `confusable_idents`
//!   warnings) and distinct names mostly stay distinct.
//! * **Fields** are the words in lower case joined by one `_` (never two: `non_snake_case`); `_` in
//!   front of a leading digit; `unnamed` when there is no word; `r#` before a keyword (`r#type`),
//!   `_` after one that cannot be raw (`self_`, `crate_`, `super_`).
//! * **Types** are the parts between non-alphanumeric characters, each with its first letter in
//!   upper case (the rest in lower case when the part is all upper case: `S_LOGIN` → `SLogin`); `T`
//!   in front of a leading digit; `Self` becomes `TSelf`. A nested type is its parent's name
//!   followed by the member's (`SLogin` + `servants` → `SLoginServants`).
//! * **Modules** (one per message) are the field form of the message name (`S_LOGIN` → `s_login`);
//!   **variants** of the protocol's `Packet` enum are the type form.
//! * **Uniqueness.** Names that would still be equal get a number: fields, locals and modules
//!   `_2`, `_3`, ... (or `2`, `3` after a trailing `_`), types and variants `2`, `3`, ...; the first
//!   in declaration order (messages: in byte order of their names) keeps the plain name. Every
//!   type of a definition is unique within its module, every field within its struct, every module
//!   within the include file and every variant within `Packet`. Names the generator itself emits are
//!   reserved: the variant `Raw`; the modules [`RESERVED_MODULES`] (items of the protocol crate,
//!   crates it names, Windows device names); every local of generated code starts with `__` or
//!   is a field name, and field names never start with `__`.
//! * **JSON.** With serde on, a field whose Rust name differs from its `.def` name is renamed back,
//!   so the JSON form keeps the `.def` names. Two names that are equal on the JSON side too (the
//!   same name twice in one level) are the resolver's business: an object declared twice is merged,
//!   a scalar declared twice is one member with two places, anything else is refused with a
//!   `NameClash` error at its line. So a definition that resolves always gets names.
//!
//! Text that goes into doc comments follows the workspace's rule for input text (`def_text`):
//! control and format characters (Unicode bidirectional controls among them) and line separators
//! are written as `\u{..}`, and long text is cut with its length (`doc_text`).

use std::collections::{BTreeMap, HashMap, HashSet};

use def_parser::layout::{Level, Member, MemberKind};

/// Keywords that `r#` can escape.
const RAW_OK: &[&str] = &[
    "as", "break", "const", "continue", "else", "enum", "extern", "false", "fn", "for", "if",
    "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "static",
    "struct", "trait", "true", "type", "unsafe", "use", "where", "while", "async", "await", "dyn",
    "abstract", "become", "box", "do", "final", "macro", "override", "priv", "typeof", "unsized",
    "virtual", "yield", "try", "gen",
];

/// Keywords that cannot be raw identifiers; they get a trailing underscore.
const RAW_NOT_OK: &[&str] = &["crate", "self", "Self", "super", "_"];

/// Module names kept free: the protocol crate's `json` module; crates that generated code or the
/// code around it may name by a relative path; and the names Windows reserves for devices, since
/// each module is also a file (`con.v1.rs` cannot be created there).
pub const RESERVED_MODULES: &[&str] = &[
    "json",
    "core",
    "std",
    "alloc",
    "serde",
    "serde_json",
    "def_runtime",
    "con",
    "prn",
    "aux",
    "nul",
    "com1",
    "com2",
    "com3",
    "com4",
    "com5",
    "com6",
    "com7",
    "com8",
    "com9",
    "lpt1",
    "lpt2",
    "lpt3",
    "lpt4",
    "lpt5",
    "lpt6",
    "lpt7",
    "lpt8",
    "lpt9",
];

/// Variant names the protocol's `Packet` enum keeps for itself.
pub const RESERVED_VARIANTS: &[&str] = &["Raw"];

/// The words of a name: ASCII alphanumeric runs split at case changes, a `u{hex}` word per
/// non-ASCII letter or digit.
fn words(name: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    let chars: Vec<char> = name.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_alphanumeric() {
            if c.is_ascii_uppercase() && !cur.is_empty() {
                let prev = chars[i - 1];
                let next = chars.get(i + 1);
                let boundary = prev.is_ascii_lowercase()
                    || prev.is_ascii_digit()
                    || (prev.is_ascii_uppercase() && next.is_some_and(|n| n.is_ascii_lowercase()));
                if boundary {
                    out.push(std::mem::take(&mut cur));
                }
            }
            cur.push(c.to_ascii_lowercase());
        } else {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            if c.is_alphanumeric() {
                out.push(format!("u{:04x}", c as u32));
            }
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// `camelCase`, `PascalCase` or `SNAKE_CASE` to `snake_case` (no escaping, no uniqueness).
pub fn snake(name: &str) -> String {
    let mut s = words(name).join("_");
    if s.is_empty() {
        s.push_str("unnamed");
    } else if s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    s
}

/// A field name as a Rust identifier's text: snake_case, `r#` for keywords, `_` suffix where
/// `r#` is not allowed.
pub fn field_ident(name: &str) -> String {
    escape_keyword(snake(name))
}

fn escape_keyword(s: String) -> String {
    if RAW_NOT_OK.contains(&s.as_str()) {
        format!("{s}_")
    } else if RAW_OK.contains(&s.as_str()) {
        format!("r#{s}")
    } else {
        s
    }
}

/// The parts of a type name: `S_LOGIN` to `SLogin`, `animSeq` to `AnimSeq` (no prefix, no
/// uniqueness; empty when the name has no letter or digit).
fn pascal_parts(name: &str) -> String {
    let mut out = String::new();
    let mut part = String::new();
    let flush = |part: &mut String, out: &mut String| {
        let all_upper = part.chars().all(|c| !c.is_ascii_lowercase());
        let mut cs = part.chars();
        if let Some(f) = cs.next() {
            out.push(f.to_ascii_uppercase());
            if all_upper {
                out.extend(cs.map(|c| c.to_ascii_lowercase()));
            } else {
                out.extend(cs);
            }
        }
        part.clear();
    };
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            part.push(c);
        } else {
            flush(&mut part, &mut out);
            if c.is_alphanumeric() {
                out.push_str(&format!("U{:04x}", c as u32));
            }
        }
    }
    flush(&mut part, &mut out);
    out
}

/// A type name: `S_LOGIN` to `SLogin`; `animSeq` to `AnimSeq`; `T` before a leading digit or
/// when nothing is left; `Self` to `TSelf`.
pub fn pascal(name: &str) -> String {
    let mut out = pascal_parts(name);
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) || out == "Self" {
        out.insert(0, 'T');
    }
    out
}

/// The root type of a message's definition (`S_LOGIN` → `SLogin`).
pub(crate) fn type_name(message: &str) -> String {
    pascal(message)
}

/// `S_LOGIN` to `s_login` (module names; no uniqueness).
pub fn module(name: &str) -> String {
    field_ident(name)
}

/// `base` with the number `k`: `base_k` for snake-case names (`basek` after a trailing `_`, so
/// that no `__` appears), `basek` for type names.
fn numbered(base: &str, k: usize, snake_case: bool) -> String {
    let raw = base.strip_prefix("r#").unwrap_or(base);
    if !snake_case || raw.ends_with('_') {
        format!("{raw}{k}")
    } else {
        format!("{raw}_{k}")
    }
}

/// The names taken in one scope, and for each base name the next number to try: n names with
/// one base cost O(n) in all, not O(n²) (each number of a base is tried at most once).
#[derive(Default)]
struct Taken {
    names: HashSet<String>,
    next: HashMap<String, usize>,
    /// Numbers as `_2` (snake case) or `2` (types).
    snake_case: bool,
    /// Numbered forms tried so far (the cost, for the scaling test).
    tries: usize,
}

impl Taken {
    fn new(snake_case: bool, reserved: &[&str]) -> Self {
        Taken {
            names: reserved.iter().map(|s| s.to_string()).collect(),
            next: HashMap::new(),
            snake_case,
            tries: 0,
        }
    }

    /// `name` if it is free, else its first free numbered form (`_2`, `_3`, ...); taken now.
    fn claim(&mut self, name: String) -> String {
        if self.names.insert(name.clone()) {
            return name;
        }
        let k = self.next.entry(name.clone()).or_insert(2);
        loop {
            let n = numbered(&name, *k, self.snake_case);
            let n = if self.snake_case {
                escape_keyword(n)
            } else {
                n
            };
            *k += 1;
            self.tries += 1;
            if self.names.insert(n.clone()) {
                return n;
            }
        }
    }
}

/// The names of one struct of a definition: its type and, for each member, the field and the
/// names of the member's own struct (arrays of elements and objects).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StructNames {
    /// The type's identifier.
    pub(crate) ty: String,
    /// One per member, in member order.
    pub(crate) fields: Vec<FieldNames>,
}

/// The names of one member.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FieldNames {
    /// The field's identifier text (may start with `r#`).
    pub(crate) ident: String,
    /// For `array` (its element) and `object`: the struct's names.
    pub(crate) nested: Option<StructNames>,
}

/// The names of every struct and field of a definition whose root type is `root` (from
/// [`type_name`]); types are unique across the definition.
pub(crate) fn struct_names(members: &[Member], root: &str) -> StructNames {
    let mut types = Taken::new(false, &[root]);
    names_of(members, root, &mut types)
}

fn names_of(members: &[Member], ty: &str, types: &mut Taken) -> StructNames {
    let mut taken = Taken::new(true, &[]);
    let mut fields = Vec::with_capacity(members.len());
    for m in members {
        let ident = taken.claim(field_ident(&m.name));
        let inner = match &m.kind {
            MemberKind::Array(level) => Some(&level.members[..]),
            MemberKind::Object(inner) => Some(&inner[..]),
            _ => None,
        };
        let nested = inner.map(|inner| {
            let sub = types.claim(format!("{ty}{}", pascal(&m.name)));
            names_of(inner, &sub, types)
        });
        fields.push(FieldNames { ident, nested });
    }
    StructNames {
        ty: ty.to_string(),
        fields,
    }
}

/// The decode locals of a level, one per slot: a field's identifier, or the identifiers of the
/// path through its objects joined by `_`; unique within the level and never starting with `__`
/// (the generator's own locals do). Slots of one member share one local.
pub(crate) fn level_locals(level: &Level, names: &StructNames) -> Vec<String> {
    let mut taken = Taken::new(true, &[]);
    let mut by_path: BTreeMap<&[usize], String> = BTreeMap::new();
    let mut out = Vec::with_capacity(level.slots.len());
    for info in &level.slots {
        if let Some(l) = by_path.get(&info.path[..]) {
            out.push(l.clone());
            continue;
        }
        let mut n = names;
        let mut parts = Vec::new();
        for &i in &info.path {
            let f = &n.fields[i];
            let raw = f.ident.strip_prefix("r#").unwrap_or(&f.ident);
            parts.push(raw.trim_matches('_').to_string());
            if let Some(inner) = &f.nested {
                n = inner;
            }
        }
        let local = if info.path.len() == 1 {
            names.fields[info.path[0]].ident.clone()
        } else {
            field_ident(&parts.join("_"))
        };
        let l = taken.claim(local);
        by_path.insert(&info.path[..], l.clone());
        out.push(l);
    }
    out
}

/// The methods a view type (`view::SLogin<B>`, `EmitOptions::views`) has besides its fields'.
pub(crate) const VIEW_METHODS: &[&str] = &["new", "new_mut", "view", "to_owned"];

/// The method names of one view type, one per member of its struct: the getter, the setter
/// (`set_` and the field) and the accessor that changes in place (the field and `_mut`). All are
/// unique within the type, none is one of [`VIEW_METHODS`], and getters are claimed first so that
/// they keep the field's name whenever it is free.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ViewMethods {
    /// Getters, in member order.
    pub(crate) get: Vec<String>,
    /// Setters, in member order.
    pub(crate) set: Vec<String>,
    /// `_mut` accessors, in member order.
    pub(crate) get_mut: Vec<String>,
}

/// The [`ViewMethods`] of the struct named `names`.
pub(crate) fn view_methods(names: &StructNames) -> ViewMethods {
    let mut taken = Taken::new(true, VIEW_METHODS);
    let get = names
        .fields
        .iter()
        .map(|f| taken.claim(f.ident.clone()))
        .collect();
    let raw = |f: &FieldNames| f.ident.strip_prefix("r#").unwrap_or(&f.ident).to_string();
    let set = names
        .fields
        .iter()
        .map(|f| taken.claim(format!("set_{}", raw(f).trim_start_matches('_'))))
        .collect();
    let get_mut = names
        .fields
        .iter()
        .map(|f| {
            let r = raw(f);
            let sep = if r.ends_with('_') { "" } else { "_" };
            taken.claim(format!("{r}{sep}mut"))
        })
        .collect();
    ViewMethods { get, set, get_mut }
}

/// Unique module names for messages (`S_LOGIN` → `s_login`), none of them in
/// [`RESERVED_MODULES`]; the names are taken in byte order.
pub(crate) fn module_names<'a>(
    messages: impl IntoIterator<Item = &'a str>,
) -> BTreeMap<String, String> {
    let sorted: std::collections::BTreeSet<&str> = messages.into_iter().collect();
    let mut taken = Taken::new(true, RESERVED_MODULES);
    sorted
        .into_iter()
        .map(|m| (m.to_string(), taken.claim(module(m))))
        .collect()
}

/// Unique `Packet` variant names for messages (`S_LOGIN` → `SLogin`), none of them in
/// [`RESERVED_VARIANTS`]; the names are taken in byte order.
pub(crate) fn variant_names<'a>(
    messages: impl IntoIterator<Item = &'a str>,
) -> BTreeMap<String, String> {
    let sorted: std::collections::BTreeSet<&str> = messages.into_iter().collect();
    let mut taken = Taken::new(false, RESERVED_VARIANTS);
    sorted
        .into_iter()
        .map(|m| (m.to_string(), taken.claim(pascal(m))))
        .collect()
}

/// Longest piece of user text in a doc comment, in bytes of shown text (200 characters of up
/// to four bytes).
pub(crate) const DOC_TEXT_MAX: usize = 800;

/// Whether `name` can be written as it is as a Rust identifier (not a keyword, not `_`, no
/// leading digit): the opcode constants of a protocol crate are named so.
pub(crate) fn is_plain_ident(name: &str) -> bool {
    syn::parse_str::<syn::Ident>(name).is_ok()
}

/// User text made safe for a doc comment by the workspace's one rule for input text
/// ([`def_text`]): control characters (CR, LF, NUL, ...), format characters (Unicode
/// bidirectional controls among them: rustc's `text_direction_codepoint` lints refuse those) and
/// line separators are written as `\u{..}` escapes, and text longer than [`DOC_TEXT_MAX`] bytes
/// is cut with its length.
pub(crate) fn doc_text(text: &str) -> String {
    def_text::shown(text, DOC_TEXT_MAX).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_cases() {
        assert_eq!(snake("templateId"), "template_id");
        assert_eq!(snake("huntingZoneID"), "hunting_zone_id");
        assert_eq!(snake("HPValue"), "hp_value");
        assert_eq!(snake("unk1"), "unk1");
        assert_eq!(snake("x"), "x");
        assert_eq!(snake("1st"), "_1st");
        assert_eq!(snake("a-b"), "a_b");
        assert_eq!(snake("S_LOGIN"), "s_login");
        assert_eq!(snake("__slot__r"), "slot_r");
        assert_eq!(snake("_"), "unnamed");
        assert_eq!(snake("größe"), "gr_u00f6_u00df_e");
    }

    #[test]
    fn every_keyword_is_a_valid_ident() {
        for k in RAW_OK.iter().chain(RAW_NOT_OK) {
            let id = field_ident(k);
            assert!(syn::parse_str::<syn::Ident>(&id).is_ok(), "{k} -> {id}");
        }
        assert_eq!(field_ident("type"), "r#type");
        assert_eq!(field_ident("continue"), "r#continue");
        assert_eq!(field_ident("self"), "self_");
        assert_eq!(field_ident("Self"), "self_");
    }

    #[test]
    fn pascal_cases() {
        assert_eq!(pascal("S_LOGIN"), "SLogin");
        assert_eq!(pascal("animSeq"), "AnimSeq");
        assert_eq!(pascal("C_START_INSTANCE_SKILL"), "CStartInstanceSkill");
        assert_eq!(pascal("Self"), "TSelf");
        assert_eq!(pascal("SELF"), "TSelf");
        assert_eq!(pascal("1a"), "T1a");
        assert_eq!(pascal("ä"), "U00e4");
    }

    fn dedupe(names: &[&str]) -> Vec<String> {
        let mut taken = Taken::new(true, &[]);
        names.iter().map(|n| taken.claim(n.to_string())).collect()
    }

    #[test]
    fn numbers_without_double_underscores() {
        assert_eq!(
            dedupe(&["a", "a", "a_2", "a"]),
            ["a", "a_2", "a_2_2", "a_3"]
        );
        assert_eq!(dedupe(&["self_", "self_"]), ["self_", "self_2"]);
        assert_eq!(dedupe(&["r#type", "r#type"]), ["r#type", "type_2"]);
    }

    #[test]
    fn numbering_costs_linear_in_the_names() {
        // n names with one base, then the numbered forms as names of their own, then the base
        // again: every number of a base is tried once.
        for n in [1_000usize, 10_000] {
            let mut t = Taken::new(true, &[]);
            for _ in 0..n {
                t.claim("a".into());
            }
            for k in 2..=n {
                t.claim(format!("a_{k}"));
            }
            for _ in 0..n {
                t.claim("a".into());
            }
            assert!(t.tries <= 3 * n, "{n} names: {} tries", t.tries);
            assert_eq!(t.names.len(), 3 * n - 1);
        }
    }

    #[test]
    fn modules_and_variants_avoid_each_other_and_the_reserved_names() {
        let m = module_names(["S_FOO", "s_foo", "json", "JSON", "S_FOO_2"]);
        assert_eq!(m["S_FOO"], "s_foo");
        assert_eq!(m["s_foo"], "s_foo_3");
        assert_eq!(m["S_FOO_2"], "s_foo_2");
        assert_eq!(m["JSON"], "json_2");
        assert_eq!(m["json"], "json_3");
        assert_eq!(module_names(["CON"])["CON"], "con_2");
        let v = variant_names(["S_FOO_BAR", "S_FOOBAR", "RAW", "S_A1", "S_A_1"]);
        assert_eq!(v["RAW"], "Raw2");
        assert_eq!(v["S_FOOBAR"], "SFoobar");
        assert_eq!(v["S_FOO_BAR"], "SFooBar");
        assert_eq!(v["S_A1"], "SA1");
        assert_eq!(v["S_A_1"], "SA12");
    }

    #[test]
    fn view_methods_avoid_each_other_and_the_views_own() {
        let field = |i: &str| FieldNames {
            ident: i.to_string(),
            nested: None,
        };
        let names = StructNames {
            ty: "S".into(),
            fields: ["x", "set_x", "to_owned", "r#type", "x_mut", "self_", "_1st"]
                .into_iter()
                .map(field)
                .collect(),
        };
        let m = view_methods(&names);
        assert_eq!(
            m.get,
            [
                "x",
                "set_x",
                "to_owned_2",
                "r#type",
                "x_mut",
                "self_",
                "_1st"
            ]
        );
        assert_eq!(
            m.set,
            [
                "set_x_2",
                "set_set_x",
                "set_to_owned",
                "set_type",
                "set_x_mut",
                "set_self_",
                "set_1st"
            ]
        );
        assert_eq!(
            m.get_mut,
            [
                "x_mut_2",
                "set_x_mut_2",
                "to_owned_mut",
                "type_mut",
                "x_mut_mut",
                "self_mut",
                "_1st_mut"
            ]
        );
        for n in m.get.iter().chain(&m.set).chain(&m.get_mut) {
            assert!(syn::parse_str::<syn::Ident>(n).is_ok(), "{n}");
        }
    }

    #[test]
    fn doc_text_escapes_what_rustc_refuses_in_comments() {
        assert_eq!(doc_text("a\rb"), "a\\u{d}b");
        assert_eq!(doc_text("x\u{202e}y\u{2066}"), "x\\u{202e}y\\u{2066}");
        assert_eq!(doc_text("ok é"), "ok é");
        let long = "x".repeat(10_000);
        assert_eq!(
            doc_text(&long),
            format!("{}…(10000 bytes)", &long[..DOC_TEXT_MAX])
        );
        assert_eq!(doc_text("\u{61c}\u{2028}"), "\\u{61c}\\u{2028}");
    }
}
