//! Running a plan: a packet body read into a record's values, and values written to a packet,
//! through [`crate::tera::wire`]'s reader and writer (the metadata byte order, the element walk,
//! the truncated-field search and string reading are theirs).

use std::mem::MaybeUninit;

use def_parser::ast::Scalar;
use def_parser::layout::MetaKind;

use super::plan::{Item, Kind, LevelPlan, Op, Read, Run, VarRef};
use super::value::{Array, Records, Value, for_scalars};
use super::{At, JsonError, err};
use crate::tera::error::DecodeError;
use crate::tera::wire::{Chain, Fixed, Meta, Reader, Slot, Writer};

/// What a variable field's place (one of the plan's `prefill`) holds before its read fills it.
const EMPTY: Value = Value::Bool(false);

/// Metadata slots kept on the stack up to this many per level (the corpus has at most 11).
const STACK_METAS: usize = 16;

/// The code of one group of a run's reads: it reads `reads[0]`'s scalars from the run `b` into
/// their places in `out`, then calls the next group's step with the rest of `reads`.
///
/// Each step is its own function, made for one scalar type and count ([`step_for`]), so the
/// jump to the next group is made from as many places as there are kinds of group, and the
/// processor's predictor tells them apart (a jump from one place, matching on the type, was
/// mispredicted whenever packets of different definitions came one after the other).
pub(super) type Step = fn(b: &[u8], out: &mut [MaybeUninit<Value>], reads: &[Read]);

/// A scalar type's [`Value`], and its arrays'.
trait IntoValue: Fixed {
    fn into_value(self) -> Value;
    fn into_array(v: Vec<Self>) -> Array;
}

macro_rules! into_value {
    ($(($v:ident, $t:ty)),*) => {
        $(impl IntoValue for $t {
            #[inline(always)]
            fn into_value(self) -> Value {
                Value::$v(self)
            }
            #[inline(always)]
            fn into_array(v: Vec<Self>) -> Array {
                Array::$v(v)
            }
        })*
    };
}
for_scalars!(into_value);

/// The [`Step`] of `K` scalars of type `T` (`K` = 0: any number, in a loop).
fn step<T: IntoValue, const K: usize>(b: &[u8], out: &mut [MaybeUninit<Value>], reads: &[Read]) {
    let Some((r, rest)) = reads.split_first() else {
        return;
    };
    let (at, field) = (r.at as usize, r.field as usize);
    if K == 0 {
        let places = &mut out[field..field + r.n as usize];
        for (place, b) in places.iter_mut().zip(b[at..].chunks_exact(T::SIZE)) {
            place.write(T::read(b).into_value());
        }
    } else if let Some(src) = b.get(at..at + K * T::SIZE) {
        // Always within the run (`LevelPlan::prefill`); were it not, the places would keep what
        // they were prefilled with.
        let places = &mut out[field..field + K];
        for (k, place) in places.iter_mut().enumerate() {
            place.write(T::read(&src[k * T::SIZE..]).into_value());
        }
    }
    if let Some(next) = rest.first() {
        (next.step)(b, out, rest)
    }
}

/// The step of `n` consecutive scalars of type `ty`.
pub(super) fn step_for(ty: Scalar, n: u32) -> Step {
    macro_rules! pick {
        ($(($v:ident, $t:ty)),*) => {
            match ty {
                $(Scalar::$v => match n {
                    1 => step::<$t, 1> as Step,
                    2 => step::<$t, 2>,
                    3 => step::<$t, 3>,
                    4 => step::<$t, 4>,
                    _ => step::<$t, 0>,
                },)*
            }
        };
    }
    for_scalars!(pick)
}

