//! A lossless typed JSON form of [`Variant`], and conversions to and from [`serde_json::Value`].
//!
//! Every value is an object tagged with its type (Godot 4 names; Godot 3 aliases such as
//! `"Quat"`, `"Transform"`, `"PoolByteArray"`, `"real"` are accepted on input):
//!
//! ```json
//! {"type": "Nil"}                 {"type": "Callable"}
//! {"type": "bool", "value": true} {"type": "int", "value": -5}
//! {"type": "float", "value": "0.1"}
//! {"type": "String", "value": "héllo"}          {"type": "StringName", "value": "x"}
//! {"type": "String", "value": {"code_points": [55296, 65]}}
//! {"type": "Vector2", "value": ["1.0", "2.5"]}  {"type": "Vector2i", "value": [1, 2]}
//! {"type": "Color", "value": ["1.0", "0.5", "0.0", "1.0"]}
//! {"type": "NodePath", "value": {"names": ["root", "a"], "subnames": ["b"], "absolute": true}}
//! {"type": "RID", "value": 7}
//! {"type": "Object", "value": null}   {"type": "Object", "value": {"id": 1289}}
//! {"type": "Object", "value": {"class": "Reference", "properties": [["script", {"type": "Nil"}]]}}
//! {"type": "Signal", "value": {"name": "pressed", "object": 1289}}
//! {"type": "Array", "value": [ … ], "element_type": {"builtin": "int"}}
//! {"type": "Dictionary", "value": [[key, value], …], "key_type": {"class": "Node"}, "value_type": {"script": "res://a.gd"}}
//! {"type": "PackedByteArray", "value": "01ff"}
//! {"type": "PackedInt32Array", "value": [1, -2]}   {"type": "PackedStringArray", "value": ["a"]}
//! {"type": "PackedVector2Array", "value": [["1.0", "2.0"]]}
//! ```
//!
//! * **Floats** are JSON strings so that no JSON library can round them: the shortest decimal
//!   that parses back to the same bits (`"0.1"`, `"1e20"`, `"-0.0"`, `"inf"`, `"-inf"`, `"NaN"`
//!   for the canonical quiet NaN), or the raw bit pattern `"0x3fb999999999999a"` for any other
//!   NaN. Input also accepts the bit form for any value and plain JSON numbers. Components of
//!   `Color` and `PackedFloat32Array` are `f32` (8 hex digits in the bit form); all other
//!   components (`Vector2`, `Basis`, …) are `f64` (see [`Real`]).
//! * **Strings** that are not Unicode (Godot 3 accepts surrogates and code points up to
//!   `0x7FFF_FFFF`, see [`GString`]) are written as their code points, everywhere a string can
//!   be (String, StringName, PackedStringArray elements, NodePath names and subnames).
//! * Math types are flat component lists in **wire order** (Basis row-major, Projection
//!   column-major, Transform2D `x, y, origin`, Rect2/AABB position then size).
//! * Ints may also be given as decimal strings; `NodePath` also as its text form (`"/root/a:b"`).
//! * `element_type`, `key_type`, `value_type` are present only for typed containers.
//! * Every depth the decoder accepts (the engine's 1024 levels) goes through [`to_json`],
//!   [`Typed`], [`from_json`] and [`from_json_str`] on any thread: each nesting level runs
//!   through a check that grows the stack on the heap when little is left. [`from_json`] refuses
//!   values nested deeper than that, [`from_json_str`] also refuses JSON text nested deeper than
//!   a full object at that depth needs, before parsing it.

use serde_json::{Map, Value, json};

use super::decode::MAX_DEPTH;
use super::value::{deeper, *};
use crate::clip::{self, Clip};

/// A JSON document that is not a valid typed Variant, with the path to the offending part.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("at {}: {}", Clip(path, clip::PATH), Clip(message, clip::TEXT))]
pub struct JsonError {
    /// JSON-pointer-like location (`/value/3/1`).
    pub path: String,
    /// What is wrong.
    pub message: String,
}

/// Converts a value to its typed JSON form. The tree takes up to about 145 times the value's
/// wire size (a `serde_json` object for every 4-byte Nil); to write the text, serialize
/// [`Typed`] instead, which holds one scalar value at a time. Building the tree works at any
/// depth on any thread; dropping it is serde_json's recursive drop, which for the deepest value
/// the engine allows fits a default 2 MiB thread in debug builds (`tests/godot/depth.rs`).
pub fn to_json(v: &Variant) -> Value {
    deeper(|| to_json_level(v))
}

