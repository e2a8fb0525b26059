//! The dynamic codec: a `.def` loaded at run time, packets decoded to and encoded from
//! `serde_json::Value` in the JSON form of the tera-vectors (see [`super::json`]).
//!
//! It interprets the same [`def_parser::layout::Layout`] that code generation works from, so the
//! two agree by construction on where every byte goes.

use std::path::Path;

use def_parser::ast::{ElemType, Scalar};
use def_parser::layout::{Fixed as FixedItem, Layout, Level, Member, MemberKind, MetaKind, Step};
use def_parser::{LoadError, Mode, Report};
use serde_json::{Map, Number, Value};

use super::error::{DecodeError, EncodeError};
use super::json::{from_hex, to_hex};
use super::values::{ANGLE_TO_RADIANS, Angle, Customize, SkillId, SkillId32, Vec3fa};
use super::wire::{Chain, Fixed, Meta, Options, Reader, Slot, Writer};
use crate::clip::{self, Clip};

/// What the encoder does with a field that the JSON leaves out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Missing {
    /// Report it.
    #[default]
    Error,
    /// Write the default: 0, 0.0, false, empty.
    Default,
}

/// Why a JSON value could not be encoded.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum JsonError {
    /// A value is missing, of the wrong kind, or out of range.
    #[error("field `{}`: {}", Clip(path, clip::PATH), Clip(message, clip::TEXT))]
    Value {
        /// Field path (`servants[2].name`).
        path: String,
        /// What is wrong.
        message: String,
    },
    /// The packet does not fit TERA's 16-bit lengths.
    #[error(transparent)]
    Encode(#[from] EncodeError),
}

/// A definition loaded at run time.
#[derive(Debug, Clone)]
pub struct Definition {
    layout: Layout,
    name: String,
    version: u32,
}

impl Definition {
    /// Reads and compiles a `.def` file.
    pub fn from_file(path: &Path, mode: Mode) -> Result<Self, LoadError> {
        def_parser::load(path, mode).map(|c| Self::from_layout(c.layout))
    }

    /// Compiles `.def` text; `file` names it (its last component is the file name).
    pub fn from_text(file: &str, text: &str, mode: Mode) -> Result<Self, Report> {
        def_parser::compile_str(file, text, mode).map(|c| Self::from_layout(c.layout))
    }

    /// Wraps a resolved layout.
    pub fn from_layout(layout: Layout) -> Self {
        let (name, version) = layout
            .name
            .as_ref()
            .map_or((String::from("?"), 0), |n| (n.name.clone(), n.version));
        Definition {
            layout,
            name,
            version,
        }
    }

    /// The layout.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Decodes a whole packet (header included) to JSON.
    pub fn decode(&self, bytes: &[u8], opts: Options) -> Result<Value, DecodeError> {
        self.decode_inner(bytes, opts)
            .map_err(|e| e.in_packet(self.name.clone(), self.version))
    }

    fn decode_inner(&self, bytes: &[u8], opts: Options) -> Result<Value, DecodeError> {
        let v = super::packet::decode_whole(bytes, opts, |r| decode_level(&self.layout.root, r))?;
        Ok(Value::Object(v))
    }

    /// Encodes JSON to a whole packet with `opcode` in its header.
    pub fn encode(
        &self,
        value: &Value,
        opcode: u16,
        opts: Options,
        missing: Missing,
    ) -> Result<Vec<u8>, JsonError> {
        let obj = value
            .as_object()
            .ok_or_else(|| err(&At::Root, "expected a JSON object for the packet"))?;
        let mut out = Vec::with_capacity(256);
        super::packet::encode_whole(opcode, opts, &mut out, |w| {
            encode_level(&self.layout.root, obj, w, missing, &At::Root)
        })?;
        Ok(out)
    }
}

/// Where a JSON value belongs (`servants[2].name`), rendered only when there is an error: made
/// for every value, the path text cost time proportional to the names above it (a field under
/// an array with a name of a megabyte copied that megabyte for every element).
#[derive(Clone, Copy)]
enum At<'a> {
    /// The packet.
    Root,
    /// Member `.1` of `.0`.
    Key(&'a At<'a>, &'a str),
    /// The member of slot `.2` of level `.1` (a dotted name through objects), under `.0`.
    Slot(&'a At<'a>, &'a Level, usize),
    /// Element `.1` of `.0`.
    Index(&'a At<'a>, usize),
}

impl At<'_> {
    fn render(&self, out: &mut String) {
        let name = |out: &mut String, parent: &At<'_>, name: &str| {
            parent.render(out);
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(name);
        };
        match *self {
            At::Root => {}
            At::Key(parent, key) => name(out, parent, key),
            At::Slot(parent, level, slot) => name(out, parent, &level.slot_name(slot)),
            At::Index(parent, i) => {
                parent.render(out);
                out.push_str(&format!("[{i}]"));
            }
        }
    }
}

