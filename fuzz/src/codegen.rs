//! The `codegen` target: definitions, file names and an opcode map built from the fuzz input
//! (names from a hostile alphabet: case variants, `_`, digits, keywords, the generator's own
//! names, non-ASCII letters; comments with CR and bidirectional controls), generated as a whole
//! protocol and one definition at a time. Whatever the generator accepts must parse with `syn`,
//! hold no name twice in one scope (items per namespace, fields per struct, variants per enum,
//! `let` bindings per function body), use only names rustc's case lints accept, and carry no CR
//! or bidirectional control. Compiling is too slow for a fuzzer; `def-codegen/tests/names_compile.rs`
//! compiles random cases.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use def_codegen::protocol::{ProtocolOptions, generate};
use syn::{Item, Pat, Stmt};

#[path = "../../def-codegen/tests/support/hostile_names.rs"]
mod hostile_names;
use hostile_names::{COMMENT_PIECES, FIELD_PIECES, MESSAGE_PIECES, TYPES};

/// Reads the input a byte at a time (zeros when it runs out).
struct Input<'a>(&'a [u8]);

impl Input<'_> {
    fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((b, rest)) => {
                self.0 = rest;
                *b
            }
            None => 0,
        }
    }
    fn pick<'p>(&mut self, list: &[&'p str]) -> &'p str {
        list[self.byte() as usize % list.len()]
    }
}

fn name(inp: &mut Input, pieces: &[&str]) -> String {
    let n = 1 + inp.byte() % 3;
    (0..n).map(|_| inp.pick(pieces)).collect()
}

/// One `.def` text.
fn def_text(inp: &mut Input) -> String {
    let mut s = String::new();
    if inp.byte().is_multiple_of(4) {
        s.push('\u{feff}');
    }
    if inp.byte().is_multiple_of(3) {
        s.push_str("# majorPatchVersion >= 1\n");
    }
    let lines = inp.byte() % 12;
    let mut depth = 0usize;
    for _ in 0..lines {
        // At most one level deeper than the line above allows; now and then one more (refused).
        let mut d = inp.byte() as usize % (depth + 1);
        if inp.byte().is_multiple_of(16) {
            d += 1;
        }
        let ty = inp.pick(TYPES);
        s.push_str(&"- ".repeat(d));
        s.push_str(ty);
        s.push(' ');
        s.push_str(&name(inp, FIELD_PIECES));
        depth = if ty.starts_with("array") && !ty.contains('<') || ty == "object" {
            d + 1
        } else {
            d
        };
        if inp.byte().is_multiple_of(3) {
            s.push_str(" # ");
            for _ in 0..1 + inp.byte() % 4 {
                s.push_str(inp.pick(COMMENT_PIECES));
            }
        }
        s.push_str(match inp.byte() % 8 {
            0 => "\r\n",
            1 if inp.byte().is_multiple_of(4) => "\r",
            _ => "\n",
        });
    }
    s
}

/// Files of one case: `(file name, bytes)`, the map's text, the deprecations.
struct Case {
    defs: Vec<(String, Vec<u8>)>,
    map: Vec<u8>,
    deprecated: Option<Vec<u8>>,
}

fn structured(inp: &mut Input) -> Case {
    let mut defs = Vec::new();
    let mut messages = Vec::new();
    for _ in 0..1 + inp.byte() % 4 {
        let m = name(inp, MESSAGE_PIECES);
        let version = inp.pick(&["1", "2", "1", "01", "0"]);
        let platform = inp.pick(&["", "", "", ".pc", ".ps4", ".PC"]);
        defs.push((
            format!("{m}.{version}{platform}.def"),
            def_text(inp).into_bytes(),
        ));
        messages.push(m);
    }
    let mut map = String::new();
    if inp.byte().is_multiple_of(5) {
        map.push('\u{feff}');
    }
    for m in &messages {
        if !inp.byte().is_multiple_of(5) {
            map.push_str(&format!("{m} = {}\n", inp.byte() % 8));
        }
    }
    for _ in 0..inp.byte() % 3 {
        map.push_str(&format!(
            "{} = {}\n",
            name(inp, MESSAGE_PIECES),
            inp.byte() % 8
        ));
    }
    let deprecated = inp.byte().is_multiple_of(4).then(|| {
        let m = messages.first().cloned().unwrap_or_default();
        format!(
            "{{\"{m}\": {{\"1\": {{\"max\": {}, \"readable\": true}}}}}}",
            inp.pick(&["100", "4294967296", "-1", "1e3", "\"x\""])
        )
        .into_bytes()
    });
    Case {
        defs,
        map: map.into_bytes(),
        deprecated,
    }
}