/// One level of [`to_json`]; containers recurse through [`to_json`] (and so through [`deeper`]).
fn to_json_level(v: &Variant) -> Value {
    let ty = v.variant_type().name();
    let value = match v {
        Variant::Nil | Variant::Callable => return json!({ "type": ty }),
        Variant::Bool(b) => json!(b),
        Variant::Int(i) => json!(i),
        Variant::Float(f) => f64_json(*f),
        Variant::String(s) | Variant::StringName(s) => gstring_json(s),
        Variant::Vector2(x) => reals(&x.to_array()),
        Variant::Vector3(x) => reals(&x.to_array()),
        Variant::Vector4(x) => reals(&x.to_array()),
        Variant::Rect2(x) => reals(&x.to_array()),
        Variant::Plane(x) => reals(&x.to_array()),
        Variant::Quaternion(x) => reals(&x.to_array()),
        Variant::Aabb(x) => reals(&x.to_array()),
        Variant::Transform2D(x) => reals(&x.0),
        Variant::Basis(x) => reals(&x.0),
        Variant::Transform3D(x) => reals(&x.0),
        Variant::Projection(x) => reals(&x.0),
        Variant::Vector2i(x) => json!([x.x, x.y]),
        Variant::Vector3i(x) => json!([x.x, x.y, x.z]),
        Variant::Vector4i(x) => json!([x.x, x.y, x.z, x.w]),
        Variant::Rect2i(x) => json!([x.x, x.y, x.w, x.h]),
        Variant::Color(c) => Value::Array(c.to_array().iter().map(|f| f32_json(*f)).collect()),
        Variant::NodePath(p) => {
            let list = |l: &[GString]| Value::Array(l.iter().map(gstring_json).collect());
            json!({ "names": list(&p.names), "subnames": list(&p.subnames), "absolute": p.absolute })
        }
        Variant::Rid(id) => json!(id),
        Variant::Object(Object::Null) => Value::Null,
        Variant::Object(Object::Id(id)) => json!({ "id": id }),
        // Child trees are moved in, never passed to `json!` (which would copy them through serde).
        Variant::Object(Object::Full(o)) => {
            let properties = o
                .properties
                .iter()
                .map(|(n, v)| Value::Array(vec![json!(n), to_json(v)]))
                .collect();
            let mut m = Map::new();
            m.insert("class".into(), json!(o.class));
            m.insert("properties".into(), Value::Array(properties));
            Value::Object(m)
        }
        Variant::Signal(s) => json!({ "name": s.name, "object": s.object }),
        Variant::Array(a) => {
            let mut m = Map::new();
            m.insert("type".into(), json!(ty));
            m.insert(
                "value".into(),
                Value::Array(a.items.iter().map(to_json).collect()),
            );
            if let Some(t) = container_json(&a.element_type) {
                m.insert("element_type".into(), t);
            }
            return Value::Object(m);
        }
        Variant::Dictionary(d) => {
            let mut m = Map::new();
            m.insert("type".into(), json!(ty));
            m.insert(
                "value".into(),
                Value::Array(
                    d.entries
                        .iter()
                        .map(|(k, v)| Value::Array(vec![to_json(k), to_json(v)]))
                        .collect(),
                ),
            );
            if let Some(t) = container_json(&d.key_type) {
                m.insert("key_type".into(), t);
            }
            if let Some(t) = container_json(&d.value_type) {
                m.insert("value_type".into(), t);
            }
            return Value::Object(m);
        }
        Variant::PackedByteArray(b) => json!(crate::hex::encode(b)),
        Variant::PackedInt32Array(a) => json!(a),
        Variant::PackedInt64Array(a) => json!(a),
        Variant::PackedFloat32Array(a) => Value::Array(a.iter().map(|f| f32_json(*f)).collect()),
        Variant::PackedFloat64Array(a) => Value::Array(a.iter().map(|f| f64_json(*f)).collect()),
        Variant::PackedStringArray(a) => Value::Array(a.iter().map(gstring_json).collect()),
        Variant::PackedVector2Array(a) => {
            Value::Array(a.iter().map(|x| reals(&x.to_array())).collect())
        }
        Variant::PackedVector3Array(a) => {
            Value::Array(a.iter().map(|x| reals(&x.to_array())).collect())
        }
        Variant::PackedVector4Array(a) => {
            Value::Array(a.iter().map(|x| reals(&x.to_array())).collect())
        }
        Variant::PackedColorArray(a) => Value::Array(
            a.iter()
                .map(|c| Value::Array(c.to_array().iter().map(|f| f32_json(*f)).collect()))
                .collect(),
        ),
    };
    let mut m = Map::new();
    m.insert("type".into(), json!(ty));
    m.insert("value".into(), value);
    Value::Object(m)
}

