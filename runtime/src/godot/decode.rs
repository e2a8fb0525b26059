//! `decode_variant`: bytes → [`Variant`], with every check the engine makes (SPEC.md §7).
//!
//! The decoder is iterative: open containers live on an explicit stack limited to the
//! engine's `MAX_RECURSION_DEPTH` of 1024 (top level 0, each element, key, value or property
//! one deeper), so no input can exhaust the call stack. Every length is checked against the
//! remaining bytes before any
//! allocation; Array and Dictionary counts (which the engine does not check up front) never
//! reserve memory, their vectors grow only with elements actually decoded, so memory stays a
//! small multiple of the input size.
//!
//! Deliberate engine behaviours kept: trailing bytes are not an error ([`decode`] reports the
//! consumed length; [`decode_exact`] refuses them), unknown header flag bits and header byte 1
//! are ignored, padding contents are never checked, a string stops at its first NUL, a leading
//! UTF-8 BOM is dropped, BOOL is any non-zero word, duplicate Dictionary keys collapse.
//!
//! Differences that cannot be avoided without the engine's ClassDB: a full object's class is
//! accepted unless [`DecodeOptions::class_check`] says otherwise, and a Godot 4 `res://` script
//! path is checked for its prefix only. Strings keep every code point Godot 3.2.3 accepts
//! ([`GString`]), but names (classes, properties, signals) are Rust `String`s:
//! there a code point that is not a Unicode scalar value becomes U+FFFD. A byte array whose padding is missing at
//! the very end of the input reports the bytes actually present as consumed (the engine's
//! `r_len` would count the absent padding).

use std::collections::HashMap;

use super::error::{DecodeError, DecodeErrorKind, key_label};
use super::gstring::push_code_point;
use super::value::*;
use crate::path::PathSegment;

/// The engine's `MAX_RECURSION_DEPTH`.
pub const MAX_DEPTH: usize = 1024;

/// Options of [`decode`], like the engine's `allow_objects` argument.
#[derive(Debug, Clone, Copy)]
pub struct DecodeOptions {
    /// The engine generation that wrote the bytes.
    pub version: Version,
    /// Decode full objects (`bytes2var(b, true)`); refused with `ERR_UNAUTHORIZED` otherwise.
    /// As-id objects are always accepted.
    pub allow_objects: bool,
    /// Depth limit, at most (and by default) [`MAX_DEPTH`]; larger values are clamped.
    pub max_depth: usize,
    /// Stands in for the engine's `ClassDB` when objects are allowed: a full object whose class
    /// this function refuses fails with [`DecodeErrorKind::ClassUnavailable`]. `None` (the
    /// default) accepts all; [`godot3_class_check`] is Godot 3.2.3's own list.
    pub class_check: Option<fn(&str) -> bool>,
}

/// Whether a stock Godot 3.2.3 engine can instantiate `class` (`ClassDB.can_instance`), the
/// check its decoder makes before building a full object: as [`DecodeOptions::class_check`],
/// unknown and abstract classes are refused with `ERR_UNAVAILABLE`, as the engine does. The
/// list (512 classes) was generated from the real engine and is checked against it by
/// `tests/godot/engine.rs`; classes added by GDNative modules or engine builds with other
/// modules are not in it.
pub fn godot3_class_check(class: &str) -> bool {
    super::classes::GODOT3_CLASSES.binary_search(&class).is_ok()
}

impl DecodeOptions {
    /// Options for `version`, objects not allowed.
    pub fn new(version: Version) -> Self {
        DecodeOptions {
            version,
            allow_objects: false,
            max_depth: MAX_DEPTH,
            class_check: None,
        }
    }

    /// Sets [`DecodeOptions::allow_objects`].
    pub fn allow_objects(mut self, allow: bool) -> Self {
        self.allow_objects = allow;
        self
    }
}

/// Decodes one value from the start of `bytes`, returning it and the number of bytes it used.
/// Trailing bytes are ignored, as `bytes2var` and `get_var` do.
pub fn decode(bytes: &[u8], options: DecodeOptions) -> Result<(Variant, usize), DecodeError> {
    let mut r = Reader {
        buf: bytes,
        pos: 0,
        opts: options,
        max_depth: options.max_depth.min(MAX_DEPTH),
    };
    let v = r.value()?;
    Ok((v, r.pos.min(bytes.len())))
}

