//! Hostile inputs to the protocol generator and `Config`: opcode maps and
//! `deprecated.json` read strictly with located errors, file names refused with the reason,
//! only regular UTF-8 files read, colliding message names kept apart. Whether the accepted
//! cases compile is checked in `names_compile.rs`; here each refusal is checked for what it says.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use def_codegen::protocol::{ProtocolOptions, generate, read_map};
use def_codegen::{Config, Error};

/// A fresh folder, removed on drop.
struct Temp(PathBuf);

impl Temp {
    fn new() -> Self {
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "def-codegen-hostile-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("defs")).unwrap();
        Temp(dir)
    }
    fn def(&self, file: &str, text: &str) -> &Self {
        std::fs::write(self.0.join("defs").join(file), text).unwrap();
        self
    }
    fn map(&self, text: impl AsRef<[u8]>) -> PathBuf {
        let p = self.0.join("protocol.7.map");
        std::fs::write(&p, text).unwrap();
        p
    }
    fn options(&self, map: &Path) -> ProtocolOptions {
        ProtocolOptions::new(self.0.join("defs"), map)
    }
    fn generate(&self, o: &ProtocolOptions) -> Result<String, Error> {
        let out = self.0.join("out");
        generate(o, &out)?;
        Ok(std::fs::read_to_string(out.join("protocol.rs")).unwrap())
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn map_error(text: &str) -> String {
    let t = Temp::new();
    let p = t.map(text);
    match read_map(&p) {
        Err(Error::Map(m)) => m,
        other => panic!("{text:?}: {other:?}"),
    }
}

#[test]
fn map_errors_name_the_line() {
    let e = map_error("S_A = 1\nS_B = 2\nS_C = 1\n");
    assert!(
        e.ends_with(":3: opcode 1 of `S_C` is already `S_A`'s, on line 1"),
        "{e}"
    );
    let e = map_error("S_A = 1\n# comment\nS_A = 2\n");
    assert!(e.ends_with(":3: `S_A` is already given on line 1"), "{e}");
    let e = map_error("S_A = 65536\n");
    assert!(
        e.ends_with(":1: opcode 65536 of `S_A` is out of range (at most 65535)"),
        "{e}"
    );
    let e = map_error("S_A = 99999999999999999999\n");
    assert!(e.contains(":1: opcode `99999999999999999999`"), "{e}");
    for bad in [
        "S_A = -1",
        "S_A = +1",
        "S_A = 0x10",
        "S_A = 1.0",
        "S_A = 01",
    ] {
        let e = map_error(bad);
        assert!(e.contains(":1: opcode `"), "{bad}: {e}");
    }
    let e = map_error("S_A = 1\nS B = 2\n");
    assert!(e.contains(":2: `S B` is not a message name"), "{e}");
    let e = map_error("S_A 1\n");
    assert!(e.contains(":1: expected `NAME = OPCODE`"), "{e}");
    // A BOM anywhere but at the start is part of a name, so refused (and shown escaped).
    let e = map_error("S_A = 1\n\u{feff}S_B = 2\n");
    assert!(
        e.contains(":2: `\\u{feff}S_B` is not a message name"),
        "{e}"
    );
    // A bare CR inside a line is not a line end.
    let e = map_error("S_A = 1\rS_B = 2\n");
    assert!(
        e.contains(":1: opcode `1\\u{d}S_B = 2`") || e.contains(":1: `"),
        "{e}"
    );
    // Echoes are short.
    let e = map_error(&format!("{} = 1\n", "A B".repeat(1_000_000)));
    assert!(e.len() < 400, "{} bytes", e.len());
}

#[test]
fn a_byte_order_mark_starts_the_map_and_is_not_part_of_a_name() {
    let t = Temp::new();
    let p = t.map("\u{feff}S_A = 1\nS_B = 2\r\n");
    let map = read_map(&p).unwrap();
    assert_eq!(
        map.into_iter().collect::<Vec<_>>(),
        [("S_A".to_string(), 1), ("S_B".to_string(), 2)]
    );
    // The first message keeps its variant.
    t.def("S_A.1.def", "int32 a\n");
    let code = t.generate(&t.options(&p)).unwrap();
    assert!(code.contains("SA(s_a::v1::SA)"), "{code}");
}

#[test]
fn maps_that_are_not_utf8_say_where_and_what() {
    let t = Temp::new();
    let utf16: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain("S_A = 1\n".encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    let p = t.map(utf16);
    let e = read_map(&p).unwrap_err().to_string();
    assert!(e.contains("byte offset 0") && e.contains("UTF-16LE"), "{e}");
    let p = t.map(b"S_A = 1\nS_\xC9T\xC9 = 2\n");
    let e = read_map(&p).unwrap_err().to_string();
    assert!(e.contains("byte offset 10") && e.contains("Latin-1"), "{e}");
}

fn deprecated_error(json: &str) -> String {
    let t = Temp::new();
    t.def("S_A.1.def", "int32 a\n")
        .def("S_A.2.def", "int32 a\n");
    let p = t.map("S_A = 1\n");
    let mut o = t.options(&p);
    let d = t.0.join("deprecated.json");
    std::fs::write(&d, json).unwrap();
    o.deprecated = Some(d);
    match t.generate(&o) {
        Err(Error::Map(m)) => m,
        other => panic!("{json}: {other:?}"),
    }
}

#[test]
fn deprecated_json_is_checked_and_never_truncated() {
    // 2^32 + 113 would be 113 after `as u32`.
    let e = deprecated_error(r#"{"S_A": {"1": {"max": 4294967409, "readable": true}}}"#);
    assert!(
        e.contains("deprecated.json:1:15: `S_A.1.max`: 4294967409 is not a patch number"),
        "{e}"
    );
    // A leading byte-order mark is skipped and not counted in columns.
    let e = deprecated_error("\u{feff}{\"S_A\": {\"1\": {\"max\": 4294967409}}}");
    assert!(e.contains("deprecated.json:1:15: `S_A.1.max`"), "{e}");
    let e = deprecated_error(r#"{"S_A": {"1": {"max": -1}}}"#);
    assert!(e.contains("`S_A.1.max`: -1"), "{e}");
    let e = deprecated_error(r#"{"S_A": {"1": {"max": 1.5}}}"#);
    assert!(e.contains("`S_A.1.max`: 1.5"), "{e}");
    let e = deprecated_error(r#"{"S_A": {"1": {"max": "113"}}}"#);
    assert!(e.contains("`S_A.1.max`: expected a number"), "{e}");
    let e = deprecated_error(r#"{"S_A": {"1": {"readable": true}}}"#);
    assert!(e.contains("`S_A.1`: no `max`"), "{e}");
    let e = deprecated_error(r#"{"S_A": {"1": {"max": 1, "maxx": 2}}}"#);
    assert!(e.contains("unknown key `maxx`"), "{e}");
    let e = deprecated_error(r#"{"S_A": {"3": {"max": 1}}}"#);
    assert!(e.contains("`S_A.3`: no such definition"), "{e}");
    let e = deprecated_error(r#"{"S_B": {"1": {"max": 1}}}"#);
    assert!(e.contains("`S_B.1`: no such definition"), "{e}");
    let e = deprecated_error(r#"{"S_A": {"01": {"max": 1}}}"#);
    assert!(e.contains("`S_A.01`: the version is not"), "{e}");
    let e = deprecated_error(r#"{"S_A": {"1": {"max": 1}}"#);
    assert!(
        e.contains("deprecated.json:1:26: expected `,` or `}`, found the end of the text"),
        "{e}"
    );
    let e = deprecated_error(r#"[1]"#);
    assert!(
        e.contains("expected an object of messages, got an array"),
        "{e}"
    );
    // The bound itself is read exactly: u32::MAX is a valid patch number.
    let t = Temp::new();
    t.def("S_A.1.def", "int32 a\n")
        .def("S_A.2.def", "int32 a\n");
    let p = t.map("S_A = 1\n");
    let mut o = t.options(&p);
    let d = t.0.join("deprecated.json");
    std::fs::write(
        &d,
        r#"{"S_A": {"2": {"max": 4294967295, "readable": false}}}"#,
    )
    .unwrap();
    o.deprecated = Some(d);
    o.patch = Some(4294967295);
    let code = t.generate(&o).unwrap();
    assert!(code.contains("SA(s_a::v2::SA)"), "{code}");
}

#[test]
fn misnamed_definition_files_are_refused_with_the_reason() {
    for (file, why) in [
        ("S_X.007.def", "leading zero"),
        ("S_B.1.PC.def", "platform"),
        ("S_C.99999999999.def", "larger than 4294967295"),
        ("S-D.1.def", "ASCII letters"),
        ("S_E.def", "no `.VERSION`"),
        ("S_F.1.pc.x.def", "more parts"),
    ] {
        let t = Temp::new();
        t.def("S_A.1.def", "int32 a\n").def(file, "int32 a\n");
        let p = t.map("S_A = 1\n");
        let e = t.generate(&t.options(&p)).unwrap_err();
        assert!(
            matches!(&e, Error::FileName(p) if p.ends_with(file)),
            "{e:?}"
        );
        let text = e.to_string();
        assert!(text.contains(file) && text.contains(why), "{text}");
        // Config refuses it too, with the same words.
        let e = Config::new()
            .input(t.0.join("defs"))
            .out_dir(t.0.join("out2"))
            .cargo_output(false)
            .compile()
            .unwrap_err();
        assert!(e.to_string().contains(why), "{e}");
    }
    // Files that are not `.def` are not definitions (the reference's `.js` files).
    let t = Temp::new();
    t.def("S_A.1.def", "int32 a\n")
        .def("C_B.1.js", "module.exports = {}");
    let p = t.map("S_A = 1\n");
    t.generate(&t.options(&p)).unwrap();
}

#[test]
fn the_map_file_name_must_carry_the_protocol_version() {
    let t = Temp::new();
    t.def("S_A.1.def", "int32 a\n");
    for name in ["opcodes.map", "protocol.07.map", "protocol.x.map"] {
        let p = t.0.join(name);
        std::fs::write(&p, "S_A = 1\n").unwrap();
        let e = t.generate(&t.options(&p)).unwrap_err().to_string();
        assert!(
            e.contains(name) && e.contains("protocol.VERSION.map"),
            "{e}"
        );
    }
}

#[cfg(unix)]
#[test]
fn a_fifo_named_def_is_refused_not_read() {
    let t = Temp::new();
    t.def("S_A.1.def", "int32 a\n");
    let fifo = t.0.join("defs").join("S_F.1.def");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    if !made {
        eprintln!("mkfifo is not available; skipped");
        return;
    }
    let p = t.map("S_A = 1\n");
    // Reading the FIFO would block for ever: the test would hang, not fail.
    let e = t.generate(&t.options(&p)).unwrap_err().to_string();
    assert!(
        e.contains("S_F.1.def") && e.contains("not a regular file"),
        "{e}"
    );
    let e = Config::new()
        .input(t.0.join("defs"))
        .out_dir(t.0.join("out2"))
        .cargo_output(false)
        .compile()
        .unwrap_err()
        .to_string();
    assert!(e.contains("not a regular file"), "{e}");
    // A FIFO as the map, too.
    std::fs::remove_file(&fifo).unwrap();
    let map = t.0.join("protocol.8.map");
    std::process::Command::new("mkfifo")
        .arg(&map)
        .status()
        .unwrap();
    let e = t.generate(&t.options(&map)).unwrap_err().to_string();
    assert!(e.contains("not a regular file"), "{e}");
}

#[test]
fn definitions_that_are_not_utf8_say_where_and_what() {
    let t = Temp::new();
    let utf16: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain("int32 a\n".encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    std::fs::write(t.0.join("defs").join("S_A.1.def"), utf16).unwrap();
    let e = Config::new()
        .input(t.0.join("defs"))
        .out_dir(t.0.join("out"))
        .cargo_output(false)
        .compile()
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("S_A.1.def") && e.contains("byte offset 0") && e.contains("UTF-16LE"),
        "{e}"
    );
}

#[test]
fn colliding_message_names_get_distinct_modules_and_variants() {
    let t = Temp::new();
    let files = [
        "S_FOO.1.def",
        "s_foo.1.def",
        "S_FOO_BAR.1.def",
        "S_FOOBAR.1.def",
        "S_A1.1.def",
        "S_A_1.1.def",
        "Raw.1.def",
        "json.1.def",
        "SELF.1.def",
    ];
    let mut map = String::new();
    for (k, f) in files.iter().enumerate() {
        t.def(f, "int32 a\n");
        map.push_str(&format!("{} = {}\n", f.split('.').next().unwrap(), k + 1));
    }
    let p = t.map(map);
    let code = t.generate(&t.options(&p)).unwrap();
    for variant in [
        "SFoo(s_foo::v1::SFoo)",
        "SFoo2(s_foo_2::v1::SFoo)",
        "SFooBar(s_foo_bar::v1::SFooBar)",
        "SFoobar(s_foobar::v1::SFoobar)",
        "SA1(s_a1::v1::SA1)",
        "SA12(s_a_1::v1::SA1)",
        "Raw2(raw::v1::Raw)",
        "Json(json_2::v1::Json)",
        "TSelf(self_::v1::TSelf)",
        "Raw(RawPacket)",
    ] {
        assert!(code.contains(variant), "{variant}\n{code}");
    }
    // Module files are distinct on case-insensitive file systems too.
    let mut names: Vec<String> = std::fs::read_dir(t.0.join("out/defs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_lowercase())
        .collect();
    names.sort();
    let n = names.len();
    names.dedup();
    assert_eq!(names.len(), n, "{names:?}");
}

#[test]
fn the_same_message_version_twice_is_refused() {
    let a = Temp::new();
    let b = Temp::new();
    a.def("S_A.1.def", "int32 a\n");
    b.def("S_A.1.def", "int32 b\n");
    let e = Config::new()
        .input(a.0.join("defs"))
        .input(b.0.join("defs"))
        .out_dir(a.0.join("out"))
        .cargo_output(false)
        .compile()
        .unwrap_err();
    assert!(matches!(e, Error::Duplicate(..)), "{e:?}");
    assert!(
        e.to_string().contains("define the same message version"),
        "{e}"
    );
}

#[test]
fn a_line_break_in_a_file_name_cannot_inject_code() {
    let file = "x\npub fn injected() {}\n.def";
    let code = Config::new().generate_one(file, "int32 a\n").unwrap();
    let parsed = syn::parse_file(&code).unwrap();
    assert!(
        parsed
            .items
            .iter()
            .all(|i| !matches!(i, syn::Item::Fn(f) if f.sig.ident == "injected")),
        "{code}"
    );
    assert!(
        code.starts_with("// @generated by def-codegen from x\\u{a}pub fn"),
        "{code}"
    );
}

#[test]
fn the_real_maps_read_strictly() {
    let maps = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/tera-data/maps");
    let Ok(rd) = std::fs::read_dir(&maps) else {
        eprintln!("no tera-data next to the repository; skipped");
        return;
    };
    for entry in rd {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let lines = text.lines().filter(|l| l.contains('=')).count();
        let map = read_map(&path).unwrap();
        assert_eq!(map.len(), lines, "{}", path.display());
        assert!(lines > 400, "{}", path.display());
    }
}
