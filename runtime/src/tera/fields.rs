//! The serde form of generated structs, shared: a generated struct says its field names and how
//! to read one field, and this module does the rest (the key lookup, unknown keys, duplicates,
//! missing fields, the map and the sequence forms) once for every struct.
//!
//! What it accepts is what `#[derive(Deserialize)]` accepts for the same struct: a map whose keys
//! are the field names (unknown keys ignored, a key twice an error, a missing field an error
//! unless the struct takes defaults), or a sequence of the fields in order; generated code
//! implemented serde with the derive before, and a derive per struct cost most of a protocol
//! crate's build time.

use alloc::vec;
use alloc::vec::Vec;
use core::fmt;
use core::marker::PhantomData;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use super::TeraString;

/// Where a generated struct reads the value of one field from: the map's next value, or the
/// sequence's next element.
pub trait Source<'de> {
    /// The deserializer's error.
    type Error: de::Error;
    /// The value of the field being read.
    fn value<T: Deserialize<'de>>(&mut self) -> Result<T, Self::Error>;
}

/// A struct whose serde form is read field by field ([`deserialize_struct`]).
pub trait Fields: Default {
    /// The struct's name, for messages.
    const NAME: &'static str;
    /// The field names of the serde form, in order.
    const FIELDS: &'static [&'static str];
    /// Whether missing fields keep their defaults (`Config::serde_default`).
    const DEFAULT: bool;
    /// Reads field `index` of [`Fields::FIELDS`] from `source` into `self`.
    fn field<'de, S: Source<'de>>(&mut self, index: usize, source: &mut S) -> Result<(), S::Error>;
}

/// Deserializes a [`Fields`] struct.
pub fn deserialize_struct<'de, D: Deserializer<'de>, T: Fields>(d: D) -> Result<T, D::Error> {
    d.deserialize_struct(T::NAME, T::FIELDS, StructVisitor(PhantomData))
}

struct StructVisitor<T>(PhantomData<T>);

struct MapSource<'a, A>(&'a mut A);

impl<'de, A: MapAccess<'de>> Source<'de> for MapSource<'_, A> {
    type Error = A::Error;
    fn value<T: Deserialize<'de>>(&mut self) -> Result<T, A::Error> {
        self.0.next_value()
    }
}

struct SeqSource<'a, A> {
    seq: &'a mut A,
    index: usize,
    len: usize,
}

impl<'de, A: SeqAccess<'de>> Source<'de> for SeqSource<'_, A> {
    type Error = A::Error;
    fn value<T: Deserialize<'de>>(&mut self) -> Result<T, A::Error> {
        let v = self
            .seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(self.index, &Expected(self.len)))?;
        self.index += 1;
        Ok(v)
    }
}

/// "a struct with N fields", for a sequence too short.
struct Expected(usize);

impl de::Expected for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a struct with {} fields", self.0)
    }
}

impl<'de, T: Fields> Visitor<'de> for StructVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "struct {}", T::NAME)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
        let mut out = T::default();
        let mut seen = Seen::new(T::FIELDS.len());
        while let Some(key) = map.next_key_seed(Key(T::FIELDS))? {
            let Some(i) = key else {
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            if seen.insert(i) {
                return Err(de::Error::duplicate_field(T::FIELDS[i]));
            }
            out.field(i, &mut MapSource(&mut map))?;
        }
        if !T::DEFAULT
            && let Some(i) = seen.first_missing(T::FIELDS.len())
        {
            return Err(de::Error::missing_field(T::FIELDS[i]));
        }
        Ok(out)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<T, A::Error> {
        let mut out = T::default();
        let len = T::FIELDS.len();
        let mut source = SeqSource {
            seq: &mut seq,
            index: 0,
            len,
        };
        for i in 0..len {
            out.field(i, &mut source)?;
        }
        Ok(out)
    }
}

/// The fields read so far: a bit each, on the stack up to 128 fields.
enum Seen {
    Small(u128),
    Large(Vec<bool>),
}

impl Seen {
    fn new(len: usize) -> Self {
        if len <= 128 {
            Seen::Small(0)
        } else {
            Seen::Large(vec![false; len])
        }
    }

    /// Marks field `i`; whether it was marked already.
    fn insert(&mut self, i: usize) -> bool {
        match self {
            Seen::Small(bits) => {
                let was = *bits & (1 << i) != 0;
                *bits |= 1 << i;
                was
            }
            Seen::Large(v) => core::mem::replace(&mut v[i], true),
        }
    }

    /// The first of `len` fields not marked.
    fn first_missing(&self, len: usize) -> Option<usize> {
        match self {
            Seen::Small(bits) => (0..len).find(|&i| *bits & (1 << i) == 0),
            Seen::Large(v) => v.iter().position(|s| !s),
        }
    }
}

/// A key of a struct's map: the index of its field, `None` for a key it does not have.
struct Key(&'static [&'static str]);

impl<'de> DeserializeSeed<'de> for Key {
    type Value = Option<usize>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<usize>, D::Error> {
        d.deserialize_identifier(self)
    }
}

