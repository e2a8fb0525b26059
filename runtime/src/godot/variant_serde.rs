//! serde support: [`to_variant`] / [`from_variant`] between ordinary Rust types and
//! [`Variant`] (features `godot` + `serde`).
//!
//! | Rust (serde data model) | Variant |
//! | --- | --- |
//! | `bool` | `Bool` |
//! | integers (`u64` only up to `i64::MAX`) | `Int` |
//! | `f32`, `f64` | `Float` |
//! | `char`, `str`, `String` | `String` |
//! | bytes (`serialize_bytes`: use `#[serde(with = "def_runtime::godot::variant_serde::bytes")]` on a `Vec<u8>`) | `PackedByteArray` |
//! | `None`, `()`, unit structs | `Nil` |
//! | `Some(x)`, newtype structs | the inner value |
//! | sequences, tuples, tuple structs (`Vec<T>`, `[T; N]`, `(A, B)`) | `Array` |
//! | maps | `Dictionary` (keys converted like values) |
//! | structs | `Dictionary` with `String` keys, in field order |
//! | unit enum variants | `String` (the variant name) |
//! | other enum variants | one-entry `Dictionary` `{name: payload}` |
//! | [`Vector2`], [`Vector3`], [`Color`], [`Basis`], … (every math type of this crate) | that type |
//! | [`GString`] | `String` (also when it holds code points beyond Unicode) |
//! | [`Variant`] | itself (a clone) |
//! | `Vec<T>` marked `#[serde(with = "…::variant_serde::packed_int32")]` (`packed_int64`, `packed_float32`, `packed_float64`, `packed_string`, `packed_vector2`, `packed_vector3`, `packed_vector4`, `packed_color`) | that packed array |
//!
//! To other serde formats the math types are their component lists in wire order
//! (`Vector3` → `[x, y, z]`), a [`GString`] beyond Unicode its code points, and a [`Variant`]
//! its typed JSON form ([`super::json`]); all read back the same way.
//!
//! Every nesting level runs on a stack grown on demand, so values as deep as the engine allows
//! (1024 levels) convert on any thread.
//!
//! A plain `Vec<u8>` is a sequence and becomes an `Array` of ints; mark it with the `bytes`
//! module to get a `PackedByteArray`. [`from_variant`] accepts more than [`to_variant`]
//! writes: `StringName` and `NodePath` (as text) for strings, packed arrays and math types
//! (as their components) for sequences, an `Array` of ints for bytes, `Int` for floats,
//! `RID` and object ids as `u64`, a `Signal` as its name, a full object as a map of its
//! properties.

use std::fmt;

use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{self, Serialize};

use super::error::key_label;
use super::value::{deeper, *};
use crate::path::{PathSegment, ValuePath};

/// A conversion failure between a Rust value and a Variant: serde's message and the path to
/// the value inside nested containers (`[2].name`; the root for the value as a whole).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SerdeError {
    message: String,
    path: ValuePath,
}

impl SerdeError {
    #[cold]
    fn new(message: impl Into<String>) -> SerdeError {
        SerdeError {
            message: message.into(),
            path: ValuePath::default(),
        }
    }

    #[cold]
    fn within(mut self, seg: PathSegment) -> SerdeError {
        self.path.push_outer(seg);
        self
    }

    /// What did not convert (serde's message).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Where inside nested containers.
    pub fn path(&self) -> &ValuePath {
        &self.path
    }
}

impl fmt::Display for SerdeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.path.is_empty() {
            write!(f, "in `{}`: ", self.path)?;
        }
        write!(f, "{}", crate::clip::Clip(&self.message, crate::clip::TEXT))
    }
}

impl std::error::Error for SerdeError {}

impl ser::Error for SerdeError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        SerdeError::new(msg.to_string())
    }
}

impl de::Error for SerdeError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        SerdeError::new(msg.to_string())
    }
}

/// Converts a Rust value to a Variant.
///
/// Every nesting level passes through here and runs on a stack grown on demand, so values as
/// deep as the engine allows (1024 levels) convert on any thread.
pub fn to_variant<T: Serialize + ?Sized>(value: &T) -> Result<Variant, SerdeError> {
    deeper(|| value.serialize(VariantSerializer))
}

/// Converts a Variant to a Rust value (strings and bytes may be borrowed from `v`).
/// Like [`to_variant`], any depth up to the engine's 1024 levels works on any thread.
pub fn from_variant<'de, T: de::Deserialize<'de>>(v: &'de Variant) -> Result<T, SerdeError> {
    deeper(|| T::deserialize(VariantDeserializer(v)))
}

