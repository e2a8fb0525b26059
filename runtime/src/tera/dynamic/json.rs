//! A record as JSON and back, in the form of the tera-vectors (what TERA Toolbox logs).
//!
//! Each value goes through the same serde implementations as the generated types'
//! (`tera::json`, serde's own for numbers, strings and vectors), read from or written to a
//! `serde_json::Value`: the dynamic and typed JSON forms accept and refuse the same inputs, by
//! construction. The policy (docs/usage.md, "What JSON is accepted"): a number must be an integer
//! in its type's range (not `1.0`, not `true`); a `bool` is `true` or `false` (not `0`/`1`); a
//! skill id has all five parts, `vec3` all three, `customize` all eight; `bytes` is a hex string
//! (either case, not an array); keys the definition does not have are ignored; a missing member
//! is an error, unless [`Missing::Default`] asks for the default value (the counterpart of the
//! typed form's serde defaults).

use def_parser::ast::Scalar;
use serde::Deserialize;
use serde_json::{Map, Number, Value as Json};

use super::plan::{Field, Kind, LevelPlan, Node};
use super::record::{RecordRef, ValueRef};
use super::value::{Array, Records, Value, for_scalars};
use super::{At, EncodeError, Missing, absent, err};
use crate::tera::TeraString;
use crate::tera::fields::{Str, bytes_hex};

fn num(v: f64) -> Json {
    Number::from_f64(v).map_or(Json::Null, Json::Number)
}

fn ser<T: serde::Serialize>(v: &T) -> Json {
    serde_json::to_value(v).expect("the value types serialize to JSON")
}

/// The JSON of one value.
fn value_json(v: ValueRef<'_>) -> Json {
    match v {
        ValueRef::Bool(x) => Json::Bool(x),
        ValueRef::Byte(x) => x.into(),
        ValueRef::Int16(x) => x.into(),
        ValueRef::UInt16(x) => x.into(),
        ValueRef::Int32(x) => x.into(),
        ValueRef::UInt32(x) => x.into(),
        ValueRef::Int64(x) => x.into(),
        ValueRef::UInt64(x) => x.into(),
        ValueRef::Float(x) => num(x as f64),
        ValueRef::Double(x) => num(x),
        ValueRef::Angle(x) => num(x.radians()),
        ValueRef::Vec3(x) => ser(&x),
        ValueRef::Vec3fa(x) => ser(&x),
        ValueRef::SkillId32(x) => ser(&x),
        ValueRef::SkillId(x) => ser(&x),
        ValueRef::Customize(x) => ser(&x),
        ValueRef::String(s) => Json::String(s.into()),
        ValueRef::Bytes(b) => Json::String(crate::hex::encode(b)),
        ValueRef::Array(a) => Json::Array(a.iter().map(value_json).collect()),
        ValueRef::Element(e) => Json::Object(record_json(e)),
    }
}

/// The JSON object of a level's values.
///
/// Made by cloning the level's [`template`] and filling its values in order: serde_json's map
/// (an `IndexMap`, as the workspace keeps key order) hashes every key it inserts with SipHash,
/// a quarter of the time of `decode_json`, where a clone copies the hashes with the keys.
pub(super) fn record_json(rec: RecordRef<'_>) -> Map<String, Json> {
    let p = rec.plan();
    match &p.json {
        Some(t) => {
            let mut m = (**t).clone();
            fill(&p.tree, rec, &mut m);
            m
        }
        None => nodes_json(p, &p.tree, rec),
    }
}

/// The JSON object of `nodes` (the shape of a level, or of an `object` in it) with every value
/// `null`, in the shape's order; `None` if a key is repeated (the object would have fewer
/// members than the shape has nodes, and [`fill`] could not pair them).
pub(super) fn template(nodes: &[Node], fields: &[Field]) -> Option<Map<String, Json>> {
    let mut m = Map::with_capacity(nodes.len());
    for n in nodes {
        let (key, value) = match n {
            Node::Field(f) => (fields[*f].key.to_string(), Json::Null),
            Node::Object(name, inner) => (name.to_string(), Json::Object(template(inner, fields)?)),
        };
        if m.insert(key, value).is_some() {
            return None;
        }
    }
    Some(m)
}

/// Sets the values of `m`, a clone of the [`template`] of `nodes`, walking both in order.
fn fill(nodes: &[Node], rec: RecordRef<'_>, m: &mut Map<String, Json>) {
    for (n, slot) in nodes.iter().zip(m.values_mut()) {
        match n {
            Node::Field(f) => {
                if let Some(v) = rec.get(*f) {
                    *slot = value_json(v);
                }
            }
            Node::Object(_, inner) => {
                if let Json::Object(o) = slot {
                    fill(inner, rec, o);
                }
            }
        }
    }
}

/// [`record_json`] for a shape that repeats a key: each member inserted (the last value of a
/// repeated key kept, in the place of its first).
fn nodes_json(p: &LevelPlan, nodes: &[Node], rec: RecordRef<'_>) -> Map<String, Json> {
    let mut m = Map::with_capacity(nodes.len());
    for n in nodes {
        match n {
            Node::Field(f) => {
                let v = rec.get(*f).map_or(Json::Null, value_json);
                m.insert(p.fields[*f].key.to_string(), v);
            }
            Node::Object(name, inner) => {
                m.insert(name.to_string(), Json::Object(nodes_json(p, inner, rec)));
            }
        }
    }
    m
}