/// The metadata of `kind` at the start of `b` (the rest of its run), in [`Meta`]'s byte order.
#[inline]
fn read_meta(kind: MetaKind, b: &[u8]) -> Meta {
    let sized = |n: usize| &b[..n];
    match kind {
        MetaKind::Array => Meta::array::<4>(sized(4).try_into().expect("4 bytes"), 0),
        MetaKind::Bytes => Meta::bytes::<4>(sized(4).try_into().expect("4 bytes"), 0),
        MetaKind::String => Meta::string::<2>(sized(2).try_into().expect("2 bytes"), 0),
    }
}

/// Decodes one value of level `p` at the reader's position and appends its fields to `values`.
///
/// The places of the plan's `prefill` fields (its variable fields) are set to [`EMPTY`] first;
/// the others are left uninitialised, each written once by the run that reads it (the plan
/// checked that it writes each field exactly once, or prefills them all). Filling every place
/// first wrote each element twice, a sixth of reading an object-array.
fn decode_into(
    p: &LevelPlan,
    r: &mut Reader<'_>,
    values: &mut Vec<Value>,
) -> Result<(), DecodeError> {
    let width = p.fields.len();
    values.reserve(width);
    let start = values.len();
    let places = &mut values.spare_capacity_mut()[..width];
    for &f in p.prefill.iter() {
        places[f as usize].write(EMPTY);
    }
    match decode_level(p, r, places) {
        Ok(()) => {
            // SAFETY: the `width` places after `start` are within the capacity (reserved above)
            // and initialised: the prefilled ones above, and decoding, which ran every op of the
            // plan, wrote the others (each field not in `prefill` is a scalar of exactly one run
            // read: `LevelPlan::prefill`).
            unsafe { values.set_len(start + width) };
            Ok(())
        }
        Err(e) => {
            for &f in p.prefill.iter() {
                // SAFETY: a prefilled place is initialised: `EMPTY`, or the value a variable
                // field's read wrote over it. It is dropped once, here, and left outside the
                // vector's length.
                unsafe { places[f as usize].assume_init_drop() }
            }
            Err(e)
        }
    }
}

/// Reads a level at the reader's position into `out` (one place per field; see
/// [`decode_into`]).
fn decode_level(
    p: &LevelPlan,
    r: &mut Reader<'_>,
    out: &mut [MaybeUninit<Value>],
) -> Result<(), DecodeError> {
    let mut stack = [Meta::default(); STACK_METAS];
    let mut heap = Vec::new();
    let metas: &mut [Meta] = if p.metas <= STACK_METAS {
        &mut stack[..p.metas]
    } else {
        heap.resize(p.metas, Meta::default());
        &mut heap
    };
    for op in &p.ops {
        match op {
            Op::Run(run) => {
                let Some(b) = r.take(run.size) else {
                    return Err(cut(p, run, r));
                };
                for m in run.meta_reads.iter() {
                    metas[m.meta as usize] = read_meta(m.kind, &b[m.at as usize..]);
                }
                if let Some(first) = run.reads.first() {
                    (first.step)(b, out, &run.reads);
                }
            }
            Op::Var(v) => (v.read)(p, v, metas[v.meta], r, &mut out[v.field])?,
            Op::Interleaved(vars) => {
                for v in vars.iter() {
                    (v.read)(p, v, metas[v.meta], r, &mut out[v.field])?;
                }
            }
        }
    }
    Ok(())
}

/// The error of a run that does not fit, naming the first field cut off.
#[cold]
fn cut(p: &LevelPlan, run: &Run, r: &Reader<'_>) -> DecodeError {
    let (e, i) = r.cut_run(run.size, run.starts.iter().copied());
    match i {
        Some(i) => e.in_field(p.fields[run.items[i].field()].name.to_string()),
        None => e,
    }
}

/// The code that reads a variable field `v` into its place, which holds [`EMPTY`] and is left
/// so if the read fails: one function per kind of field and type of element ([`var_read`]), so
/// that reading a field does not match on its kind, then on its type.
///
/// The value is stored in the place rather than returned: returned in a `Result`, it was made
/// on the stack in pieces and copied in 16-byte words, which waited on store forwarding (a
/// seventh of decoding the largest packets).
pub(super) type VarRead = fn(
    p: &LevelPlan,
    v: &VarRef,
    meta: Meta,
    r: &mut Reader<'_>,
    place: &mut MaybeUninit<Value>,
) -> Result<(), DecodeError>;