/// Serializes `value` to Godot's binary form in one call ([`to_variant`], then
/// [`encode`](super::encode)); a value that does not convert is
/// [`EncodeErrorKind::Serde`](super::EncodeErrorKind::Serde).
pub fn to_bytes<T: Serialize + ?Sized>(
    value: &T,
    options: super::EncodeOptions,
) -> Result<Vec<u8>, super::EncodeError> {
    let v = to_variant(value).map_err(|e| {
        super::EncodeError::new(super::EncodeErrorKind::Serde(e.message)).with_path(e.path)
    })?;
    super::encode(&v, options)
}

/// Deserializes a `T` from Godot's binary form in one call ([`decode_exact`](super::decode_exact),
/// then [`from_variant`]); bytes that decode to a value that does not convert are
/// [`DecodeErrorKind::Serde`](super::DecodeErrorKind::Serde) at offset 0 (the whole value) with
/// the path to the value that did not convert.
pub fn from_bytes<T: de::DeserializeOwned>(
    bytes: &[u8],
    options: super::DecodeOptions,
) -> Result<T, super::DecodeError> {
    let v = super::decode_exact(bytes, options)?;
    from_variant(&v).map_err(|e| {
        super::DecodeError::new(super::DecodeErrorKind::Serde(e.message), 0, options.version)
            .with_path(e.path)
    })
}

/// `seed.deserialize` one nesting level down, on a stack grown on demand.
fn nested<'de, T: DeserializeSeed<'de>>(seed: T, v: &'de Variant) -> Result<T::Value, SerdeError> {
    deeper(|| seed.deserialize(VariantDeserializer(v)))
}

/// `#[serde(with = "def_runtime::godot::variant_serde::bytes")]`: a byte buffer as `PackedByteArray`.
pub mod bytes {
    use std::fmt;

    use serde::de::{self, SeqAccess, Visitor};
    use serde::{Deserializer, Serializer};

    /// Serializes with `serialize_bytes`.
    pub fn serialize<T: AsRef<[u8]> + ?Sized, S: Serializer>(
        v: &T,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(v.as_ref())
    }

    /// Deserializes from bytes (or a sequence of small ints).
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Vec<u8>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Vec<u8>, E> {
                Ok(v.to_vec())
            }
            fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
                Ok(v)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u8>, A::Error> {
                let mut out = Vec::new();
                while let Some(b) = seq.next_element::<u8>()? {
                    out.push(b);
                }
                Ok(out)
            }
        }
        d.deserialize_byte_buf(V)
    }
}

/// The newtype name under which a [`GString`] that is not text passes through serde, its code
/// points inside: [`to_variant`] makes it a `String` again, other formats see the `u32` list.
const GSTRING_TOKEN: &str = "$def_runtime::godot::GString";

/// The `String` a code-point Array stands for (see [`GSTRING_TOKEN`]).
fn code_points_string(v: &Variant) -> Result<GString, SerdeError> {
    let Variant::Array(a) = v else {
        return Err(SerdeError::new(
            "a GString's code points must be a sequence",
        ));
    };
    let points: Option<Vec<u32>> = a
        .items
        .iter()
        .map(|x| match x {
            Variant::Int(i) => u32::try_from(*i).ok(),
            _ => None,
        })
        .collect();
    let points = points.ok_or_else(|| SerdeError::new("a GString's code points must be u32"))?;
    GString::from_code_points(points)
        .map_err(|cp| SerdeError::new(format!("code point {cp:#x} is beyond any Godot string")))
}

/// Text as a `str`; other strings as their code points inside a newtype only [`to_variant`]
/// knows (so that they stay strings there), a `u32` sequence elsewhere.
impl Serialize for GString {
    fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.as_str() {
            Some(t) => s.serialize_str(t),
            None => {
                s.serialize_newtype_struct(GSTRING_TOKEN, &self.code_points().collect::<Vec<u32>>())
            }
        }
    }
}

