//! serde support: derive your own types from NBT and back (features `nbt` + `serde`).
//!
//! Values go through the owned tree: [`to_tag`] serialises any `Serialize` type into a [`Tag`],
//! [`from_tag`] deserialises from one, and [`to_bytes`] / [`from_bytes`] add the binary step.
//!
//! Mapping (NBT has only signed integers, so unsigned ones widen to the next signed tag):
//!
//! | Rust | NBT |
//! |---|---|
//! | `bool`, `i8` | byte |
//! | `i16`, `u8` | short (`u8` widened) |
//! | `i32`, `u16` | int |
//! | `i64`, `u32`, `u64` (if it fits) | long |
//! | `f32` / `f64` | float / double |
//! | `String`, `char`, unit variants | string |
//! | `Vec<T>`, tuples | list (elements must share a tag type) |
//! | [`ByteArray`], [`IntArray`], [`LongArray`], `serde_bytes`-style bytes | the array tags |
//! | structs, maps with string keys, `Option::Some` | compound / the inner value |
//! | `None` | field left out |
//! | newtype/tuple/struct variants | compound `{Variant: value}` |
//!
//! Reading is lenient the way serde's primitive visitors are: an integer tag deserialises into
//! any Rust integer type it fits, a byte into `bool`, any array or list into a `Vec`.

use std::borrow::Cow;

use serde::de::{self, DeserializeOwned, IntoDeserializer, Visitor};
use serde::ser::{self, Serialize};
use serde::{Deserialize, Deserializer, Serializer};

use super::error::{NbtError, NbtErrorKind, Result};
use super::flavor::Edition;
use super::read::{ReadOptions, decode};
use super::tag::{Compound, List, Nbt, NbtString, Tag};
use super::vec::NbtVec;
use super::view::TagView;

impl ser::Error for NbtError {
    fn custom<T: std::fmt::Display>(msg: T) -> NbtError {
        NbtError::from(NbtErrorKind::Serde(msg.to_string()))
    }
}

impl de::Error for NbtError {
    fn custom<T: std::fmt::Display>(msg: T) -> NbtError {
        NbtError::from(NbtErrorKind::Serde(msg.to_string()))
    }
}

#[cold]
fn err(msg: impl Into<String>) -> NbtError {
    NbtError::from(NbtErrorKind::Serde(msg.into()))
}

const BYTE_ARRAY: &str = "__nbt_byte_array";
const INT_ARRAY: &str = "__nbt_int_array";
const LONG_ARRAY: &str = "__nbt_long_array";

macro_rules! array_newtype {
    ($(#[$doc:meta])* $name:ident, $elem:ty, $magic:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug, Default, PartialEq, Eq)]
        pub struct $name(pub Vec<$elem>);

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
                s.serialize_newtype_struct($magic, &self.0)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
                d.deserialize_newtype_struct($magic, NewtypeVisitor::<$elem>(Default::default()))
                    .map($name)
            }
        }
    };
}

array_newtype!(
    /// A `Vec<i8>` that serialises as `TAG_Byte_Array` (a plain `Vec<i8>` is a list of bytes).
    ByteArray, i8, BYTE_ARRAY
);
array_newtype!(
    /// A `Vec<i32>` that serialises as `TAG_Int_Array` (a plain `Vec<i32>` is a list of ints).
    IntArray, i32, INT_ARRAY
);
array_newtype!(
    /// A `Vec<i64>` that serialises as `TAG_Long_Array` (a plain `Vec<i64>` is a list of longs).
    LongArray, i64, LONG_ARRAY
);

struct NewtypeVisitor<T>(std::marker::PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for NewtypeVisitor<T> {
    type Value = Vec<T>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an NBT array")
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(
        self,
        d: D,
    ) -> std::result::Result<Vec<T>, D::Error> {
        Vec::<T>::deserialize(d)
    }
    fn visit_seq<A: de::SeqAccess<'de>>(self, mut a: A) -> std::result::Result<Vec<T>, A::Error> {
        let mut v = Vec::new();
        while let Some(x) = a.next_element()? {
            v.push(x);
        }
        Ok(v)
    }
}

/// Serialises a value into a tag.
pub fn to_tag<T: Serialize + ?Sized>(value: &T) -> Result<Tag> {
    value
        .serialize(TagSerializer)?
        .ok_or_else(|| err("a top-level None has no NBT form"))
}

/// Deserialises a value from a borrowed tag (nothing is cloned; `&str` fields may borrow
/// from the tree). For a sub-value reached by a path or a list element, use [`from_view`].
pub fn from_tag<'de, T: Deserialize<'de>>(tag: &'de Tag) -> Result<T> {
    T::deserialize(TagDeserializer(tag.view()))
}