/// Decodes one value that must use all of `bytes` (strict: trailing bytes are an error).
pub fn decode_exact(bytes: &[u8], options: DecodeOptions) -> Result<Variant, DecodeError> {
    let (v, used) = decode(bytes, options)?;
    if used != bytes.len() {
        return Err(DecodeError::new(
            DecodeErrorKind::TrailingBytes {
                consumed: used,
                extra: bytes.len() - used,
            },
            used,
            options.version,
        ));
    }
    Ok(v)
}

/// Bit-exact `f32` → `f64` (NaN payload kept, signalling bit kept), the inverse of [`narrow`].
/// Used for math components, which the engine stores as `f32` in single-precision builds.
pub(crate) fn widen(x: f32) -> f64 {
    if x.is_nan() {
        let b = x.to_bits();
        let sign = u64::from(b >> 31) << 63;
        let mant = u64::from(b & 0x7F_FFFF) << 29;
        f64::from_bits(sign | 0x7FF0_0000_0000_0000 | mant)
    } else {
        f64::from(x)
    }
}

/// `f32` → `f64` as the hardware does it for the engine's `double` FLOAT: like [`widen`], but a
/// signalling NaN comes out quiet.
fn widen_scalar(x: f32) -> f64 {
    let w = widen(x);
    if w.is_nan() {
        f64::from_bits(w.to_bits() | 0x0008_0000_0000_0000)
    } else {
        w
    }
}

/// `f64` → `f32` rounding to nearest; NaN keeps the top mantissa bits (inverse of [`widen`]).
pub(crate) fn narrow(x: f64) -> f32 {
    if x.is_nan() {
        let b = x.to_bits();
        let sign = ((b >> 63) as u32) << 31;
        let mut mant = ((b >> 29) & 0x7F_FFFF) as u32;
        if mant == 0 {
            mant = 0x40_0000;
        }
        f32::from_bits(sign | 0x7F80_0000 | mant)
    } else {
        x as f32
    }
}

const BOM: &[u8] = &[0xEF, 0xBB, 0xBF];

/// The engine's `String::parse_utf8` on a string body: BOM dropped, stop at the first NUL,
/// version-specific validity. Returns the offset of the first bad byte on failure.
pub(crate) fn parse_utf8(bytes: &[u8], version: Version) -> Result<GString, usize> {
    let (body, base) = if bytes.starts_with(BOM) {
        (&bytes[3..], 3)
    } else {
        (bytes, 0)
    };
    let end = body.iter().position(|&b| b == 0).unwrap_or(body.len());
    let body = &body[..end];
    match std::str::from_utf8(body) {
        Ok(s) => Ok(GString::from(s)),
        Err(e) if version.is_godot4() => Err(base + e.valid_up_to()),
        Err(_) => godot3_utf8(body).map_err(|at| base + at),
    }
}

/// Godot 3.2.3's `String::parse_utf8` (checked against the engine by the differential test):
/// lead bytes up to the old 5- and 6-byte forms are accepted, continuation bytes must be
/// `10xxxxxx`, `C0`/`C1` leads are refused, and longer overlong forms are refused only when the
/// first two continuation bits are all zero (the engine's own, partial check). Every code point
/// is kept (surrogates, above U+10FFFF: see [`GString`]), written back in its shortest form as
/// the engine writes it.
fn godot3_utf8(body: &[u8]) -> Result<GString, usize> {
    let mut out = Vec::with_capacity(body.len());
    let mut i = 0;
    while i < body.len() {
        let c = body[i];
        let len = match c {
            0x00..=0x7F => 1,
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            0xF8..=0xFB => 5,
            0xFC..=0xFD => 6,
            _ => return Err(i),
        };
        if len == 1 {
            out.push(c);
            i += 1;
            continue;
        }
        if (len == 2 && c & 0x1E == 0) || i + len > body.len() {
            return Err(i);
        }
        let mut cp = u32::from((0xFFu8 >> (len + 1)) & c);
        for k in 1..len {
            let b = body[i + k];
            if b & 0xC0 != 0x80 || (cp == 0 && k == 2 && ((b & 0x7F) >> (7 - len)) == 0) {
                return Err(i);
            }
            cp = (cp << 6) | u32::from(b & 0x3F);
        }
        push_code_point(&mut out, cp);
        i += len;
    }
    Ok(GString::from_canonical(out))
}