/// The typed JSON form of a value, written as it is serialized: `serde_json::to_writer(w,
/// &Typed(&v))` gives the same text as `to_json(&v)` without building the JSON tree.
///
/// Memory: [`to_json`] builds a `serde_json::Value` per value, up to about 145 times the size of
/// the wire bytes (a `{"type": "Nil"}` object for every 4-byte Nil); this writes containers and
/// packed arrays element by element, so that beside the [`Variant`] (at most 40 times its wire
/// size, see docs/reliability.md) it holds only the JSON of one scalar value at a time and the
/// serializer's stack, one frame per nesting level (at most [`super::MAX_DEPTH`]). The text
/// itself is at most about 8 bytes per wire byte (`{"type":"Nil"}` for 4 bytes).
#[derive(Debug, Clone, Copy)]
pub struct Typed<'v>(pub &'v Variant);

impl serde::Serialize for Typed<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // Every nesting level passes here: the stack grows on demand (see `deeper`).
        deeper(move || self.serialize_level(s))
    }
}

impl Typed<'_> {
    fn serialize_level<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Serialize, SerializeMap};
        let v = self.0;
        let ty = v.variant_type().name();
        // Containers and packed arrays: their elements one at a time. Other values are small.
        let typed = |t: &ContainerType| usize::from(*t != ContainerType::Untyped);
        let count = match v {
            Variant::Array(a) => 2 + typed(&a.element_type),
            Variant::Dictionary(d) => 2 + typed(&d.key_type) + typed(&d.value_type),
            Variant::Object(Object::Full(_))
            | Variant::PackedInt32Array(_)
            | Variant::PackedInt64Array(_)
            | Variant::PackedFloat32Array(_)
            | Variant::PackedFloat64Array(_)
            | Variant::PackedStringArray(_)
            | Variant::PackedVector2Array(_)
            | Variant::PackedVector3Array(_)
            | Variant::PackedVector4Array(_)
            | Variant::PackedColorArray(_) => 2,
            _ => return to_json(v).serialize(s),
        };
        let mut m = s.serialize_map(Some(count))?;
        m.serialize_entry("type", ty)?;
        match v {
            Variant::Array(a) => {
                m.serialize_entry("value", &Seq(|| a.items.iter().map(Typed)))?;
                if let Some(t) = container_json(&a.element_type) {
                    m.serialize_entry("element_type", &t)?;
                }
            }
            Variant::Dictionary(d) => {
                let pairs = || d.entries.iter().map(|(k, v)| (Typed(k), Typed(v)));
                m.serialize_entry("value", &Seq(pairs))?;
                if let Some(t) = container_json(&d.key_type) {
                    m.serialize_entry("key_type", &t)?;
                }
                if let Some(t) = container_json(&d.value_type) {
                    m.serialize_entry("value_type", &t)?;
                }
            }
            Variant::Object(Object::Full(o)) => {
                m.serialize_entry("value", &FullObjectJson(o))?;
            }
            Variant::PackedInt32Array(a) => m.serialize_entry("value", a)?,
            Variant::PackedInt64Array(a) => m.serialize_entry("value", a)?,
            Variant::PackedStringArray(a) => {
                m.serialize_entry("value", &Seq(|| a.iter().map(gstring_json)))?
            }
            Variant::PackedFloat32Array(a) => {
                m.serialize_entry("value", &Seq(|| a.iter().map(|f| f32_json(*f))))?
            }
            Variant::PackedFloat64Array(a) => {
                m.serialize_entry("value", &Seq(|| a.iter().map(|f| f64_json(*f))))?
            }
            Variant::PackedVector2Array(a) => {
                m.serialize_entry("value", &Seq(|| a.iter().map(|x| reals(&x.to_array()))))?
            }
            Variant::PackedVector3Array(a) => {
                m.serialize_entry("value", &Seq(|| a.iter().map(|x| reals(&x.to_array()))))?
            }
            Variant::PackedVector4Array(a) => {
                m.serialize_entry("value", &Seq(|| a.iter().map(|x| reals(&x.to_array()))))?
            }
            Variant::PackedColorArray(a) => m.serialize_entry(
                "value",
                &Seq(|| {
                    a.iter()
                        .map(|c| Value::Array(c.to_array().iter().map(|f| f32_json(*f)).collect()))
                }),
            )?,
            _ => unreachable!("only the types counted above"),
        }
        m.end()
    }
}

