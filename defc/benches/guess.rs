//! `defc guess` end to end, as a user runs it: the process, loading and compiling the whole
//! definitions folder, reading the capture, and guessing. The capture is the one of
//! `tests/guess.rs` (each public vector of a message the newest map has, under that opcode),
//! written once before timing.
//!
//! `cargo bench -p defc --bench guess`. Wall time per run (a child process: its CPU time is not
//! the bench thread's).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::Value;

fn shared() -> PathBuf {
    match std::env::var_os("WIRE_SHARED_DIR") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
    }
}

/// The capture, and its packet count.
fn capture(dir: &Path) -> (PathBuf, usize) {
    let maps = shared().join("tera-data/maps");
    let mut newest: Vec<PathBuf> = std::fs::read_dir(&maps)
        .expect("tera-data/maps")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "map"))
        .collect();
    newest.sort();
    let map: BTreeMap<String, u16> = std::fs::read_to_string(newest.last().expect("a map"))
        .unwrap()
        .lines()
        .filter_map(|l| {
            let (n, op) = l.split('#').next()?.split_once('=')?;
            Some((n.trim().to_string(), op.trim().parse().ok()?))
        })
        .collect();
    let text = std::fs::read_to_string(shared().join("tera-vectors/public.jsonl")).unwrap();
    let mut out = String::new();
    let mut n = 0;
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let name = v["def"].as_str().unwrap().split('.').next().unwrap();
        let Some(op) = map.get(name) else { continue };
        if v["padding"].as_bool().unwrap() {
            continue;
        }
        let hex = v["hex"].as_str().unwrap();
        let [lo, hi] = op.to_le_bytes();
        out.push_str(&format!("{}{lo:02x}{hi:02x}{}\n", &hex[..4], &hex[8..]));
        n += 1;
    }
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join("capture.txt");
    std::fs::write(&path, out).unwrap();
    (path, n)
}

fn bench(c: &mut Criterion) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/bench-guess");
    let (cap, n) = capture(&dir);
    let defs = shared().join("tera-data/definitions");
    let mut g = c.benchmark_group("guess");
    g.sample_size(10);
    g.throughput(criterion::Throughput::Elements(n as u64));
    g.bench_function("public vectors capture, whole corpus", |b| {
        b.iter(|| {
            let out = Command::new(env!("CARGO_BIN_EXE_defc"))
                .arg("guess")
                .arg("--defs")
                .arg(&defs)
                .arg(&cap)
                .output()
                .unwrap();
            assert!(out.status.success());
            out.stdout.len()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