/// The default value of a field: 0, 0.0, false, empty.
fn default_value(k: &Kind) -> Value {
    macro_rules! zero {
        ($(($v:ident, $t:ty)),*) => {
            match k {
                $(Kind::Scalar(Scalar::$v) => Value::$v(Default::default()),)*
                $(Kind::Array(Scalar::$v) => Value::Array(Array::$v(Vec::new())),)*
                Kind::String => Value::String(TeraString::default()),
                Kind::Bytes => Value::Bytes(Vec::new()),
                Kind::Strings => Value::Array(Array::String(Vec::new())),
                Kind::Objects(elem) => Value::Array(Array::Object(Records::of_plan(
                    elem.fields.len(),
                    0,
                    elem.owning,
                    Vec::new(),
                ))),
            }
        };
    }
    for_scalars!(zero)
}

/// Reads a value of type `T` from JSON with `T`'s own serde implementation.
fn de<'j, T: Deserialize<'j>>(v: &'j Json, at: &At<'_>) -> Result<T, EncodeError> {
    T::deserialize(v).map_err(|e| err(at, e.to_string()))
}

/// The value of a field from its JSON.
fn value_from_json(
    k: &Kind,
    v: &Json,
    missing: Missing,
    at: &At<'_>,
) -> Result<Value, EncodeError> {
    macro_rules! read {
        ($(($v:ident, $t:ty)),*) => {
            match k {
                $(Kind::Scalar(Scalar::$v) => Value::$v(de::<$t>(v, at)?),)*
                $(Kind::Array(Scalar::$v) => Value::Array(Array::$v(de::<Vec<$t>>(v, at)?)),)*
                Kind::String => Value::String(de::<Str<TeraString>>(v, at)?.0),
                Kind::Bytes => Value::Bytes(bytes_hex::deserialize(v).map_err(|e| err(at, e.to_string()))?),
                Kind::Strings => Value::Array(Array::String(de::<Str<Vec<TeraString>>>(v, at)?.0)),
                Kind::Objects(elem) => {
                    let items = v
                        .as_array()
                        .ok_or_else(|| err(at, format!("expected an array, got {}", what(v))))?;
                    let mut values = Vec::with_capacity(items.len() * elem.fields.len());
                    for (i, item) in items.iter().enumerate() {
                        let here = At::Index(at, i);
                        let o = item
                            .as_object()
                            .ok_or_else(|| err(&here, format!("expected an object, got {}", what(item))))?;
                        collect(elem, &elem.tree, o, &mut values, missing, &here)?;
                    }
                    // The plan's kinds made the values, so its first owning field holds for
                    // them (no scan of the values as in `Records::new`).
                    let len = u32::try_from(items.len()).map_err(|_| err(at, "too many elements"))?;
                    Value::Array(Array::Object(Records::of_plan(elem.fields.len(), len, elem.owning, values)))
                }
            }
        };
    }
    Ok(for_scalars!(read))
}

/// What a JSON value is, for errors.
fn what(v: &Json) -> &'static str {
    match v {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "an array",
        Json::Object(_) => "an object",
    }
}

/// Appends the values of `nodes` (in field order) read from `obj`.
pub(super) fn collect(
    p: &LevelPlan,
    nodes: &[Node],
    obj: &Map<String, Json>,
    out: &mut Vec<Value>,
    missing: Missing,
    at: &At<'_>,
) -> Result<(), EncodeError> {
    let mut next = obj.iter();
    for n in nodes {
        let key = match n {
            Node::Field(f) => &p.fields[*f].key,
            Node::Object(name, _) => name,
        };
        let found = member(obj, &mut next, key);
        match n {
            Node::Field(f) => {
                let field = &p.fields[*f];
                let here = At::Key(at, &field.key);
                out.push(match found {
                    Some(v) => value_from_json(&field.kind, v, missing, &here)?,
                    None if missing == Missing::Default => default_value(&field.kind),
                    None => return Err(absent(&here)),
                });
            }
            Node::Object(name, inner) => {
                let here = At::Key(at, name);
                match found {
                    Some(Json::Object(o)) => collect(p, inner, o, out, missing, &here)?,
                    Some(v) => {
                        return Err(err(&here, format!("expected an object, got {}", what(v))));
                    }
                    None if missing == Missing::Default => {
                        collect(p, inner, &Map::new(), out, missing, &here)?
                    }
                    None => return Err(absent(&here)),
                }
            }
        }
    }
    Ok(())
}

/// The member `key` of `obj`. The JSON of a packet usually lists its members in the
/// definition's order (as Toolbox and [`record_json`] write them), so the member after the one
/// found last (`next`) is tried first, and the map searched only if it is another key: the same
/// member as `obj.get(key)` (keys are unique in a map), found without hashing the key, which
/// with SipHash and the map's probe was half of the time of `encode_json`.
fn member<'j>(
    obj: &'j Map<String, Json>,
    next: &mut serde_json::map::Iter<'j>,
    key: &str,
) -> Option<&'j Json> {
    let mut ahead = next.clone();
    match ahead.next() {
        Some((k, v)) if k == key => {
            *next = ahead;
            Some(v)
        }
        _ => obj.get(key),
    }
}