/// A JSON array made from an iterator, element by element.
struct Seq<F>(F);

impl<F, I> serde::Serialize for Seq<F>
where
    F: Fn() -> I,
    I: Iterator,
    I::Item: serde::Serialize,
{
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq((self.0)())
    }
}

/// `{"class": …, "properties": [[name, value], …]}`, as [`to_json`] writes a full object.
struct FullObjectJson<'v>(&'v FullObject);

impl serde::Serialize for FullObjectJson<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("class", &self.0.class)?;
        let props = || self.0.properties.iter().map(|(n, v)| (n, Typed(v)));
        m.serialize_entry("properties", &Seq(props))?;
        m.end()
    }
}

/// A string's JSON: the text, or `{"code_points": [...]}` when it is not Unicode.
pub(crate) fn gstring_json(s: &GString) -> Value {
    match s.as_str() {
        Some(t) => Value::String(t.to_owned()),
        None => json!({ "code_points": s.code_points().collect::<Vec<_>>() }),
    }
}

fn container_json(t: &ContainerType) -> Option<Value> {
    match t {
        ContainerType::Untyped => None,
        ContainerType::Builtin(ty) => Some(json!({ "builtin": ty.name() })),
        ContainerType::Class(c) => Some(json!({ "class": c })),
        ContainerType::Script(s) => Some(json!({ "script": s })),
    }
}

fn reals(a: &[Real]) -> Value {
    Value::Array(a.iter().map(|f| f64_json(*f)).collect())
}

/// The JSON form of an `f64` (see the module docs).
pub(crate) fn f64_json(f: f64) -> Value {
    if f.is_nan() && f.to_bits() != f64::NAN.to_bits() {
        json!(format!("0x{:016x}", f.to_bits()))
    } else {
        json!(format!("{f:?}"))
    }
}

/// The JSON form of an `f32` (see the module docs).
pub(crate) fn f32_json(f: f32) -> Value {
    if f.is_nan() && f.to_bits() != f32::NAN.to_bits() {
        json!(format!("0x{:08x}", f.to_bits()))
    } else {
        json!(format!("{f:?}"))
    }
}

struct Ctx {
    path: Vec<String>,
    /// Variant nesting of the value being read (0 at the top), bounded by [`MAX_DEPTH`].
    depth: usize,
}

type R<T> = Result<T, JsonError>;

impl Ctx {
    fn err<T>(&self, message: impl Into<String>) -> R<T> {
        Err(JsonError {
            path: format!("/{}", self.path.join("/")),
            message: message.into(),
        })
    }

    fn at<T>(&mut self, seg: impl ToString, f: impl FnOnce(&mut Ctx) -> R<T>) -> R<T> {
        self.path.push(seg.to_string());
        let r = f(self);
        self.path.pop();
        r
    }