fn err(at: &At<'_>, message: impl Into<String>) -> JsonError {
    let mut path = String::new();
    at.render(&mut path);
    JsonError::Value {
        path,
        message: message.into(),
    }
}

fn num(v: f64) -> Value {
    Number::from_f64(v).map_or(Value::Null, Value::Number)
}

fn xyz(x: f64, y: f64, z: f64) -> Value {
    let mut m = Map::new();
    m.insert("x".into(), num(x));
    m.insert("y".into(), num(y));
    m.insert("z".into(), num(z));
    Value::Object(m)
}

fn skill(id: u32, hz: u32, kind: u32, npc: bool, reserved: u32) -> Value {
    let mut m = Map::new();
    m.insert("id".into(), id.into());
    m.insert("huntingZoneId".into(), hz.into());
    m.insert("type".into(), kind.into());
    m.insert("npc".into(), npc.into());
    m.insert("reserved".into(), reserved.into());
    Value::Object(m)
}

const CUSTOMIZE_KEYS: [&str; 8] = [
    "unk",
    "skinColor",
    "faceStyle",
    "faceDecal",
    "hairStyle",
    "hairColor",
    "voice",
    "tattoos",
];

/// The JSON of a fixed value at the start of `b`.
fn scalar_to_json(ty: Scalar, b: &[u8]) -> Value {
    match ty {
        Scalar::Bool => bool::read(b).into(),
        Scalar::Byte => u8::read(b).into(),
        Scalar::Int16 => i16::read(b).into(),
        Scalar::UInt16 => u16::read(b).into(),
        Scalar::Int32 => i32::read(b).into(),
        Scalar::UInt32 => u32::read(b).into(),
        Scalar::Int64 => i64::read(b).into(),
        Scalar::UInt64 => u64::read(b).into(),
        Scalar::Float => num(f32::read(b) as f64),
        Scalar::Double => num(f64::read(b)),
        Scalar::Angle => num(Angle::read(b).radians()),
        Scalar::Vec3 => xyz(
            f32::read(b) as f64,
            f32::read(&b[4..]) as f64,
            f32::read(&b[8..]) as f64,
        ),
        Scalar::Vec3fa => {
            let [x, y, z] = [f32::read(b), f32::read(&b[4..]), f32::read(&b[8..])]
                .map(|c| c as f64 * ANGLE_TO_RADIANS);
            xyz(x, y, z)
        }
        Scalar::SkillId => {
            let s = SkillId::read(b);
            skill(s.id(), s.hunting_zone_id(), s.kind(), s.npc(), s.reserved())
        }
        Scalar::SkillId32 => {
            let s = SkillId32::read(b);
            skill(s.id(), s.hunting_zone_id(), s.kind(), s.npc(), s.reserved())
        }
        Scalar::Customize => {
            let c = Customize::read(b).to_bytes();
            Value::Object(
                CUSTOMIZE_KEYS
                    .iter()
                    .zip(c)
                    .map(|(k, v)| (k.to_string(), v.into()))
                    .collect(),
            )
        }
    }
}

