//! Differential test against the real engine (headless Godot 3.2.3, Debian `godot3-server`).
//!
//! * Part A: the engine encodes a broad set of values (`var2bytes`, with and without full
//!   objects) and describes each one independently (floats as bit patterns, strings as UTF-8
//!   hex); we decode its bytes to the described value and re-encode the very same bytes
//!   (NodePath name padding, which the engine leaves uninitialised, may differ only where we
//!   write zeros).
//! * Part B: we encode our own values, and craft malformed or unusual byte strings; the engine
//!   decodes each (`StreamPeerBuffer.get_var`, null on error) and reports the value and its own
//!   re-encoding; we check that we refuse exactly what it refuses and otherwise decode the same
//!   value and re-encode the same bytes.
//!
//! The engine binary is `$GODOT3_BIN` or `godot3-server` on `PATH` (`.ci/install-godot`). If it
//! is missing the test fails, unless `WIRE_ALLOW_SKIP=1` (see `tests/support/mod.rs`).
#![cfg(feature = "godot")]

use crate::common;
use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{as_ids, described, has_object, hex, unhex};
use def_runtime::godot::*;
use serde_json::Value;

fn find_engine() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("GODOT3_BIN") {
        let p = PathBuf::from(p);
        return p.is_file().then_some(p);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("godot3-server"))
        .find(|p| p.is_file())
}

/// Null objects are NIL on the wire; compare them as NIL.
fn normalize(v: &Variant) -> Variant {
    match v {
        Variant::Object(Object::Null) => Variant::Nil,
        Variant::Array(a) => Variant::array(a.items.iter().map(normalize).collect()),
        Variant::Dictionary(d) => Variant::dictionary(
            d.entries
                .iter()
                .map(|(k, v)| (normalize(k), normalize(v)))
                .collect(),
        ),
        Variant::Object(Object::Full(o)) => Variant::Object(Object::Full(Box::new(FullObject {
            class: o.class.clone(),
            properties: o
                .properties
                .iter()
                .map(|(n, v)| (n.clone(), normalize(v)))
                .collect(),
        }))),
        other => other.clone(),
    }
}

fn has_node_path(v: &Variant) -> bool {
    match v {
        Variant::NodePath(_) => true,
        Variant::Array(a) => a.items.iter().any(has_node_path),
        Variant::Dictionary(d) => d
            .entries
            .iter()
            .any(|(k, v)| has_node_path(k) || has_node_path(v)),
        Variant::Object(Object::Full(o)) => o.properties.iter().any(|(_, v)| has_node_path(v)),
        _ => false,
    }
}

/// Byte equality, except that where `value` holds a NodePath our zero padding may stand
/// against the engine's uninitialised bytes.
fn same_bytes(ours: &[u8], engine: &[u8], value: &Variant) -> bool {
    if !has_node_path(value) {
        return ours == engine;
    }
    ours.len() == engine.len() && ours.iter().zip(engine).all(|(a, b)| a == b || *a == 0)
}

fn g3(allow: bool) -> DecodeOptions {
    let mut o = DecodeOptions::new(Version::Godot3).allow_objects(allow);
    o.class_check = Some(godot3_class_check);
    o
}