    fn array<'v>(&self, v: &'v Value, len: Option<usize>) -> R<&'v Vec<Value>> {
        match v.as_array() {
            Some(a) if len.is_none_or(|n| a.len() == n) => Ok(a),
            Some(a) => self.err(format!(
                "expected {} elements, found {}",
                len.unwrap_or(0),
                a.len()
            )),
            None => self.err("expected an array"),
        }
    }

    fn str<'v>(&self, v: &'v Value) -> R<&'v str> {
        v.as_str().map_or_else(|| self.err("expected a string"), Ok)
    }

    /// A string: JSON text, or `{"code_points": [...]}` for one that is not Unicode.
    fn gstring(&mut self, v: &Value) -> R<GString> {
        if let Some(s) = v.as_str() {
            return Ok(GString::from(s));
        }
        let Some(points) = v.as_object().and_then(|m| m.get("code_points")) else {
            return self.err("expected a string or {\"code_points\": [...]}");
        };
        self.at("code_points", |c| {
            let points = c.list(points, |c, x| c.int_as::<u32>(x))?;
            GString::from_code_points(points).or_else(|cp| {
                c.err(format!(
                    "code point {cp:#x} is above {:#x}, the largest a Godot string holds",
                    super::gstring::MAX_CODE_POINT
                ))
            })
        })
    }

    fn int(&self, v: &Value) -> R<i128> {
        if let Some(i) = v.as_i64() {
            return Ok(i.into());
        }
        if let Some(u) = v.as_u64() {
            return Ok(u.into());
        }
        if let Some(s) = v.as_str()
            && let Ok(i) = s.trim().parse::<i128>()
        {
            return Ok(i);
        }
        // arbitrary_precision numbers that are integral
        if let Value::Number(n) = v
            && let Ok(i) = n.to_string().parse::<i128>()
        {
            return Ok(i);
        }
        self.err(format!("expected an integer, found {v}"))
    }

    fn int_as<T: TryFrom<i128>>(&self, v: &Value) -> R<T> {
        let i = self.int(v)?;
        T::try_from(i).map_or_else(|_| self.err(format!("integer {i} out of range")), Ok)
    }

    fn f64(&self, v: &Value) -> R<f64> {
        match v {
            Value::Number(n) => match n.to_string().parse::<f64>() {
                Ok(f) => Ok(f),
                Err(_) => n.as_f64().map_or_else(|| self.err("bad number"), Ok),
            },
            Value::String(s) => {
                let t = s.trim();
                if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                    if h.len() == 16
                        && let Ok(bits) = u64::from_str_radix(h, 16)
                    {
                        return Ok(f64::from_bits(bits));
                    }
                    return self.err(format!(
                        "expected 16 hex digits of an f64 bit pattern, found {t:?}"
                    ));
                }
                parse_float_text(t).map_or_else(|| self.err(format!("not a float: {t:?}")), Ok)
            }
            _ => self.err(format!("expected a float (string or number), found {v}")),
        }
    }

    fn f32(&self, v: &Value) -> R<f32> {
        if let Some(t) = v.as_str().map(str::trim) {
            if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                if h.len() == 8
                    && let Ok(bits) = u32::from_str_radix(h, 16)
                {
                    return Ok(f32::from_bits(bits));
                }
                return self.err(format!(
                    "expected 8 hex digits of an f32 bit pattern, found {t:?}"
                ));
            }
            return t
                .parse::<f32>()
                .ok()
                .or_else(|| parse_float_text(t).map(|f| f as f32))
                .map_or_else(|| self.err(format!("not a float: {t:?}")), Ok);
        }
        if let Value::Number(n) = v
            && let Ok(f) = n.to_string().parse::<f32>()
        {
            return Ok(f);
        }
        self.err(format!("expected a float (string or number), found {v}"))
    }

    fn reals<const N: usize>(&mut self, v: &Value) -> R<[Real; N]> {
        let a = self.array(v, Some(N))?;
        let mut out = [0.0; N];
        for (i, (o, x)) in out.iter_mut().zip(a).enumerate() {
            *o = self.at(i, |c| c.f64(x))?;
        }
        Ok(out)
    }

    fn f32s<const N: usize>(&mut self, v: &Value) -> R<[f32; N]> {
        let a = self.array(v, Some(N))?;
        let mut out = [0.0; N];
        for (i, (o, x)) in out.iter_mut().zip(a).enumerate() {
            *o = self.at(i, |c| c.f32(x))?;
        }
        Ok(out)
    }

    fn i32s<const N: usize>(&mut self, v: &Value) -> R<[i32; N]> {
        let a = self.array(v, Some(N))?;
        let mut out = [0; N];
        for (i, (o, x)) in out.iter_mut().zip(a).enumerate() {
            *o = self.at(i, |c| c.int_as(x))?;
        }
        Ok(out)
    }

    fn list<T>(&mut self, v: &Value, mut f: impl FnMut(&mut Ctx, &Value) -> R<T>) -> R<Vec<T>> {
        let a = self.array(v, None)?;
        let mut out = Vec::with_capacity(a.len());
        for (i, x) in a.iter().enumerate() {
            out.push(self.at(i, |c| f(c, x))?);
        }
        Ok(out)
    }

    fn container(&mut self, obj: &Map<String, Value>, key: &str) -> R<ContainerType> {
        let Some(t) = obj.get(key) else {
            return Ok(ContainerType::Untyped);
        };
        self.at(key, |c| {
            if t.is_null() {
                return Ok(ContainerType::Untyped);
            }
            let Some(m) = t.as_object() else {
                return c.err("expected {\"builtin\": …}, {\"class\": …} or {\"script\": …}");
            };
            if let Some(b) = m.get("builtin") {
                let name = c.str(b)?;
                return VariantType::from_name(name)
                    .map(ContainerType::Builtin)
                    .map_or_else(|| c.err(format!("unknown type {name:?}")), Ok);
            }
            if let Some(s) = m.get("class") {
                return Ok(ContainerType::Class(c.str(s)?.to_owned()));
            }
            if let Some(s) = m.get("script") {
                return Ok(ContainerType::Script(c.str(s)?.to_owned()));
            }
            c.err("expected {\"builtin\": …}, {\"class\": …} or {\"script\": …}")
        })
    }

    /// One Variant, one level deeper than its container.
    fn variant(&mut self, v: &Value) -> R<Variant> {
        if self.depth > MAX_DEPTH {
            return self.err(format!(
                "nested deeper than {MAX_DEPTH} levels (the engine's limit)"
            ));
        }
        self.depth += 1;
        let r = deeper(|| self.variant_level(v));
        self.depth -= 1;
        r
    }

    fn variant_level(&mut self, v: &Value) -> R<Variant> {
        let Some(obj) = v.as_object() else {
            return self.err("expected an object {\"type\": …, \"value\": …}");
        };
        let Some(name) = obj.get("type").and_then(Value::as_str) else {
            return self.err("missing \"type\"");
        };
        let Some(ty) = VariantType::from_name(name) else {
            return self.err(format!("unknown type {name:?}"));
        };
        let null = Value::Null;
        let val = obj.get("value").unwrap_or(&null);
        self.at("value", |c| c.payload(ty, val, obj))
    }

    fn payload(&mut self, ty: VariantType, v: &Value, obj: &Map<String, Value>) -> R<Variant> {
        use VariantType as T;
        Ok(match ty {
            T::Nil => Variant::Nil,
            T::Callable => Variant::Callable,
            T::Bool => Variant::Bool(
                v.as_bool()
                    .map_or_else(|| self.err("expected true or false"), Ok)?,
            ),
            T::Int => Variant::Int(self.int_as(v)?),
            T::Float => Variant::Float(self.f64(v)?),
            T::String => Variant::String(self.gstring(v)?),
            T::StringName => Variant::StringName(self.gstring(v)?),
            T::Vector2 => Variant::Vector2(Vector2::from_array(self.reals(v)?)),
            T::Vector3 => Variant::Vector3(Vector3::from_array(self.reals(v)?)),
            T::Vector4 => Variant::Vector4(Box::new(Vector4::from_array(self.reals(v)?))),
            T::Rect2 => Variant::Rect2(Box::new(Rect2::from_array(self.reals(v)?))),
            T::Plane => Variant::Plane(Box::new(Plane::from_array(self.reals(v)?))),
            T::Quaternion => Variant::Quaternion(Box::new(Quaternion::from_array(self.reals(v)?))),
            T::Aabb => Variant::Aabb(Box::new(Aabb::from_array(self.reals(v)?))),
            T::Transform2D => Variant::Transform2D(Box::new(Transform2D(self.reals(v)?))),
            T::Basis => Variant::Basis(Box::new(Basis(self.reals(v)?))),
            T::Transform3D => Variant::Transform3D(Box::new(Transform3D(self.reals(v)?))),
            T::Projection => Variant::Projection(Box::new(Projection(self.reals(v)?))),
            T::Vector2i => {
                let [x, y] = self.i32s(v)?;
                Variant::Vector2i(Vector2i { x, y })
            }
            T::Vector3i => {
                let [x, y, z] = self.i32s(v)?;
                Variant::Vector3i(Vector3i { x, y, z })
            }
            T::Vector4i => {
                let [x, y, z, w] = self.i32s(v)?;
                Variant::Vector4i(Vector4i { x, y, z, w })
            }
            T::Rect2i => {
                let [x, y, w, h] = self.i32s(v)?;
                Variant::Rect2i(Rect2i { x, y, w, h })
            }
            T::Color => Variant::Color(Color::from_array(self.f32s(v)?)),
            T::NodePath => Variant::NodePath(Box::new(self.node_path(v)?)),
            T::Rid => Variant::Rid(self.int_as(v)?),
            T::Object => Variant::Object(self.object(v)?),
            T::Signal => {
                let Some(m) = v.as_object() else {
                    return self.err("expected {\"name\": …, \"object\": …}");
                };
                let name = self.at("name", |c| {
                    c.str(m.get("name").unwrap_or(&Value::Null))
                        .map(str::to_owned)
                })?;
                let object =
                    self.at("object", |c| c.int_as(m.get("object").unwrap_or(&json!(0))))?;
                Variant::Signal(Box::new(Signal { name, object }))
            }
            T::Array => {
                let items = self.list(v, |c, x| c.variant(x))?;
                self.path.pop();
                let element_type = self.container(obj, "element_type");
                self.path.push("value".into());
                Variant::Array(Box::new(Array {
                    element_type: element_type?,
                    items,
                }))
            }
            T::Dictionary => {
                let entries = self.list(v, |c, x| {
                    let pair = c.array(x, Some(2))?;
                    let k = c.at(0, |c| c.variant(&pair[0]))?;
                    let val = c.at(1, |c| c.variant(&pair[1]))?;
                    Ok((k, val))
                })?;
                self.path.pop();
                let key_type = self.container(obj, "key_type");
                let value_type = self.container(obj, "value_type");
                self.path.push("value".into());
                Variant::Dictionary(Box::new(Dictionary {
                    key_type: key_type?,
                    value_type: value_type?,
                    entries,
                }))
            }
            T::PackedByteArray => match v {
                Value::String(s) => {
                    Variant::PackedByteArray(crate::hex::decode(s).or_else(|e| self.err(e))?)
                }
                _ => Variant::PackedByteArray(self.list(v, |c, x| c.int_as(x))?),
            },
            T::PackedInt32Array => Variant::PackedInt32Array(self.list(v, |c, x| c.int_as(x))?),
            T::PackedInt64Array => Variant::PackedInt64Array(self.list(v, |c, x| c.int_as(x))?),
            T::PackedFloat32Array => Variant::PackedFloat32Array(self.list(v, |c, x| c.f32(x))?),
            T::PackedFloat64Array => Variant::PackedFloat64Array(self.list(v, |c, x| c.f64(x))?),
            T::PackedStringArray => Variant::PackedStringArray(self.list(v, |c, x| c.gstring(x))?),
            T::PackedVector2Array => Variant::PackedVector2Array(
                self.list(v, |c, x| c.reals(x).map(Vector2::from_array))?,
            ),
            T::PackedVector3Array => Variant::PackedVector3Array(
                self.list(v, |c, x| c.reals(x).map(Vector3::from_array))?,
            ),
            T::PackedVector4Array => Variant::PackedVector4Array(
                self.list(v, |c, x| c.reals(x).map(Vector4::from_array))?,
            ),
            T::PackedColorArray => {
                Variant::PackedColorArray(self.list(v, |c, x| c.f32s(x).map(Color::from_array))?)
            }
        })
    }

    fn node_path(&mut self, v: &Value) -> R<NodePath> {
        if let Some(s) = v.as_str() {
            return Ok(NodePath::parse(s));
        }
        let Some(m) = v.as_object() else {
            return self
                .err("expected {\"names\": …, \"subnames\": …, \"absolute\": …} or a path string");
        };
        let empty = json!([]);
        let names = self.at("names", |c| {
            c.list(m.get("names").unwrap_or(&empty), |c, x| c.gstring(x))
        })?;
        let subnames = self.at("subnames", |c| {
            c.list(m.get("subnames").unwrap_or(&empty), |c, x| c.gstring(x))
        })?;
        let absolute = m.get("absolute").and_then(Value::as_bool).unwrap_or(false);
        Ok(NodePath {
            names,
            subnames,
            absolute,
        })
    }

    fn object(&mut self, v: &Value) -> R<Object> {
        if v.is_null() {
            return Ok(Object::Null);
        }
        let Some(m) = v.as_object() else {
            return self.err("expected null, {\"id\": …} or {\"class\": …, \"properties\": …}");
        };
        if let Some(id) = m.get("id") {
            let id: u64 = self.at("id", |c| c.int_as(id))?;
            return Ok(if id == 0 {
                Object::Null
            } else {
                Object::Id(id)
            });
        }
        let Some(class) = m.get("class") else {
            return self.err("expected \"id\" or \"class\"");
        };
        let class = self.at("class", |c| c.str(class).map(str::to_owned))?;
        let empty = json!([]);
        let properties = self.at("properties", |c| {
            c.list(m.get("properties").unwrap_or(&empty), |c, x| {
                let pair = c.array(x, Some(2))?;
                let name = c.at(0, |c| c.str(&pair[0]).map(str::to_owned))?;
                let value = c.at(1, |c| c.variant(&pair[1]))?;
                Ok((name, value))
            })
        })?;
        Ok(Object::Full(Box::new(FullObject { class, properties })))
    }
}

