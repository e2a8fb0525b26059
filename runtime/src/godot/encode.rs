//! `encode_variant`: [`Variant`] → bytes, byte-identical to the engine's encoder.
//!
//! Rules kept from the engine: ints are 32-bit unless outside int32; floats are `f32` exactly
//! when `(double)(float)v == v` (so NaN is always 64-bit); every string, byte array and NodePath
//! name is zero-padded to 4 bytes (the engine leaves NodePath padding uninitialised; we write
//! zeros); PackedStringArray element lengths include a trailing NUL; a null object is a bare NIL
//! header; Dictionary/Array counts never carry the legacy "shared" bit 31 (the decoder masks it);
//! nesting deeper than 1024 is refused ("Potential infinite recursion", 3.4+/4.x).
//!
//! Objects: [`Object::Id`] is always written as an id and [`Object::Full`] always in full, since
//! the model holds no live instance to choose from; [`EncodeOptions::full_objects`] (like
//! `var2bytes(v, true)`) decides how typed containers name classes and scripts (Godot 4).

use super::decode::{AS_ID_CLASS, MAX_DEPTH, narrow};
use super::error::{EncodeError, EncodeErrorKind, key_label};
use super::value::*;
use crate::path::PathSegment;

/// Options of [`encode`].
#[derive(Debug, Clone, Copy)]
pub struct EncodeOptions {
    /// The engine generation that will read the bytes (decides type ids).
    pub version: Version,
    /// `var2bytes(v, true)` / `var_to_bytes_with_objects`: typed containers keep their class or
    /// script (Godot 4); otherwise they are written as `"EncodedObjectAsID"`.
    pub full_objects: bool,
    /// Write as a Godot 4 `real_t = double` build does: math types with FLAG_64 and `f64`
    /// components (never Color, PackedColorArray, PackedFloat32Array). Refused for Godot 3.
    pub double_precision: bool,
}

impl EncodeOptions {
    /// Options for `version`: no full objects, single precision.
    pub fn new(version: Version) -> Self {
        EncodeOptions {
            version,
            full_objects: false,
            double_precision: false,
        }
    }

    /// Sets [`EncodeOptions::full_objects`].
    pub fn full_objects(mut self, full: bool) -> Self {
        self.full_objects = full;
        self
    }

    /// Sets [`EncodeOptions::double_precision`].
    pub fn double_precision(mut self, double: bool) -> Self {
        self.double_precision = double;
        self
    }
}

/// Encodes `value` into a new buffer.
pub fn encode(value: &Variant, options: EncodeOptions) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::new();
    encode_into(value, options, &mut out)?;
    Ok(out)
}

/// Appends the encoding of `value` to `out`. On error `out` is left as it was.
pub fn encode_into(
    value: &Variant,
    options: EncodeOptions,
    out: &mut Vec<u8>,
) -> Result<(), EncodeError> {
    if options.double_precision && options.version == Version::Godot3 {
        return Err(EncodeError::new(EncodeErrorKind::DoublePrecisionGodot3));
    }
    let mark = out.len();
    let mut w = Writer { out, opts: options };
    let r = w.value(value);
    if r.is_err() {
        w.out.truncate(mark);
    }
    r
}

struct Writer<'o> {
    out: &'o mut Vec<u8>,
    opts: EncodeOptions,
}

/// A container whose children are still to be written.
enum Pending<'a> {
    Items {
        iter: std::slice::Iter<'a, Variant>,
        at: usize,
    },
    Entries {
        iter: std::slice::Iter<'a, (Variant, Variant)>,
        at: usize,
        key: Option<&'a Variant>,
        value: Option<&'a Variant>,
    },
    Props {
        iter: std::slice::Iter<'a, (String, Variant)>,
        name: Option<&'a String>,
    },
}