/// Our own values for the engine to decode.
fn our_values() -> Vec<(&'static str, Variant)> {
    let s = |x: &str| Variant::string(x);
    let v2 = |x: f32, y: f32| Vector2 {
        x: x.into(),
        y: y.into(),
    };
    let nested = Variant::dictionary(vec![
        (s("name"), s("player ✓")),
        (s("hp"), Variant::Int(-12)),
        (s("pos"), Variant::Vector2(v2(1.5, -0.1))),
        (
            Variant::Int(7),
            Variant::array(vec![Variant::Nil, Variant::Bool(true), Variant::Float(0.1)]),
        ),
        (
            Variant::Vector2(v2(1.0, 2.0)),
            Variant::PackedByteArray(vec![9, 8, 7]),
        ),
    ]);
    let mut deep = Variant::array(vec![Variant::Int(1)]);
    // 40 levels: the engine's description goes through serde_json (nesting limit 128).
    for _ in 0..40 {
        deep = Variant::array(vec![deep]);
    }
    vec![
        ("nil", Variant::Nil),
        ("bool", Variant::Bool(true)),
        ("int_small", Variant::Int(-5)),
        ("int_big", Variant::Int(0x7fff_ffff_ffff_fff0)),
        ("int_neg_big", Variant::Int(i64::MIN)),
        ("float_exact", Variant::Float(-2.5)),
        ("float_inexact", Variant::Float(std::f64::consts::PI)),
        ("float_neg0", Variant::Float(-0.0)),
        (
            "float_nan_payload",
            Variant::Float(f64::from_bits(0x7ff8_0000_2000_0000)),
        ),
        ("float_min_subnormal", Variant::Float(f64::from_bits(1))),
        ("string", s("hello, wörld 😀")),
        ("string_5", s("abcde")),
        ("vector2", Variant::Vector2(v2(0.1, 1e-30))),
        (
            "rect2",
            Variant::Rect2(Box::new(Rect2 {
                x: 1.0,
                y: -2.0,
                w: 3.25,
                h: 0.5,
            })),
        ),
        (
            "vector3",
            Variant::Vector3(Vector3 {
                x: 1.0,
                y: 2.0,
                z: -3.0,
            }),
        ),
        (
            "transform2d",
            Variant::Transform2D(Box::new(Transform2D([1.0, 0.0, 0.0, 1.0, 10.5, -3.0]))),
        ),
        (
            "plane",
            Variant::Plane(Box::new(Plane {
                nx: 0.0,
                ny: 1.0,
                nz: 0.0,
                d: 4.0,
            })),
        ),
        (
            "quat",
            Variant::Quaternion(Box::new(Quaternion {
                x: 0.0,
                y: 0.0,
                z: 0.5,
                w: 0.5,
            })),
        ),
        (
            "aabb",
            Variant::Aabb(Box::new(Aabb {
                x: 0.0,
                y: 1.0,
                z: 2.0,
                w: 3.0,
                h: 4.0,
                d: 5.0,
            })),
        ),
        (
            "basis",
            Variant::Basis(Box::new(Basis([
                1.0, 4.0, 7.0, 2.0, 5.0, 8.0, 3.0, 6.0, 9.0,
            ]))),
        ),
        (
            "transform",
            Variant::Transform3D(Box::new(Transform3D([
                1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 7.0, 8.0, 9.0,
            ]))),
        ),
        (
            "color",
            Variant::Color(Color {
                r: 1.0,
                g: 0.5,
                b: 0.25,
                a: 0.125,
            }),
        ),
        (
            "nodepath",
            Variant::NodePath(Box::new(NodePath::parse("/root/World/Player:position:x"))),
        ),
        (
            "nodepath_rel",
            Variant::NodePath(Box::new(NodePath::parse("../a/bcde"))),
        ),
        ("rid", Variant::Rid(0)),
        ("object_null", Variant::Object(Object::Null)),
        ("object_id", Variant::Object(Object::Id(1234))),
        ("dict", nested),
        ("array_deep_41", deep),
        ("bytes_odd", Variant::PackedByteArray(vec![1, 2, 3, 4, 5])),
        (
            "ints",
            Variant::PackedInt32Array(vec![i32::MIN, -1, 0, 1, i32::MAX]),
        ),
        (
            "reals",
            Variant::PackedFloat32Array(vec![0.1, -0.0, f32::INFINITY, 3.5]),
        ),
        (
            "strings",
            Variant::PackedStringArray(vec![
                "".into(),
                "x".into(),
                "yz".into(),
                "wxyz".into(),
                "ü".into(),
            ]),
        ),
        (
            "vector2s",
            Variant::PackedVector2Array(vec![v2(1.0, 2.0), v2(-0.5, 0.25)]),
        ),
        (
            "vector3s",
            Variant::PackedVector3Array(vec![
                Vector3 {
                    x: 1.0,
                    y: 2.0,
                    z: 3.0,
                },
                Vector3 {
                    x: 0.0,
                    y: -1.0,
                    z: 0.5,
                },
            ]),
        ),
        (
            "colors",
            Variant::PackedColorArray(vec![Color {
                r: 0.1,
                g: 0.2,
                b: 0.3,
                a: 1.0,
            }]),
        ),
    ]
}