/// From a string, or from a sequence of code points (what [`Serialize`] writes for a string
/// that is not Unicode).
impl<'de> de::Deserialize<'de> for GString {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<GString, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = GString;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string, or its code points")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<GString, E> {
                Ok(GString::from(v))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<GString, E> {
                Ok(GString::from(v))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<GString, A::Error> {
                let mut points = Vec::new();
                while let Some(cp) = seq.next_element::<u32>()? {
                    points.push(cp);
                }
                GString::from_code_points(points).map_err(|cp| {
                    de::Error::custom(format!("code point {cp:#x} is beyond any Godot string"))
                })
            }
            fn visit_newtype_struct<D: de::Deserializer<'de>>(
                self,
                d: D,
            ) -> Result<GString, D::Error> {
                <GString as de::Deserialize>::deserialize(d)
            }
        }
        d.deserialize_any(V)
    }
}

/// Newtype names `TYPE_PREFIX` + a Godot type name (`"Vector3"`, `"PackedInt32Array"`): the
/// math types and the packed-array helpers below pass their components under such a name, so
/// that [`to_variant`] makes that type of them; other formats see the plain component list.
const TYPE_PREFIX: &str = "$def_runtime::godot::";

/// The newtype name under which a [`Variant`] passes through serde: [`to_variant`] /
/// [`from_variant`] take the value as it is, other formats see its typed JSON form.
const VARIANT_TOKEN: &str = "$def_runtime::godot::Variant";

thread_local! {
    /// Set by [`to_variant`] while a [`Variant`] serializes itself: it then hands itself over.
    static CAPTURE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// The value handed over, in either direction.
    static HANDED: std::cell::RefCell<Option<Variant>> = const { std::cell::RefCell::new(None) };
}

/// The Variant of `ty` whose components (or elements) `inner` lists, read as the typed JSON form
/// reads its `value` (ints, floats, strings, component lists).
fn typed_components(ty: VariantType, inner: &Variant) -> Result<Variant, SerdeError> {
    // Lists stay lists; anything else is the `value` of its typed JSON form.
    fn plain(v: &Variant) -> Result<serde_json::Value, SerdeError> {
        Ok(match v {
            Variant::Array(a) => {
                serde_json::Value::Array(a.items.iter().map(plain).collect::<Result<_, _>>()?)
            }
            other => match super::json::to_json(other) {
                serde_json::Value::Object(mut m) => m.remove("value").unwrap_or_default(),
                _ => serde_json::Value::Null,
            },
        })
    }
    let mut m = serde_json::Map::new();
    m.insert("type".into(), ty.name().into());
    m.insert("value".into(), plain(inner)?);
    super::json::from_json(&serde_json::Value::Object(m))
        .map_err(|e| SerdeError::new(format!("as {ty}: {e}")))
}

/// A value as itself: [`to_variant`] gives it back unchanged (a clone), other serializers get
/// its typed JSON form ([`super::json::Typed`]).
impl Serialize for Variant {
    fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_newtype_struct(VARIANT_TOKEN, &Handoff(self))
    }
}

/// What a [`Variant`] serializes inside its newtype: itself to [`to_variant`], else its typed JSON.
struct Handoff<'v>(&'v Variant);

impl Serialize for Handoff<'_> {
    fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if CAPTURE.with(|c| c.replace(false)) {
            HANDED.with(|h| h.replace(Some(self.0.clone())));
            return s.serialize_unit();
        }
        super::json::Typed(self.0).serialize(s)
    }
}

/// A value as itself from [`from_variant`], else from its typed JSON form
/// ([`super::json::from_json`]).
impl<'de> de::Deserialize<'de> for Variant {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Variant, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Variant;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a Godot value in its typed JSON form")
            }
            fn visit_newtype_struct<D: de::Deserializer<'de>>(
                self,
                d: D,
            ) -> Result<Variant, D::Error> {
                if let Some(v) = HANDED.with(|h| h.take()) {
                    return Ok(v);
                }
                let json = <serde_json::Value as de::Deserialize>::deserialize(d)?;
                super::json::from_json(&json).map_err(de::Error::custom)
            }
        }
        d.deserialize_newtype_struct(VARIANT_TOKEN, V)
    }
}

