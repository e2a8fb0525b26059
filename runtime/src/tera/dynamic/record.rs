//! The compact value of a decoded packet: a [`Record`] is one buffer holding an *image* of each
//! level (the packet body, and every element of its object-arrays), read in place through
//! [`RecordRef`], [`ValueRef`] and [`ArrayRef`].
//!
//! An image is the level's runs of fixed fields as they stand on the wire (scalars at their
//! size, little-endian, so a run is copied in one piece), with its metadata cleared and each
//! `bool` made 0 or 1 (a record holds values), followed by an 8-byte *entry* per variable field: the start of its data in the buffer and its length
//! (`u32` each, little-endian). The data of a `string` is its UTF-8; of `bytes`, the bytes; of
//! an `array<T>`, the elements in their wire form one after the other; of an `array<string>`,
//! an entry per element, then the texts; of an object-array, the images of its elements one
//! after the other, then what they hold. A field's place in its image is in the plan
//! ([`Field::place`](super::plan::Field)). Decoding a packet thus allocates one buffer (a
//! `Vec<Value>` per level and a vector per array and long string cost most of the time), and
//! encoding one copies its runs back.
//!
//! A record is made only by decoding or by [`Definition::record`](super::Definition::record),
//! both from its plan, which it keeps (an `Arc` shared with its definition): its images always
//! have the places the plan gives, so reading them cannot go out of bounds.

use std::fmt;
use std::sync::Arc;

use def_parser::ast::Scalar;

use super::plan::{Kind, LevelPlan};
use super::value::{Array, Records, Value, for_scalars};
use crate::tera::TeraString;
use crate::tera::wire::Fixed;

/// Bytes of a variable field's entry in an image: the start of its data and its length.
pub(super) const ENTRY: usize = 8;

/// The entry at `at`: where a variable field's data starts, and its length (bytes of a string
/// or `bytes`, elements of an array).
#[inline(always)]
pub(super) fn entry(data: &[u8], at: usize) -> (usize, usize) {
    let e: &[u8; ENTRY] = data[at..at + ENTRY].try_into().expect("8 bytes");
    (
        u32::from_le_bytes([e[0], e[1], e[2], e[3]]) as usize,
        u32::from_le_bytes([e[4], e[5], e[6], e[7]]) as usize,
    )
}

/// Writes the entry at `at`.
#[inline(always)]
pub(super) fn set_entry(data: &mut [u8], at: usize, start: usize, len: usize) {
    let e = &mut data[at..at + ENTRY];
    e[..4].copy_from_slice(&(start as u32).to_le_bytes());
    e[4..].copy_from_slice(&(len as u32).to_le_bytes());
}

/// A decoded packet body (or one built from [`Value`]s): the values of every field, in one
/// buffer, read in place. Its definition's names are shared with it, not copied.
///
/// ```
/// use def_runtime::tera::Options;
/// use def_runtime::tera::dynamic::{Definition, Missing, ValueRef};
/// let def = Definition::from_text(
///     "S_EXAMPLE.1.def",
///     "string name\nint32 level\narray items\n- int32 id\n",
///     def_parser::Mode::Compatible,
/// )?;
/// let json = serde_json::json!({"name": "Hi", "level": 7, "items": [{"id": 1}, {"id": 3}]});
/// let bytes = def.encode(&json, 0x1234, Options::new(), Missing::Error)?;
///
/// let record = def.decode(&bytes, Options::new())?;
/// assert_eq!(record.field("level"), Some(ValueRef::Int32(7)));
/// assert_eq!(record.field("name"), Some(ValueRef::String("Hi")));
/// let Some(ValueRef::Array(items)) = record.field("items") else { unreachable!() };
/// let ids: Vec<_> = items.iter().filter_map(|e| e.element()?.field("id")).collect();
/// assert_eq!(ids, [ValueRef::Int32(1), ValueRef::Int32(3)]);
/// assert_eq!(record.to_json(), json);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct Record {
    pub(super) plan: Arc<LevelPlan>,
    pub(super) data: Vec<u8>,
}