/// A small deterministic PRNG (xorshift64*), so that the random part of the differential test
/// is the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    /// Any f32 except signalling NaNs (the engine's float conversions may quieten those).
    fn f32(&mut self) -> f32 {
        let f = f32::from_bits(self.next() as u32);
        if f.is_nan() {
            f32::from_bits(f.to_bits() | 0x40_0000)
        } else {
            f
        }
    }
    fn real(&mut self) -> f64 {
        f64::from(self.f32())
    }
    fn f64(&mut self) -> f64 {
        match self.below(3) {
            0 => f64::from(self.f32()),
            1 => (self.below(2000) as f64 - 1000.0) / 8.0,
            _ => {
                let f = f64::from_bits(self.next());
                if f.is_nan() {
                    f64::from_bits(f.to_bits() | 0x8_0000_0000_0000)
                } else {
                    f
                }
            }
        }
    }
    fn text(&mut self) -> String {
        const CHARS: &[char] = &[
            'a', 'b', 'Z', '0', ' ', '.', '/', ':', 'é', '✓', '日', '😀', '"', '\\',
        ];
        (0..self.below(9))
            .map(|_| CHARS[self.below(CHARS.len() as u64) as usize])
            .collect()
    }
    /// A Godot 3 string: text, or one in four times code points beyond Unicode too
    /// (surrogates, above U+10FFFF, up to the 6-byte forms), which the engine keeps.
    fn gstring(&mut self) -> GString {
        if self.below(4) != 0 {
            return self.text().into();
        }
        let points: Vec<u32> = (0..1 + self.below(5))
            .map(|_| match self.below(4) {
                0 => 0x41 + self.below(26) as u32,
                1 => 0xD800 + self.below(0x800) as u32,
                2 => 0x11_0000 + self.below(0x7FEF_0000) as u32,
                _ => 0x80 + self.below(0x10_0000) as u32,
            })
            .collect();
        GString::from_code_points(points).unwrap()
    }
    fn reals<const N: usize>(&mut self) -> [f64; N] {
        std::array::from_fn(|_| self.real())
    }

    /// A random Godot 3 value (no objects), at most `depth` container levels.
    fn value(&mut self, depth: u32) -> Variant {
        let kinds = if depth == 0 { 22 } else { 24 };
        match self.below(kinds) {
            0 => Variant::Nil,
            1 => Variant::Bool(self.below(2) == 1),
            2 => Variant::Int(self.next() as i64 >> self.below(64)),
            3 => Variant::Float(self.f64()),
            4 => Variant::String(self.gstring()),
            5 => Variant::Vector2(Vector2::from_array(self.reals())),
            6 => Variant::Rect2(Box::new(Rect2::from_array(self.reals()))),
            7 => Variant::Vector3(Vector3::from_array(self.reals())),
            8 => Variant::Transform2D(Box::new(Transform2D(self.reals()))),
            9 => Variant::Plane(Box::new(Plane::from_array(self.reals()))),
            10 => Variant::Quaternion(Box::new(Quaternion::from_array(self.reals()))),
            11 => Variant::Aabb(Box::new(Aabb::from_array(self.reals()))),
            12 => Variant::Basis(Box::new(Basis(self.reals()))),
            13 => Variant::Transform3D(Box::new(Transform3D(self.reals()))),
            14 => Variant::Color(Color::from_array([
                self.f32(),
                self.f32(),
                self.f32(),
                self.f32(),
            ])),
            15 => {
                // Names hold any string the engine keeps, as String does.
                let names = (0..self.below(4))
                    .map(|_| match self.below(3) {
                        0 => self.gstring(),
                        _ => format!("n{}", self.below(100)).into(),
                    })
                    .filter(|s: &GString| !s.is_empty())
                    .collect();
                let subnames = (0..self.below(3))
                    .map(|_| format!("s{}", self.below(100)).into())
                    .collect();
                let mut p = NodePath {
                    names,
                    subnames,
                    absolute: self.below(2) == 1,
                };
                p.absolute &= !p.is_empty();
                Variant::NodePath(Box::new(p))
            }
            16 => {
                Variant::PackedByteArray((0..self.below(11)).map(|_| self.next() as u8).collect())
            }
            17 => {
                Variant::PackedInt32Array((0..self.below(6)).map(|_| self.next() as i32).collect())
            }
            18 => Variant::PackedFloat32Array((0..self.below(6)).map(|_| self.f32()).collect()),
            19 => Variant::PackedStringArray((0..self.below(5)).map(|_| self.gstring()).collect()),
            20 => Variant::PackedVector2Array(
                (0..self.below(4))
                    .map(|_| Vector2::from_array(self.reals()))
                    .collect(),
            ),
            21 => Variant::PackedColorArray(
                (0..self.below(3))
                    .map(|_| Color::from_array([self.f32(), self.f32(), self.f32(), self.f32()]))
                    .collect(),
            ),
            22 => Variant::array((0..self.below(5)).map(|_| self.value(depth - 1)).collect()),
            _ => {
                // Distinct keys (ints and strings), so the engine keeps every entry.
                let entries = (0..self.below(5))
                    .map(|i| {
                        let k = if i % 2 == 0 {
                            Variant::Int(i as i64)
                        } else {
                            Variant::string(format!("k{i}"))
                        };
                        (k, self.value(depth - 1))
                    })
                    .collect();
                Variant::dictionary(entries)
            }
        }
    }
}

/// Our full objects (the engine decodes them only with allow_objects).
fn our_objects() -> Vec<(&'static str, Variant)> {
    let reference = Variant::Object(Object::Full(Box::new(FullObject {
        class: "Reference".into(),
        properties: vec![("script".into(), Variant::Nil)],
    })));
    let resource = Variant::Object(Object::Full(Box::new(FullObject {
        class: "Resource".into(),
        properties: vec![
            ("resource_local_to_scene".into(), Variant::Bool(true)),
            ("resource_name".into(), Variant::string("from rust")),
            ("script".into(), Variant::Nil),
        ],
    })));
    vec![
        ("full_reference", reference.clone()),
        ("full_resource", resource),
        (
            "array_of_objects",
            Variant::array(vec![
                reference,
                Variant::Object(Object::Null),
                Variant::Int(3),
            ]),
        ),
    ]
}

