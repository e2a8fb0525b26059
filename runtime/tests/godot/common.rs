//! Shared helpers of the Godot integration tests: the shared test data, hex.
#![allow(dead_code)]

use def_runtime::godot::*;
use serde_json::Value;

use crate::support;

/// Reads `godot/<name>` from the shared folder; `None` only when missing data may be skipped
/// (`tests/support/mod.rs`).
pub fn read_shared(name: &str) -> Option<String> {
    let path = support::shared(&format!("godot/{name}"))?;
    Some(std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

pub fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s.split_whitespace().collect::<String>()).expect("valid hex in test data")
}

pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

pub fn f32_bits(h: &Value) -> f32 {
    let b = unhex(h.as_str().unwrap());
    f32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

/// Bit-exact widening, as the engine's single-precision math types hold `f32`.
pub fn real(h: &Value) -> f64 {
    let f = f32_bits(h);
    if f.is_nan() {
        let b = f.to_bits();
        f64::from_bits(
            (u64::from(b >> 31) << 63) | 0x7FF0_0000_0000_0000 | (u64::from(b & 0x7F_FFFF) << 29),
        )
    } else {
        f64::from(f)
    }
}

fn reals<const N: usize>(v: &Value) -> [f64; N] {
    let a = v["f32_le"].as_array().unwrap();
    assert_eq!(a.len(), N);
    std::array::from_fn(|i| real(&a[i]))
}

fn utf8(v: &Value) -> String {
    String::from_utf8_lossy(&unhex(v["utf8"].as_str().unwrap())).into_owned()
}

/// The string the engine holds, from its own `to_utf8()` bytes: UTF-8 generalized to every
/// code point up to 0x7FFF_FFFF (surrogates, 5- and 6-byte forms), read here independently of
/// the crate's decoder.
fn gstring(v: &Value) -> GString {
    let b = unhex(v["utf8"].as_str().unwrap());
    let mut points = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let len = [1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2, 2, 3, 4][usize::from(b[i] >> 4)];
        let len = match (len, b[i]) {
            (4, 0xF8..=0xFB) => 5,
            (4, 0xFC..=0xFD) => 6,
            (l, _) => l,
        };
        assert!(
            len > 0 && i + len <= b.len(),
            "engine string bytes {b:02x?}"
        );
        let mut cp = u32::from(b[i]) & (0x7F >> len.max(1));
        if len == 1 {
            cp = u32::from(b[i]);
        }
        for &c in &b[i + 1..i + len] {
            cp = (cp << 6) | u32::from(c & 0x3F);
        }
        points.push(cp);
        i += len;
    }
    GString::from_code_points(points).unwrap()
}