impl<'de> Visitor<'de> for Key {
    type Value = Option<usize>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a field name")
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Option<usize>, E> {
        Ok(usize::try_from(v).ok().filter(|&i| i < self.0.len()))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Option<usize>, E> {
        Ok(self.0.iter().position(|f| *f == v))
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Option<usize>, E> {
        Ok(self.0.iter().position(|f| f.as_bytes() == v))
    }
}

/// A `float` field (or `array<float>`) in its serde form: the f64 of each value, as JavaScript
/// shows it; read back rounded to f32, as the reference's writer does.
pub struct F64<T>(pub T);

impl Serialize for F64<&f32> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(f64::from(*self.0))
    }
}

impl Serialize for F64<&Vec<f32>> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|x| f64::from(*x)))
    }
}

impl<'de> Deserialize<'de> for F64<f32> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(F64(f64::deserialize(d)? as f32))
    }
}

impl<'de> Deserialize<'de> for F64<Vec<f32>> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Vec::<f64>::deserialize(d)?;
        Ok(F64(v.into_iter().map(|x| x as f32).collect()))
    }
}

/// A `bytes` field in its serde form: a lowercase hex string; read back in either case.
pub struct Hex<T>(pub T);

impl Serialize for Hex<&Vec<u8>> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&crate::hex::encode(self.0))
    }
}

impl<'de> Deserialize<'de> for Hex<Vec<u8>> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = alloc::string::String::deserialize(d)?;
        crate::hex::decode(&s)
            .map(Hex)
            .map_err(|e| de::Error::custom(alloc::format!("bytes: {e}")))
    }
}

/// A `string` field (or `array<string>`) in its serde form: a JSON string. Written here, not
/// taken from `compact_str`'s serde feature, which builds serde's derive macro for every user.
pub struct Str<T>(pub T);

impl Serialize for Str<&TeraString> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0)
    }
}

impl Serialize for Str<&Vec<TeraString>> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|t| t.as_str()))
    }
}

/// Reads a string into a [`TeraString`], borrowing nothing.
struct StrVisitor;

impl Visitor<'_> for StrVisitor {
    type Value = TeraString;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<TeraString, E> {
        Ok(TeraString::from(v))
    }

    fn visit_string<E: de::Error>(self, v: alloc::string::String) -> Result<TeraString, E> {
        Ok(TeraString::from(v))
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<TeraString, E> {
        core::str::from_utf8(v)
            .map(TeraString::from)
            .map_err(|_| de::Error::invalid_value(de::Unexpected::Bytes(v), &self))
    }
}

impl<'de> Deserialize<'de> for Str<TeraString> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_string(StrVisitor).map(Str)
    }
}

impl<'de> Deserialize<'de> for Str<Vec<TeraString>> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Vec::<Str<TeraString>>::deserialize(d)?;
        Ok(Str(v.into_iter().map(|s| s.0).collect()))
    }
}

/// `#[serde(with)]` for a `string` field of a struct that keeps serde's derive: the same form as
/// [`Str`].
pub mod tera_string {
    use super::*;

    /// Writes the string.
    pub fn serialize<S: Serializer>(v: &TeraString, s: S) -> Result<S::Ok, S::Error> {
        Str(v).serialize(s)
    }

    /// Reads a string.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<TeraString, D::Error> {
        Ok(Str::<TeraString>::deserialize(d)?.0)
    }
}

/// `#[serde(with)]` for an `array<string>` field, as [`tera_string`].
pub mod vec_tera_string {
    use super::*;

    /// Writes the strings.
    pub fn serialize<S: Serializer>(v: &Vec<TeraString>, s: S) -> Result<S::Ok, S::Error> {
        Str(v).serialize(s)
    }

    /// Reads strings.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<TeraString>, D::Error> {
        Ok(Str::<Vec<TeraString>>::deserialize(d)?.0)
    }
}

/// `#[serde(with)]` for a `float` field of a struct that keeps serde's derive (one whose type
/// or field attributes name serde): the same form as [`F64`].
pub mod f32_as_f64 {
    use super::*;

    /// Writes the f64 of `v`.
    pub fn serialize<S: Serializer>(v: &f32, s: S) -> Result<S::Ok, S::Error> {
        F64(v).serialize(s)
    }

    /// Reads an f64, rounded to f32.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f32, D::Error> {
        Ok(F64::<f32>::deserialize(d)?.0)
    }
}

/// `#[serde(with)]` for an `array<float>` field, as [`f32_as_f64`].
pub mod vec_f32_as_f64 {
    use super::*;

    /// Writes each as f64.
    pub fn serialize<S: Serializer>(v: &Vec<f32>, s: S) -> Result<S::Ok, S::Error> {
        F64(v).serialize(s)
    }

    /// Reads f64s, rounded to f32.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f32>, D::Error> {
        Ok(F64::<Vec<f32>>::deserialize(d)?.0)
    }
}

/// `#[serde(with)]` for a `bytes` field, as [`Hex`].
pub mod bytes_hex {
    use super::*;

    /// Writes lowercase hex.
    pub fn serialize<S: Serializer>(b: &Vec<u8>, s: S) -> Result<S::Ok, S::Error> {
        Hex(b).serialize(s)
    }

    /// Reads hex, either case.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        Ok(Hex::<Vec<u8>>::deserialize(d)?.0)
    }
}