macro_rules! serde_components {
    ($($ty:ident: [$elem:ty; $n:literal] = $to:expr, $from:expr;)+) => {$(
        #[doc = concat!(
            "The components in wire order (`[", stringify!($elem), "; ", stringify!($n),
            "]`); [`to_variant`] makes a `", stringify!($ty), "` of them."
        )]
        impl Serialize for $ty {
            fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let to: fn(&$ty) -> [$elem; $n] = $to;
                s.serialize_newtype_struct(concat!("$def_runtime::godot::", stringify!($ty)), &to(self))
            }
        }

        #[doc = concat!("From its components in wire order (`[", stringify!($elem), "; ", stringify!($n), "]`).")]
        impl<'de> de::Deserialize<'de> for $ty {
            fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<$ty, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $ty;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        write!(f, "{} components of a {}", $n, stringify!($ty))
                    }
                    fn visit_newtype_struct<D: de::Deserializer<'de>>(
                        self,
                        d: D,
                    ) -> Result<$ty, D::Error> {
                        let from: fn([$elem; $n]) -> $ty = $from;
                        <[$elem; $n] as de::Deserialize>::deserialize(d).map(from)
                    }
                    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<$ty, A::Error> {
                        let from: fn([$elem; $n]) -> $ty = $from;
                        <[$elem; $n] as de::Deserialize>::deserialize(
                            de::value::SeqAccessDeserializer::new(seq),
                        )
                        .map(from)
                    }
                }
                d.deserialize_newtype_struct(concat!("$def_runtime::godot::", stringify!($ty)), V)
            }
        }
    )+};
}

serde_components! {
    Vector2: [Real; 2] = Vector2::to_array, Vector2::from_array;
    Vector3: [Real; 3] = Vector3::to_array, Vector3::from_array;
    Vector4: [Real; 4] = Vector4::to_array, Vector4::from_array;
    Rect2: [Real; 4] = Rect2::to_array, Rect2::from_array;
    Plane: [Real; 4] = Plane::to_array, Plane::from_array;
    Quaternion: [Real; 4] = Quaternion::to_array, Quaternion::from_array;
    Aabb: [Real; 6] = Aabb::to_array, Aabb::from_array;
    Transform2D: [Real; 6] = Transform2D::to_array, Transform2D::from_array;
    Basis: [Real; 9] = Basis::to_array, Basis::from_array;
    Transform3D: [Real; 12] = Transform3D::to_array, Transform3D::from_array;
    Projection: [Real; 16] = Projection::to_array, Projection::from_array;
    Color: [f32; 4] = Color::to_array, Color::from_array;
    Vector2i: [i32; 2] = |v| [v.x, v.y], |[x, y]| Vector2i { x, y };
    Vector3i: [i32; 3] = |v| [v.x, v.y, v.z], |[x, y, z]| Vector3i { x, y, z };
    Vector4i: [i32; 4] = |v| [v.x, v.y, v.z, v.w], |[x, y, z, w]| Vector4i { x, y, z, w };
    Rect2i: [i32; 4] = |v| [v.x, v.y, v.w, v.h], |[x, y, w, h]| Rect2i { x, y, w, h };
}

macro_rules! packed_helpers {
    ($($module:ident: $ty:ident of $elem:literal;)+) => {$(
        #[doc = concat!(
            "`#[serde(with = \"def_runtime::godot::variant_serde::", stringify!($module),
            "\")]` on a `Vec` of ", $elem, ": [`to_variant`](super::to_variant) makes a `",
            stringify!($ty), "` of it instead of an `Array`; other formats see a plain sequence."
        )]
        pub mod $module {
            use serde::{Deserialize, Deserializer, Serialize, Serializer};

            /// Serializes the elements under the packed type's name.
            pub fn serialize<T: Serialize, S: Serializer>(v: &[T], s: S) -> Result<S::Ok, S::Error> {
                s.serialize_newtype_struct(concat!("$def_runtime::godot::", stringify!($ty)), v)
            }

            /// Deserializes the elements (from the packed type, an `Array`, or any sequence).
            pub fn deserialize<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
                d: D,
            ) -> Result<Vec<T>, D::Error> {
                Vec::<T>::deserialize(d)
            }
        }
    )+};
}

packed_helpers! {
    packed_int32: PackedInt32Array of "`i32` (or smaller ints)";
    packed_int64: PackedInt64Array of "`i64` (Godot 4)";
    packed_float32: PackedFloat32Array of "`f32`";
    packed_float64: PackedFloat64Array of "`f64` (Godot 4)";
    packed_string: PackedStringArray of "`String` or [`GString`](super::GString)";
    packed_vector2: PackedVector2Array of "[`Vector2`](super::Vector2)";
    packed_vector3: PackedVector3Array of "[`Vector3`](super::Vector3)";
    packed_vector4: PackedVector4Array of "[`Vector4`](super::Vector4) (Godot 4.3+)";
    packed_color: PackedColorArray of "[`Color`](super::Color)";
}