/// The value a vector describes (Godot 3 typed description). Null objects are NIL on the wire,
/// so they are expected as [`Variant::Nil`].
pub fn described(d: &Value) -> Variant {
    match d["t"].as_str().unwrap() {
        "Nil" => Variant::Nil,
        "bool" => Variant::Bool(d["v"].as_bool().unwrap()),
        "int" => Variant::Int(match &d["v"] {
            Value::String(s) => s.parse().unwrap(),
            n => n.as_i64().unwrap(),
        }),
        "float" => {
            let b = unhex(d["f64_le"].as_str().unwrap());
            Variant::Float(f64::from_le_bytes(b.try_into().unwrap()))
        }
        "String" => Variant::String(gstring(d)),
        "Vector2" => Variant::Vector2(Vector2::from_array(reals(d))),
        "Vector3" => Variant::Vector3(Vector3::from_array(reals(d))),
        "Rect2" => Variant::Rect2(Box::new(Rect2::from_array(reals(d)))),
        "Transform2D" => Variant::Transform2D(Box::new(Transform2D(reals(d)))),
        "Basis" => Variant::Basis(Box::new(Basis(reals(d)))),
        "Transform" => Variant::Transform3D(Box::new(Transform3D(reals(d)))),
        "Color" => {
            let a = d["f32_le"].as_array().unwrap();
            Variant::Color(Color::from_array(std::array::from_fn(|i| f32_bits(&a[i]))))
        }
        "PoolRealArray" => Variant::PackedFloat32Array(
            d["f32_le"]
                .as_array()
                .unwrap()
                .iter()
                .map(f32_bits)
                .collect(),
        ),
        "PoolVector3Array" => Variant::PackedVector3Array(
            d["f32_le"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| Vector3::from_array(std::array::from_fn(|i| real(&p[i]))))
                .collect(),
        ),
        "ObjectId" => {
            let id: u64 = d["id"].as_str().unwrap().parse().unwrap();
            Variant::Object(if id == 0 {
                Object::Null
            } else {
                Object::Id(id)
            })
        }
        "Plane" => Variant::Plane(Box::new(Plane::from_array(reals(d)))),
        "Quat" => Variant::Quaternion(Box::new(Quaternion::from_array(reals(d)))),
        "AABB" => Variant::Aabb(Box::new(Aabb::from_array(reals(d)))),
        "NodePath" => {
            let list = |plain: &str, hexed: &str| -> Vec<GString> {
                if let Some(a) = d[hexed].as_array() {
                    a.iter()
                        .map(|s| gstring(&serde_json::json!({ "utf8": s })))
                        .collect()
                } else {
                    d[plain]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|s| s.as_str().unwrap().into())
                        .collect()
                }
            };
            Variant::NodePath(Box::new(NodePath {
                names: list("names", "names_utf8"),
                subnames: list("subnames", "subnames_utf8"),
                absolute: d["absolute"].as_bool().unwrap(),
            }))
        }
        "RID" => Variant::Rid(d["id"].as_u64().unwrap()),
        "Object" if d["null"].as_bool() == Some(true) => Variant::Nil,
        "Object" => Variant::Object(Object::Full(Box::new(FullObject {
            class: d["class"].as_str().unwrap().to_owned(),
            properties: d["stored_props"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| (p[0].as_str().unwrap().to_owned(), described(&p[1])))
                .collect(),
        }))),
        "Dictionary" => Variant::dictionary(
            d["entries"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| (described(&e[0]), described(&e[1])))
                .collect(),
        ),
        "Array" => {
            if let Some(n) = d["nested_empty_arrays"].as_u64() {
                let mut v = Variant::array(vec![]);
                for _ in 1..n {
                    v = Variant::array(vec![v]);
                }
                v
            } else {
                Variant::array(
                    d["items"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(described)
                        .collect(),
                )
            }
        }
        "PoolByteArray" => Variant::PackedByteArray(unhex(d["hex"].as_str().unwrap())),
        "PoolIntArray" => Variant::PackedInt32Array(
            d["v"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_i64().or_else(|| x.as_str()?.parse().ok()).unwrap() as i32)
                .collect(),
        ),
        "PoolStringArray" => {
            Variant::PackedStringArray(d["items"].as_array().unwrap().iter().map(gstring).collect())
        }
        "PoolVector2Array" => Variant::PackedVector2Array(
            d["f32_le"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| Vector2::from_array(std::array::from_fn(|i| real(&p[i]))))
                .collect(),
        ),
        "PoolColorArray" => Variant::PackedColorArray(
            d["f32_le"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| Color::from_array(std::array::from_fn(|i| f32_bits(&p[i]))))
                .collect(),
        ),
        other => panic!("test does not know description type {other}"),
    }
}

/// Replaces full objects by an as-id placeholder, and every id by 0 (ids are run-dependent).
pub fn as_ids(v: &Variant) -> Variant {
    match v {
        Variant::Object(Object::Full(_)) | Variant::Object(Object::Id(_)) => {
            Variant::Object(Object::Id(0))
        }
        Variant::Array(a) => Variant::array(a.items.iter().map(as_ids).collect()),
        Variant::Dictionary(d) => Variant::dictionary(
            d.entries
                .iter()
                .map(|(k, v)| (as_ids(k), as_ids(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

pub fn has_object(v: &Variant) -> bool {
    match v {
        Variant::Object(Object::Full(_)) | Variant::Object(Object::Id(_)) => true,
        Variant::Array(a) => a.items.iter().any(has_object),
        Variant::Dictionary(d) => d
            .entries
            .iter()
            .any(|(k, v)| has_object(k) || has_object(v)),
        _ => false,
    }
}
