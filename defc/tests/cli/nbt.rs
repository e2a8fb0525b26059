//! `defc nbt` on hostile region files and dumps: a FIFO named like an external chunk does not
//! block `dump`; `encode` refuses a region dump whose values the format cannot hold (a
//! timestamp over 32 bits, a compression id over 255) instead of truncating them, naming the
//! chunk; the largest values that fit are written exactly.
#![cfg(all(feature = "nbt", unix))]

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::run::defc_with as defc;

struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!("defc_nbt_{tag}_{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// NBT of `{"": {Status: "full"}}`, stored uncompressed (id 3).
fn small_nbt() -> Vec<u8> {
    let mut v = vec![10, 0, 0, 8, 0, 6];
    v.extend_from_slice(b"Status");
    v.extend_from_slice(&[0, 4]);
    v.extend_from_slice(b"full");
    v.push(0);
    v
}

/// Slot 0: an external stub (zlib + 128) in sector 2; slot 1: `small_nbt` uncompressed in
/// sector 3 with timestamp `ts`.
fn region(ts: u32) -> Vec<u8> {
    let mut out = vec![0u8; 4 * 4096];
    out[0..4].copy_from_slice(&((2u32 << 8) | 1).to_be_bytes());
    out[4..8].copy_from_slice(&((3u32 << 8) | 1).to_be_bytes());
    out[4096 + 4..4096 + 8].copy_from_slice(&ts.to_be_bytes());
    out[2 * 4096..2 * 4096 + 5].copy_from_slice(&[0, 0, 0, 1, 0x82]);
    let nbt = small_nbt();
    let at = 3 * 4096;
    out[at..at + 4].copy_from_slice(&(nbt.len() as u32 + 1).to_be_bytes());
    out[at + 4] = 3;
    out[at + 5..at + 5 + nbt.len()].copy_from_slice(&nbt);
    out
}

fn mkfifo(path: &Path) {
    assert!(Command::new("mkfifo").arg(path).status().unwrap().success());
}

#[test]
fn dump_does_not_wait_on_a_fifo_beside_the_region() {
    let dir = TempDir::new("fifo");
    let path = dir.0.join("r.0.0.mca");
    std::fs::write(&path, region(7)).unwrap();
    mkfifo(&dir.0.join("c.0.0.mcc"));
    let out = defc(&["nbt", "dump", path.to_str().unwrap()], b"");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let chunks = json["chunks"].as_array().unwrap();
    assert_eq!(chunks[0]["status"], "invalid");
    let error = chunks[0]["error"].as_str().unwrap();
    assert!(
        error.contains("c.0.0.mcc") && error.contains("not a regular file"),
        "{error}"
    );
    assert_eq!(chunks[1]["status"], "ok");
    assert_eq!(chunks[1]["timestamp"], 7);
}

/// The dump of `region(ts)`'s second chunk with one field's text replaced.
fn dump_with(field: &str, value: &str) -> Vec<u8> {
    let mut chunk = serde_json::json!({
        "index": 1, "x": 1, "z": 0, "timestamp": 7, "compression_id": 3,
        "nbt": {"type": "compound", "name": "", "value": {"Status": {"type": "string", "value": "full"}}}
    });
    chunk[field] = serde_json::Value::from(0);
    let text = serde_json::json!({ "chunks": [chunk] }).to_string();
    text.replace(&format!("\"{field}\":0"), &format!("\"{field}\":{value}"))
        .into_bytes()
}

#[test]
fn encode_refuses_region_values_that_do_not_fit_and_names_the_chunk() {
    for (field, value, expect) in [
        (
            "timestamp",
            "4294967301",
            "region dump, chunks[0] (slot 1: x 1, z 0): `timestamp` 4294967301 does not fit (at most 4294967295)",
        ),
        (
            "compression_id",
            "258",
            "region dump, chunks[0] (slot 1: x 1, z 0): `compression_id` 258 does not fit (at most 255)",
        ),
        (
            "index",
            "1025",
            "region dump, chunks[0]: `index` 1025 does not fit (at most 1023)",
        ),
    ] {
        let out = defc(&["nbt", "encode", "-"], &dump_with(field, value));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{field} {value} was accepted");
        assert!(out.stdout.is_empty());
        assert!(stderr.contains(expect), "{stderr}");
    }
}

#[test]
fn encode_writes_the_largest_values_that_fit_exactly() {
    let out = defc(
        &["nbt", "encode", "-"],
        &dump_with("timestamp", "4294967295"),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r = out.stdout;
    // Slot 1's location and timestamp, read from the tables as the format describes them.
    let loc = u32::from_be_bytes(r[4..8].try_into().unwrap());
    assert_eq!(loc & 0xFF, 1, "one sector");
    let ts = u32::from_be_bytes(r[4096 + 4..4096 + 8].try_into().unwrap());
    assert_eq!(ts, u32::MAX);
    let at = (loc >> 8) as usize * 4096;
    assert_eq!(r[at + 4], 3, "compression id");
    assert_eq!(
        &r[at + 5..at + 5 + small_nbt().len()],
        small_nbt().as_slice()
    );
}

#[test]
fn dump_pretty_snbt_indents_and_encodes_back() {
    let dir = TempDir::new("pretty");
    let file = dir.0.join("small.nbt");
    std::fs::write(&file, small_nbt()).unwrap();
    let f = file.to_str().unwrap();
    let out = defc(&["nbt", "dump", "--snbt", "--pretty", f], b"");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text, "{\n    Status: \"full\"\n}\n");
    // The text reads back to the same bytes.
    let back = defc(&["nbt", "encode", "--snbt", "-"], text.as_bytes());
    assert!(
        back.status.success(),
        "{}",
        String::from_utf8_lossy(&back.stderr)
    );
    assert_eq!(back.stdout, small_nbt());
    // `--pretty` is about SNBT.
    assert!(!defc(&["nbt", "dump", "--pretty", f], b"").status.success());
}

#[test]
fn world_prints_a_summary_with_file_names_escaped() {
    let Some(samples) = std::env::var_os("WIRE_SHARED_DIR")
        .map(PathBuf::from)
        .or_else(|| Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared")))
        .map(|s| s.join("nbt-samples"))
        .filter(|s| s.exists())
    else {
        panic!("the shared NBT samples are missing (set WIRE_SHARED_DIR)");
    };
    let dir = TempDir::new("world");
    let w = &dir.0;
    let hostile = w.join("dimensions/ns/e\u{1b}[2J/region");
    for d in [w.join("region"), w.join("entities"), hostile.clone()] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::copy(samples.join("querz__r.0.0.mca"), w.join("region/r.0.0.mca")).unwrap();
    std::fs::copy(
        samples.join("twoolie__world_test_r.4.-4.mca"),
        w.join("entities/r.4.-4.mca"),
    )
    .unwrap();
    std::fs::write(hostile.join("r.1.1.mca"), [0u8; 100]).unwrap();
    let out = defc(
        &["nbt", "world", "--threads", "2", w.to_str().unwrap()],
        b"",
    );
    let text = String::from_utf8(out.stdout).unwrap();
    // Schemes and data versions from the samples' dumps (zlib; 2230 and 1952).
    let body: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(
        body,
        [
            "region files: 3",
            "chunks: 2 (2 read, 0 not)",
            "compression: zlib 2",
            "data versions: 1952 1, 2230 1",
            "errors: 1",
            "  dimensions/ns/e\\u{1b}[2J/region/r.1.1.mca: NBT: region file: 100 bytes is shorter than \
             the 8 KiB header",
        ],
        "{text}"
    );
    assert!(!text.contains('\u{1b}'));
    assert_eq!(out.status.code(), Some(1), "a file could not be read");
    std::fs::remove_file(hostile.join("r.1.1.mca")).unwrap();
    let out = defc(
        &["nbt", "world", "--headers-only", w.to_str().unwrap()],
        b"",
    );
    assert!(out.status.success());
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .contains("chunks: 2 (2 headers read, 0 not)")
    );
}