/// The serializer behind [`to_variant`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct VariantSerializer;

type SR = Result<Variant, SerdeError>;

fn single(name: &str, v: Variant) -> Variant {
    Variant::dictionary(vec![(Variant::string(name), v)])
}

impl ser::Serializer for VariantSerializer {
    type Ok = Variant;
    type Error = SerdeError;
    type SerializeSeq = SeqBuilder;
    type SerializeTuple = SeqBuilder;
    type SerializeTupleStruct = SeqBuilder;
    type SerializeTupleVariant = SeqBuilder;
    type SerializeMap = MapBuilder;
    type SerializeStruct = MapBuilder;
    type SerializeStructVariant = MapBuilder;

    fn serialize_bool(self, v: bool) -> SR {
        Ok(Variant::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> SR {
        Ok(Variant::Int(v.into()))
    }
    fn serialize_i16(self, v: i16) -> SR {
        Ok(Variant::Int(v.into()))
    }
    fn serialize_i32(self, v: i32) -> SR {
        Ok(Variant::Int(v.into()))
    }
    fn serialize_i64(self, v: i64) -> SR {
        Ok(Variant::Int(v))
    }
    fn serialize_u8(self, v: u8) -> SR {
        Ok(Variant::Int(v.into()))
    }
    fn serialize_u16(self, v: u16) -> SR {
        Ok(Variant::Int(v.into()))
    }
    fn serialize_u32(self, v: u32) -> SR {
        Ok(Variant::Int(v.into()))
    }
    fn serialize_u64(self, v: u64) -> SR {
        i64::try_from(v)
            .map(Variant::Int)
            .map_err(|_| SerdeError::new(format!("{v} does not fit Godot's 64-bit signed int")))
    }
    fn serialize_f32(self, v: f32) -> SR {
        Ok(Variant::Float(v.into()))
    }
    fn serialize_f64(self, v: f64) -> SR {
        Ok(Variant::Float(v))
    }
    fn serialize_char(self, v: char) -> SR {
        Ok(Variant::string(v.to_string()))
    }
    fn serialize_str(self, v: &str) -> SR {
        Ok(Variant::string(v))
    }
    fn serialize_bytes(self, v: &[u8]) -> SR {
        Ok(Variant::PackedByteArray(v.to_vec()))
    }
    fn serialize_none(self) -> SR {
        Ok(Variant::Nil)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> SR {
        to_variant(value)
    }
    fn serialize_unit(self) -> SR {
        Ok(Variant::Nil)
    }
    fn serialize_unit_struct(self, _name: &'static str) -> SR {
        Ok(Variant::Nil)
    }
    fn serialize_unit_variant(self, _name: &'static str, _index: u32, variant: &'static str) -> SR {
        Ok(Variant::string(variant))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, name: &'static str, value: &T) -> SR {
        if name == VARIANT_TOKEN {
            // `Variant`'s own Serialize hands the value over (see `Handoff`).
            CAPTURE.with(|c| c.set(true));
            let r = value.serialize(VariantSerializer);
            CAPTURE.with(|c| c.set(false));
            r?;
            return HANDED
                .with(|h| h.take())
                .ok_or_else(|| SerdeError::new("a Variant newtype without its value"));
        }
        let inner = to_variant(value)?;
        if name == GSTRING_TOKEN {
            return code_points_string(&inner).map(Variant::String);
        }
        if let Some(ty) = name
            .strip_prefix(TYPE_PREFIX)
            .and_then(VariantType::from_name)
        {
            return typed_components(ty, &inner);
        }
        Ok(inner)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> SR {
        Ok(single(variant, to_variant(value)?))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<SeqBuilder, SerdeError> {
        Ok(SeqBuilder {
            items: Vec::with_capacity(len.unwrap_or(0).min(4096)),
            variant: None,
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<SeqBuilder, SerdeError> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<SeqBuilder, SerdeError> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<SeqBuilder, SerdeError> {
        let mut b = self.serialize_seq(Some(len))?;
        b.variant = Some(variant);
        Ok(b)
    }
    fn serialize_map(self, len: Option<usize>) -> Result<MapBuilder, SerdeError> {
        Ok(MapBuilder {
            entries: Vec::with_capacity(len.unwrap_or(0).min(4096)),
            key: None,
            variant: None,
        })
    }
    fn serialize_struct(self, _name: &'static str, len: usize) -> Result<MapBuilder, SerdeError> {
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<MapBuilder, SerdeError> {
        let mut b = self.serialize_map(Some(len))?;
        b.variant = Some(variant);
        Ok(b)
    }
}

/// Collects sequence elements into an `Array`.
#[derive(Debug)]
pub(crate) struct SeqBuilder {
    items: Vec<Variant>,
    variant: Option<&'static str>,
}

impl SeqBuilder {
    fn push<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), SerdeError> {
        let at = self.items.len();
        self.items
            .push(to_variant(value).map_err(|e| e.within(PathSegment::Index(at)))?);
        Ok(())
    }
    fn done(self) -> SR {
        let array = Variant::array(self.items);
        Ok(match self.variant {
            Some(name) => single(name, array),
            None => array,
        })
    }
}

impl ser::SerializeSeq for SeqBuilder {
    type Ok = Variant;
    type Error = SerdeError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), SerdeError> {
        self.push(value)
    }
    fn end(self) -> SR {
        self.done()
    }
}

impl ser::SerializeTuple for SeqBuilder {
    type Ok = Variant;
    type Error = SerdeError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), SerdeError> {
        self.push(value)
    }
    fn end(self) -> SR {
        self.done()
    }
}

impl ser::SerializeTupleStruct for SeqBuilder {
    type Ok = Variant;
    type Error = SerdeError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), SerdeError> {
        self.push(value)
    }
    fn end(self) -> SR {
        self.done()
    }
}

impl ser::SerializeTupleVariant for SeqBuilder {
    type Ok = Variant;
    type Error = SerdeError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), SerdeError> {
        self.push(value)
    }
    fn end(self) -> SR {
        self.done()
    }
}

/// Collects map entries or struct fields into a `Dictionary`.
#[derive(Debug)]
pub(crate) struct MapBuilder {
    entries: Vec<(Variant, Variant)>,
    key: Option<Variant>,
    variant: Option<&'static str>,
}

impl MapBuilder {
    fn done(self) -> SR {
        let dict = Variant::dictionary(self.entries);
        Ok(match self.variant {
            Some(name) => single(name, dict),
            None => dict,
        })
    }
}

impl ser::SerializeMap for MapBuilder {
    type Ok = Variant;
    type Error = SerdeError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), SerdeError> {
        self.key = Some(to_variant(key)?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), SerdeError> {
        let key = self
            .key
            .take()
            .ok_or_else(|| SerdeError::new("map value without a key"))?;
        let value = to_variant(value).map_err(|e| e.within(PathSegment::Key(key_label(&key))))?;
        self.entries.push((key, value));
        Ok(())
    }
    fn end(self) -> SR {
        self.done()
    }
}

impl ser::SerializeStruct for MapBuilder {
    type Ok = Variant;
    type Error = SerdeError;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), SerdeError> {
        let value = to_variant(value).map_err(|e| e.within(PathSegment::Field(key.into())))?;
        self.entries.push((Variant::string(key), value));
        Ok(())
    }
    fn end(self) -> SR {
        self.done()
    }
}

impl ser::SerializeStructVariant for MapBuilder {
    type Ok = Variant;
    type Error = SerdeError;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), SerdeError> {
        let value = to_variant(value).map_err(|e| e.within(PathSegment::Field(key.into())))?;
        self.entries.push((Variant::string(key), value));
        Ok(())
    }
    fn end(self) -> SR {
        self.done()
    }
}

/// The deserializer behind [`from_variant`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct VariantDeserializer<'de>(pub &'de Variant);

fn seq_of<'de, I, V>(items: I, visitor: V) -> Result<V::Value, SerdeError>
where
    I: Iterator,
    I::Item: IntoDeserializer<'de, SerdeError>,
    V: Visitor<'de>,
{
    let mut seq = de::value::SeqDeserializer::new(items);
    let value = visitor.visit_seq(&mut seq)?;
    seq.end()?;
    Ok(value)
}

impl<'de> de::Deserializer<'de> for VariantDeserializer<'de> {
    type Error = SerdeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        match self.0 {
            Variant::Nil | Variant::Callable | Variant::Object(Object::Null) => {
                visitor.visit_unit()
            }
            Variant::Bool(b) => visitor.visit_bool(*b),
            Variant::Int(i) => visitor.visit_i64(*i),
            Variant::Float(f) => visitor.visit_f64(*f),
            Variant::String(s) | Variant::StringName(s) => StrDe(s).deserialize_any(visitor),
            Variant::NodePath(p) => visitor.visit_string(p.to_string()),
            Variant::Rid(id) | Variant::Object(Object::Id(id)) => visitor.visit_u64(*id),
            Variant::Signal(s) => visitor.visit_borrowed_str(&s.name),
            Variant::PackedByteArray(b) => visitor.visit_borrowed_bytes(b),
            Variant::Array(a) => visitor.visit_seq(Seq(a.items.iter().enumerate())),
            Variant::Dictionary(d) => visitor.visit_map(Map {
                iter: d.entries.iter(),
                value: None,
            }),
            Variant::Object(Object::Full(o)) => visitor.visit_map(Props {
                iter: o.properties.iter(),
                value: None,
            }),
            Variant::Vector2(x) => seq_of(x.to_array().into_iter(), visitor),
            Variant::Vector3(x) => seq_of(x.to_array().into_iter(), visitor),
            Variant::Vector4(x) => seq_of(x.to_array().into_iter(), visitor),
            Variant::Rect2(x) => seq_of(x.to_array().into_iter(), visitor),
            Variant::Plane(x) => seq_of(x.to_array().into_iter(), visitor),
            Variant::Quaternion(x) => seq_of(x.to_array().into_iter(), visitor),
            Variant::Aabb(x) => seq_of(x.to_array().into_iter(), visitor),
            Variant::Transform2D(x) => seq_of(x.0.into_iter(), visitor),
            Variant::Basis(x) => seq_of(x.0.into_iter(), visitor),
            Variant::Transform3D(x) => seq_of(x.0.into_iter(), visitor),
            Variant::Projection(x) => seq_of(x.0.into_iter(), visitor),
            Variant::Color(c) => seq_of(c.to_array().into_iter(), visitor),
            Variant::Vector2i(v) => seq_of([v.x, v.y].into_iter(), visitor),
            Variant::Vector3i(v) => seq_of([v.x, v.y, v.z].into_iter(), visitor),
            Variant::Vector4i(v) => seq_of([v.x, v.y, v.z, v.w].into_iter(), visitor),
            Variant::Rect2i(v) => seq_of([v.x, v.y, v.w, v.h].into_iter(), visitor),
            Variant::PackedInt32Array(a) => seq_of(a.iter().copied(), visitor),
            Variant::PackedInt64Array(a) => seq_of(a.iter().copied(), visitor),
            Variant::PackedFloat32Array(a) => seq_of(a.iter().copied(), visitor),
            Variant::PackedFloat64Array(a) => seq_of(a.iter().copied(), visitor),
            Variant::PackedStringArray(a) => seq_of(a.iter().map(StrDe), visitor),
            Variant::PackedVector2Array(a) => {
                seq_of(a.iter().map(|x| x.to_array().to_vec()), visitor)
            }
            Variant::PackedVector3Array(a) => {
                seq_of(a.iter().map(|x| x.to_array().to_vec()), visitor)
            }
            Variant::PackedVector4Array(a) => {
                seq_of(a.iter().map(|x| x.to_array().to_vec()), visitor)
            }
            Variant::PackedColorArray(a) => {
                seq_of(a.iter().map(|x| x.to_array().to_vec()), visitor)
            }
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        match self.0 {
            Variant::Nil | Variant::Object(Object::Null) => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, SerdeError> {
        if name == VARIANT_TOKEN {
            // `Variant`'s own Deserialize takes the value as it is (see `HANDED`).
            HANDED.with(|h| h.replace(Some(self.0.clone())));
            let r = visitor.visit_newtype_struct(self);
            HANDED.with(|h| h.take());
            return r;
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, SerdeError> {
        match self.0 {
            Variant::String(s) | Variant::StringName(s) => {
                visitor.visit_enum(variant_name(s)?.into_deserializer())
            }
            Variant::Dictionary(d) if d.entries.len() == 1 => {
                let (k, v) = &d.entries[0];
                match k {
                    Variant::String(name) | Variant::StringName(name) => visitor.visit_enum(Enum {
                        name: variant_name(name)?,
                        value: v,
                    }),
                    _ => Err(SerdeError::new("enum variant name must be a String")),
                }
            }
            other => Err(SerdeError::new(format!(
                "expected an enum (String or one-entry Dictionary), found {}",
                other.variant_type()
            ))),
        }
    }

    /// A `PackedByteArray` read as a sequence (a plain `Vec<u8>`) yields its bytes.
    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        match self.0 {
            Variant::PackedByteArray(b) => seq_of(b.iter().copied(), visitor),
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, SerdeError> {
        self.deserialize_seq(visitor)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct tuple_struct map struct identifier ignored_any
    }
}

fn variant_name(s: &GString) -> Result<&str, SerdeError> {
    s.as_str()
        .ok_or_else(|| SerdeError::new(format!("enum variant name {s:?} is not Unicode")))
}

/// A [`GString`] as serde data: a borrowed `str` when it is text, else its code points (`u32`
/// sequence), which [`GString`]'s `Deserialize` reads back and a Rust `String` refuses.
#[derive(Clone, Copy)]
struct StrDe<'de>(&'de GString);

impl<'de> de::Deserializer<'de> for StrDe<'de> {
    type Error = SerdeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        match self.0.as_str() {
            Some(t) => visitor.visit_borrowed_str(t),
            None => seq_of(self.0.code_points(), visitor),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map struct
        enum identifier ignored_any
    }
}

impl<'de> IntoDeserializer<'de, SerdeError> for StrDe<'de> {
    type Deserializer = Self;
    fn into_deserializer(self) -> Self {
        self
    }
}

struct Seq<'de>(std::iter::Enumerate<std::slice::Iter<'de, Variant>>);

impl<'de> SeqAccess<'de> for Seq<'de> {
    type Error = SerdeError;
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, SerdeError> {
        self.0
            .next()
            .map(|(i, v)| nested(seed, v).map_err(|e| e.within(PathSegment::Index(i))))
            .transpose()
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

struct Map<'de> {
    iter: std::slice::Iter<'de, (Variant, Variant)>,
    value: Option<&'de (Variant, Variant)>,
}

impl<'de> MapAccess<'de> for Map<'de> {
    type Error = SerdeError;
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, SerdeError> {
        match self.iter.next() {
            Some(entry) => {
                self.value = Some(entry);
                nested(seed, &entry.0)
                    .map(Some)
                    .map_err(|e| e.within(PathSegment::Key(key_label(&entry.0))))
            }
            None => Ok(None),
        }
    }
    fn next_value_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<T::Value, SerdeError> {
        let (k, v) = self
            .value
            .take()
            .ok_or_else(|| SerdeError::new("map value requested before its key"))?;
        nested(seed, v).map_err(|e| e.within(PathSegment::Key(key_label(k))))
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

struct Props<'de> {
    iter: std::slice::Iter<'de, (String, Variant)>,
    value: Option<&'de (String, Variant)>,
}

impl<'de> MapAccess<'de> for Props<'de> {
    type Error = SerdeError;
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, SerdeError> {
        match self.iter.next() {
            Some(entry) => {
                self.value = Some(entry);
                seed.deserialize(de::value::BorrowedStrDeserializer::new(&entry.0))
                    .map(Some)
            }
            None => Ok(None),
        }
    }
    fn next_value_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<T::Value, SerdeError> {
        let (name, v) = self
            .value
            .take()
            .ok_or_else(|| SerdeError::new("property value requested before its name"))?;
        nested(seed, v).map_err(|e| e.within(PathSegment::Field(name.clone().into())))
    }
}

struct Enum<'de> {
    name: &'de str,
    value: &'de Variant,
}

impl<'de> de::EnumAccess<'de> for Enum<'de> {
    type Error = SerdeError;
    type Variant = VariantAccess<'de>;
    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, VariantAccess<'de>), SerdeError> {
        let name = seed.deserialize(de::value::BorrowedStrDeserializer::<SerdeError>::new(
            self.name,
        ))?;
        Ok((name, VariantAccess(self.value)))
    }
}

struct VariantAccess<'de>(&'de Variant);

impl<'de> de::VariantAccess<'de> for VariantAccess<'de> {
    type Error = SerdeError;
    fn unit_variant(self) -> Result<(), SerdeError> {
        Ok(())
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> Result<T::Value, SerdeError> {
        nested(seed, self.0)
    }
    fn tuple_variant<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, SerdeError> {
        deeper(|| de::Deserializer::deserialize_any(VariantDeserializer(self.0), visitor))
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, SerdeError> {
        deeper(|| de::Deserializer::deserialize_any(VariantDeserializer(self.0), visitor))
    }
}
