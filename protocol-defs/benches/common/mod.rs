//! The benchmark body shared by `codec` (system allocator) and `codec_mimalloc`.

use std::path::PathBuf;

mod measure;
use measure::shared_dir;
pub use measure::{CpuTime, config};

use criterion::{Criterion, Throughput};
use def_runtime::Options;
use def_runtime::tera::DynPacket;
use def_runtime::tera::dynamic::{Definition as Dynamic, LoadOptions, Missing, Protocol, Record};
use serde_json::Value;

struct Vector {
    def: &'static protocol_defs::Definition,
    dynamic: usize,
    /// The packet's place in the stream.
    range: std::ops::Range<usize>,
    opts: Options,
    json: Value,
    /// The dynamic codec's record of the packet.
    record: Record,
    typed: Box<dyn DynPacket>,
    opcode: u16,
}

fn tera_data() -> PathBuf {
    std::env::var_os("TERA_DATA_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| shared_dir().join("tera-data"))
}

fn load() -> (Vec<u8>, Vec<Vector>, Vec<Dynamic>) {
    let shared = shared_dir();
    let defs = tera_data().join("definitions");
    let text = std::fs::read_to_string(shared.join("tera-vectors/public.jsonl"))
        .expect("public vectors (set WIRE_SHARED_DIR)");
    let mut dynamics = Vec::new();
    let mut index = std::collections::HashMap::new();
    let mut out = Vec::new();
    let mut stream = Vec::new();
    let mut pending = Vec::new();
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let file = v["def"].as_str().unwrap().to_string();
        let def = protocol_defs::definition(&file).expect("built with the corpus");
        let dynamic = *index.entry(file.clone()).or_insert_with(|| {
            dynamics
                .push(Dynamic::from_file(&defs.join(&file), def_parser::Mode::Compatible).unwrap());
            dynamics.len() - 1
        });
        let hex = v["hex"].as_str().unwrap();
        let bytes: Vec<u8> = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect();
        let opts = Options::new().padding(v["padding"].as_bool().unwrap());
        let start = stream.len();
        stream.extend_from_slice(&bytes);
        pending.push((def, dynamic, start..stream.len(), opts, v["object"].clone()));
    }
    for (def, dynamic, range, opts, json) in pending {
        let dynamics = &dynamics;
        let bytes = &stream[range.clone()];
        out.push(Vector {
            def,
            dynamic,
            typed: (def.decode)(bytes, opts).unwrap(),
            record: dynamics[dynamic].decode(bytes, opts).unwrap(),
            opcode: u16::from_le_bytes([bytes[2], bytes[3]]),
            range,
            opts,
            json,
        });
    }
    (stream, out, dynamics)
}

/// Every group, named under `alloc` (the global allocator in use).
pub fn bench(c: &mut Criterion<CpuTime>, alloc: &str) {
    // The whole corpus at run time: every definition read and compiled, the map, deprecated.json.
    let data = tera_data();
    let mut g = c.benchmark_group(format!("{alloc}/protocol"));
    g.sample_size(10);
    g.bench_function("dynamic/load", |b| {
        b.iter(|| Protocol::load_newest(&data, &LoadOptions::default()).unwrap())
    });
    g.finish();
    let (stream, all, dynamics) = load();
    let mut largest: Vec<&Vector> = all.iter().collect();
    largest.sort_by_key(|v| std::cmp::Reverse(v.range.len()));
    largest.truncate(100);
    let sets: [(&str, Vec<&Vector>); 2] = [("all", all.iter().collect()), ("largest100", largest)];
    for (name, set) in sets {
        let bytes: usize = set.iter().map(|v| v.range.len()).sum();
        for (unit, tp) in [
            ("packets", Throughput::Elements(set.len() as u64)),
            ("bytes", Throughput::Bytes(bytes as u64)),
        ] {
            let mut g = c.benchmark_group(format!("{alloc}/{name}/{unit}"));
            g.throughput(tp);
            g.bench_function("generated/decode", |b| {
                b.iter(|| {
                    for v in &set {
                        (v.def.validate)(&stream[v.range.clone()], v.opts).unwrap();
                    }
                })
            });
            let mut buf = Vec::with_capacity(70_000);
            g.bench_function("generated/encode", |b| {
                b.iter(|| {
                    for v in &set {
                        buf.clear();
                        v.typed.encode_into(v.opcode, v.opts, &mut buf).unwrap();
                    }
                })
            });
            g.bench_function("dynamic/decode", |b| {
                b.iter(|| {
                    for v in &set {
                        dynamics[v.dynamic]
                            .decode(&stream[v.range.clone()], v.opts)
                            .unwrap();
                    }
                })
            });
            g.bench_function("dynamic/encode", |b| {
                b.iter(|| {
                    for v in &set {
                        buf.clear();
                        dynamics[v.dynamic]
                            .encode_record_into(&v.record, v.opcode, v.opts, &mut buf)
                            .unwrap();
                    }
                })
            });
            g.bench_function("dynamic/decode_json", |b| {
                b.iter(|| {
                    for v in &set {
                        dynamics[v.dynamic]
                            .decode_json(&stream[v.range.clone()], v.opts)
                            .unwrap();
                    }
                })
            });
            g.bench_function("dynamic/encode_json", |b| {
                b.iter(|| {
                    for v in &set {
                        dynamics[v.dynamic]
                            .encode(&v.json, v.opcode, v.opts, Missing::Error)
                            .unwrap();
                    }
                })
            });
            g.finish();
        }
    }
}