/// The [`VarRead`] of a field of kind `k`.
pub(super) fn var_read(k: &Kind) -> VarRead {
    macro_rules! pick {
        ($(($v:ident, $t:ty)),*) => {
            match k {
                Kind::String => var_string as VarRead,
                Kind::Bytes => var_bytes,
                Kind::Strings => var_strings,
                Kind::Objects(_) => var_objects,
                $(Kind::Array(Scalar::$v) => var_array::<$t>,)*
                Kind::Scalar(_) => var_scalar,
            }
        };
    }
    for_scalars!(pick)
}

/// A read error of variable field `v`, named.
#[cold]
fn in_field(p: &LevelPlan, v: &VarRef, e: DecodeError) -> DecodeError {
    e.in_field(p.fields[v.field].name.to_string())
}

/// Stores a variable field's value in its place, or names the field in the read's error.
#[inline(always)]
fn store<T>(
    p: &LevelPlan,
    v: &VarRef,
    place: &mut MaybeUninit<Value>,
    read: Result<T, DecodeError>,
    value: impl FnOnce(T) -> Value,
) -> Result<(), DecodeError> {
    match read {
        Ok(x) => {
            place.write(value(x));
            Ok(())
        }
        Err(e) => Err(in_field(p, v, e)),
    }
}