impl Record {
    /// The fields of the packet body.
    pub fn as_ref(&self) -> RecordRef<'_> {
        RecordRef {
            plan: &self.plan,
            data: &self.data,
            base: 0,
        }
    }
    /// Number of fields.
    pub fn len(&self) -> usize {
        self.plan.fields.len()
    }
    /// Whether the packet has no field.
    pub fn is_empty(&self) -> bool {
        self.plan.fields.is_empty()
    }
    /// The value of field `i` (in the order of [`Definition::fields`](super::Definition::fields)).
    pub fn get(&self, i: usize) -> Option<ValueRef<'_>> {
        self.as_ref().get(i)
    }
    /// The value of the field with dotted name `name` (`reaction.loc`).
    pub fn field(&self, name: &str) -> Option<ValueRef<'_>> {
        self.as_ref().field(name)
    }
    /// The fields' dotted names and values, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, ValueRef<'_>)> {
        self.as_ref().iter()
    }
    /// The values in their owned form, one per field (to change, then
    /// [`Definition::record`](super::Definition::record)).
    pub fn to_values(&self) -> Vec<Value> {
        self.as_ref().to_values()
    }
    /// The JSON object of the packet, in the form TERA Toolbox logs (a value NaN is `null`,
    /// as serde_json has no NaN).
    pub fn to_json(&self) -> serde_json::Value {
        self.as_ref().to_json()
    }
}

impl PartialEq for Record {
    /// The same values (of fields in the same places; names are not compared).
    fn eq(&self, other: &Self) -> bool {
        self.as_ref() == other.as_ref()
    }
}

impl fmt::Debug for Record {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.as_ref().fmt(f)
    }
}

/// The fields of one level of a [`Record`]: the packet body, or an element of an object-array.
#[derive(Clone, Copy)]
pub struct RecordRef<'r> {
    plan: &'r LevelPlan,
    data: &'r [u8],
    /// Where the level's image starts in `data`.
    base: usize,
}

impl<'r> RecordRef<'r> {
    /// Number of fields.
    pub fn len(&self) -> usize {
        self.plan.fields.len()
    }
    /// Whether the level has no field.
    pub fn is_empty(&self) -> bool {
        self.plan.fields.is_empty()
    }
    /// The value of field `i`.
    pub fn get(&self, i: usize) -> Option<ValueRef<'r>> {
        let f = self.plan.fields.get(i)?;
        let at = self.base + f.place;
        Some(match &f.kind {
            Kind::Scalar(ty) => scalar(*ty, &self.data[at..]),
            Kind::String => {
                let (start, len) = entry(self.data, at);
                ValueRef::String(text(&self.data[start..start + len]))
            }
            Kind::Bytes => {
                let (start, len) = entry(self.data, at);
                ValueRef::Bytes(&self.data[start..start + len])
            }
            kind => {
                let (start, len) = entry(self.data, at);
                ValueRef::Array(ArrayRef {
                    kind,
                    data: self.data,
                    start,
                    len,
                })
            }
        })
    }
    /// The value of the field with dotted name `name` (from this level).
    pub fn field(&self, name: &str) -> Option<ValueRef<'r>> {
        let i = self.plan.field(name)?;
        self.get(i)
    }
    /// The fields' dotted names and values, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&'r str, ValueRef<'r>)> + use<'r> {
        let this = *self;
        (0..this.len()).map(move |i| {
            let v = this.get(i).expect("i < len");
            (&*this.plan.fields[i].name, v)
        })
    }
    /// The JSON object of the level.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::Value::Object(super::json::record_json(*self))
    }

    /// The plan of the level.
    pub(super) fn plan(&self) -> &'r LevelPlan {
        self.plan
    }

    /// The values in their owned form, one per field.
    pub fn to_values(&self) -> Vec<Value> {
        let mut out = Vec::with_capacity(self.len());
        self.values_into(&mut out);
        out
    }

    fn values_into(&self, out: &mut Vec<Value>) {
        for i in 0..self.len() {
            out.push(self.get(i).expect("i < len").to_value());
        }
    }
}

impl PartialEq for RecordRef<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && (0..self.len()).all(|i| self.get(i) == other.get(i))
    }
}

impl fmt::Debug for RecordRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// A string's data, which only decoding (from UTF-16) and building (from a `&str`) write.
pub(super) fn text(b: &[u8]) -> &str {
    match std::str::from_utf8(b) {
        Ok(s) => s,
        Err(_) => unreachable!("a record's strings are written as UTF-8"),
    }
}