/// What reading a header gave: a whole value, or a container whose children follow.
enum Start {
    Value(Variant),
    Open(Open),
}

/// A container being filled by the iterative decoder.
enum Open {
    Array {
        element_type: ContainerType,
        items: Vec<Variant>,
        count: usize,
    },
    Dict(DictFill),
    Object {
        object: Box<FullObject>,
        count: u32,
        name: Option<(String, usize)>,
    },
}

struct DictFill {
    dict: Box<Dictionary>,
    /// Key hash → the last entry with that hash, built once the dictionary is big enough for it
    /// to pay; entries of one hash are chained through [`Index::next`].
    index: Option<Index>,
    count: usize,
    read: usize,
    key: Option<Variant>,
}

/// Entry indices by key hash: the last entry of each hash, and for every entry the one before
/// it with the same hash (one map entry and one word per key, no list per hash).
#[derive(Default)]
struct Index {
    last: HashMap<u64, usize>,
    next: Vec<usize>,
}

impl Index {
    const NONE: usize = usize::MAX;

    /// Records entry `j` (the next one) under `hash`.
    fn add(&mut self, hash: u64, j: usize) {
        debug_assert_eq!(j, self.next.len());
        let before = self.last.insert(hash, j).unwrap_or(Self::NONE);
        self.next.push(before);
    }

    /// The entries recorded under `hash`, latest first.
    fn chain(&self, hash: u64) -> impl Iterator<Item = usize> + '_ {
        let some = |j: usize| (j != Self::NONE).then_some(j);
        let first = self.last.get(&hash).copied().and_then(some);
        std::iter::successors(first, move |&j| some(self.next[j]))
    }
}

impl DictFill {
    /// Engine: `d[key] = value` — a repeated key keeps its first position, the later value wins.
    fn insert(&mut self, key: Variant, value: Variant, version: Version) {
        let entries = &mut self.dict.entries;
        if entries.len() >= 16 && self.index.is_none() {
            let mut index = Index::default();
            for (j, (k, _)) in entries.iter().enumerate() {
                index.add(key_hash(k, version), j);
            }
            self.index = Some(index);
        }
        let existing = match &mut self.index {
            None => entries
                .iter()
                .position(|(k, _)| k.godot_key_eq(&key, version)),
            Some(index) => {
                let hash = key_hash(&key, version);
                let found = index
                    .chain(hash)
                    .find(|&j| entries[j].0.godot_key_eq(&key, version));
                if found.is_none() {
                    index.add(hash, entries.len());
                }
                found
            }
        };
        match existing {
            // The engine keeps the first key and the last value; what goes may nest deeply.
            Some(j) => {
                let old = std::mem::replace(&mut entries[j].1, value);
                deeper(move || drop((key, old)));
            }
            None => entries.push((key, value)),
        }
    }
}

impl Open {
    fn done(&self) -> bool {
        match self {
            Open::Array { items, count, .. } => items.len() >= *count,
            Open::Dict(f) => f.read >= f.count && f.key.is_none(),
            Open::Object { object, count, .. } => object.properties.len() >= *count as usize,
        }
    }

    fn finish(self) -> Variant {
        match self {
            Open::Array {
                element_type,
                items,
                ..
            } => Variant::Array(Box::new(Array {
                element_type,
                items,
            })),
            Open::Dict(f) => Variant::Dictionary(f.dict),
            Open::Object { object, .. } => Variant::Object(Object::Full(object)),
        }
    }