/// Deserialises a value from a borrowed view, e.g. `from_view(root.get_path("Level")?)`.
pub fn from_view<'de, T: Deserialize<'de>>(view: TagView<'de>) -> Result<T> {
    T::deserialize(TagDeserializer(view))
}

/// Serialises a value as a named root (name `""`) in `edition`. The value must serialise to a
/// compound (a struct or map).
pub fn to_bytes<T: Serialize + ?Sized>(value: &T, edition: Edition) -> Result<Vec<u8>> {
    Nbt::named("", to_tag(value)?).encode(edition)
}

/// Deserialises a value from one root of uncompressed binary NBT (the root name is ignored).
pub fn from_bytes<T: DeserializeOwned>(data: &[u8], opts: ReadOptions) -> Result<T> {
    let (nbt, _) = decode(data, opts)?;
    from_tag(&nbt.tag)
}

// ---------------------------------------------------------------- Serialize for the tree

impl Serialize for NbtString {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_str_lossy())
    }
}

impl Serialize for Tag {
    /// The natural data model: numbers, strings, sequences for lists and arrays (the array
    /// tags through [`ByteArray`]-style newtypes, so [`to_tag`] gives the same tag back),
    /// maps for compounds.
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        self.view().serialize(s)
    }
}

impl Serialize for TagView<'_> {
    /// As [`Tag`]'s.
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match *self {
            TagView::Byte(v) => s.serialize_i8(v),
            TagView::Short(v) => s.serialize_i16(v),
            TagView::Int(v) => s.serialize_i32(v),
            TagView::Long(v) => s.serialize_i64(v),
            TagView::Float(v) => s.serialize_f32(v),
            TagView::Double(v) => s.serialize_f64(v),
            TagView::ByteArray(v) => s.serialize_newtype_struct(BYTE_ARRAY, v),
            TagView::IntArray(v) => s.serialize_newtype_struct(INT_ARRAY, v),
            TagView::LongArray(v) => s.serialize_newtype_struct(LONG_ARRAY, v),
            TagView::String(v) => v.serialize(s),
            TagView::List(l) => {
                use ser::SerializeSeq;
                let mut seq = s.serialize_seq(Some(l.len()))?;
                for t in l.iter() {
                    seq.serialize_element(&t)?;
                }
                seq.end()
            }
            TagView::Compound(c) => c.serialize(s),
        }
    }
}