/// The [`VarRead`]s that are one reader call and one kind of value.
macro_rules! var_reads {
    ($($(#[$doc:meta])* $name:ident$(<$t:ident: $bound:ident>)?($r:ident, $meta:ident) => $read:expr, $value:expr;)*) => {$(
        $(#[$doc])*
        fn $name$(<$t: $bound>)?(
            p: &LevelPlan,
            v: &VarRef,
            $meta: Meta,
            $r: &mut Reader<'_>,
            place: &mut MaybeUninit<Value>,
        ) -> Result<(), DecodeError> {
            store(p, v, place, $read, $value)
        }
    )*};
}

var_reads! {
    /// `string`.
    var_string(r, meta) => r.string(meta), Value::String;
    /// `bytes`.
    var_bytes(r, meta) => r.bytes(meta), Value::Bytes;
    /// `array<string>`.
    var_strings(r, meta) => r.array_of_strings(meta), |a| Value::Array(Array::String(a));
    /// `array<T>` of a fixed type.
    var_array<T: IntoValue>(r, meta) => r.array_of::<T>(meta), |a| Value::Array(T::into_array(a));
}

/// `array` of objects.
fn var_objects(
    p: &LevelPlan,
    v: &VarRef,
    meta: Meta,
    r: &mut Reader<'_>,
    place: &mut MaybeUninit<Value>,
) -> Result<(), DecodeError> {
    let Some(elem) = v.elem.as_deref() else {
        unreachable!("var_read gives var_objects to object-arrays only, which have `elem`")
    };
    let width = elem.fields.len();
    let mut values = Vec::new();
    let read = r.chain(meta, 4 + elem.fixed_size, |r, i| {
        // Allocated once the chain has checked that the count fits in the packet (made with its
        // capacity rather than reserved: no call to grow).
        if i == 0 {
            values = Vec::with_capacity(meta.count as usize * width);
        }
        decode_into(elem, r, &mut values)
    });
    store(p, v, place, read, |()| {
        Value::Array(Array::Object(Records::of_plan(
            width,
            u32::from(meta.count),
            elem.owning,
            values,
        )))
    })
}

fn var_scalar(
    _: &LevelPlan,
    _: &VarRef,
    _: Meta,
    _: &mut Reader<'_>,
    _: &mut MaybeUninit<Value>,
) -> Result<(), DecodeError> {
    unreachable!("a scalar has no metadata")
}

/// Decodes the values of the packet body.
pub(super) fn decode_record(p: &LevelPlan, r: &mut Reader<'_>) -> Result<Vec<Value>, DecodeError> {
    let mut out = Vec::with_capacity(p.fields.len());
    decode_into(p, r, &mut out)?;
    Ok(out)
}

/// The name of a value's type, for errors.
pub(super) fn type_name(v: &Value) -> &'static str {
    macro_rules! name {
        ($(($v:ident, $t:ty)),*) => {
            match v {
                $(Value::$v(_) => stringify!($v),)*
                Value::String(_) => "String",
                Value::Bytes(_) => "Bytes",
                Value::Array(_) => "Array",
            }
        };
    }
    for_scalars!(name)
}

/// The name of what a field holds, for errors.
fn kind_name(k: &Kind) -> String {
    match k {
        Kind::Scalar(ty) => format!("{ty:?}"),
        Kind::String => "String".into(),
        Kind::Bytes => "Bytes".into(),
        Kind::Array(ty) => format!("Array of {ty:?}"),
        Kind::Strings => "Array of String".into(),
        Kind::Objects(_) => "Array of objects".into(),
    }
}

#[cold]
fn mismatch(k: &Kind, v: &Value, at: &At<'_>) -> JsonError {
    err(
        at,
        format!("expected {}, got {}", kind_name(k), describe(v)),
    )
}

fn describe(v: &Value) -> String {
    match v {
        Value::Array(a) => match a {
            Array::Object(_) => "Array of objects".into(),
            Array::String(_) => "Array of String".into(),
            _ => {
                macro_rules! name {
                    ($(($v:ident, $t:ty)),*) => {
                        match a {
                            $(Array::$v(_) => concat!("Array of ", stringify!($v)),)*
                            _ => "Array",
                        }
                    };
                }
                for_scalars!(name).into()
            }
        },
        v => type_name(v).into(),
    }
}

/// Writes a scalar of type `ty` into the start of `b`; `false` if `v` is not of that type.
#[inline]
fn write_scalar(ty: Scalar, v: &Value, b: &mut [u8]) -> bool {
    macro_rules! write {
        ($(($v:ident, $t:ty)),*) => {
            match (ty, v) {
                $((Scalar::$v, Value::$v(x)) => x.write(b),)*
                _ => return false,
            }
        };
    }
    for_scalars!(write);
    true
}

/// Writes the values of a level (one per field) at the writer's end.
pub(super) fn encode_level(
    p: &LevelPlan,
    vals: &[Value],
    w: &mut Writer,
    at: &At<'_>,
) -> Result<(), JsonError> {
    if vals.len() != p.fields.len() {
        return Err(err(
            at,
            format!(
                "expected {} field values, got {}",
                p.fields.len(),
                vals.len()
            ),
        ));
    }
    let mut stack = [Slot(0); STACK_METAS];
    let mut heap = Vec::new();
    let slots: &mut [Slot] = if p.metas <= STACK_METAS {
        &mut stack[..p.metas]
    } else {
        heap.resize(p.metas, Slot(0));
        &mut heap
    };
    for op in &p.ops {
        match op {
            Op::Run(run) => {
                let (start, b) = w.run_dyn(run.size);
                for item in run.items.iter() {
                    match *item {
                        Item::Value {
                            at: o, ty, field, ..
                        } => {
                            if !write_scalar(ty, &vals[field], &mut b[o..]) {
                                let f = &p.fields[field];
                                return Err(mismatch(&f.kind, &vals[field], &At::Key(at, &f.name)));
                            }
                        }
                        Item::Meta { at: o, meta, .. } => slots[meta] = Slot(start + o),
                    }
                }
            }
            Op::Var(v) => encode_var(p, v, vals, slots[v.meta], w, at)?,
            Op::Interleaved(vars) => interleaved(p, vars, vals, slots, w, at)?,
        }
    }
    Ok(())
}

fn encode_var(
    p: &LevelPlan,
    v: &VarRef,
    vals: &[Value],
    slot: Slot,
    w: &mut Writer,
    at: &At<'_>,
) -> Result<(), JsonError> {
    let field = &p.fields[v.field];
    let value = &vals[v.field];
    let here = At::Key(at, &field.name);
    match (&field.kind, value) {
        (Kind::String, Value::String(s)) => w.string(slot, s),
        (Kind::Bytes, Value::Bytes(b)) => w.bytes(slot, b),
        (Kind::Strings, Value::Array(Array::String(items))) => w.array_of_strings(slot, items),
        (Kind::Array(ty), Value::Array(a)) => {
            macro_rules! write {
                ($(($v:ident, $t:ty)),*) => {
                    match (ty, a) {
                        $((Scalar::$v, Array::$v(items)) => w.array_of(slot, items),)*
                        _ => return Err(mismatch(&field.kind, value, &here)),
                    }
                };
            }
            for_scalars!(write)
        }
        (Kind::Objects(elem), Value::Array(Array::Object(items))) => {
            let mut chain = Chain::new(slot);
            for (i, e) in items.iter().enumerate() {
                w.element(&mut chain);
                encode_level(elem, e, w, &At::Index(&here, i))?;
            }
            w.end_chain(chain);
        }
        _ => return Err(mismatch(&field.kind, value, &here)),
    }
    Ok(())
}

/// Whether the elements `a` are of the kind of array `k`.
fn array_fits(k: &Kind, a: &Array) -> bool {
    macro_rules! fits {
        ($(($v:ident, $t:ty)),*) => {
            match (k, a) {
                $((Kind::Array(Scalar::$v), Array::$v(_)))|* => true,
                (Kind::Strings, Array::String(_)) => true,
                (Kind::Objects(_), Array::Object(_)) => true,
                _ => false,
            }
        };
    }
    for_scalars!(fits)
}

/// Arrays written element by element in turn: the first element of each, then the second...
fn interleaved(
    p: &LevelPlan,
    vars: &[VarRef],
    vals: &[Value],
    slots: &[Slot],
    w: &mut Writer,
    at: &At<'_>,
) -> Result<(), JsonError> {
    let mut chains = Vec::with_capacity(vars.len());
    for v in vars {
        let field = &p.fields[v.field];
        match &vals[v.field] {
            Value::Array(a) if array_fits(&field.kind, a) => {
                chains.push((field, a, Chain::new(slots[v.meta])))
            }
            other => return Err(mismatch(&field.kind, other, &At::Key(at, &field.name))),
        }
    }
    let longest = chains.iter().map(|c| c.1.len()).max().unwrap_or(0);
    for i in 0..longest {
        for (field, a, chain) in chains.iter_mut() {
            if i < a.len() {
                w.element(chain);
                let here = At::Key(at, &field.name);
                element(&field.kind, a, i, w, &At::Index(&here, i))?;
            }
        }
    }
    for (_, _, chain) in chains {
        w.end_chain(chain);
    }
    Ok(())
}

/// Writes the body of element `i` of `a`, whose kind [`array_fits`] the field's.
fn element(k: &Kind, a: &Array, i: usize, w: &mut Writer, at: &At<'_>) -> Result<(), JsonError> {
    match (k, a) {
        (Kind::Objects(elem), Array::Object(items)) => {
            encode_level(elem, items.get(i).expect("i < len"), w, at)?
        }
        (Kind::Strings, Array::String(items)) => w.string_element(&items[i]),
        (_, a) => {
            macro_rules! write {
                ($(($v:ident, $t:ty)),*) => {
                    match a {
                        $(Array::$v(items) => w.put(&items[i]),)*
                        Array::String(_) | Array::Object(_) => unreachable!("checked by array_fits"),
                    }
                };
            }
            for_scalars!(write)
        }
    }
    Ok(())
}
