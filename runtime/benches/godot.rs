//! Criterion benchmarks of the Godot Variant codec: decode and encode of a realistic mixed
//! game-state payload (players with names, positions, stats, inventories, nested dictionaries)
//! and of large packed arrays, reported as throughput of encoded bytes.

use criterion::{BenchmarkId, Criterion, Throughput, black_box, criterion_group, criterion_main};
use def_runtime::godot::*;

/// A server snapshot as a Godot game would `put_var` it: 200 players.
fn mixed_payload() -> Variant {
    let players = (0..200)
        .map(|i| {
            let f = i as f64;
            Variant::dictionary(vec![
                (Variant::string("id"), Variant::Int(1_000_000 + i)),
                (
                    Variant::string("name"),
                    Variant::string(format!("player_{i}_✓")),
                ),
                (
                    Variant::string("pos"),
                    Variant::Vector3(Vector3 {
                        x: f * 0.5,
                        y: 1.25,
                        z: -f,
                    }),
                ),
                (
                    Variant::string("vel"),
                    Variant::Vector2(Vector2 {
                        x: 0.1 * f,
                        y: -0.2,
                    }),
                ),
                (Variant::string("hp"), Variant::Float(100.0 - f * 0.37)),
                (Variant::string("alive"), Variant::Bool(i % 7 != 0)),
                (
                    Variant::string("node"),
                    Variant::NodePath(Box::new(NodePath::parse("/root/World/Players:transform"))),
                ),
                (
                    Variant::string("inventory"),
                    Variant::PackedInt32Array((0..16).map(|k| (k * i) as i32).collect()),
                ),
                (
                    Variant::string("stats"),
                    Variant::dictionary(vec![
                        (Variant::string("str"), Variant::Int(i % 20)),
                        (Variant::string("dex"), Variant::Int(i % 13)),
                        (
                            Variant::string("buffs"),
                            Variant::array(vec![Variant::string("haste"), Variant::Float(2.5)]),
                        ),
                    ]),
                ),
                (
                    Variant::string("color"),
                    Variant::Color(Color {
                        r: 0.2,
                        g: 0.4,
                        b: 0.6,
                        a: 1.0,
                    }),
                ),
            ])
        })
        .collect();
    Variant::dictionary(vec![
        (Variant::string("tick"), Variant::Int(123_456_789)),
        (Variant::string("map"), Variant::string("arena_02")),
        (Variant::string("players"), Variant::array(players)),
    ])
}

fn packed_payloads() -> Vec<(&'static str, Variant)> {
    vec![
        (
            "PackedByteArray 1 MiB",
            Variant::PackedByteArray((0..1 << 20).map(|i| (i * 31) as u8).collect()),
        ),
        (
            "PackedFloat32Array 256Ki",
            Variant::PackedFloat32Array((0..1 << 18).map(|i| i as f32 * 0.25).collect()),
        ),
        (
            "PackedVector3Array 64Ki",
            Variant::PackedVector3Array(
                (0..1 << 16)
                    .map(|i| Vector3 {
                        x: i as f64,
                        y: 0.5,
                        z: -1.0,
                    })
                    .collect(),
            ),
        ),
        (
            "PackedStringArray 16Ki",
            Variant::PackedStringArray((0..1 << 14).map(|i| format!("item{i}").into()).collect()),
        ),
    ]
}

fn bench(c: &mut Criterion) {
    let mut cases = vec![("mixed game state", mixed_payload())];
    cases.extend(packed_payloads());
    for version in [Version::Godot3, Version::GODOT_4_4] {
        let enc = EncodeOptions::new(version);
        let dec = DecodeOptions::new(version);
        let mut group = c.benchmark_group(format!(
            "godot{}",
            if version == Version::Godot3 { 3 } else { 4 }
        ));
        for (name, value) in &cases {
            let bytes = encode(value, enc).unwrap();
            group.throughput(Throughput::Bytes(bytes.len() as u64));
            group.bench_with_input(BenchmarkId::new("decode", name), &bytes, |b, bytes| {
                b.iter(|| decode(black_box(bytes), dec).unwrap())
            });
            group.bench_with_input(BenchmarkId::new("encode", name), value, |b, value| {
                let mut out = Vec::with_capacity(bytes.len());
                b.iter(|| {
                    out.clear();
                    encode_into(black_box(value), enc, &mut out).unwrap();
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