    /// Adds this container's step to the path of an error inside it.
    fn wrap(&self, e: DecodeError) -> DecodeError {
        match self {
            Open::Array { items, .. } => e.within(PathSegment::Index(items.len())),
            Open::Dict(f) => match &f.key {
                None => e.within(PathSegment::KeyAt(f.read)),
                Some(k) => e.within(PathSegment::Key(key_label(k))),
            },
            Open::Object { object, name, .. } => match name {
                Some((n, _)) => e.within(PathSegment::Field(n.clone().into())),
                None => e
                    .within(PathSegment::Part("property name"))
                    .within(PathSegment::Index(object.properties.len())),
            },
        }
    }
}

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    opts: DecodeOptions,
    max_depth: usize,
}

type R<T> = Result<T, DecodeError>;

fn pad4(n: usize) -> usize {
    (4 - n % 4) % 4
}

impl<'a> Reader<'a> {
    fn remaining(&self) -> usize {
        self.buf.len().saturating_sub(self.pos)
    }

    #[cold]
    fn err(&self, kind: DecodeErrorKind, at: usize) -> DecodeError {
        DecodeError::new(kind, at, self.opts.version)
    }

    fn take(&mut self, n: usize, what: &'static str) -> R<&'a [u8]> {
        if self.remaining() < n {
            return Err(self.err(
                DecodeErrorKind::Truncated {
                    what,
                    needed: n,
                    remaining: self.remaining(),
                },
                self.pos,
            ));
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    fn u32(&mut self, what: &'static str) -> R<u32> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u64(&mut self, what: &'static str) -> R<u64> {
        let b = self.take(8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }

    fn i32s<const N: usize>(&mut self, what: &'static str) -> R<[i32; N]> {
        let b = self.take(4 * N, what)?;
        let mut out = [0i32; N];
        for (o, c) in out.iter_mut().zip(b.chunks_exact(4)) {
            *o = i32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        }
        Ok(out)
    }

    fn reals<const N: usize>(&mut self, wide: bool, what: &'static str) -> R<[Real; N]> {
        let mut out = [0.0; N];
        if wide {
            let b = self.take(8 * N, what)?;
            for (o, c) in out.iter_mut().zip(b.chunks_exact(8)) {
                let mut a = [0u8; 8];
                a.copy_from_slice(c);
                *o = f64::from_le_bytes(a);
            }
        } else {
            let b = self.take(4 * N, what)?;
            for (o, c) in out.iter_mut().zip(b.chunks_exact(4)) {
                *o = widen(f32::from_le_bytes([c[0], c[1], c[2], c[3]]));
            }
        }
        Ok(out)
    }

    /// A string body that names something (class, property, signal): code points
    /// that are not Unicode scalar values become U+FFFD there.
    fn text(&mut self) -> R<String> {
        self.string().map(|s| s.to_string_lossy().into_owned())
    }

    /// `_decode_string`.
    fn string(&mut self) -> R<GString> {
        let start = self.pos;
        let n = self.u32("string length")? as i32;
        if n < 0 {
            return Err(self.err(DecodeErrorKind::NegativeStringLength { len: n }, start));
        }
        let n = n as usize;
        let pad = pad4(n);
        if n + pad > i32::MAX as usize || n + pad > self.remaining() {
            return Err(self.err(
                DecodeErrorKind::StringPastEnd {
                    len: n as u32,
                    pad: pad as u32,
                    remaining: self.remaining(),
                },
                start,
            ));
        }
        let body = &self.buf[self.pos..self.pos + n];
        let s = parse_utf8(body, self.opts.version)
            .map_err(|at| self.err(DecodeErrorKind::InvalidUtf8 { at }, start + 4 + at))?;
        self.pos += n + pad;
        Ok(s)
    }

    fn packed_count(&mut self, ty: VariantType, elem_size: usize) -> R<usize> {
        let start = self.pos;
        let count = self.u32("packed array count")? as i32;
        let total = i64::from(count) * elem_size as i64;
        if count < 0 || total > i64::from(i32::MAX) || total as usize > self.remaining() {
            return Err(self.err(
                DecodeErrorKind::PackedPastEnd {
                    ty,
                    count: count.into(),
                    elem_size,
                    remaining: self.remaining(),
                },
                start,
            ));
        }
        Ok(count as usize)
    }

    fn container_type(&mut self, kind: u32) -> R<ContainerType> {
        let start = self.pos;
        match kind {
            1 => {
                let id = self.u32("container element type")?;
                match VariantType::from_id(id, self.opts.version) {
                    Some(t) => Ok(ContainerType::Builtin(t)),
                    None => Err(self.err(DecodeErrorKind::InvalidContainerType { id }, start)),
                }
            }
            2 => {
                let name = self.text()?;
                Ok(ContainerType::Class(if self.opts.allow_objects {
                    name
                } else {
                    AS_ID_CLASS.to_owned()
                }))
            }
            3 => {
                let path = self.text()?;
                if !self.opts.allow_objects {
                    Ok(ContainerType::Class(AS_ID_CLASS.to_owned()))
                } else if path.starts_with("res://") {
                    Ok(ContainerType::Script(path))
                } else {
                    Err(self.err(DecodeErrorKind::InvalidScriptPath { path }, start))
                }
            }
            _ => Ok(ContainerType::Untyped),
        }
    }

    /// Decodes one value without recursion: open containers live on an explicit stack (at
    /// most 1025 entries), so no input can exhaust the call stack.
    fn value(&mut self) -> R<Variant> {
        let mut stack: Vec<Open> = Vec::new();
        self.run(&mut stack).map_err(|mut e| {
            for frame in stack.iter().rev() {
                e = frame.wrap(e);
            }
            e
        })
    }

    fn run(&mut self, stack: &mut Vec<Open>) -> R<Variant> {
        loop {
            // A full object's property name comes before each property value.
            if let Some(Open::Object {
                name: name @ None, ..
            }) = stack.last_mut()
            {
                let s = self.text()?;
                *name = Some((s, self.pos));
            }
            let mut v = match self.start(stack.len())? {
                Start::Value(v) => v,
                Start::Open(o) if o.done() => o.finish(),
                Start::Open(o) => {
                    stack.push(o);
                    continue;
                }
            };
            loop {
                let Some(top) = stack.last_mut() else {
                    return Ok(v);
                };
                self.accept(top, v)?;
                if !top.done() {
                    break;
                }
                v = stack.pop().map(Open::finish).unwrap_or_default();
            }
        }
    }

    /// Reads a value's header: a finished value, or a container to fill.
    fn start(&mut self, depth: usize) -> R<Start> {
        let version = self.opts.version;
        if depth > self.max_depth {
            return Err(self.err(
                DecodeErrorKind::TooDeep {
                    depth,
                    limit: self.max_depth,
                },
                self.pos,
            ));
        }
        let start = self.pos;
        if self.remaining() < 4 {
            return Err(self.err(
                DecodeErrorKind::MissingHeader {
                    remaining: self.remaining(),
                },
                start,
            ));
        }
        let header = self.u32("header")?;
        let id = header & 0xFF;
        let flags = header >> 16;
        let Some(ty) = VariantType::from_id(id, version) else {
            return Err(self.err(DecodeErrorKind::UnknownType { id, version }, start));
        };
        match ty {
            VariantType::Array => {
                // Decoders before 4.2 ignore the type bits and read the next word as the count.
                let element_type = if version.typed_arrays() {
                    self.container_type(flags & 3)
                        .map_err(|e| e.within(PathSegment::Part("element type")))?
                } else {
                    ContainerType::Untyped
                };
                let count = (self.u32("Array count")? & 0x7FFF_FFFF) as usize;
                // A small reservation, bounded by what the input can hold: the count is untrusted.
                let items = Vec::with_capacity(count.min(self.remaining() / 4).min(16));
                Ok(Start::Open(Open::Array {
                    element_type,
                    items,
                    count,
                }))
            }
            VariantType::Dictionary => {
                let (key_type, value_type) = if version.typed_dictionaries() {
                    let k = self
                        .container_type(flags & 3)
                        .map_err(|e| e.within(PathSegment::Part("key type")))?;
                    let v = self
                        .container_type((flags >> 2) & 3)
                        .map_err(|e| e.within(PathSegment::Part("value type")))?;
                    (k, v)
                } else {
                    (ContainerType::Untyped, ContainerType::Untyped)
                };
                let count = (self.u32("Dictionary count")? & 0x7FFF_FFFF) as usize;
                let entries = Vec::with_capacity(count.min(self.remaining() / 8).min(16));
                Ok(Start::Open(Open::Dict(DictFill {
                    dict: Box::new(Dictionary {
                        key_type,
                        value_type,
                        entries,
                    }),
                    index: None,
                    count,
                    read: 0,
                    key: None,
                })))
            }
            VariantType::Object => self.object(flags & 1 != 0, start),
            _ => Ok(Start::Value(self.leaf(ty, flags)?)),
        }
    }

    fn object(&mut self, as_id: bool, start: usize) -> R<Start> {
        if as_id {
            let id = self.u64("object id")?;
            return Ok(Start::Value(Variant::Object(if id == 0 {
                Object::Null
            } else {
                Object::Id(id)
            })));
        }
        if !self.opts.allow_objects {
            return Err(self.err(DecodeErrorKind::ObjectsNotAllowed, start));
        }
        let class = self
            .text()
            .map_err(|e| e.within(PathSegment::Part("class name")))?;
        if class.is_empty() {
            return Ok(Start::Value(Variant::Object(Object::Null)));
        }
        if let Some(check) = self.opts.class_check
            && !check(&class)
        {
            return Err(self.err(DecodeErrorKind::ClassUnavailable { class }, start));
        }
        let count = self.u32("object property count")?;
        Ok(Start::Open(Open::Object {
            object: Box::new(FullObject {
                class,
                properties: Vec::new(),
            }),
            count,
            name: None,
        }))
    }

    /// Hands a finished child value to the innermost open container.
    fn accept(&mut self, top: &mut Open, v: Variant) -> R<()> {
        let version = self.opts.version;
        match top {
            Open::Array { items, .. } => items.push(v),
            Open::Dict(fill) => match fill.key.take() {
                None => fill.key = Some(v),
                Some(key) => {
                    fill.read += 1;
                    fill.insert(key, v, version);
                }
            },
            Open::Object { object, name, .. } => {
                if let Some((n, at)) = name
                    && version.is_godot4()
                    && n == "script"
                {
                    let found = match &v {
                        Variant::Nil => None,
                        Variant::String(s) if s.as_bytes().starts_with(b"res://") => None,
                        Variant::String(s) => Some(format!("{s:?}")),
                        other => Some(other.variant_type().to_string()),
                    };
                    if let Some(found) = found {
                        return Err(self.err(DecodeErrorKind::InvalidScript { found }, *at));
                    }
                }
                if let Some((n, _)) = name.take() {
                    object.properties.push((n, v));
                }
            }
        }
        Ok(())
    }

    #[inline(never)]
    fn leaf(&mut self, ty: VariantType, flags: u32) -> R<Variant> {
        let version = self.opts.version;
        let flag64 = flags & 1 != 0;
        // Bit 16 widens math types only in Godot 4 (Godot 3 ignores it and reads f32).
        let wide = flag64 && version.is_godot4();
        use VariantType as T;
        Ok(match ty {
            T::Nil => Variant::Nil,
            T::Bool => Variant::Bool(self.u32("bool")? != 0),
            T::Int => {
                if flag64 {
                    Variant::Int(self.u64("int64")? as i64)
                } else {
                    Variant::Int(i64::from(self.u32("int32")? as i32))
                }
            }
            T::Float => {
                if flag64 {
                    Variant::Float(f64::from_bits(self.u64("float64")?))
                } else {
                    Variant::Float(widen_scalar(f32::from_bits(self.u32("float32")?)))
                }
            }
            T::String => Variant::String(self.string()?),
            T::StringName => Variant::StringName(self.string()?),
            T::Vector2 => Variant::Vector2(Vector2::from_array(self.reals(wide, "Vector2")?)),
            T::Vector2i => {
                let [x, y] = self.i32s("Vector2i")?;
                Variant::Vector2i(Vector2i { x, y })
            }
            T::Rect2 => Variant::Rect2(Box::new(Rect2::from_array(self.reals(wide, "Rect2")?))),
            T::Rect2i => {
                let [x, y, w, h] = self.i32s("Rect2i")?;
                Variant::Rect2i(Rect2i { x, y, w, h })
            }
            T::Vector3 => Variant::Vector3(Vector3::from_array(self.reals(wide, "Vector3")?)),
            T::Vector3i => {
                let [x, y, z] = self.i32s("Vector3i")?;
                Variant::Vector3i(Vector3i { x, y, z })
            }
            T::Transform2D => {
                Variant::Transform2D(Box::new(Transform2D(self.reals(wide, "Transform2D")?)))
            }
            T::Vector4 => {
                Variant::Vector4(Box::new(Vector4::from_array(self.reals(wide, "Vector4")?)))
            }
            T::Vector4i => {
                let [x, y, z, w] = self.i32s("Vector4i")?;
                Variant::Vector4i(Vector4i { x, y, z, w })
            }
            T::Plane => Variant::Plane(Box::new(Plane::from_array(self.reals(wide, "Plane")?))),
            T::Quaternion => Variant::Quaternion(Box::new(Quaternion::from_array(
                self.reals(wide, "Quaternion")?,
            ))),
            T::Aabb => Variant::Aabb(Box::new(Aabb::from_array(self.reals(wide, "AABB")?))),
            T::Basis => Variant::Basis(Box::new(Basis(self.reals(wide, "Basis")?))),
            T::Transform3D => {
                Variant::Transform3D(Box::new(Transform3D(self.reals(wide, "Transform3D")?)))
            }
            T::Projection => {
                Variant::Projection(Box::new(Projection(self.reals(wide, "Projection")?)))
            }
            T::Color => {
                let b = self.take(16, "Color")?;
                Variant::Color(Color::from_array(f32x4(b)))
            }
            T::NodePath => self.node_path()?,
            T::Rid => match version {
                Version::Godot3 => Variant::Rid(0),
                Version::Godot4 { .. } => Variant::Rid(self.u64("RID")?),
            },
            T::Callable => Variant::Callable,
            T::Signal => {
                let name = self
                    .text()
                    .map_err(|e| e.within(PathSegment::Part("signal name")))?;
                let object = self.u64("Signal object id")?;
                Variant::Signal(Box::new(Signal { name, object }))
            }
            T::Array | T::Dictionary | T::Object => {
                unreachable!("containers are decoded by `value`")
            }
            T::PackedByteArray => {
                let n = self.packed_count(ty, 1)?;
                let bytes = self.buf[self.pos..self.pos + n].to_vec();
                // The padding need not be present at the end of the input.
                self.pos += n + pad4(n).min(self.remaining() - n);
                Variant::PackedByteArray(bytes)
            }
            T::PackedInt32Array => {
                let n = self.packed_count(ty, 4)?;
                let b = self.take(n * 4, "PackedInt32Array")?;
                Variant::PackedInt32Array(
                    b.chunks_exact(4)
                        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                        .collect(),
                )
            }
            T::PackedInt64Array => {
                let n = self.packed_count(ty, 8)?;
                let b = self.take(n * 8, "PackedInt64Array")?;
                Variant::PackedInt64Array(
                    b.chunks_exact(8)
                        .map(|c| i64::from_le_bytes(arr8(c)))
                        .collect(),
                )
            }
            T::PackedFloat32Array => {
                let n = self.packed_count(ty, 4)?;
                let b = self.take(n * 4, "PackedFloat32Array")?;
                Variant::PackedFloat32Array(
                    b.chunks_exact(4)
                        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                        .collect(),
                )
            }
            T::PackedFloat64Array => {
                let n = self.packed_count(ty, 8)?;
                let b = self.take(n * 8, "PackedFloat64Array")?;
                Variant::PackedFloat64Array(
                    b.chunks_exact(8)
                        .map(|c| f64::from_le_bytes(arr8(c)))
                        .collect(),
                )
            }
            T::PackedStringArray => {
                let count = self.u32("PackedStringArray count")? as i32;
                // A negative count is an empty array, not an error (engine).
                let count = count.max(0) as usize;
                let mut items = Vec::with_capacity(count.min(self.remaining() / 4));
                for i in 0..count {
                    items.push(self.string().map_err(|e| e.within(PathSegment::Index(i)))?);
                }
                Variant::PackedStringArray(items)
            }
            T::PackedVector2Array => {
                let w = if wide { 8 } else { 4 };
                let n = self.packed_count(ty, 2 * w)?;
                let b = self.take(n * 2 * w, "PackedVector2Array")?;
                Variant::PackedVector2Array(
                    b.chunks_exact(2 * w)
                        .map(|c| Vector2::from_array(reals_of(c, wide)))
                        .collect(),
                )
            }
            T::PackedVector3Array => {
                let w = if wide { 8 } else { 4 };
                let n = self.packed_count(ty, 3 * w)?;
                let b = self.take(n * 3 * w, "PackedVector3Array")?;
                Variant::PackedVector3Array(
                    b.chunks_exact(3 * w)
                        .map(|c| Vector3::from_array(reals_of(c, wide)))
                        .collect(),
                )
            }
            T::PackedVector4Array => {
                let w = if wide { 8 } else { 4 };
                let n = self.packed_count(ty, 4 * w)?;
                let b = self.take(n * 4 * w, "PackedVector4Array")?;
                Variant::PackedVector4Array(
                    b.chunks_exact(4 * w)
                        .map(|c| Vector4::from_array(reals_of(c, wide)))
                        .collect(),
                )
            }
            T::PackedColorArray => {
                let n = self.packed_count(ty, 16)?;
                let b = self.take(n * 16, "PackedColorArray")?;
                Variant::PackedColorArray(
                    b.chunks_exact(16)
                        .map(|c| Color::from_array(f32x4(c)))
                        .collect(),
                )
            }
        })
    }

    fn node_path(&mut self) -> R<Variant> {
        let start = self.pos;
        if self.remaining() < 4 {
            return Err(self.err(
                DecodeErrorKind::Truncated {
                    what: "NodePath",
                    needed: 12,
                    remaining: self.remaining(),
                },
                start,
            ));
        }
        let w0 = u32::from_le_bytes(arr4(&self.buf[self.pos..self.pos + 4]));
        if w0 & 0x8000_0000 == 0 {
            return Err(self.err(DecodeErrorKind::OldNodePath, start));
        }
        let words = self.take(12, "NodePath counts and flags")?;
        let name_count = w0 & 0x7FFF_FFFF;
        let mut sub_count = u32::from_le_bytes(arr4(&words[4..8]));
        let flags = u32::from_le_bytes(arr4(&words[8..12]));
        if flags & 2 != 0 {
            sub_count = sub_count.wrapping_add(1);
        }
        let total = name_count.wrapping_add(sub_count);
        let mut path = NodePath::default();
        for i in 0..total {
            let s = self
                .string()
                .map_err(|e| e.within(PathSegment::Index(i as usize)))?;
            if i < name_count {
                path.names.push(s);
            } else {
                path.subnames.push(s);
            }
        }
        path.absolute = flags & 1 != 0 && !path.is_empty();
        Ok(Variant::NodePath(Box::new(path)))
    }
}

/// Class name the engine uses for object-typed containers when objects are not transported.
pub const AS_ID_CLASS: &str = "EncodedObjectAsID";

/// `N` components from exactly `N` × 4 (or × 8 when `wide`) bytes.
fn reals_of<const N: usize>(c: &[u8], wide: bool) -> [Real; N] {
    if wide {
        std::array::from_fn(|i| f64::from_le_bytes(arr8(&c[8 * i..])))
    } else {
        std::array::from_fn(|i| widen(f32::from_le_bytes(arr4(&c[4 * i..]))))
    }
}

fn arr4(c: &[u8]) -> [u8; 4] {
    [c[0], c[1], c[2], c[3]]
}

fn arr8(c: &[u8]) -> [u8; 8] {
    let mut a = [0u8; 8];
    a.copy_from_slice(&c[..8]);
    a
}

fn f32x4(b: &[u8]) -> [f32; 4] {
    [
        f32::from_le_bytes(arr4(&b[0..4])),
        f32::from_le_bytes(arr4(&b[4..8])),
        f32::from_le_bytes(arr4(&b[8..12])),
        f32::from_le_bytes(arr4(&b[12..16])),
    ]
}