fn decode_level(level: &Level, r: &mut Reader<'_>) -> Result<Map<String, Value>, DecodeError> {
    let mut values: Vec<Value> = vec![Value::Null; level.slots.len()];
    let mut metas: Vec<Meta> = vec![Meta::default(); level.slots.len()];
    for step in &level.steps {
        match step {
            Step::Fixed(run) => {
                if r.remaining() < run.size {
                    let rem = r.remaining();
                    let (at, f) = run
                        .fields
                        .iter()
                        .find(|(at, f)| at + f.size() > rem)
                        .expect("some field is cut off");
                    let kind = super::error::DecodeErrorKind::Truncated {
                        needed: f.size(),
                        available: rem.saturating_sub(*at),
                    };
                    return Err(
                        DecodeError::new(kind, r.pos() + at).in_field(level.slot_name(f.slot()))
                    );
                }
                let b = r.take(run.size, &[])?;
                for (at, f) in &run.fields {
                    let b = &b[*at..];
                    match *f {
                        FixedItem::Meta { slot, kind } => {
                            metas[slot] = match kind {
                                MetaKind::Array => Meta {
                                    count: u16::read(b),
                                    offset: u16::read(&b[2..]),
                                },
                                MetaKind::Bytes => Meta {
                                    offset: u16::read(b),
                                    count: u16::read(&b[2..]),
                                },
                                MetaKind::String => Meta {
                                    offset: u16::read(b),
                                    count: 0,
                                },
                            }
                        }
                        FixedItem::Value { slot, ty } => values[slot] = scalar_to_json(ty, b),
                    }
                }
            }
            Step::Var(slot) => values[*slot] = decode_var(level, *slot, metas[*slot], r)?,
            Step::Interleaved(slots) => {
                for &slot in slots {
                    values[slot] = decode_var(level, slot, metas[slot], r)?;
                }
            }
        }
    }
    Ok(assemble(&level.members, &mut values))
}

fn assemble(members: &[Member], values: &mut [Value]) -> Map<String, Value> {
    let mut m = Map::with_capacity(members.len());
    for member in members {
        let v = match &member.kind {
            MemberKind::Object(inner) => Value::Object(assemble(inner, values)),
            // A scalar declared twice: the reference keeps the last value read.
            _ => std::mem::take(&mut values[*member.slots.last().expect("leaf has a slot")]),
        };
        m.insert(member.name.clone(), v);
    }
    m
}

fn decode_var(
    level: &Level,
    slot: usize,
    meta: Meta,
    r: &mut Reader<'_>,
) -> Result<Value, DecodeError> {
    let member = level.slot_member(slot);
    let named = |e: DecodeError| e.in_field(level.slot_name(slot));
    let v = match &member.kind {
        MemberKind::String => Value::String(r.string_at(meta.offset as usize).map_err(named)?),
        MemberKind::Bytes => Value::String(to_hex(&r.bytes(meta).map_err(named)?)),
        MemberKind::Array(elem) => {
            let mut out = Vec::new();
            r.chain(meta, 4 + elem.fixed_size, |r, _| {
                out.push(Value::Object(decode_level(elem, r)?));
                Ok(())
            })
            .map_err(named)?;
            Value::Array(out)
        }
        MemberKind::ArrayOf(ElemType::String) => Value::Array(
            r.array_of_strings(meta)
                .map_err(named)?
                .into_iter()
                .map(|s| Value::String(s.into_string()))
                .collect(),
        ),
        MemberKind::ArrayOf(ElemType::Scalar(ty)) => {
            let ty = *ty;
            let mut out = Vec::new();
            r.chain(meta, 4 + ty.size(), |r, _| {
                let b = r.take(ty.size(), &[])?;
                out.push(scalar_to_json(ty, b));
                Ok(())
            })
            .map_err(named)?;
            Value::Array(out)
        }
        MemberKind::Scalar(_) | MemberKind::Object(_) => unreachable!("not variable"),
    };
    Ok(v)
}

/// Finds each slot's JSON value by walking the members through the object.
fn collect<'v>(
    members: &[Member],
    obj: &'v Map<String, Value>,
    out: &mut [Option<&'v Value>],
    missing: Missing,
    path: &At<'_>,
) -> Result<(), JsonError> {
    for m in members {
        let v = obj.get(&m.name);
        let p = At::Key(path, &m.name);
        match (&m.kind, v) {
            (MemberKind::Object(inner), Some(Value::Object(o))) => {
                collect(inner, o, out, missing, &p)?
            }
            (MemberKind::Object(_), Some(_)) => return Err(err(&p, "expected an object")),
            (MemberKind::Object(inner), None) => {
                if missing == Missing::Error {
                    return Err(err(&p, "missing"));
                }
                static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
                collect(inner, EMPTY.get_or_init(Map::new), out, missing, &p)?;
            }
            (_, None) if missing == Missing::Error => return Err(err(&p, "missing")),
            (_, v) => {
                for &s in &m.slots {
                    out[s] = v;
                }
            }
        }
    }
    Ok(())
}