impl Serialize for Compound {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.len()))?;
        for (k, v) in self.iter() {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

// ---------------------------------------------------------------- Serializer

/// Serialises into `Option<Tag>`: `None` for a `None` value (left out of compounds).
struct TagSerializer;

struct SeqBuilder {
    items: Vec<Tag>,
}

struct MapBuilder {
    c: Compound,
    key: Option<NbtString>,
    /// For struct/tuple variants: the variant name wrapping the result.
    variant: Option<&'static str>,
}

struct VariantSeq {
    seq: SeqBuilder,
    variant: &'static str,
}

fn list_of(items: Vec<Tag>) -> Result<Tag> {
    List::from_tags(items)
        .map(Tag::List)
        .ok_or_else(|| err("list elements must all have the same NBT type"))
}

fn wrap(variant: &str, t: Tag) -> Tag {
    Tag::Compound(Compound::new().with(variant, t))
}

impl Serializer for TagSerializer {
    type Ok = Option<Tag>;
    type Error = NbtError;
    type SerializeSeq = SeqBuilder;
    type SerializeTuple = SeqBuilder;
    type SerializeTupleStruct = SeqBuilder;
    type SerializeTupleVariant = VariantSeq;
    type SerializeMap = MapBuilder;
    type SerializeStruct = MapBuilder;
    type SerializeStructVariant = MapBuilder;

    fn serialize_bool(self, v: bool) -> Result<Option<Tag>> {
        Ok(Some(Tag::Byte(v as i8)))
    }
    fn serialize_i8(self, v: i8) -> Result<Option<Tag>> {
        Ok(Some(Tag::Byte(v)))
    }
    fn serialize_i16(self, v: i16) -> Result<Option<Tag>> {
        Ok(Some(Tag::Short(v)))
    }
    fn serialize_i32(self, v: i32) -> Result<Option<Tag>> {
        Ok(Some(Tag::Int(v)))
    }
    fn serialize_i64(self, v: i64) -> Result<Option<Tag>> {
        Ok(Some(Tag::Long(v)))
    }
    fn serialize_u8(self, v: u8) -> Result<Option<Tag>> {
        Ok(Some(Tag::Short(v as i16)))
    }
    fn serialize_u16(self, v: u16) -> Result<Option<Tag>> {
        Ok(Some(Tag::Int(v as i32)))
    }
    fn serialize_u32(self, v: u32) -> Result<Option<Tag>> {
        Ok(Some(Tag::Long(v as i64)))
    }
    fn serialize_u64(self, v: u64) -> Result<Option<Tag>> {
        i64::try_from(v)
            .map(|v| Some(Tag::Long(v)))
            .map_err(|_| err("u64 above i64::MAX has no NBT form"))
    }
    fn serialize_f32(self, v: f32) -> Result<Option<Tag>> {
        Ok(Some(Tag::Float(v)))
    }
    fn serialize_f64(self, v: f64) -> Result<Option<Tag>> {
        Ok(Some(Tag::Double(v)))
    }
    fn serialize_char(self, v: char) -> Result<Option<Tag>> {
        Ok(Some(Tag::String(NbtString::from(v.to_string()))))
    }
    fn serialize_str(self, v: &str) -> Result<Option<Tag>> {
        Ok(Some(Tag::String(NbtString::from(v))))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Option<Tag>> {
        Ok(Some(Tag::ByteArray(v.iter().map(|&b| b as i8).collect())))
    }
    fn serialize_none(self) -> Result<Option<Tag>> {
        Ok(None)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<Option<Tag>> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<Option<Tag>> {
        Ok(Some(Tag::Compound(Compound::new())))
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Option<Tag>> {
        self.serialize_unit()
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        v: &'static str,
    ) -> Result<Option<Tag>> {
        self.serialize_str(v)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        v: &T,
    ) -> Result<Option<Tag>> {
        let inner = v.serialize(TagSerializer)?;
        let Some(Tag::List(l)) = (match name {
            BYTE_ARRAY | INT_ARRAY | LONG_ARRAY => inner,
            _ => return Ok(inner),
        }) else {
            return Err(err("array newtype must hold a sequence"));
        };
        Ok(Some(match (name, l) {
            (BYTE_ARRAY, List::Byte(v)) => Tag::ByteArray(v),
            (INT_ARRAY, List::Int(v)) => Tag::IntArray(v),
            (LONG_ARRAY, List::Long(v)) => Tag::LongArray(v),
            (BYTE_ARRAY, List::End) => Tag::ByteArray(NbtVec::new()),
            (INT_ARRAY, List::End) => Tag::IntArray(NbtVec::new()),
            (LONG_ARRAY, List::End) => Tag::LongArray(NbtVec::new()),
            _ => return Err(err("array newtype holds elements of the wrong type")),
        }))
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        v: &T,
    ) -> Result<Option<Tag>> {
        Ok(Some(wrap(
            variant,
            v.serialize(TagSerializer)?
                .unwrap_or(Tag::Compound(Compound::new())),
        )))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<SeqBuilder> {
        Ok(SeqBuilder {
            items: Vec::with_capacity(len.unwrap_or(0).min(4096)),
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<SeqBuilder> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<SeqBuilder> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<VariantSeq> {
        Ok(VariantSeq {
            seq: self.serialize_seq(Some(len))?,
            variant,
        })
    }
    fn serialize_map(self, _: Option<usize>) -> Result<MapBuilder> {
        Ok(MapBuilder {
            c: Compound::new(),
            key: None,
            variant: None,
        })
    }
    fn serialize_struct(self, _: &'static str, len: usize) -> Result<MapBuilder> {
        Ok(MapBuilder {
            c: Compound::with_capacity(len),
            key: None,
            variant: None,
        })
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<MapBuilder> {
        Ok(MapBuilder {
            c: Compound::with_capacity(len),
            key: None,
            variant: Some(variant),
        })
    }
}

impl SeqBuilder {
    fn push<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<()> {
        let at = self.items.len();
        let t = v
            .serialize(TagSerializer)
            .and_then(|t| t.ok_or_else(|| err("None inside a list has no NBT form")))
            .map_err(|e| e.in_index(at))?;
        self.items.push(t);
        Ok(())
    }
}

macro_rules! seq_impl {
    ($tr:ident, $m:ident) => {
        impl ser::$tr for SeqBuilder {
            type Ok = Option<Tag>;
            type Error = NbtError;
            fn $m<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<()> {
                self.push(v)
            }
            fn end(self) -> Result<Option<Tag>> {
                list_of(self.items).map(Some)
            }
        }
    };
}
seq_impl!(SerializeSeq, serialize_element);
seq_impl!(SerializeTuple, serialize_element);
seq_impl!(SerializeTupleStruct, serialize_field);

impl ser::SerializeTupleVariant for VariantSeq {
    type Ok = Option<Tag>;
    type Error = NbtError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<()> {
        self.seq.push(v)
    }
    fn end(self) -> Result<Option<Tag>> {
        Ok(Some(wrap(self.variant, list_of(self.seq.items)?)))
    }
}

impl MapBuilder {
    fn field<T: Serialize + ?Sized>(&mut self, key: NbtString, v: &T) -> Result<()> {
        if let Some(t) = v
            .serialize(TagSerializer)
            .map_err(|e| e.in_key(key.as_mutf8()))?
        {
            self.c.entries_mut().push((key, t));
        }
        Ok(())
    }
    fn finish(self) -> Option<Tag> {
        let t = Tag::Compound(self.c);
        Some(match self.variant {
            Some(v) => wrap(v, t),
            None => t,
        })
    }
}

impl ser::SerializeMap for MapBuilder {
    type Ok = Option<Tag>;
    type Error = NbtError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, k: &T) -> Result<()> {
        match k.serialize(TagSerializer)? {
            Some(Tag::String(s)) => self.key = Some(s),
            Some(t) => {
                let n = t
                    .as_i64()
                    .ok_or_else(|| err("compound keys must be strings or integers"))?;
                self.key = Some(NbtString::from(n.to_string()));
            }
            None => return Err(err("a None key has no NBT form")),
        }
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<()> {
        let k = self
            .key
            .take()
            .ok_or_else(|| err("map value without a key"))?;
        self.field(k, v)
    }
    fn end(self) -> Result<Option<Tag>> {
        Ok(self.finish())
    }
}

impl ser::SerializeStruct for MapBuilder {
    type Ok = Option<Tag>;
    type Error = NbtError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, k: &'static str, v: &T) -> Result<()> {
        self.field(NbtString::from(k), v)
    }
    fn end(self) -> Result<Option<Tag>> {
        Ok(self.finish())
    }
}

impl ser::SerializeStructVariant for MapBuilder {
    type Ok = Option<Tag>;
    type Error = NbtError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, k: &'static str, v: &T) -> Result<()> {
        self.field(NbtString::from(k), v)
    }
    fn end(self) -> Result<Option<Tag>> {
        Ok(self.finish())
    }
}

// ---------------------------------------------------------------- Deserializer

/// Deserialises from a borrowed value (a tag or a list element): nothing is cloned, and
/// strings that are valid UTF-8 as stored are lent to `&str` fields.
pub struct TagDeserializer<'de>(pub TagView<'de>);

fn text<'de, V: Visitor<'de>>(s: &'de NbtString, v: V) -> Result<V::Value> {
    match s.to_str() {
        Some(Cow::Borrowed(b)) => v.visit_borrowed_str(b),
        Some(Cow::Owned(o)) => v.visit_string(o),
        None => Err(err("string is not valid Unicode")),
    }
}

fn key_string(s: &NbtString) -> Result<String> {
    s.to_str()
        .map(Cow::into_owned)
        .ok_or_else(|| err("string is not valid Unicode"))
}

impl<'de> IntoDeserializer<'de, NbtError> for &'de Tag {
    type Deserializer = TagDeserializer<'de>;
    fn into_deserializer(self) -> TagDeserializer<'de> {
        TagDeserializer(self.view())
    }
}

impl<'de> IntoDeserializer<'de, NbtError> for TagView<'de> {
    type Deserializer = TagDeserializer<'de>;
    fn into_deserializer(self) -> TagDeserializer<'de> {
        TagDeserializer(self)
    }
}

struct SeqAccess<I>(I, usize);

impl<'de, I: Iterator<Item = TagView<'de>>> de::SeqAccess<'de> for SeqAccess<I> {
    type Error = NbtError;
    fn next_element_seed<T: de::DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>> {
        match self.0.next() {
            Some(t) => {
                let at = self.1;
                self.1 += 1;
                seed.deserialize(TagDeserializer(t))
                    .map(Some)
                    .map_err(|e| e.in_index(at))
            }
            None => Ok(None),
        }
    }
    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint().1
    }
}