fn parse_float_text(t: &str) -> Option<f64> {
    match t {
        "nan" | "NaN" | "NAN" => Some(f64::NAN),
        "inf" | "+inf" | "INF" | "Infinity" => Some(f64::INFINITY),
        "-inf" | "-INF" | "-Infinity" => Some(f64::NEG_INFINITY),
        _ => t.parse::<f64>().ok(),
    }
}

/// Converts the typed JSON form back to a value. Values nested deeper than [`MAX_DEPTH`] (the
/// decoder's and the engine's limit) are refused; any depth up to it works on any thread (the
/// stack grows on demand).
pub fn from_json(v: &Value) -> Result<Variant, JsonError> {
    Ctx {
        path: Vec::new(),
        depth: 0,
    }
    .variant(v)
}

/// JSON nesting that [`from_json_str`] parses: 4 JSON levels per Variant level (a full object's
/// `{"value": {"properties": [[name, value]]}}`) for the [`MAX_DEPTH`] + 1 Variant levels.
const MAX_JSON_DEPTH: usize = 4 * (MAX_DEPTH + 1) + 1;

/// Parses typed JSON text, at every depth [`from_json`] accepts (serde_json's own limit of 128
/// levels is replaced by our own, 4 × ([`MAX_DEPTH`] + 1) + 1, checked before parsing, and the
/// parser's stack grows on demand).
pub fn from_json_str(text: &str) -> Result<Variant, JsonError> {
    let invalid = |message: String| JsonError {
        path: "/".into(),
        message,
    };
    check_json_depth(text).map_err(invalid)?;
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let parsed = {
        use serde::Deserialize;
        let grow = serde_stacker::Deserializer {
            de: &mut de,
            red_zone: 64 << 10,
            stack_size: 1 << 20,
        };
        Value::deserialize(grow).and_then(|v| de.end().map(|()| v))
    };
    let v = parsed.map_err(|e| invalid(format!("invalid JSON: {e}")))?;
    let r = from_json(&v);
    drop_value(v);
    r
}

/// Refuses JSON text nested deeper than [`MAX_JSON_DEPTH`], naming the line and column of the
/// first bracket too many (a linear scan; strings and their escapes are skipped).
fn check_json_depth(text: &str) -> Result<(), String> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (at, b) in text.bytes().enumerate() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_JSON_DEPTH {
                    let before = &text[..at];
                    let line = before.bytes().filter(|&c| c == b'\n').count() + 1;
                    let column = at - before.rfind('\n').map_or(0, |n| n + 1) + 1;
                    return Err(format!(
                        "JSON nested deeper than {MAX_JSON_DEPTH} levels at line {line} column \
                         {column} (typed JSON of the deepest value the engine accepts, \
                         {MAX_DEPTH} levels, needs at most that)"
                    ));
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// Drops a JSON tree without recursion (the derived drop recurses once per level).
fn drop_value(v: Value) {
    let mut pending = vec![v];
    while let Some(v) = pending.pop() {
        match v {
            Value::Array(items) => pending.extend(items),
            Value::Object(map) => pending.extend(map.into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}