fn as_int(v: &Value, min: i128, max: i128, path: &At<'_>) -> Result<i128, JsonError> {
    let n = match v {
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i as i128
            } else if let Some(u) = n.as_u64() {
                u as i128
            } else {
                let f = n.as_f64().unwrap_or(f64::NAN);
                if f.fract() != 0.0 || !f.is_finite() {
                    return Err(err(path, format!("expected an integer, got {f}")));
                }
                f as i128
            }
        }
        Value::Bool(b) => *b as i128,
        _ => return Err(err(path, format!("expected an integer, got {v}"))),
    };
    if n < min || n > max {
        return Err(err(path, format!("{n} is out of range {min}..={max}")));
    }
    Ok(n)
}

fn as_f64(v: &Value, path: &At<'_>) -> Result<f64, JsonError> {
    v.as_f64()
        .ok_or_else(|| err(path, format!("expected a number, got {v}")))
}

fn field<'v>(v: &'v Value, key: &str, path: &At<'_>) -> Result<&'v Value, JsonError> {
    v.get(key)
        .ok_or_else(|| err(&At::Key(path, key), "missing"))
}

/// Writes the wire form of a fixed value from JSON into the start of `b` (`None`: the default).
fn scalar_from_json(
    ty: Scalar,
    v: Option<&Value>,
    b: &mut [u8],
    path: &At<'_>,
) -> Result<(), JsonError> {
    let Some(v) = v else { return Ok(()) };
    match ty {
        Scalar::Bool => match v {
            Value::Bool(x) => x.write(b),
            Value::Number(_) => (as_f64(v, path)? != 0.0).write(b),
            _ => return Err(err(path, format!("expected a boolean, got {v}"))),
        },
        Scalar::Byte => (as_int(v, 0, 255, path)? as u8).write(b),
        Scalar::Int16 => (as_int(v, i16::MIN as i128, i16::MAX as i128, path)? as i16).write(b),
        Scalar::UInt16 => (as_int(v, 0, u16::MAX as i128, path)? as u16).write(b),
        Scalar::Int32 => (as_int(v, i32::MIN as i128, i32::MAX as i128, path)? as i32).write(b),
        Scalar::UInt32 => (as_int(v, 0, u32::MAX as i128, path)? as u32).write(b),
        Scalar::Int64 => (as_int(v, i64::MIN as i128, i64::MAX as i128, path)? as i64).write(b),
        Scalar::UInt64 => (as_int(v, 0, u64::MAX as i128, path)? as u64).write(b),
        Scalar::Float => (as_f64(v, path)? as f32).write(b),
        Scalar::Double => as_f64(v, path)?.write(b),
        Scalar::Angle => Angle::from_radians(as_f64(v, path)?).write(b),
        Scalar::Vec3 => {
            for (i, k) in ["x", "y", "z"].iter().enumerate() {
                (as_f64(field(v, k, path)?, &At::Key(path, k))? as f32).write(&mut b[4 * i..]);
            }
        }
        Scalar::Vec3fa => {
            let mut r = [0.0; 3];
            for (i, k) in ["x", "y", "z"].iter().enumerate() {
                r[i] = as_f64(field(v, k, path)?, &At::Key(path, k))?;
            }
            Vec3fa::from_radians(r).write(b);
        }
        Scalar::SkillId | Scalar::SkillId32 => {
            let g = |k: &str| -> Result<u32, JsonError> {
                match v.get(k) {
                    None => Ok(0),
                    Some(x) => Ok(as_int(x, 0, u32::MAX as i128, &At::Key(path, k))? as u32),
                }
            };
            let npc = match v.get("npc") {
                None => false,
                Some(Value::Bool(x)) => *x,
                Some(x) => as_int(x, 0, 1, &At::Key(path, "npc"))? != 0,
            };
            let (id, hz, kind, reserved) =
                (g("id")?, g("huntingZoneId")?, g("type")?, g("reserved")?);
            if ty == Scalar::SkillId {
                SkillId::from_parts(id, hz, kind, npc, reserved).write(b)
            } else {
                SkillId32::from_parts(id, hz, kind, npc, reserved).write(b)
            }
        }
        Scalar::Customize => {
            for (i, k) in CUSTOMIZE_KEYS.iter().enumerate() {
                b[i] = as_int(field(v, k, path)?, 0, 255, &At::Key(path, k))? as u8;
            }
        }
    }
    Ok(())
}

