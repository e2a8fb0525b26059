//! The compact value of a decoded packet: a [`Record`] holds one [`Value`] per field of its
//! level, in the order of [`Definition::fields`](super::Definition::fields); names are the
//! definition's, not repeated in the value; scalars keep their exact wire value (the types of
//! [`crate::tera::values`]), strings of up to 24 bytes are inline ([`TeraString`]), arrays of a
//! fixed type are plain vectors, and the elements of an object-array lie in one vector.

use crate::tera::TeraString;

/// Calls `$m!` with every scalar type of the `.def` language as `(Variant, RustType)`: the one
/// list from which [`Value`], [`Array`] and the plan's reads, writes and JSON conversions are
/// made (the variant names are [`def_parser::ast::Scalar`]'s).
macro_rules! for_scalars {
    ($m:ident) => {
        $m! {
            (Bool, bool),
            (Byte, u8),
            (Int16, i16),
            (UInt16, u16),
            (Int32, i32),
            (UInt32, u32),
            (Int64, i64),
            (UInt64, u64),
            (Float, f32),
            (Double, f64),
            (Angle, $crate::tera::values::Angle),
            (Vec3, $crate::tera::values::Vec3),
            (Vec3fa, $crate::tera::values::Vec3fa),
            (SkillId32, $crate::tera::values::SkillId32),
            (SkillId, $crate::tera::values::SkillId),
            (Customize, $crate::tera::values::Customize)
        }
    };
}
pub(crate) use for_scalars;

macro_rules! value_enums {
    ($(($v:ident, $t:ty)),*) => {
        /// The value of one field.
        #[derive(Debug, Clone, PartialEq)]
        pub enum Value {
            $(
                #[doc = concat!("`", stringify!($v), "`.")]
                $v($t),
            )*
            /// `string`.
            String(TeraString),
            /// `bytes`.
            Bytes(Vec<u8>),
            /// `array` or `array<T>`.
            Array(Array),
        }

        /// The elements of an `array` or `array<T>`.
        #[derive(Debug, Clone, PartialEq)]
        pub enum Array {
            $(
                #[doc = concat!("`array<", stringify!($v), ">`.")]
                $v(Vec<$t>),
            )*
            /// `array<string>`.
            String(Vec<TeraString>),
            /// `array` of objects.
            Object(Records),
        }

        impl Array {
            /// Number of elements.
            pub fn len(&self) -> usize {
                match self {
                    $(Array::$v(v) => v.len(),)*
                    Array::String(v) => v.len(),
                    Array::Object(r) => r.len(),
                }
            }
        }
    };
}
for_scalars!(value_enums);

impl Array {
    /// Whether it has no element.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The fields of one level (the packet body): one value per field.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Record(pub(super) Vec<Value>);

impl Record {
    /// A record of these field values (checked against the definition when encoded).
    pub fn new(values: Vec<Value>) -> Self {
        Record(values)
    }
    /// The field values.
    pub fn values(&self) -> &[Value] {
        &self.0
    }
    /// The field values, to change.
    pub fn values_mut(&mut self) -> &mut [Value] {
        &mut self.0
    }
    /// The field values, owned.
    pub fn into_values(self) -> Vec<Value> {
        self.0
    }
}

/// The elements of an object-array: `width` field values each, one after the other in one
/// vector (one allocation for the whole array rather than one per element).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Records {
    // u32, not usize: a `Value` is 32 bytes rather than 40 (a count is at most 65535; a width,
    // the fields of one level of a `.def`).
    pub(super) width: u32,
    pub(super) len: u32,
    pub(super) values: Vec<Value>,
}

impl Records {
    /// `len` elements of `width` fields each, from their values laid end to end; `None` unless
    /// there are `len * width` values.
    pub fn new(width: usize, len: usize, values: Vec<Value>) -> Option<Self> {
        let (w, l) = (u32::try_from(width).ok()?, u32::try_from(len).ok()?);
        (width.checked_mul(len) == Some(values.len())).then_some(Records {
            width: w,
            len: l,
            values,
        })
    }
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len as usize
    }
    /// Whether there is no element.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Fields per element.
    pub fn width(&self) -> usize {
        self.width as usize
    }
    /// The field values of element `i`.
    pub fn get(&self, i: usize) -> Option<&[Value]> {
        let w = self.width();
        (i < self.len()).then(|| &self.values[i * w..(i + 1) * w])
    }
    /// The elements in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &[Value]> {
        let w = self.width();
        (0..self.len()).map(move |i| &self.values[i * w..(i + 1) * w])
    }
}

#[cfg(test)]
mod tests {
    /// A record's values are 32 bytes each (a string inline, a vector, or a scalar up to 12
    /// bytes, and the tag in a niche).
    #[test]
    fn a_value_is_32_bytes() {
        assert_eq!(size_of::<super::Value>(), 32);
    }
}