/// Free form: chunks separated by 0xFF (never in UTF-8): the map, then `FILE\nTEXT` per
/// definition.
fn free(data: &[u8]) -> Case {
    let mut chunks = data.split(|&b| b == 0xff);
    let map = chunks.next().unwrap_or_default().to_vec();
    let defs = chunks
        .take(6)
        .map(|c| {
            let (name, text) = match c.iter().position(|&b| b == b'\n') {
                Some(i) => (&c[..i], &c[i + 1..]),
                None => (c, &[][..]),
            };
            let name = String::from_utf8_lossy(name).replace(['/', '\\', '\0'], "_");
            (format!("{name}.def"), text.to_vec())
        })
        .collect();
    Case {
        defs,
        map,
        deprecated: None,
    }
}

/// A fresh folder under the system's temp folder, removed on drop.
struct Temp(PathBuf);

impl Temp {
    fn new() -> Self {
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "wire-defs-fuzz-codegen-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp folder");
        Temp(dir)
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The fuzz entry point.
pub fn check_codegen(data: &[u8]) {
    let case = match data.split_first() {
        Some((&flag, rest)) if flag & 1 == 1 => free(rest),
        Some((_, rest)) => structured(&mut Input(rest)),
        None => return,
    };
    let t = Temp::new();
    let defs = t.0.join("defs");
    std::fs::create_dir_all(&defs).expect("defs folder");
    for (file, text) in &case.defs {
        // Names the file system refuses (too long, ...) are not the generator's business.
        if file.len() > 200 || std::fs::write(defs.join(file), text).is_err() {
            return;
        }
        // One definition alone, as `def!` and `Config::generate_one` see it.
        if let Ok(text) = std::str::from_utf8(text) {
            let mut config = def_codegen::Config::new();
            config.serde(true);
            if let Ok(code) = config.generate_one(file, text) {
                check_code(&code, file, &t.0);
            }
        }
    }
    let map = t.0.join("protocol.1.map");
    std::fs::write(&map, &case.map).expect("map");
    let mut o = ProtocolOptions::new(&defs, &map);
    if let Some(d) = &case.deprecated {
        let p = t.0.join("deprecated.json");
        std::fs::write(&p, d).expect("deprecated.json");
        o.deprecated = Some(p);
    }
    let out = t.0.join("out");
    match generate(&o, &out) {
        Ok(_) => {
            let root = std::fs::read_to_string(out.join("protocol.rs")).expect("protocol.rs");
            check_code(&root, "protocol.rs", &out);
        }
        Err(e) => {
            // Refused: each message names the problem without echoing the input at length.
            let paths = 2 * t.0.display().to_string().len() + 512;
            match &e {
                def_codegen::Error::Defs(reports) => {
                    for r in reports {
                        for d in &r.diagnostics {
                            let shown = d.render(&r.file, &r.text);
                            assert!(
                                shown.len() <= 2048 + paths,
                                "diagnostic of {} bytes: {}…",
                                shown.len(),
                                shown.chars().take(600).collect::<String>()
                            );
                        }
                    }
                }
                _ => {
                    let msg = e.to_string();
                    assert!(
                        msg.len() <= 2048 + paths,
                        "error of {} bytes: {}…",
                        msg.len(),
                        msg.chars().take(600).collect::<String>()
                    );
                }
            }
        }
    }
}

/// Parses `code` (includes resolved from `dir`) and checks every scope.
fn check_code(code: &str, file: &str, dir: &Path) {
    for c in code.chars() {
        assert!(
            !matches!(c, '\r' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{61c}'),
            "{file}: generated code holds {c:?}"
        );
    }
    let parsed = syn::parse_file(code).unwrap_or_else(|e| panic!("{file}: {e}\n{code}"));
    let items = expand(parsed.items, dir);
    check_scope(&items, file);
}

/// Replaces `include!("file")` items by the items of the file, recursively.
fn expand(items: Vec<Item>, dir: &Path) -> Vec<Item> {
    let mut out = Vec::new();
    for item in items {
        match item {
            Item::Macro(m) if m.mac.path.is_ident("include") => {
                let lit: syn::LitStr = m.mac.parse_body().expect("include! takes a string");
                let path = dir.join(lit.value());
                let text = std::fs::read_to_string(&path)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                assert!(!text.contains('\r'), "{}: CR", path.display());
                let f = syn::parse_file(&text)
                    .unwrap_or_else(|e| panic!("{}: {e}\n{text}", path.display()));
                let sub = path.parent().expect("a folder").to_path_buf();
                out.extend(expand(f.items, &sub));
            }
            Item::Mod(mut m) => {
                if let Some((b, inner)) = m.content.take() {
                    m.content = Some((b, expand(inner, dir)));
                }
                out.push(Item::Mod(m));
            }
            other => out.push(other),
        }
    }
    out
}

/// rustc's `non_snake_case` test.
fn is_snake_case(ident: &str) -> bool {
    let ident = ident.strip_prefix("r#").unwrap_or(ident).trim_matches('_');
    let mut allow_underscore = true;
    ident.chars().all(|c| {
        allow_underscore = match c {
            '_' if !allow_underscore => return false,
            '_' => false,
            c if !c.is_uppercase() => true,
            _ => return false,
        };
        true
    })
}

/// rustc's `non_camel_case_types` test.
fn is_camel_case(name: &str) -> bool {
    let name = name.trim_matches('_');
    let Some(first) = name.chars().next() else {
        return true;
    };
    let chars: Vec<char> = name.chars().collect();
    let has_case = |c: char| c.is_lowercase() || c.is_uppercase();
    !first.is_lowercase()
        && !name.contains("__")
        && !chars
            .windows(2)
            .any(|w| has_case(w[0]) && w[1] == '_' || has_case(w[1]) && w[0] == '_')
}

fn check_ident_ascii(id: &str, what: &str) {
    assert!(id.is_ascii(), "{what}: non-ASCII identifier {id}");
}

fn check_scope(items: &[Item], scope: &str) {
    let mut types = HashSet::new();
    let mut values = HashSet::new();
    let claim = |set: &mut HashSet<String>, id: &syn::Ident| {
        let s = id.to_string();
        check_ident_ascii(&s, scope);
        assert!(set.insert(s.clone()), "{scope}: `{s}` declared twice");
    };
    for item in items {
        match item {
            Item::Struct(s) => {
                claim(&mut types, &s.ident);
                assert!(is_camel_case(&s.ident.to_string()), "{scope}: {}", s.ident);
                let mut fields = HashSet::new();
                for f in &s.fields {
                    // A view type wraps its bytes in a tuple struct: no field names to check.
                    let Some(id) = f.ident.as_ref().map(|i| i.to_string()) else {
                        continue;
                    };
                    check_ident_ascii(&id, scope);
                    assert!(is_snake_case(&id), "{scope}: field {id}");
                    assert!(!id.starts_with("__"), "{scope}: field {id}");
                    assert!(
                        fields.insert(id.clone()),
                        "{scope}.{}: `{id}` twice",
                        s.ident
                    );
                }
            }
            Item::Enum(e) => {
                claim(&mut types, &e.ident);
                let mut vars = HashSet::new();
                for v in &e.variants {
                    let id = v.ident.to_string();
                    check_ident_ascii(&id, scope);
                    assert!(is_camel_case(&id), "{scope}: variant {id}");
                    assert!(
                        vars.insert(id.clone()),
                        "{scope}::{}: `{id}` twice",
                        e.ident
                    );
                }
            }
            Item::Mod(m) => {
                claim(&mut types, &m.ident);
                assert!(
                    is_snake_case(&m.ident.to_string()),
                    "{scope}: mod {}",
                    m.ident
                );
                if let Some((_, inner)) = &m.content {
                    check_scope(inner, &format!("{scope}::{}", m.ident));
                }
            }
            Item::Const(c) => claim(&mut values, &c.ident),
            Item::Static(s) => claim(&mut values, &s.ident),
            Item::Fn(f) => {
                claim(&mut values, &f.sig.ident);
                check_block(&f.block, scope);
            }
            Item::Impl(i) => {
                for it in &i.items {
                    if let syn::ImplItem::Fn(f) = it {
                        check_block(&f.block, scope);
                    }
                }
            }
            _ => {}
        }
    }
}

/// Each `let` at the top of a function body binds names no earlier `let` bound (shadowing would
/// read the wrong value), in snake case. The one rebinding by design: a variable field's
/// metadata (`let x = Meta::string(..)`) is replaced by its value (`let x = __r.string(x)`).
fn check_block(block: &syn::Block, scope: &str) {
    use quote::ToTokens;
    // Name -> whether its binding so far is a metadata one.
    let mut bound: std::collections::HashMap<String, bool> = Default::default();
    for stmt in &block.stmts {
        if let Stmt::Local(l) = stmt {
            let init = l
                .init
                .as_ref()
                .map(|i| i.expr.to_token_stream().to_string())
                .unwrap_or_default();
            let is_meta = init.contains(":: Meta ::");
            let mut names = Vec::new();
            pat_idents(&l.pat, &mut names);
            for n in names {
                check_ident_ascii(&n, scope);
                assert!(is_snake_case(&n), "{scope}: local {n}");
                match bound.insert(n.clone(), is_meta) {
                    None => {}
                    Some(true) if !is_meta && init.contains(&format!("({n})")) => {}
                    Some(_) => panic!("{scope}: local `{n}` bound twice"),
                }
            }
        }
    }
}

fn pat_idents(p: &Pat, out: &mut Vec<String>) {
    match p {
        Pat::Ident(i) => out.push(i.ident.to_string()),
        Pat::Tuple(t) => t.elems.iter().for_each(|e| pat_idents(e, out)),
        Pat::Type(t) => pat_idents(&t.pat, out),
        _ => {}
    }
}