fn encode_level(
    level: &Level,
    obj: &Map<String, Value>,
    w: &mut Writer,
    missing: Missing,
    path: &At<'_>,
) -> Result<(), JsonError> {
    let mut values: Vec<Option<&Value>> = vec![None; level.slots.len()];
    collect(&level.members, obj, &mut values, missing, path)?;
    let mut slots: Vec<usize> = vec![0; level.slots.len()];
    for step in &level.steps {
        match step {
            Step::Fixed(run) => {
                let (start, b) = w.run_dyn(run.size);
                for (at, f) in &run.fields {
                    match *f {
                        FixedItem::Meta { slot, .. } => slots[slot] = start + at,
                        FixedItem::Value { slot, ty } => scalar_from_json(
                            ty,
                            values[slot],
                            &mut b[*at..],
                            &At::Slot(path, level, slot),
                        )?,
                    }
                }
            }
            Step::Var(slot) => encode_var(
                level,
                *slot,
                values[*slot],
                Slot(slots[*slot]),
                w,
                missing,
                path,
            )?,
            Step::Interleaved(group) => {
                let mut chains: Vec<(usize, Chain, &[Value])> = Vec::new();
                for &slot in group {
                    let p = At::Slot(path, level, slot);
                    let items = match values[slot] {
                        None => &[][..],
                        Some(Value::Array(a)) => &a[..],
                        Some(v) => return Err(err(&p, format!("expected an array, got {v}"))),
                    };
                    chains.push((slot, Chain::new(Slot(slots[slot])), items));
                }
                let longest = chains.iter().map(|c| c.2.len()).max().unwrap_or(0);
                for i in 0..longest {
                    for (slot, chain, items) in chains.iter_mut() {
                        if let Some(item) = items.get(i) {
                            w.element(chain);
                            let field = At::Slot(path, level, *slot);
                            let p = At::Index(&field, i);
                            encode_element(level.slot_member(*slot), item, w, missing, &p)?;
                        }
                    }
                }
                for (_, chain, _) in chains {
                    w.end_chain(chain);
                }
            }
        }
    }
    Ok(())
}

fn encode_element(
    member: &Member,
    item: &Value,
    w: &mut Writer,
    missing: Missing,
    path: &At<'_>,
) -> Result<(), JsonError> {
    match &member.kind {
        MemberKind::Array(elem) => {
            let o = item
                .as_object()
                .ok_or_else(|| err(path, format!("expected an object, got {item}")))?;
            encode_level(elem, o, w, missing, path)
        }
        MemberKind::ArrayOf(ElemType::String) => {
            let s = item
                .as_str()
                .ok_or_else(|| err(path, format!("expected a string, got {item}")))?;
            w.string_element(s);
            Ok(())
        }
        MemberKind::ArrayOf(ElemType::Scalar(ty)) => {
            let (_, b) = w.run_dyn(ty.size());
            scalar_from_json(*ty, Some(item), b, path)
        }
        _ => unreachable!("arrays only"),
    }
}

fn encode_var(
    level: &Level,
    slot: usize,
    v: Option<&Value>,
    meta: Slot,
    w: &mut Writer,
    missing: Missing,
    path: &At<'_>,
) -> Result<(), JsonError> {
    let member = level.slot_member(slot);
    let p = At::Slot(path, level, slot);
    match &member.kind {
        MemberKind::String => {
            let s = match v {
                None => "",
                Some(Value::String(s)) => s,
                Some(v) => return Err(err(&p, format!("expected a string, got {v}"))),
            };
            w.string(meta, s);
        }
        MemberKind::Bytes => {
            let b = match v {
                None => Vec::new(),
                Some(Value::String(s)) => {
                    from_hex(s).ok_or_else(|| err(&p, "expected a hex string"))?
                }
                Some(Value::Array(a)) => a
                    .iter()
                    .map(|x| as_int(x, 0, 255, &p).map(|x| x as u8))
                    .collect::<Result<_, _>>()?,
                Some(v) => return Err(err(&p, format!("expected a hex string, got {v}"))),
            };
            w.bytes(meta, &b);
        }
        _ => {
            let items = match v {
                None => &[][..],
                Some(Value::Array(a)) => &a[..],
                Some(v) => return Err(err(&p, format!("expected an array, got {v}"))),
            };
            let mut chain = Chain::new(meta);
            for (i, item) in items.iter().enumerate() {
                w.element(&mut chain);
                encode_element(member, item, w, missing, &At::Index(&p, i))?;
            }
            w.end_chain(chain);
        }
    }
    Ok(())
}
