//! Running a plan: a packet body read into a [`Record`](super::Record)'s images, values built
//! into them, and images written to a packet, through [`crate::tera::wire`]'s reader and writer
//! (the metadata byte order, the element walk, the truncated-field search and string reading are
//! theirs). The layout of an image is [`super::record`]'s.

use def_parser::ast::Scalar;
use def_parser::layout::MetaKind;

use super::plan::{Item, Kind, LevelPlan, Op, Run, VarRef};
use super::record::{ENTRY, entry, set_entry, text};
use super::value::{Array, Value, for_scalars};
use super::{At, EncodeError, err};
use crate::tera::error::DecodeError;
use crate::tera::wire::{Chain, Fixed, Meta, Reader, Slot, Writer};

/// Metadata slots kept on the stack up to this many per level (the corpus has at most 11).
const STACK_METAS: usize = 16;

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

/// The metadata slots of a level: on the stack for up to [`STACK_METAS`].
macro_rules! slots {
    ($p:expr, $zero:expr, $stack:ident, $heap:ident) => {{
        if $p.metas <= STACK_METAS {
            &mut $stack[..$p.metas]
        } else {
            $heap.resize($p.metas, $zero);
            &mut $heap[..]
        }
    }};
}

/// Decodes the packet body at the reader's position: the images of a record.
pub(super) fn decode_record(p: &LevelPlan, r: &mut Reader<'_>) -> Result<Vec<u8>, DecodeError> {
    // Room for the body's image and about as much data as the packet has left (a string's
    // UTF-8 is at most 1.5 times its UTF-16, an image a few bytes more than its level's wire
    // bytes); bounded by the packet, and grown if a packet needs more.
    let mut data = Vec::with_capacity(p.image + r.remaining() + r.remaining() / 2);
    data.resize(p.image, 0);
    decode_level(p, r, &mut data, 0)?;
    Ok(data)
}

/// Reads a level at the reader's position into its image at `base` in `data` (zeros), and its
/// variable fields' data after the end of `data`.
fn decode_level(
    p: &LevelPlan,
    r: &mut Reader<'_>,
    data: &mut Vec<u8>,
    base: usize,
) -> Result<(), DecodeError> {
    let mut stack = [Meta::default(); STACK_METAS];
    let mut heap = Vec::new();
    let metas: &mut [Meta] = slots!(p, Meta::default(), stack, heap);
    for op in &p.ops {
        match op {
            Op::Run(run) => {
                let Some(b) = r.take(run.size) else {
                    return Err(cut(p, run, r));
                };
                let image = &mut data[base + run.base..base + run.base + run.size];
                image.copy_from_slice(b);
                for m in run.meta_reads.iter() {
                    let at = m.at as usize;
                    metas[m.meta as usize] = read_meta(m.kind, &b[at..]);
                    image[at..at + m.kind.size()].fill(0);
                }
                for &at in run.bools.iter() {
                    canonical_bool(&mut image[at as usize..]);
                }
            }
            Op::Var(v) => read_var(p, v, metas[v.meta], r, data, base)?,
            Op::Interleaved(vars) => {
                for v in vars.iter() {
                    read_var(p, v, metas[v.meta], r, data, base)?;
                }
            }
        }
    }
    for d in p.dups.iter() {
        let from = base + d.from as usize;
        data.copy_within(from..from + d.size as usize, base + d.to as usize);
    }
    Ok(())
}