struct MapAccess<'de> {
    it: std::slice::Iter<'de, (NbtString, Tag)>,
    value: Option<&'de (NbtString, Tag)>,
}

impl<'de> de::MapAccess<'de> for MapAccess<'de> {
    type Error = NbtError;
    fn next_key_seed<K: de::DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        match self.it.next() {
            Some(entry) => {
                self.value = Some(entry);
                seed.deserialize(KeyDeserializer(&entry.0)).map(Some)
            }
            None => Ok(None),
        }
    }
    fn next_value_seed<V: de::DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let (k, v) = self.value.take().ok_or_else(|| err("value without key"))?;
        seed.deserialize(TagDeserializer(v.view()))
            .map_err(|e| e.in_key(k.as_mutf8()))
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.it.len())
    }
}

/// A compound key: a string, borrowed when it can be.
struct KeyDeserializer<'de>(&'de NbtString);

impl<'de> Deserializer<'de> for KeyDeserializer<'de> {
    type Error = NbtError;
    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        text(self.0, v)
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

struct EnumAccess<'de>(&'de NbtString, Option<TagView<'de>>);

impl<'de> de::EnumAccess<'de> for EnumAccess<'de> {
    type Error = NbtError;
    type Variant = VariantAccess<'de>;
    fn variant_seed<V: de::DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, VariantAccess<'de>)> {
        let v = seed.deserialize(de::value::StringDeserializer::<NbtError>::new(key_string(
            self.0,
        )?))?;
        Ok((v, VariantAccess(self.1)))
    }
}