macro_rules! value_refs {
    ($(($v:ident, $t:ty)),*) => {
        /// The value of one field, read in place from a [`Record`].
        #[derive(Debug, Clone, Copy, PartialEq)]
        pub enum ValueRef<'r> {
            $(
                #[doc = concat!("`", stringify!($v), "`.")]
                $v($t),
            )*
            /// `string`.
            String(&'r str),
            /// `bytes`.
            Bytes(&'r [u8]),
            /// `array` or `array<T>`.
            Array(ArrayRef<'r>),
            /// An element of an object-array (only an [`ArrayRef`]'s values are).
            Element(RecordRef<'r>),
        }

        /// The scalar of type `ty` at the start of `b`.
        #[inline]
        fn scalar(ty: Scalar, b: &[u8]) -> ValueRef<'_> {
            match ty {
                $(Scalar::$v => ValueRef::$v(<$t as Fixed>::read(b)),)*
            }
        }

        impl ValueRef<'_> {
            /// The value in its owned form; an element of an object-array (which has no
            /// [`Value`] of its own: its array is an [`Array::Object`]) gives its fields as an
            /// array of one element.
            pub fn to_value(&self) -> Value {
                match *self {
                    $(ValueRef::$v(x) => Value::$v(x),)*
                    ValueRef::String(s) => Value::String(TeraString::from(s)),
                    ValueRef::Bytes(b) => Value::Bytes(b.to_vec()),
                    ValueRef::Array(a) => Value::Array(a.to_array()),
                    ValueRef::Element(e) => Value::Array(Array::Object(Records::of_plan(
                        e.len(),
                        1,
                        e.plan.owning,
                        e.to_values(),
                    ))),
                }
            }
        }

        impl<'r> ArrayRef<'r> {
            /// The elements in their owned form.
            pub fn to_array(&self) -> Array {
                match self.kind {
                    $(Kind::Array(Scalar::$v) => Array::$v(
                        (0..self.len).map(|i| <$t as Fixed>::read(&self.data[self.start + i * <$t as Fixed>::SIZE..])).collect(),
                    ),)*
                    Kind::Strings => Array::String(
                        self.iter().map(|v| match v {
                            ValueRef::String(s) => TeraString::from(s),
                            _ => unreachable!("an array<string> holds strings"),
                        }).collect(),
                    ),
                    Kind::Objects(elem) => {
                        let mut values = Vec::with_capacity(self.len * elem.fields.len());
                        for i in 0..self.len {
                            self.element(elem, i).values_into(&mut values);
                        }
                        Array::Object(Records::of_plan(elem.fields.len(), self.len as u32, elem.owning, values))
                    }
                    Kind::Scalar(_) | Kind::String | Kind::Bytes => unreachable!("an ArrayRef is of an array field"),
                }
            }
        }
    };
}
for_scalars!(value_refs);

impl<'r> ValueRef<'r> {
    /// The fields of an element of an object-array.
    pub fn element(&self) -> Option<RecordRef<'r>> {
        match self {
            ValueRef::Element(e) => Some(*e),
            _ => None,
        }
    }
}

/// The elements of an `array` or `array<T>` field of a [`Record`].
#[derive(Clone, Copy)]
pub struct ArrayRef<'r> {
    /// The field's kind (an array's).
    kind: &'r Kind,
    data: &'r [u8],
    /// Where the elements' data starts in `data`.
    start: usize,
    len: usize,
}

impl<'r> ArrayRef<'r> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether there is no element.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Element `i`: a scalar, a [`ValueRef::String`], or an object-array's
    /// [`ValueRef::Element`].
    pub fn get(&self, i: usize) -> Option<ValueRef<'r>> {
        if i >= self.len {
            return None;
        }
        Some(match self.kind {
            Kind::Array(ty) => scalar(*ty, &self.data[self.start + i * ty.size()..]),
            Kind::Strings => {
                let (start, len) = entry(self.data, self.start + i * ENTRY);
                ValueRef::String(text(&self.data[start..start + len]))
            }
            Kind::Objects(elem) => ValueRef::Element(self.element(elem, i)),
            Kind::Scalar(_) | Kind::String | Kind::Bytes => {
                unreachable!("an ArrayRef is of an array field")
            }
        })
    }
    /// The elements in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = ValueRef<'r>> + use<'r> {
        let this = *self;
        (0..this.len).map(move |i| this.get(i).expect("i < len"))
    }

    fn element(&self, elem: &'r LevelPlan, i: usize) -> RecordRef<'r> {
        RecordRef {
            plan: elem,
            data: self.data,
            base: self.start + i * elem.image,
        }
    }
}

impl PartialEq for ArrayRef<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

impl fmt::Debug for ArrayRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}