impl Pending<'_> {
    fn wrap(&self, e: EncodeError) -> EncodeError {
        match self {
            Pending::Items { at, .. } => e.within(PathSegment::Index(at.saturating_sub(1))),
            // While the value is still pending, the key is being written.
            Pending::Entries {
                at, value: Some(_), ..
            } => e.within(PathSegment::KeyAt(at.saturating_sub(1))),
            Pending::Entries { key: Some(k), .. } => e.within(PathSegment::Key(key_label(k))),
            Pending::Entries { at, .. } => e.within(PathSegment::KeyAt(*at)),
            Pending::Props { name: Some(n), .. } => {
                e.within(PathSegment::Field((*n).clone().into()))
            }
            Pending::Props { .. } => e,
        }
    }
}

type R = Result<(), EncodeError>;

const FLAG_64: u32 = 1 << 16;

fn pad4(n: usize) -> usize {
    (4 - n % 4) % 4
}

fn len32(len: usize, what: &'static str) -> Result<u32, EncodeError> {
    if len > i32::MAX as usize - 3 {
        return Err(EncodeError::new(EncodeErrorKind::TooLong { what, len }));
    }
    Ok(len as u32)
}

impl<'a> Writer<'_> {
    fn u32(&mut self, v: u32) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }

    fn u64(&mut self, v: u64) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }

    fn header(&mut self, ty: VariantType, flags: u32) -> R {
        match ty.id(self.opts.version) {
            Some(id) => {
                self.u32(u32::from(id) | flags);
                Ok(())
            }
            None => Err(EncodeError::new(EncodeErrorKind::TypeNotInVersion {
                ty,
                version: self.opts.version,
            })),
        }
    }

    fn wide(&self) -> bool {
        self.opts.double_precision
    }

    fn math_header(&mut self, ty: VariantType) -> R {
        let flags = if self.wide() { FLAG_64 } else { 0 };
        self.header(ty, flags)
    }

    fn reals(&mut self, values: &[Real]) {
        if self.wide() {
            for v in values {
                self.out.extend_from_slice(&v.to_le_bytes());
            }
        } else {
            for v in values {
                self.out.extend_from_slice(&narrow(*v).to_le_bytes());
            }
        }
    }

    fn string_body(&mut self, bytes: &[u8]) -> R {
        let n = len32(bytes.len(), "string")?;
        self.u32(n);
        self.out.extend_from_slice(bytes);
        self.zeros(pad4(bytes.len()));
        Ok(())
    }

    fn zeros(&mut self, n: usize) {
        self.out.extend_from_slice(&[0u8; 3][..n]);
    }

    fn count(&mut self, len: usize, what: &'static str) -> R {
        let n = len32(len, what)?;
        self.u32(n);
        Ok(())
    }

    fn container_type(&mut self, t: &ContainerType) -> R {
        match t {
            ContainerType::Untyped => Ok(()),
            ContainerType::Builtin(ty) => match ty.id(self.opts.version) {
                Some(id) => {
                    self.u32(u32::from(id));
                    Ok(())
                }
                None => Err(EncodeError::new(EncodeErrorKind::InvalidContainerType {
                    ty: *ty,
                    version: self.opts.version,
                })),
            },
            ContainerType::Class(name) | ContainerType::Script(name) => {
                let s = if self.opts.full_objects {
                    name.as_str()
                } else {
                    AS_ID_CLASS
                };
                self.string_body(s.as_bytes())
            }
        }
    }

    /// The kind written for `t`: a script without full objects becomes a class name. Godot 3
    /// has no typed containers at all: a typed one is an error.
    fn kind(&self, t: &ContainerType) -> R2 {
        match t {
            ContainerType::Script(_) if !self.opts.full_objects => Ok(2),
            _ if self.opts.version == Version::Godot3 && *t != ContainerType::Untyped => {
                Err(EncodeError::new(EncodeErrorKind::TypedContainerGodot3))
            }
            other => Ok(other.kind()),
        }
    }

    /// Encodes without recursion: open containers live on an explicit stack whose depth is
    /// limited to 1024 as in the engine.
    fn value(&mut self, root: &'a Variant) -> R {
        let mut stack: Vec<Pending<'a>> = Vec::new();
        self.run(root, &mut stack).map_err(|mut e| {
            for frame in stack.iter().rev() {
                e = frame.wrap(e);
            }
            e
        })
    }

    fn run(&mut self, root: &'a Variant, stack: &mut Vec<Pending<'a>>) -> R {
        let mut next = Some(root);
        while let Some(v) = next.take() {
            let depth = stack.len();
            if depth > MAX_DEPTH {
                return Err(EncodeError::new(EncodeErrorKind::TooDeep {
                    depth,
                    limit: MAX_DEPTH,
                }));
            }
            match v {
                Variant::Array(a) => {
                    let version = self.opts.version;
                    let element_type =
                        written_type(&a.element_type, version, version.typed_arrays());
                    let flags = self.kind(element_type)? << 16;
                    self.header(VariantType::Array, flags)?;
                    self.container_type(element_type)?;
                    self.count(a.items.len(), "Array")?;
                    stack.push(Pending::Items {
                        iter: a.items.iter(),
                        at: 0,
                    });
                }
                Variant::Dictionary(d) => {
                    let version = self.opts.version;
                    let typed = version.typed_dictionaries();
                    let (key_type, value_type) = (
                        written_type(&d.key_type, version, typed),
                        written_type(&d.value_type, version, typed),
                    );
                    let flags = (self.kind(key_type)? | (self.kind(value_type)? << 2)) << 16;
                    self.header(VariantType::Dictionary, flags)?;
                    self.container_type(key_type)?;
                    self.container_type(value_type)?;
                    self.count(d.entries.len(), "Dictionary")?;
                    stack.push(Pending::Entries {
                        iter: d.entries.iter(),
                        at: 0,
                        key: None,
                        value: None,
                    });
                }
                Variant::Object(Object::Full(full)) => {
                    self.header(VariantType::Object, 0)?;
                    self.string_body(full.class.as_bytes())?;
                    self.count(full.properties.len(), "object properties")?;
                    stack.push(Pending::Props {
                        iter: full.properties.iter(),
                        name: None,
                    });
                }
                _ => self.leaf(v)?,
            }
            // The next value to write: the first pending child of the innermost container.
            while let Some(top) = stack.last_mut() {
                match top {
                    Pending::Items { iter, at } => {
                        if let Some(x) = iter.next() {
                            *at += 1;
                            next = Some(x);
                        }
                    }
                    Pending::Entries {
                        iter,
                        at,
                        key,
                        value,
                    } => {
                        if let Some(val) = value.take() {
                            next = Some(val);
                        } else if let Some((k, val)) = iter.next() {
                            *at += 1;
                            *key = Some(k);
                            *value = Some(val);
                            next = Some(k);
                        }
                    }
                    Pending::Props { iter, name } => {
                        if let Some((n, val)) = iter.next() {
                            *name = Some(n);
                            self.string_body(n.as_bytes())?;
                            next = Some(val);
                        }
                    }
                }
                if next.is_some() {
                    break;
                }
                stack.pop();
            }
        }
        Ok(())
    }

    #[inline(never)]
    fn leaf(&mut self, v: &Variant) -> R {
        use VariantType as T;
        match v {
            Variant::Nil => self.header(T::Nil, 0)?,
            Variant::Bool(b) => {
                self.header(T::Bool, 0)?;
                self.u32(u32::from(*b));
            }
            Variant::Int(i) => {
                if let Ok(small) = i32::try_from(*i) {
                    self.header(T::Int, 0)?;
                    self.u32(small as u32);
                } else {
                    self.header(T::Int, FLAG_64)?;
                    self.u64(*i as u64);
                }
            }
            Variant::Float(f) => {
                let single = *f as f32;
                if f64::from(single) == *f {
                    self.header(T::Float, 0)?;
                    self.out.extend_from_slice(&single.to_le_bytes());
                } else {
                    self.header(T::Float, FLAG_64)?;
                    self.out.extend_from_slice(&f.to_le_bytes());
                }
            }
            Variant::String(s) => {
                self.header(T::String, 0)?;
                self.string_body(s.as_bytes())?;
            }
            Variant::StringName(s) => {
                self.header(T::StringName, 0)?;
                self.string_body(s.as_bytes())?;
            }
            Variant::Vector2(x) => {
                self.math_header(T::Vector2)?;
                self.reals(&x.to_array());
            }
            Variant::Vector3(x) => {
                self.math_header(T::Vector3)?;
                self.reals(&x.to_array());
            }
            Variant::Vector4(x) => {
                self.math_header(T::Vector4)?;
                self.reals(&x.to_array());
            }
            Variant::Rect2(x) => {
                self.math_header(T::Rect2)?;
                self.reals(&x.to_array());
            }
            Variant::Plane(x) => {
                self.math_header(T::Plane)?;
                self.reals(&x.to_array());
            }
            Variant::Quaternion(x) => {
                self.math_header(T::Quaternion)?;
                self.reals(&x.to_array());
            }
            Variant::Aabb(x) => {
                self.math_header(T::Aabb)?;
                self.reals(&x.to_array());
            }
            Variant::Transform2D(x) => {
                self.math_header(T::Transform2D)?;
                self.reals(&x.0);
            }
            Variant::Basis(x) => {
                self.math_header(T::Basis)?;
                self.reals(&x.0);
            }
            Variant::Transform3D(x) => {
                self.math_header(T::Transform3D)?;
                self.reals(&x.0);
            }
            Variant::Projection(x) => {
                self.math_header(T::Projection)?;
                self.reals(&x.0);
            }
            Variant::Vector2i(x) => {
                self.header(T::Vector2i, 0)?;
                self.i32s(&[x.x, x.y]);
            }
            Variant::Vector3i(x) => {
                self.header(T::Vector3i, 0)?;
                self.i32s(&[x.x, x.y, x.z]);
            }
            Variant::Vector4i(x) => {
                self.header(T::Vector4i, 0)?;
                self.i32s(&[x.x, x.y, x.z, x.w]);
            }
            Variant::Rect2i(x) => {
                self.header(T::Rect2i, 0)?;
                self.i32s(&[x.x, x.y, x.w, x.h]);
            }
            Variant::Color(c) => {
                self.header(T::Color, 0)?;
                self.f32s(&c.to_array());
            }
            Variant::NodePath(p) => {
                self.header(T::NodePath, 0)?;
                let names = len32(p.names.len(), "NodePath names")?;
                self.u32(names | 0x8000_0000);
                self.count(p.subnames.len(), "NodePath subnames")?;
                self.u32(u32::from(p.absolute && !p.is_empty()));
                for s in p.names.iter().chain(&p.subnames) {
                    self.string_body(s.as_bytes())?;
                }
            }
            Variant::Rid(id) => {
                self.header(T::Rid, 0)?;
                if self.opts.version.is_godot4() {
                    self.u64(*id);
                }
            }
            Variant::Object(o) => match o {
                Object::Null => self.header(T::Nil, 0)?,
                Object::Id(id) => {
                    self.header(T::Object, FLAG_64)?;
                    self.u64(*id);
                }
                Object::Full(_) => unreachable!("full objects are encoded by `value`"),
            },
            Variant::Callable => self.header(T::Callable, 0)?,
            Variant::Signal(s) => {
                self.header(T::Signal, 0)?;
                self.string_body(s.name.as_bytes())?;
                self.u64(s.object);
            }
            Variant::Dictionary(_) | Variant::Array(_) => {
                unreachable!("containers are encoded by `value`")
            }
            Variant::PackedByteArray(b) => {
                self.header(T::PackedByteArray, 0)?;
                self.string_body(b)?;
            }
            Variant::PackedInt32Array(a) => {
                self.header(T::PackedInt32Array, 0)?;
                self.elements(a.len(), 4, "PackedInt32Array")?;
                self.i32s(a);
            }
            Variant::PackedInt64Array(a) => {
                self.header(T::PackedInt64Array, 0)?;
                self.elements(a.len(), 8, "PackedInt64Array")?;
                self.out.reserve(a.len() * 8);
                for x in a {
                    self.out.extend_from_slice(&x.to_le_bytes());
                }
            }
            Variant::PackedFloat32Array(a) => {
                self.header(T::PackedFloat32Array, 0)?;
                self.elements(a.len(), 4, "PackedFloat32Array")?;
                self.f32s(a);
            }
            Variant::PackedFloat64Array(a) => {
                self.header(T::PackedFloat64Array, 0)?;
                self.elements(a.len(), 8, "PackedFloat64Array")?;
                self.out.reserve(a.len() * 8);
                for x in a {
                    self.out.extend_from_slice(&x.to_le_bytes());
                }
            }
            Variant::PackedStringArray(a) => {
                self.header(T::PackedStringArray, 0)?;
                self.count(a.len(), "PackedStringArray")?;
                for (i, s) in a.iter().enumerate() {
                    // The engine's element length includes the C string's NUL.
                    let n = len32(s.len() + 1, "string")
                        .map_err(|e| e.within(PathSegment::Index(i)))?;
                    self.u32(n);
                    self.out.extend_from_slice(s.as_bytes());
                    self.out.push(0);
                    self.zeros(pad4(s.len() + 1));
                }
            }
            Variant::PackedVector2Array(a) => {
                self.math_array_header(T::PackedVector2Array, a.len(), 2)?;
                for x in a {
                    self.reals(&x.to_array());
                }
            }
            Variant::PackedVector3Array(a) => {
                self.math_array_header(T::PackedVector3Array, a.len(), 3)?;
                for x in a {
                    self.reals(&x.to_array());
                }
            }
            Variant::PackedVector4Array(a) => {
                self.math_array_header(T::PackedVector4Array, a.len(), 4)?;
                for x in a {
                    self.reals(&x.to_array());
                }
            }
            Variant::PackedColorArray(a) => {
                self.header(T::PackedColorArray, 0)?;
                self.elements(a.len(), 16, "PackedColorArray")?;
                self.out.reserve(a.len() * 16);
                for c in a {
                    self.f32s(&c.to_array());
                }
            }
        }
        Ok(())
    }

    fn i32s(&mut self, values: &[i32]) {
        self.out.reserve(values.len() * 4);
        for x in values {
            self.out.extend_from_slice(&x.to_le_bytes());
        }
    }

    fn f32s(&mut self, values: &[f32]) {
        self.out.reserve(values.len() * 4);
        for x in values {
            self.out.extend_from_slice(&x.to_le_bytes());
        }
    }

    /// Writes an element count whose byte size must fit the engine's int32 sizes.
    fn elements(&mut self, count: usize, size: usize, what: &'static str) -> R {
        len32(count.saturating_mul(size), what)?;
        self.u32(count as u32);
        Ok(())
    }

    fn math_array_header(&mut self, ty: VariantType, count: usize, components: usize) -> R {
        self.math_header(ty)?;
        let w = if self.wide() { 8 } else { 4 };
        self.out.reserve(count.saturating_mul(components * w));
        self.elements(count, components * w, ty.name())
    }
}

type R2 = Result<u32, EncodeError>;

/// The container type written for `t`: itself when the target version has the header field
/// (`has_field`), else untyped, as a Godot 4 engine without the field writes its typed
/// containers. Godot 3 keeps the type, so that `Writer::kind` refuses it.
fn written_type(t: &ContainerType, version: Version, has_field: bool) -> &ContainerType {
    static UNTYPED: ContainerType = ContainerType::Untyped;
    if has_field || version == Version::Godot3 {
        t
    } else {
        &UNTYPED
    }
}