/// Crafted byte strings (hex), with the allow_objects flag.
fn probes() -> Vec<(&'static str, &'static str, bool)> {
    vec![
        ("empty", "", false),
        ("short_header", "020000", false),
        ("type_27", "1b000000", false),
        ("type_255", "ff000000", false),
        ("int_truncated", "02000000", false),
        ("int64_truncated", "020001002a000000", false),
        ("int_flag64_small", "020001002a00000000000000", false),
        ("int_byte1_ignored", "02ff00002a000000", false),
        ("int_unknown_flag", "020002002a000000", false),
        ("nil_flags", "0000ffff", false),
        ("bool_2", "0100000002000000", false),
        ("bool_0x100", "0100000000010000", false),
        ("float_snan_f32", "030000000100807f", false),
        ("float_qnan_payload_f32", "030000000100c07f", false),
        ("vector2_flag64_ignored", "050001000000803f00000040", false),
        ("string_no_pad", "040000000500000068656c6c6f", false),
        ("string_negative", "04000000ffffffff", false),
        ("string_overflow", "04000000ffffff7f", false),
        ("string_nul_inside", "040000000300000061006200", false),
        ("string_bom_full", "0400000004000000efbbbf61", false),
        ("string_nonzero_pad", "0400000001000000617a7a7a", false),
        ("utf8_overlong_c0", "0400000002000000c0af0000", false),
        ("utf8_surrogate", "0400000003000000eda08000", false),
        ("utf8_overlong_e0_80", "0400000003000000e0808000", false),
        ("utf8_overlong_e0_9f", "0400000003000000e09fbf00", false),
        ("utf8_above_10ffff", "0400000004000000f4908080", false),
        ("utf8_5_byte", "0400000005000000f888808080000000", false),
        ("utf8_6_byte_max", "0400000006000000fdbfbfbfbfbf0000", false),
        (
            "utf8_surrogate_node_path",
            "0f00000001000080000000000000000003000000eda08000",
            false,
        ),
        ("utf8_cesu_pair", "0400000006000000eda080edb0800000", false),
        (
            "utf8_surrogate_in_pool",
            "17000000020000000400000041eda0800400000042eda080",
            false,
        ),
        (
            "utf8_surrogate_key",
            "12000000010000000400000003000000eda080000200000007000000",
            false,
        ),
        ("utf8_lone_continuation", "040000000100000080000000", false),
        ("utf8_truncated", "0400000001000000c3000000", false),
        ("utf8_nul_in_sequence", "0400000002000000c3000000", false),
        ("nodepath_old_format", "0f0000000100000061000000", false),
        ("nodepath_short", "0f0000000100008000000000", false),
        (
            "nodepath_property_flag",
            "0f00000001000080000000000200000001000000610000000100000062000000",
            false,
        ),
        (
            "nodepath_empty_absolute",
            "0f000000000000800000000001000000",
            false,
        ),
        ("rid_with_trailing", "1000000001020304", false),
        (
            "object_full_refused",
            "11000000090000005265666572656e63650000000100000006000000736372697074000000000000",
            false,
        ),
        (
            "object_full_allowed",
            "11000000090000005265666572656e63650000000100000006000000736372697074000000000000",
            true,
        ),
        ("object_empty_class", "1100000000000000", true),
        ("object_empty_class_refused", "1100000000000000", false),
        (
            "object_unknown_class",
            "110000000300000058797a000000000000",
            true,
        ),
        // An abstract class is known to ClassDB but cannot be instantiated: refused as well.
        (
            "object_abstract_class",
            "110000000a00000043616e7661734974656d000000000000",
            true,
        ),
        (
            "object_missing_count",
            "11000000090000005265666572656e6365000000",
            true,
        ),
        (
            "object_unknown_property",
            "11000000090000005265666572656e6365000000010000000300000078797a0002000000",
            true,
        ),
        ("object_id_0", "110001000000000000000000", false),
        ("object_id_truncated", "1100010001000000", false),
        ("dict_short_count", "120000000100", false),
        (
            "dict_duplicate_keys",
            "1200000002000000020000000100000002000000050000000200000001000000020000000600000002000000",
            false,
        ),
        (
            "dict_duplicate_float_keys",
            "120000000200000003000000000000000200000001000000030000000000008002000000020000000300000000000000",
            false,
        ),
        ("dict_missing_value", "120000000100000002000000", false),
        // Keys that are packed arrays, NaN floats (kept apart by 3.2.3), NaN vectors (merged),
        // NodePaths, RIDs. (NaN inside PoolRealArray keys makes the engine itself lose entries.)
        (
            "dict_dup_bytes_keys",
            "120000000200000014000000010000000100000002000000010000001400000001000000010000000200000002000000",
            false,
        ),
        (
            "dict_dup_reals_keys",
            "120000000200000016000000010000000000c03f020000000100000016000000010000000000c03f0200000002000000",
            false,
        ),
        (
            "dict_dup_nan_keys",
            "1200000002000000030000000000c07f020000000100000003000100000000000000f87f0200000002000000",
            false,
        ),
        (
            "dict_dup_vector2_nan_keys",
            "1200000002000000050000000000c07f000000000200000001000000050000000000c07f000000000200000002000000",
            false,
        ),
        (
            "dict_dup_nodepath_keys",
            "12000000020000000f000000010000800000000000000000010000006100000002000000010000000f00000001000080000000000000000001000000610000000200000002000000",
            false,
        ),
        (
            "dict_dup_rid_keys",
            "120000000200000010000000020000000100000010000000020000000200000000",
            false,
        ),
        // Container keys: {{}: 1, {}: 2}, {[1]: 1, [1]: 2}, {[[1.0]]: 1, [[-0.0]]: 2}.
        (
            "dict_dup_dict_keys",
            "1200000002000000120000000000000002000000010000001200000000000000020000000200000000",
            false,
        ),
        (
            "dict_dup_array_keys",
            "12000000020000001300000001000000020000000100000002000000010000001300000001000000020000000100000002000000020000",
            false,
        ),
        (
            "dict_dup_nested_keys",
            "120000000200000013000000010000001300000001000000030000000000803f0200000001000000130000000100000013000000010000000300000000000080020000000200000000",
            false,
        ),
        (
            "array_shared_bit",
            "130000000100008002000000050000000",
            false,
        ),
        (
            "array_shared_bit_full",
            "13000000010000800200000005000000",
            false,
        ),
        (
            "array_count_exceeds",
            "1300000005000000020000000100000",
            false,
        ),
        ("array_count_huge", "13000000ffffff7f", false),
        ("bytes_no_pad_at_end", "1400000003000000010203", false),
        ("bytes_negative", "14000000ffffffff", false),
        ("bytes_too_long", "140000000900000001020304", false),
        ("ints_overflow", "1500000000000040", false),
        ("ints_short", "150000000200000001000000", false),
        ("reals_negative", "16000000ffffffff", false),
        ("strings_negative_count", "17000000ffffffff", false),
        (
            "strings_without_nul",
            "1700000001000000020000006162000000",
            false,
        ),
        ("strings_truncated", "170000000200000002000000610000", false),
        ("vector2s_overflow", "1800000000000020", false),
        ("colors_short", "1a0000000100000000000000", false),
    ]
}