struct VariantAccess<'de>(Option<TagView<'de>>);

impl<'de> de::VariantAccess<'de> for VariantAccess<'de> {
    type Error = NbtError;
    fn unit_variant(self) -> Result<()> {
        Ok(())
    }
    fn newtype_variant_seed<T: de::DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        seed.deserialize(TagDeserializer(
            self.0.ok_or_else(|| err("expected a variant value"))?,
        ))
    }
    fn tuple_variant<V: Visitor<'de>>(self, _: usize, v: V) -> Result<V::Value> {
        TagDeserializer(self.0.ok_or_else(|| err("expected a variant list"))?).deserialize_any(v)
    }
    fn struct_variant<V: Visitor<'de>>(self, _: &'static [&'static str], v: V) -> Result<V::Value> {
        TagDeserializer(self.0.ok_or_else(|| err("expected a variant compound"))?)
            .deserialize_any(v)
    }
}

impl<'de> Deserializer<'de> for TagDeserializer<'de> {
    type Error = NbtError;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        match self.0 {
            TagView::Byte(x) => v.visit_i8(x),
            TagView::Short(x) => v.visit_i16(x),
            TagView::Int(x) => v.visit_i32(x),
            TagView::Long(x) => v.visit_i64(x),
            TagView::Float(x) => v.visit_f32(x),
            TagView::Double(x) => v.visit_f64(x),
            TagView::String(s) => text(s, v),
            TagView::ByteArray(a) => v.visit_seq(SeqAccess(a.iter().map(|&x| TagView::Byte(x)), 0)),
            TagView::IntArray(a) => v.visit_seq(SeqAccess(a.iter().map(|&x| TagView::Int(x)), 0)),
            TagView::LongArray(a) => v.visit_seq(SeqAccess(a.iter().map(|&x| TagView::Long(x)), 0)),
            TagView::List(l) => v.visit_seq(SeqAccess(l.iter(), 0)),
            TagView::Compound(c) => v.visit_map(MapAccess {
                it: c.entries().iter(),
                value: None,
            }),
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        match self.0 {
            TagView::Byte(x) => v.visit_bool(x != 0),
            other => TagDeserializer(other).deserialize_any(v),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        v.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        v: V,
    ) -> Result<V::Value> {
        v.visit_newtype_struct(self)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        match self.0 {
            TagView::ByteArray(a) => v.visit_byte_buf(a.iter().map(|&b| b as u8).collect()),
            other => TagDeserializer(other).deserialize_any(v),
        }
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        self.deserialize_bytes(v)
    }

    fn deserialize_unit<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        v.visit_unit()
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(self, _: &'static str, v: V) -> Result<V::Value> {
        v.visit_unit()
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        v: V,
    ) -> Result<V::Value> {
        match self.0 {
            TagView::String(s) => v.visit_enum(EnumAccess(s, None)),
            TagView::Compound(c) if c.len() == 1 => {
                let (k, t) = &c.entries()[0];
                v.visit_enum(EnumAccess(k, Some(t.view())))
            }
            _ => Err(err("expected an enum (string or one-entry compound)")),
        }
    }

    serde::forward_to_deserialize_any! {
        i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        seq tuple tuple_struct map struct identifier ignored_any
    }
}
