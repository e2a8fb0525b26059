//! Values of the dynamic codec in their owned, editable form: a [`Value`] per field of a level,
//! in the order of [`Definition::fields`](super::Definition::fields); names are the
//! definition's, not repeated in the value; scalars keep their exact wire value (the types of
//! [`crate::tera::values`]), strings of up to 24 bytes are inline ([`TeraString`]), arrays of a
//! fixed type are plain vectors, and the elements of an object-array lie in one vector. A
//! decoded packet is a [`Record`](super::Record), which gives them
//! ([`Record::to_values`](super::Record::to_values)) and is built from them
//! ([`Definition::record`](super::Definition::record)).

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

/// The elements of an object-array: `width` field values each, one after the other in one
/// allocation (one for the whole array rather than one per element).
///
/// Dropping walks only the values that can own memory: every value of a column before the first
/// that can (`owning`, kept beside the values) owns nothing, so only the columns from there on are
/// dropped one by one and the rest is freed as it lies. Values made from a plan (a record's
/// `to_values`, JSON) take that column from it (the first field that is not a scalar),
/// [`Records::new`] finds it in the values; the values
/// cannot be changed afterwards, so it stays true. Decided over a flag for "no value owns
/// memory" (which would help only arrays of scalars alone): the corpus puts its strings and
/// arrays after the scalars, so an element of a hundred fields with a name at the end walks one.
#[derive(Clone, Default)]
pub struct Records {
    values: Box<[Value]>,
    // u32, not usize: a `Value` stays 32 bytes (a count is at most 65535; a width, the fields of
    // one level of a `.def`).
    width: u32,
    len: u32,
    /// The first column whose values may own memory (`width` if none may).
    owning: u32,
    _niche: Niche,
}

/// A byte with one valid value: the tags of [`Array`] and [`Value`] are kept in its invalid
/// ones, so a `Records` (a boxed slice, which has almost no invalid values, and three `u32`)
/// still fits a `Value` in 32 bytes.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
#[repr(u8)]
enum Niche {
    #[default]
    Zero = 0,
}

/// Whether a value can own memory (a string, even short enough to be inline, counts).
fn owns(v: &Value) -> bool {
    matches!(v, Value::String(_) | Value::Bytes(_) | Value::Array(_))
}

impl Records {
    /// `len` elements of `width` fields each, from their values laid end to end; `None` unless
    /// there are `len * width` values.
    pub fn new(width: usize, len: usize, values: Vec<Value>) -> Option<Self> {
        let (w, l) = (u32::try_from(width).ok()?, u32::try_from(len).ok()?);
        if width.checked_mul(len) != Some(values.len()) {
            return None;
        }
        let owning = match width {
            0 => 0,
            _ => values
                .chunks_exact(width)
                .filter_map(|e| e.iter().position(owns))
                .min()
                .unwrap_or(width),
        };
        Some(Records {
            values: values.into_boxed_slice(),
            width: w,
            len: l,
            owning: owning as u32,
            _niche: Niche::Zero,
        })
    }

    /// `len` elements of `width` fields from a plan, whose fields before `owning` are scalars
    /// (so are their values; checked in debug builds). `values.len()` is `width * len`.
    pub(super) fn of_plan(width: usize, len: u32, owning: usize, values: Vec<Value>) -> Self {
        debug_assert_eq!(values.len(), width * len as usize);
        debug_assert!(owning <= width);
        debug_assert!(
            width == 0
                || values
                    .chunks_exact(width)
                    .all(|e| !e[..owning].iter().any(owns))
        );
        Records {
            values: values.into_boxed_slice(),
            width: width as u32,
            len,
            owning: owning as u32,
            _niche: Niche::Zero,
        }
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

impl Drop for Records {
    fn drop(&mut self) {
        let values = std::mem::take(&mut self.values);
        // SAFETY: `ManuallyDrop<Value>` has the layout of `Value`, so the slice and its
        // allocation are the same; the box now frees the allocation without dropping the values.
        let mut values =
            unsafe { Box::from_raw(Box::into_raw(values) as *mut [std::mem::ManuallyDrop<Value>]) };
        let (w, from) = (self.width(), self.owning as usize);
        if from < w {
            for e in values.chunks_exact_mut(w) {
                for v in &mut e[from..] {
                    // SAFETY: each value is dropped once (here), and the box no longer drops
                    // them. A value before `from` owns nothing (see the type's doc), so leaving
                    // it undropped frees all; were that wrong, it would leak, not misbehave.
                    unsafe { std::mem::ManuallyDrop::drop(v) }
                }
            }
        }
    }
}

impl PartialEq for Records {
    /// Equal elements (where dropping starts is not compared).
    fn eq(&self, other: &Self) -> bool {
        self.width == other.width && self.len == other.len && self.values == other.values
    }
}

impl std::fmt::Debug for Records {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Records")
            .field("width", &self.width)
            .field("len", &self.len)
            .field("values", &self.values)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::{Array, Records, Value};

    /// A record's values are 32 bytes each (a string inline, a vector, or a scalar up to 12
    /// bytes, and the tag in a niche).
    #[test]
    fn a_value_is_32_bytes() {
        assert_eq!(size_of::<super::Value>(), 32);
    }

    fn string(s: &str) -> Value {
        Value::String(s.into())
    }

    /// `Records::new` starts dropping at the first column that holds an owning value in any
    /// element, whatever the values before it in other elements.
    #[test]
    fn new_finds_the_first_owning_column() {
        let at = |width, values: Vec<Value>| {
            let len = values.len() / width;
            Records::new(width, len, values).expect("fits").owning
        };
        // None owns memory: nothing to walk.
        assert_eq!(at(2, vec![Value::Int32(1), Value::Bool(true)]), 2);
        // The second element has its string in column 1, the first in column 2.
        let v = vec![
            Value::Int32(1),
            Value::Int32(2),
            string("a"),
            Value::Int32(3),
            Value::Bytes(vec![1; 40]),
            Value::Int32(4),
        ];
        assert_eq!(at(3, v), 1);
        // An empty array and a short (inline) string count: the kind decides, not the size.
        assert_eq!(
            at(
                2,
                vec![Value::Byte(0), Value::Array(Array::Int32(Vec::new()))]
            ),
            1
        );
        assert_eq!(at(1, vec![string("")]), 0);
        // No element, or no column.
        assert_eq!(Records::new(3, 0, Vec::new()).unwrap().owning, 3);
        assert_eq!(Records::new(0, 5, Vec::new()).unwrap().owning, 0);
        assert!(Records::new(2, 2, vec![Value::Bool(false); 3]).is_none());
    }

    /// Equality, clones and the debug form ignore where dropping starts.
    #[test]
    fn where_dropping_starts_is_not_part_of_the_value() {
        let heap = || string(&"x".repeat(100));
        let a = Records::new(2, 1, vec![Value::Int32(1), heap()]).unwrap();
        let b = Records::of_plan(2, 1, 0, vec![Value::Int32(1), heap()]);
        assert_ne!(a.owning, b.owning);
        assert_eq!(a, b);
        assert_eq!(format!("{a:?}"), format!("{b:?}"));
        let c = b.clone();
        assert_eq!(c, a);
        assert_eq!(c.get(0).unwrap()[1], heap());
    }
}