struct Run {
    encoded: Vec<Value>,
    decoded: Vec<Value>,
    /// The engine's error messages, each probe's after an `@@probe <name>` line.
    stderr: String,
}

fn run_engine(engine: &Path, input: &str) -> Run {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let dir = std::env::temp_dir().join(format!("godot-diff-{}-{nanos}", std::process::id()));
    let project = dir.join("project");
    let home = dir.join("home");
    std::fs::create_dir_all(&project).unwrap();
    for sub in ["", "data", "config", "cache"] {
        std::fs::create_dir_all(home.join(sub)).unwrap();
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/godot_engine");
    for f in ["project.godot", "main.gd"] {
        std::fs::copy(src.join(f), project.join(f)).unwrap();
    }
    let in_path = dir.join("in.jsonl");
    let out_path = dir.join("out.jsonl");
    std::fs::write(&in_path, input).unwrap();
    let mut child = Command::new(engine)
        .arg("--path")
        .arg(&project)
        .arg("-s")
        .arg("main.gd")
        .env("HOME", &home)
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env("GD_IN", &in_path)
        .env("GD_OUT", &out_path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", engine.display()));
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > Duration::from_secs(180) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the engine did not finish within 180 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().unwrap();
    let text = std::fs::read_to_string(&out_path).unwrap_or_else(|e| {
        panic!(
            "engine wrote no output ({e}); stderr:\n{}\nstdout:\n{}",
            String::from_utf8_lossy(&output.stderr),
            String::from_utf8_lossy(&output.stdout)
        )
    });
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        lines.last().map(|l| l["part"].clone()),
        Some(Value::from("done")),
        "engine output incomplete; stderr:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
    let part = |p: &str| {
        lines
            .iter()
            .filter(|l| l["part"] == p)
            .cloned()
            .collect::<Vec<_>>()
    };
    Run {
        encoded: part("encode"),
        decoded: part("decode"),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

#[test]
fn differential_against_godot3_engine() {
    let Some(engine) = find_engine().or_else(|| {
        support::missing(
            "the Godot engine, godot3-server (run .ci/install-godot, or set GODOT3_BIN)",
        )
    }) else {
        return;
    };

    // Part B input: our encodings and crafted probes.
    let enc = EncodeOptions::new(Version::Godot3);
    let mut inputs: Vec<(String, Vec<u8>, bool)> = Vec::new();
    for (name, v) in our_values() {
        inputs.push((format!("ours:{name}"), encode(&v, enc).unwrap(), false));
    }
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for i in 0..300 {
        let v = rng.value(3);
        inputs.push((format!("random:{i}"), encode(&v, enc).unwrap(), false));
    }
    for (name, v) in our_objects() {
        inputs.push((
            format!("ours:{name}"),
            encode(&v, enc.full_objects(true)).unwrap(),
            true,
        ));
    }
    for (name, h, allow) in probes() {
        let h = if h.len() % 2 == 1 {
            &h[..h.len() - 1]
        } else {
            h
        };
        inputs.push((format!("probe:{name}"), unhex(h), allow));
    }
    // The deepest values the engine's 1024-level limit allows (3.2.3 itself has none): 1025
    // nested Arrays, and 1025 nested Dictionaries {nil: …}. Too deep for the script to describe
    // (GDScript's own call depth), so only the engine's re-encoding is compared.
    for (name, level, innermost) in [
        ("arrays", "1300000001000000", "1300000000000000"),
        (
            "dictionaries",
            "120000000100000000000000",
            "1200000000000000",
        ),
    ] {
        let h = format!("{}{innermost}", level.repeat(1024));
        inputs.push((format!("deep:{name}"), unhex(&h), false));
    }
    let input: String = inputs
        .iter()
        .map(|(n, b, a)| {
            format!(
                "{}\n",
                serde_json::json!({"name": n, "hex": hex(b), "allow": if *a { "1" } else { "0" }})
            )
        })
        .collect();

    let run = run_engine(&engine, &input);
    let mut failures = Vec::new();

    // Part A: the engine's encodings.
    for rec in &run.encoded {
        let name = rec["name"].as_str().unwrap();
        let expected = described(&rec["desc"]);
        let bytes = unhex(rec["hex"].as_str().unwrap());
        let full = unhex(rec["hex_full"].as_str().unwrap());
        match decode(&bytes, g3(false)) {
            Ok((got, used)) => {
                let ok = if has_object(&expected) {
                    as_ids(&normalize(&got)) == as_ids(&expected)
                } else {
                    normalize(&got) == expected
                };
                if !ok || used != bytes.len() {
                    failures.push(format!(
                        "A {name}: decoded {got:?} ({used} bytes), engine described {expected:?}"
                    ));
                }
                let again = encode(&got, enc).unwrap();
                if !same_bytes(&again, &bytes, &got) {
                    failures.push(format!(
                        "A {name}: re-encoded {} != engine {}",
                        hex(&again),
                        hex(&bytes)
                    ));
                }
                failures.extend(
                    other_paths(&got, enc, &again)
                        .into_iter()
                        .map(|f| format!("A {name}: {f}")),
                );
            }
            Err(e) => failures.push(format!(
                "A {name}: we refused the engine's bytes {}: {e}",
                hex(&bytes)
            )),
        }
        match decode(&full, g3(true)) {
            Ok((got, _)) => {
                if normalize(&got) != expected {
                    failures.push(format!(
                        "A {name} (full): decoded {got:?}, engine described {expected:?}"
                    ));
                }
                let again = encode(&got, enc.full_objects(true)).unwrap();
                if !same_bytes(&again, &full, &got) {
                    failures.push(format!(
                        "A {name} (full): re-encoded {} != engine {}",
                        hex(&again),
                        hex(&full)
                    ));
                }
                failures.extend(
                    other_paths(&got, enc.full_objects(true), &again)
                        .into_iter()
                        .map(|f| format!("A {name} (full): {f}")),
                );
            }
            Err(e) => failures.push(format!(
                "A {name} (full): we refused the engine's bytes: {e}"
            )),
        }
    }

    // Part B: the engine decodes our bytes.
    assert_eq!(
        run.decoded.len(),
        inputs.len(),
        "one engine answer per input"
    );
    let engine_errors = engine_errors(&run.stderr);
    let mut agreed_errors = 0;
    let mut through_every_path = 0;
    for ((name, bytes, allow), rec) in inputs.iter().zip(&run.decoded) {
        assert_eq!(rec["name"].as_str(), Some(name.as_str()));
        let deep = name.starts_with("deep:");
        let engine_value = if deep {
            Variant::Nil
        } else {
            described(&rec["desc"])
        };
        let engine_reencode = unhex(rec["reencode"].as_str().unwrap());
        match decode(bytes, g3(*allow)) {
            Ok((ours, _)) => {
                let ours_n = normalize(&ours);
                // Strings keep every code point the engine keeps (surrogates, above U+10FFFF).
                if !deep && ours_n != engine_value {
                    failures.push(format!(
                        "B {name}: we decoded {ours:?}, the engine {engine_value:?}"
                    ));
                }
                let again = encode(&ours, enc.full_objects(*allow)).unwrap();
                if has_object(&ours) {
                    // The engine re-encodes an EncodedObjectAsID with its own (new) instance id.
                    let back =
                        decode(&engine_reencode, g3(*allow)).map(|(v, _)| as_ids(&normalize(&v)));
                    if back != Ok(as_ids(&ours_n)) {
                        failures.push(format!(
                            "B {name}: engine re-encoding {} differs",
                            hex(&engine_reencode)
                        ));
                    }
                } else if !same_bytes(&again, &engine_reencode, &ours) {
                    failures.push(format!(
                        "B {name}: our re-encoding {} != the engine's {}",
                        hex(&again),
                        hex(&engine_reencode)
                    ));
                }
                failures.extend(
                    other_paths(&ours, enc.full_objects(*allow), &again)
                        .into_iter()
                        .map(|f| format!("B {name}: {f}")),
                );
                through_every_path += 1;
            }
            Err(e) => {
                let engine_error = engine_errors.get(name.as_str()).map_or("(none)", |e| e);
                if engine_value != Variant::Nil {
                    failures.push(format!(
                        "B {name}: we refused ({e}) but the engine decoded {engine_value:?}"
                    ));
                } else if engine_error != e.engine_error().name() {
                    failures.push(format!(
                        "B {name}: we refused with {} ({e}), the engine with {engine_error}",
                        e.engine_error().name()
                    ));
                } else {
                    agreed_errors += 1;
                }
            }
        }
    }
    eprintln!(
        "godot3 differential: {} engine encodings, {} engine decodes ({} refusals agreed, {} values also through JSON, JSON text and serde), {} mismatches",
        run.encoded.len(),
        run.decoded.len(),
        agreed_errors,
        through_every_path,
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} mismatches with the engine:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(run.encoded.len() >= 60 && agreed_errors >= 20);
}

/// `v` through typed JSON (tree and text) and serde (`to_variant`, `from_variant`, serde_json):
/// each must encode to `bytes` (what `v` itself encodes to, checked against the engine's).
fn other_paths(v: &Variant, enc: EncodeOptions, bytes: &[u8]) -> Vec<String> {
    let via_json = json::from_json(&json::to_json(v)).map_err(|e| e.to_string());
    let text = serde_json::to_string(&json::Typed(v)).unwrap();
    let via_text = json::from_json_str(&text).map_err(|e| e.to_string());
    // serde: to_variant / from_variant, then Variant's own Serialize into serde_json (read back
    // with from_json_str: serde_json::from_str stops at its recursion limit of 128 levels).
    #[cfg(feature = "serde")]
    let via_serde = to_variant(v)
        .and_then(|w| from_variant::<Variant>(&w))
        .map_err(|e| e.to_string())
        .and_then(|w| {
            let t = serde_json::to_string(&w).map_err(|e| e.to_string())?;
            json::from_json_str(&t).map_err(|e| e.to_string())
        });
    let paths = [("typed JSON", via_json), ("typed JSON text", via_text)];
    #[cfg(feature = "serde")]
    let paths = paths.into_iter().chain([("serde", via_serde)]);
    let mut failures = Vec::new();
    for (path, back) in paths {
        let back = back.map(|b| encode(&b, enc).unwrap());
        if back.as_deref() != Ok(bytes) {
            failures.push(format!("through {path}: {back:?}"));
        }
    }
    failures
}

/// The Error the engine's decoder returned for each input, by input name: the first
/// `Returned: ERR_…` (`ERR_FAIL_COND_V`) or `Returning: ERR_…` (`ERR_FAIL_V`) message after the
/// input's `@@probe <name>` marker (the innermost failure; outer levels print `Returned: err`).
fn engine_errors(stderr: &str) -> std::collections::HashMap<&str, &str> {
    let mut out = std::collections::HashMap::new();
    let mut current = None;
    for line in stderr.lines() {
        if let Some(name) = line.strip_prefix("@@probe ") {
            current = Some(name);
            continue;
        }
        let Some(name) = current else { continue };
        let code = ["Returned: ", "Returning: "]
            .iter()
            .find_map(|m| line.split_once(m).map(|(_, rest)| rest))
            .filter(|c| c.starts_with("ERR_"));
        if let Some(code) = code {
            out.entry(name).or_insert(code.trim_end_matches('.'));
        }
    }
    out
}

/// Runs `tests/godot_engine/<script>` in the engine, which writes its result to `$GD_OUT`.
fn run_script(engine: &Path, script: &str) -> String {
    run_script_env(engine, script, &[])
}

/// [`run_script`] with more environment variables.
fn run_script_env(engine: &Path, script: &str, env: &[(&str, String)]) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let dir = std::env::temp_dir().join(format!("godot-script-{}-{nanos}", std::process::id()));
    let project = dir.join("project");
    let home = dir.join("home");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/godot_engine");
    for f in ["project.godot", script] {
        std::fs::copy(src.join(f), project.join(f)).unwrap();
    }
    let out_path = dir.join("out.txt");
    let output = Command::new(engine)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .arg("--path")
        .arg(&project)
        .arg("-s")
        .arg(script)
        .env("HOME", &home)
        .env("XDG_DATA_HOME", &home)
        .env("XDG_CONFIG_HOME", &home)
        .env("XDG_CACHE_HOME", &home)
        .env("GD_OUT", &out_path)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", engine.display()));
    let text = std::fs::read_to_string(&out_path).unwrap_or_else(|e| {
        panic!(
            "engine wrote no output ({e}); stderr:\n{}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    let _ = std::fs::remove_dir_all(&dir);
    text
}

#[test]
fn godot3_class_list_is_the_engines() {
    let Some(engine) = find_engine().or_else(|| {
        support::missing(
            "the Godot engine, godot3-server (run .ci/install-godot, or set GODOT3_BIN)",
        )
    }) else {
        return;
    };
    let text = run_script(&engine, "classes.gd");
    let mut all = 0;
    for line in text.lines() {
        let (class, instantiable) = line.split_once(' ').expect("`Class 0|1` lines");
        all += 1;
        assert_eq!(
            godot3_class_check(class),
            instantiable == "1",
            "{class}: the engine says can_instance = {instantiable}"
        );
    }
    // Every class the check accepts was printed by the engine: 512 of its 628 classes.
    let accepted = text.lines().filter(|l| l.ends_with(" 1")).count();
    assert_eq!((all, accepted), (628, 512));
    assert!(!godot3_class_check("Xyz") && !godot3_class_check("node"));
}

/// The values `tcp.gd` sends, built here independently (wire order of SPEC §4.1).
fn tcp_values() -> Vec<Variant> {
    let s = Variant::string;
    let f = |x: f64| Variant::Float(x);
    vec![
        Variant::Nil,
        Variant::Bool(true),
        Variant::Bool(false),
        Variant::Int(42),
        Variant::Int(-7),
        Variant::Int(1 << 40),
        f(1.5),
        f(0.1),
        f(-0.0),
        s("héllo ✓"),
        s(""),
        Variant::Vector2(Vector2 { x: 1.5, y: -2.0 }),
        Variant::Rect2(Box::new(Rect2::from_array([1.0, 2.0, 3.0, 4.0]))),
        Variant::Vector3(Vector3::from_array([1.0, 2.0, 3.0])),
        Variant::Transform2D(Box::new(Transform2D([1.0, 0.0, 0.0, 1.0, 5.0, 6.0]))),
        Variant::Plane(Box::new(Plane::from_array([0.0, 1.0, 0.0, 2.0]))),
        Variant::Quaternion(Box::new(Quaternion::from_array([0.0, 0.0, 0.0, 1.0]))),
        Variant::Aabb(Box::new(Aabb::from_array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]))),
        // Basis(x_axis, y_axis, z_axis) takes columns; the wire is row-major.
        Variant::Basis(Box::new(Basis([
            1.0, 4.0, 7.0, 2.0, 5.0, 8.0, 3.0, 6.0, 9.0,
        ]))),
        Variant::Transform3D(Box::new(Transform3D([
            1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 7.0, 8.0, 9.0,
        ]))),
        Variant::Color(Color::from_array([1.0, 0.5, 0.25, 1.0])),
        Variant::NodePath(Box::new(NodePath::parse("/root/a:b"))),
        Variant::dictionary(vec![
            (s("a"), Variant::Int(1)),
            (
                Variant::Int(2),
                Variant::array(vec![Variant::Int(3), s("x")]),
            ),
            (
                s("nested"),
                Variant::dictionary(vec![(s("k"), Variant::Nil)]),
            ),
        ]),
        Variant::array(vec![
            Variant::Int(1),
            s("x"),
            Variant::array(vec![Variant::Nil, f(2.5)]),
        ]),
        Variant::PackedByteArray(vec![1, 2, 3]),
        Variant::PackedInt32Array(vec![1, -2, 300_000]),
        Variant::PackedFloat32Array(vec![0.5, -1.0]),
        Variant::PackedStringArray(vec!["a".into(), "bc".into()]),
        Variant::PackedVector2Array(vec![Vector2 { x: 1.0, y: 2.0 }]),
        Variant::PackedVector3Array(vec![Vector3::from_array([1.0, 2.0, 3.0])]),
        Variant::PackedColorArray(vec![Color::from_array([0.0, 0.0, 0.0, 1.0])]),
    ]
}

/// Reads one `PacketPeerStream` frame: little-endian `u32` length, then the encoding.
fn read_frame(stream: &mut std::net::TcpStream) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut len = [0u8; 4];
    stream.read_exact(&mut len)?;
    let mut frame = vec![0u8; u32::from_le_bytes(len) as usize];
    stream.read_exact(&mut frame)?;
    Ok(frame)
}

#[test]
fn tcp_round_trip_with_godot3_engine() {
    use std::io::Write;
    let Some(engine) = find_engine().or_else(|| {
        support::missing(
            "the Godot engine, godot3-server (run .ci/install-godot, or set GODOT3_BIN)",
        )
    }) else {
        return;
    };
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let expected = tcp_values();
    // The server: reads the engine's values, checks them, answers with our encodings.
    let server = std::thread::spawn(move || -> Vec<String> {
        let (mut stream, _) = listener.accept().unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        let enc = EncodeOptions::new(Version::Godot3);
        let mut problems = Vec::new();
        let mut received = Vec::new();
        for (i, want) in expected.iter().enumerate() {
            let bytes = read_frame(&mut stream).unwrap_or_else(|e| panic!("frame {i}: {e}"));
            match decode_exact(&bytes, DecodeOptions::new(Version::Godot3)) {
                Ok(got) if &got == want => {}
                Ok(got) => problems.push(format!("value {i}: engine sent {got:?}, want {want:?}")),
                Err(e) => problems.push(format!("value {i}: {e}")),
            }
            let ours = encode(want, enc).unwrap();
            if !same_bytes(&ours, &bytes, want) {
                problems.push(format!(
                    "value {i}: engine bytes {} != ours {}",
                    hex(&bytes),
                    hex(&ours)
                ));
            }
            received.push(bytes);
        }
        let mut reply = Vec::new();
        for want in &expected {
            framing::encode_framed_into(want, enc, Framing::PacketPeerStream, &mut reply).unwrap();
        }
        stream.write_all(&reply).unwrap();
        // The engine closes once it has read everything.
        let _ = read_frame(&mut stream);
        assert_eq!(received.len(), expected.len());
        problems
    });
    let out = run_script_env(&engine, "tcp.gd", &[("GD_PORT", port.to_string())]);
    let problems = server.join().unwrap();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    let lines: Vec<&str> = out.lines().collect();
    let n = tcp_values().len();
    assert_eq!(lines.last(), Some(&"done"), "engine output:\n{out}");
    let oks = lines.iter().filter(|l| l.starts_with("ok ")).count();
    assert_eq!(oks, n, "engine output:\n{out}");
    eprintln!("godot3 tcp: {n} values each way, all equal on both sides");
}