/// Makes the `bool` at the start of `b` the byte it is written as: a record holds values, and
/// any byte other than 0 is the value true, written as 1 (as the reference and generated code
/// write it again).
#[inline(always)]
fn canonical_bool(b: &mut [u8]) {
    bool::read(b).write(b)
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

/// A read error of variable field `v`, named.
#[cold]
fn in_field(p: &LevelPlan, v: &VarRef, e: DecodeError) -> DecodeError {
    e.in_field(p.fields[v.field].name.to_string())
}

/// Reads variable field `v` of the image at `base`: its data appended to `data`, its entry set.
fn read_var(
    p: &LevelPlan,
    v: &VarRef,
    meta: Meta,
    r: &mut Reader<'_>,
    data: &mut Vec<u8>,
    base: usize,
) -> Result<(), DecodeError> {
    let f = &p.fields[v.field];
    let start = data.len();
    let count = meta.count as usize;
    let read = match &f.kind {
        Kind::String => r
            .text_into(meta.offset as usize, data)
            .map(|()| data.len() - start),
        Kind::Bytes => r.bytes_slice(meta).map(|b| {
            data.extend_from_slice(b);
            b.len()
        }),
        Kind::Array(ty) => r
            .fixed_elements(meta, ty.size(), |_, body| data.extend_from_slice(body))
            .map(|()| {
                if *ty == Scalar::Bool {
                    data[start..].chunks_exact_mut(1).for_each(canonical_bool);
                }
                count
            }),
        Kind::Strings => r
            .string_elements(meta, |r, i, offset| {
                if i == 0 {
                    // The entries, made once the walk has checked that the count fits.
                    data.resize(start + count * ENTRY, 0);
                }
                let at = data.len();
                r.text_into(offset, data)?;
                let len = data.len() - at;
                set_entry(data, start + i * ENTRY, at, len);
                Ok(())
            })
            .map(|()| count),
        Kind::Objects(elem) => r
            .chain(meta, 4 + elem.fixed_size, |r, i| {
                if i == 0 {
                    data.resize(start + count * elem.image, 0);
                }
                decode_level(elem, r, data, start + i * elem.image)
            })
            .map(|()| count),
        Kind::Scalar(_) => unreachable!("a scalar has no metadata"),
    };
    match read {
        Ok(len) => {
            set_entry(data, base + f.place, start, len);
            Ok(())
        }
        Err(e) => Err(in_field(p, v, e)),
    }
}

/// Writes the images of a level at the writer's end.
pub(super) fn encode_level(p: &LevelPlan, data: &[u8], base: usize, w: &mut Writer) {
    let mut stack = [Slot(0); STACK_METAS];
    let mut heap = Vec::new();
    let slots: &mut [Slot] = slots!(p, Slot(0), stack, heap);
    for op in &p.ops {
        match op {
            Op::Run(run) => {
                let (start, b) = w.run_dyn(run.size);
                b.copy_from_slice(&data[base + run.base..base + run.base + run.size]);
                for m in run.meta_reads.iter() {
                    slots[m.meta as usize] = Slot(start + m.at as usize);
                }
            }
            Op::Var(v) => write_var(p, v, data, base, slots[v.meta], w),
            Op::Interleaved(vars) => {
                let mut chains: Vec<_> = vars
                    .iter()
                    .map(|v| {
                        let f = &p.fields[v.field];
                        let (start, len) = entry(data, base + f.place);
                        (&f.kind, start, len, Chain::new(slots[v.meta]))
                    })
                    .collect();
                let longest = chains.iter().map(|c| c.2).max().unwrap_or(0);
                for i in 0..longest {
                    for (kind, start, len, chain) in chains.iter_mut() {
                        if i < *len {
                            w.element(chain);
                            write_element(kind, data, *start, i, w);
                        }
                    }
                }
                for (.., chain) in chains {
                    w.end_chain(chain);
                }
            }
        }
    }
}

/// Writes variable field `v` of the image at `base`, into its metadata `slot`.
fn write_var(p: &LevelPlan, v: &VarRef, data: &[u8], base: usize, slot: Slot, w: &mut Writer) {
    let f = &p.fields[v.field];
    let (start, len) = entry(data, base + f.place);
    match &f.kind {
        Kind::String => w.string(slot, text(&data[start..start + len])),
        Kind::Bytes => w.bytes(slot, &data[start..start + len]),
        kind => {
            let mut chain = Chain::new(slot);
            for i in 0..len {
                w.element(&mut chain);
                write_element(kind, data, start, i, w);
            }
            w.end_chain(chain);
        }
    }
}

/// Writes the body of element `i` of an array of `kind` whose data starts at `start`.
#[inline]
fn write_element(kind: &Kind, data: &[u8], start: usize, i: usize, w: &mut Writer) {
    match kind {
        Kind::Array(ty) => {
            let at = start + i * ty.size();
            w.append(&data[at..at + ty.size()]);
        }
        Kind::Strings => {
            let (s, len) = entry(data, start + i * ENTRY);
            w.string_element(text(&data[s..s + len]));
        }
        Kind::Objects(elem) => encode_level(elem, data, start + i * elem.image, w),
        Kind::Scalar(_) | Kind::String | Kind::Bytes => unreachable!("an array's kind"),
    }
}

/// Builds the images of a record from its values (one per field of the body).
pub(super) fn build_record(p: &LevelPlan, vals: &[Value]) -> Result<Vec<u8>, EncodeError> {
    let mut data = vec![0; p.image];
    build_level(p, vals, &mut data, 0, &At::Root)?;
    Ok(data)
}

/// Writes the values of a level into its image at `base` in `data` (zeros), and their data
/// after the end of `data`, in the order decoding puts them there.
fn build_level(
    p: &LevelPlan,
    vals: &[Value],
    data: &mut Vec<u8>,
    base: usize,
    at: &At<'_>,
) -> Result<(), EncodeError> {
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
    for op in &p.ops {
        match op {
            Op::Run(run) => {
                for item in run.items.iter() {
                    if let Item::Value {
                        at: o, ty, field, ..
                    } = *item
                    {
                        let b = &mut data[base + run.base + o..];
                        if !write_scalar(ty, &vals[field], b) {
                            let f = &p.fields[field];
                            return Err(mismatch(&f.kind, &vals[field], &At::Key(at, &f.name)));
                        }
                    }
                }
            }
            Op::Var(v) => build_var(p, v, vals, data, base, at)?,
            Op::Interleaved(vars) => {
                for v in vars.iter() {
                    build_var(p, v, vals, data, base, at)?;
                }
            }
        }
    }
    Ok(())
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

/// Writes variable field `v`'s value: its data appended to `data`, its entry set.
fn build_var(
    p: &LevelPlan,
    v: &VarRef,
    vals: &[Value],
    data: &mut Vec<u8>,
    base: usize,
    at: &At<'_>,
) -> Result<(), EncodeError> {
    let f = &p.fields[v.field];
    let value = &vals[v.field];
    let here = At::Key(at, &f.name);
    let start = data.len();
    let len = match (&f.kind, value) {
        (Kind::String, Value::String(s)) => {
            data.extend_from_slice(s.as_bytes());
            s.len()
        }
        (Kind::Bytes, Value::Bytes(b)) => {
            data.extend_from_slice(b);
            b.len()
        }
        (Kind::Strings, Value::Array(Array::String(items))) => {
            data.resize(start + items.len() * ENTRY, 0);
            for (i, s) in items.iter().enumerate() {
                let at = data.len();
                data.extend_from_slice(s.as_bytes());
                set_entry(data, start + i * ENTRY, at, s.len());
            }
            items.len()
        }
        (Kind::Array(ty), Value::Array(a)) => {
            macro_rules! write {
                ($(($v:ident, $t:ty)),*) => {
                    match (ty, a) {
                        $((Scalar::$v, Array::$v(items)) => {
                            let size = <$t as Fixed>::SIZE;
                            data.resize(start + items.len() * size, 0);
                            for (x, b) in items.iter().zip(data[start..].chunks_exact_mut(size)) {
                                x.write(b);
                            }
                            items.len()
                        })*
                        _ => return Err(mismatch(&f.kind, value, &here)),
                    }
                };
            }
            for_scalars!(write)
        }
        (Kind::Objects(elem), Value::Array(Array::Object(items))) => {
            data.resize(start + items.len() * elem.image, 0);
            for (i, e) in items.iter().enumerate() {
                build_level(elem, e, data, start + i * elem.image, &At::Index(&here, i))?;
            }
            items.len()
        }
        _ => return Err(mismatch(&f.kind, value, &here)),
    };
    if u32::try_from(data.len()).is_err() {
        return Err(err(&here, "the record is larger than 4 GiB"));
    }
    set_entry(data, base + f.place, start, len);
    Ok(())
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
fn mismatch(k: &Kind, v: &Value, at: &At<'_>) -> EncodeError {
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

#[cfg(test)]
mod tests {
    use super::super::{Definition, ValueRef};
    use crate::tera::wire::Options;

    fn def(text: &str) -> Definition {
        Definition::from_text("T_TEST.1.def", text, def_parser::Mode::Compatible).expect("compiles")
    }

    /// A scalar declared twice reads as its last declaration and is written into both, as the
    /// reference does (`LAYOUT.md`); the image holds it in both places, whichever the packet
    /// had in the first.
    #[test]
    fn a_scalar_declared_twice() {
        let d = def("int32 a\nint32 a\n");
        let packet = [12, 0, 0x34, 0x12, 1, 0, 0, 0, 2, 0, 0, 0];
        let r = d.decode(&packet, Options::new()).expect("decodes");
        assert_eq!(r.field("a"), Some(ValueRef::Int32(2)));
        assert_eq!(r.to_json(), serde_json::json!({"a": 2}));
        let again = d
            .encode_record(&r, 0x1234, Options::new())
            .expect("encodes");
        assert_eq!(again, [12, 0, 0x34, 0x12, 2, 0, 0, 0, 2, 0, 0, 0]);
        let built = d.record(&r.to_values()).expect("builds");
        assert_eq!(built.data, r.data);
    }

    /// A `bool` of any byte other than 0 reads as true and is written as 1, in a field and in an
    /// `array<bool>`, as the reference and the generated code write it; the record equals one
    /// built from its values, and so does what it writes.
    #[test]
    fn a_bool_is_written_as_0_or_1() {
        let d = def("bool a\narray<bool> bs\nbool b\n");
        // The count and offset of `bs`, a = 197, its two elements (here, next, value: 2, 0)
        // inline, then b = 5.
        let packet = [
            20, 0, 0x34, 0x12, 2, 0, 9, 0, 197, 9, 0, 14, 0, 2, 14, 0, 0, 0, 0, 5,
        ];
        let r = d.decode(&packet, Options::new()).expect("decodes");
        assert_eq!(
            r.to_json(),
            serde_json::json!({"a": true, "bs": [true, false], "b": true})
        );
        let again = d
            .encode_record(&r, 0x1234, Options::new())
            .expect("encodes");
        assert_eq!(
            again,
            [
                20, 0, 0x34, 0x12, 2, 0, 9, 0, 1, 9, 0, 14, 0, 1, 14, 0, 0, 0, 0, 1
            ]
        );
        let built = d.record(&r.to_values()).expect("builds");
        assert_eq!(built.data, r.data);
    }

    /// An image keeps values, not the packet's offsets: a string placed after a gap reads as the
    /// same record, with the same image, as one placed right after the fixed fields, and both
    /// write the packet without the gap (as the reference writes it).
    #[test]
    fn offsets_are_not_kept() {
        let d = def("int32 x\nstring s\n");
        let tight = [14, 0, 0x34, 0x12, 10, 0, 5, 0, 0, 0, 0x41, 0, 0, 0];
        let gap = [
            16, 0, 0x34, 0x12, 12, 0, 5, 0, 0, 0, 0xff, 0xff, 0x41, 0, 0, 0,
        ];
        let a = d.decode(&tight, Options::new()).expect("decodes");
        let b = d.decode(&gap, Options::new()).expect("decodes");
        assert_eq!(a.field("s"), Some(ValueRef::String("A")));
        assert_eq!(a.field("x"), Some(ValueRef::Int32(5)));
        assert_eq!(a.data, b.data);
        let again = d
            .encode_record(&b, 0x1234, Options::new())
            .expect("encodes");
        assert_eq!(again, tight);
    }

    /// Arrays of every kind, nested, read in place and written back from the image (the packet
    /// made by the encoder from JSON, whose bytes the tera-vectors check elsewhere).
    #[test]
    fn arrays_in_place() {
        let d = def(
            "array<int16> xs\narray<string> names\nbytes raw\narray items\n- string n\n\
             - array<int32> ids\n- int64 big\n",
        );
        let json = serde_json::json!({
            "xs": [1, -2, 3],
            "names": ["a", "", "ü€𝄞"],
            "raw": "00ff10",
            "items": [
                {"n": "first", "ids": [7], "big": -1},
                {"n": "", "ids": [], "big": 9_000_000_000_i64},
            ],
        });
        let bytes = d
            .encode(&json, 1, Options::new(), super::super::Missing::Error)
            .expect("encodes");
        let r = d.decode(&bytes, Options::new()).expect("decodes");
        assert_eq!(r.to_json(), json);
        let Some(ValueRef::Array(xs)) = r.field("xs") else {
            panic!("an array")
        };
        assert_eq!(xs.len(), 3);
        assert_eq!(xs.get(1), Some(ValueRef::Int16(-2)));
        assert_eq!(xs.get(3), None);
        let Some(ValueRef::Array(names)) = r.field("names") else {
            panic!("an array")
        };
        assert_eq!(names.get(2), Some(ValueRef::String("ü€𝄞")));
        assert_eq!(r.field("raw"), Some(ValueRef::Bytes(&[0, 0xff, 0x10])));
        let Some(ValueRef::Array(items)) = r.field("items") else {
            panic!("an array")
        };
        let second = items.get(1).and_then(|e| e.element()).expect("an element");
        assert_eq!(second.field("big"), Some(ValueRef::Int64(9_000_000_000)));
        assert_eq!(second.field("n"), Some(ValueRef::String("")));
        assert_eq!(
            d.encode_record(&r, 1, Options::new()).expect("encodes"),
            bytes
        );
    }
}
