//! Borrowed views of one value: [`TagView`] (shared) and [`TagViewMut`] (mutable).
//!
//! Lists are typed ([`List::Int`] holds an `NbtVec<i32>`, [`List::Compound`] an
//! `NbtVec<Compound>`), so an element of a list is not a [`Tag`] in memory. A view is the same value seen through a
//! reference: [`List::get`] and [`Tag::get_path`] give one without copying the element (a
//! section of a chunk is read where it is, not cloned). Numbers are copied into the view (they
//! are smaller than a reference); everything else is borrowed.

use super::tag::{Compound, List, NbtString, Tag, TagType};
use super::vec::NbtVec;

/// A value seen through a shared reference: a whole [`Tag`] or an element of a [`List`].
///
/// Equality is [`Tag`]'s: structural, floats compared by bits.
#[derive(Clone, Copy, Debug)]
pub enum TagView<'a> {
    /// `TAG_Byte`.
    Byte(i8),
    /// `TAG_Short`.
    Short(i16),
    /// `TAG_Int`.
    Int(i32),
    /// `TAG_Long`.
    Long(i64),
    /// `TAG_Float`.
    Float(f32),
    /// `TAG_Double`.
    Double(f64),
    /// `TAG_Byte_Array`.
    ByteArray(&'a [i8]),
    /// `TAG_String`.
    String(&'a NbtString),
    /// `TAG_List`.
    List(&'a List),
    /// `TAG_Compound`.
    Compound(&'a Compound),
    /// `TAG_Int_Array`.
    IntArray(&'a [i32]),
    /// `TAG_Long_Array`.
    LongArray(&'a [i64]),
}

/// A value seen through a mutable reference: change it in place, or replace it with
/// [`set`](TagViewMut::set) (same tag type only, since a list's elements share one).
#[derive(Debug)]
pub enum TagViewMut<'a> {
    /// `TAG_Byte`.
    Byte(&'a mut i8),
    /// `TAG_Short`.
    Short(&'a mut i16),
    /// `TAG_Int`.
    Int(&'a mut i32),
    /// `TAG_Long`.
    Long(&'a mut i64),
    /// `TAG_Float`.
    Float(&'a mut f32),
    /// `TAG_Double`.
    Double(&'a mut f64),
    /// `TAG_Byte_Array`.
    ByteArray(&'a mut NbtVec<i8>),
    /// `TAG_String`.
    String(&'a mut NbtString),
    /// `TAG_List`.
    List(&'a mut List),
    /// `TAG_Compound`.
    Compound(&'a mut Compound),
    /// `TAG_Int_Array`.
    IntArray(&'a mut NbtVec<i32>),
    /// `TAG_Long_Array`.
    LongArray(&'a mut NbtVec<i64>),
}

macro_rules! copy_getters {
    ($($(#[$doc:meta])* $name:ident => $v:ident: $t:ty),* $(,)?) => {$(
        $(#[$doc])*
        pub fn $name(&self) -> Option<$t> {
            match *self {
                Self::$v(x) => Some(x),
                _ => None,
            }
        }
    )*};
}

macro_rules! same_type_variants {
    ($m:ident) => {
        $m!(
            Byte, Short, Int, Long, Float, Double, ByteArray, String, List, Compound, IntArray,
            LongArray
        )
    };
}

impl<'a> TagView<'a> {
    /// The tag type of the value.
    pub fn tag_type(&self) -> TagType {
        macro_rules! arms {
            ($($v:ident),*) => { match self { $(TagView::$v(_) => TagType::$v),* } };
        }
        same_type_variants!(arms)
    }

    copy_getters!(
        /// The value of a `TAG_Byte`.
        as_byte => Byte: i8,
        /// The value of a `TAG_Short`.
        as_short => Short: i16,
        /// The value of a `TAG_Int`.
        as_int => Int: i32,
        /// The value of a `TAG_Long`.
        as_long => Long: i64,
        /// The value of a `TAG_Float`.
        as_float => Float: f32,
        /// The value of a `TAG_Double`.
        as_double => Double: f64,
        /// The elements of a `TAG_Byte_Array`.
        as_byte_array => ByteArray: &'a [i8],
        /// The string of a `TAG_String`.
        as_string => String: &'a NbtString,
        /// The list of a `TAG_List`.
        as_list => List: &'a List,
        /// The compound of a `TAG_Compound`.
        as_compound => Compound: &'a Compound,
        /// The elements of a `TAG_Int_Array`.
        as_int_array => IntArray: &'a [i32],
        /// The elements of a `TAG_Long_Array`.
        as_long_array => LongArray: &'a [i64],
    );

    /// The text of a `TAG_String` when its stored bytes are UTF-8 ([`NbtString::as_str`]);
    /// `None` for other tags and for strings holding U+0000 or characters beyond U+FFFF,
    /// which `as_string()` and [`NbtString::to_str`] / [`NbtString::to_str_lossy`] decode.
    pub fn as_str(&self) -> Option<&'a str> {
        self.as_string().and_then(NbtString::as_str)
    }

    /// Any integer tag (byte, short, int, long) widened to `i64`.
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            TagView::Byte(v) => Some(v as i64),
            TagView::Short(v) => Some(v as i64),
            TagView::Int(v) => Some(v as i64),
            TagView::Long(v) => Some(v),
            _ => None,
        }
    }

    /// Any float tag widened to `f64`.
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            TagView::Float(v) => Some(v as f64),
            TagView::Double(v) => Some(v),
            _ => None,
        }
    }

    /// The entry `key` of a compound (the last one if the key repeats).
    pub fn get(&self, key: &str) -> Option<TagView<'a>> {
        self.as_compound()?.get(key).map(Tag::view)
    }

    /// Element `i` of a list, or of an array (as the array's element tag).
    pub fn index(&self, i: usize) -> Option<TagView<'a>> {
        match *self {
            TagView::List(l) => l.get(i),
            TagView::ByteArray(a) => a.get(i).map(|&x| TagView::Byte(x)),
            TagView::IntArray(a) => a.get(i).map(|&x| TagView::Int(x)),
            TagView::LongArray(a) => a.get(i).map(|&x| TagView::Long(x)),
            _ => None,
        }
    }

    /// The value at `path` below this one (see [`Tag::get_path`]).
    pub fn get_path(&self, path: &str) -> super::Result<TagView<'a>> {
        super::path::lookup(*self, path)
    }

    /// An owned copy of the value.
    pub fn to_tag(&self) -> Tag {
        match *self {
            TagView::Byte(v) => Tag::Byte(v),
            TagView::Short(v) => Tag::Short(v),
            TagView::Int(v) => Tag::Int(v),
            TagView::Long(v) => Tag::Long(v),
            TagView::Float(v) => Tag::Float(v),
            TagView::Double(v) => Tag::Double(v),
            TagView::ByteArray(v) => Tag::ByteArray(v.into()),
            TagView::String(v) => Tag::String(v.clone()),
            TagView::List(v) => Tag::List(v.clone()),
            TagView::Compound(v) => Tag::Compound(v.clone()),
            TagView::IntArray(v) => Tag::IntArray(v.into()),
            TagView::LongArray(v) => Tag::LongArray(v.into()),
        }
    }
}

impl PartialEq for TagView<'_> {
    fn eq(&self, other: &TagView<'_>) -> bool {
        use TagView as V;
        match (*self, *other) {
            (V::Byte(a), V::Byte(b)) => a == b,
            (V::Short(a), V::Short(b)) => a == b,
            (V::Int(a), V::Int(b)) => a == b,
            (V::Long(a), V::Long(b)) => a == b,
            (V::Float(a), V::Float(b)) => a.to_bits() == b.to_bits(),
            (V::Double(a), V::Double(b)) => a.to_bits() == b.to_bits(),
            (V::ByteArray(a), V::ByteArray(b)) => a == b,
            (V::String(a), V::String(b)) => a == b,
            (V::List(a), V::List(b)) => a == b,
            (V::Compound(a), V::Compound(b)) => a == b,
            (V::IntArray(a), V::IntArray(b)) => a == b,
            (V::LongArray(a), V::LongArray(b)) => a == b,
            _ => false,
        }
    }
}

impl PartialEq<Tag> for TagView<'_> {
    /// Same value, floats compared by bits (as [`Tag`]'s equality does).
    fn eq(&self, other: &Tag) -> bool {
        *self == other.view()
    }
}

impl<'a> From<&'a Tag> for TagView<'a> {
    fn from(t: &'a Tag) -> TagView<'a> {
        t.view()
    }
}

impl<'a> TagViewMut<'a> {
    /// The tag type of the value.
    pub fn tag_type(&self) -> TagType {
        macro_rules! arms {
            ($($v:ident),*) => { match self { $(TagViewMut::$v(_) => TagType::$v),* } };
        }
        same_type_variants!(arms)
    }

    /// A shared view of the same value.
    pub fn view(&self) -> TagView<'_> {
        match self {
            TagViewMut::Byte(x) => TagView::Byte(**x),
            TagViewMut::Short(x) => TagView::Short(**x),
            TagViewMut::Int(x) => TagView::Int(**x),
            TagViewMut::Long(x) => TagView::Long(**x),
            TagViewMut::Float(x) => TagView::Float(**x),
            TagViewMut::Double(x) => TagView::Double(**x),
            TagViewMut::ByteArray(x) => TagView::ByteArray(x),
            TagViewMut::String(x) => TagView::String(x),
            TagViewMut::List(x) => TagView::List(x),
            TagViewMut::Compound(x) => TagView::Compound(x),
            TagViewMut::IntArray(x) => TagView::IntArray(x),
            TagViewMut::LongArray(x) => TagView::LongArray(x),
        }
    }

    /// The compound, if the value is one.
    pub fn into_compound(self) -> Option<&'a mut Compound> {
        match self {
            TagViewMut::Compound(c) => Some(c),
            _ => None,
        }
    }

    /// The list, if the value is one.
    pub fn into_list(self) -> Option<&'a mut List> {
        match self {
            TagViewMut::List(l) => Some(l),
            _ => None,
        }
    }

    /// The string, if the value is one.
    pub fn into_string(self) -> Option<&'a mut NbtString> {
        match self {
            TagViewMut::String(s) => Some(s),
            _ => None,
        }
    }

    /// Replaces the value with `value` if it has the same tag type, giving the old value;
    /// otherwise hands `value` back unchanged as the error (an element of a list must keep the
    /// list's element type; an entry of a compound can change type through `&mut Tag`).
    pub fn set(self, value: impl Into<Tag>) -> Result<Tag, Tag> {
        use std::mem::replace;
        Ok(match (self, value.into()) {
            (TagViewMut::Byte(x), Tag::Byte(v)) => Tag::Byte(replace(x, v)),
            (TagViewMut::Short(x), Tag::Short(v)) => Tag::Short(replace(x, v)),
            (TagViewMut::Int(x), Tag::Int(v)) => Tag::Int(replace(x, v)),
            (TagViewMut::Long(x), Tag::Long(v)) => Tag::Long(replace(x, v)),
            (TagViewMut::Float(x), Tag::Float(v)) => Tag::Float(replace(x, v)),
            (TagViewMut::Double(x), Tag::Double(v)) => Tag::Double(replace(x, v)),
            (TagViewMut::ByteArray(x), Tag::ByteArray(v)) => Tag::ByteArray(replace(x, v)),
            (TagViewMut::String(x), Tag::String(v)) => Tag::String(replace(x, v)),
            (TagViewMut::List(x), Tag::List(v)) => Tag::List(replace(x, v)),
            (TagViewMut::Compound(x), Tag::Compound(v)) => Tag::Compound(replace(x, v)),
            (TagViewMut::IntArray(x), Tag::IntArray(v)) => Tag::IntArray(replace(x, v)),
            (TagViewMut::LongArray(x), Tag::LongArray(v)) => Tag::LongArray(replace(x, v)),
            (_, v) => return Err(v),
        })
    }
}

impl<'a> From<&'a mut Tag> for TagViewMut<'a> {
    fn from(t: &'a mut Tag) -> TagViewMut<'a> {
        macro_rules! arms {
            ($($v:ident),*) => { match t { $(Tag::$v(x) => TagViewMut::$v(x)),* } };
        }
        same_type_variants!(arms)
    }
}

impl List {
    /// Element `i`, borrowed (nothing is copied but a number).
    pub fn get(&self, i: usize) -> Option<TagView<'_>> {
        Some(match self {
            List::End => return None,
            List::Byte(v) => TagView::Byte(*v.get(i)?),
            List::Short(v) => TagView::Short(*v.get(i)?),
            List::Int(v) => TagView::Int(*v.get(i)?),
            List::Long(v) => TagView::Long(*v.get(i)?),
            List::Float(v) => TagView::Float(*v.get(i)?),
            List::Double(v) => TagView::Double(*v.get(i)?),
            List::ByteArray(v) => TagView::ByteArray(v.get(i)?),
            List::String(v) => TagView::String(v.get(i)?),
            List::List(v) => TagView::List(v.get(i)?),
            List::Compound(v) => TagView::Compound(v.get(i)?),
            List::IntArray(v) => TagView::IntArray(v.get(i)?),
            List::LongArray(v) => TagView::LongArray(v.get(i)?),
        })
    }

    /// Element `i`, mutable.
    pub fn get_mut(&mut self, i: usize) -> Option<TagViewMut<'_>> {
        Some(match self {
            List::End => return None,
            List::Byte(v) => TagViewMut::Byte(v.get_mut(i)?),
            List::Short(v) => TagViewMut::Short(v.get_mut(i)?),
            List::Int(v) => TagViewMut::Int(v.get_mut(i)?),
            List::Long(v) => TagViewMut::Long(v.get_mut(i)?),
            List::Float(v) => TagViewMut::Float(v.get_mut(i)?),
            List::Double(v) => TagViewMut::Double(v.get_mut(i)?),
            List::ByteArray(v) => TagViewMut::ByteArray(v.get_mut(i)?),
            List::String(v) => TagViewMut::String(v.get_mut(i)?),
            List::List(v) => TagViewMut::List(v.get_mut(i)?),
            List::Compound(v) => TagViewMut::Compound(v.get_mut(i)?),
            List::IntArray(v) => TagViewMut::IntArray(v.get_mut(i)?),
            List::LongArray(v) => TagViewMut::LongArray(v.get_mut(i)?),
        })
    }

    /// The elements, borrowed.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = TagView<'_>> + '_ {
        (0..self.len()).map(move |i| self.get(i).expect("index below len"))
    }

    /// The compounds of a list of compounds (an empty [`List::End`] gives an empty slice).
    pub fn as_compounds(&self) -> Option<&[Compound]> {
        match self {
            List::Compound(v) => Some(v),
            List::End => Some(&[]),
            _ => None,
        }
    }

    /// The compounds of a list of compounds, mutable (push or remove them freely).
    pub fn as_compounds_mut(&mut self) -> Option<&mut NbtVec<Compound>> {
        match self {
            List::Compound(v) => Some(v),
            _ => None,
        }
    }
}

macro_rules! tag_mut_accessors {
    ($($(#[$doc:meta])* $get_mut:ident => $v:ident: $t:ty),* $(,)?) => {
        impl Tag {$(
            $(#[$doc])*
            pub fn $get_mut(&mut self) -> Option<&mut $t> {
                match self {
                    Tag::$v(x) => Some(x),
                    _ => None,
                }
            }
        )*}
    };
}

tag_mut_accessors!(
    /// The value of a `TAG_Byte`, mutable.
    as_byte_mut => Byte: i8,
    /// The value of a `TAG_Short`, mutable.
    as_short_mut => Short: i16,
    /// The value of a `TAG_Int`, mutable.
    as_int_mut => Int: i32,
    /// The value of a `TAG_Long`, mutable.
    as_long_mut => Long: i64,
    /// The value of a `TAG_Float`, mutable.
    as_float_mut => Float: f32,
    /// The value of a `TAG_Double`, mutable.
    as_double_mut => Double: f64,
    /// The elements of a `TAG_Byte_Array`, mutable.
    as_byte_array_mut => ByteArray: NbtVec<i8>,
    /// The string of a `TAG_String`, mutable.
    as_string_mut => String: NbtString,
    /// The list of a `TAG_List`, mutable.
    as_list_mut => List: List,
    /// The compound of a `TAG_Compound`, mutable.
    as_compound_mut => Compound: Compound,
    /// The elements of a `TAG_Int_Array`, mutable.
    as_int_array_mut => IntArray: NbtVec<i32>,
    /// The elements of a `TAG_Long_Array`, mutable.
    as_long_array_mut => LongArray: NbtVec<i64>,
);

impl Tag {
    /// This value as a [`TagView`], the form list elements and paths give.
    pub fn view(&self) -> TagView<'_> {
        match self {
            Tag::Byte(x) => TagView::Byte(*x),
            Tag::Short(x) => TagView::Short(*x),
            Tag::Int(x) => TagView::Int(*x),
            Tag::Long(x) => TagView::Long(*x),
            Tag::Float(x) => TagView::Float(*x),
            Tag::Double(x) => TagView::Double(*x),
            Tag::ByteArray(x) => TagView::ByteArray(x),
            Tag::String(x) => TagView::String(x),
            Tag::List(x) => TagView::List(x),
            Tag::Compound(x) => TagView::Compound(x),
            Tag::IntArray(x) => TagView::IntArray(x),
            Tag::LongArray(x) => TagView::LongArray(x),
        }
    }

    /// This value as a [`TagViewMut`].
    pub fn view_mut(&mut self) -> TagViewMut<'_> {
        TagViewMut::from(self)
    }

    /// The value of a `TAG_Byte`.
    pub fn as_byte(&self) -> Option<i8> {
        self.view().as_byte()
    }

    /// The value of a `TAG_Short`.
    pub fn as_short(&self) -> Option<i16> {
        self.view().as_short()
    }

    /// The value of a `TAG_Int`.
    pub fn as_int(&self) -> Option<i32> {
        self.view().as_int()
    }

    /// The value of a `TAG_Long`.
    pub fn as_long(&self) -> Option<i64> {
        self.view().as_long()
    }

    /// The value of a `TAG_Float`.
    pub fn as_float(&self) -> Option<f32> {
        self.view().as_float()
    }

    /// The value of a `TAG_Double`.
    pub fn as_double(&self) -> Option<f64> {
        self.view().as_double()
    }

    /// The elements of a `TAG_Byte_Array`.
    pub fn as_byte_array(&self) -> Option<&[i8]> {
        self.view().as_byte_array()
    }

    /// The elements of a `TAG_Int_Array`.
    pub fn as_int_array(&self) -> Option<&[i32]> {
        self.view().as_int_array()
    }

    /// The elements of a `TAG_Long_Array`.
    pub fn as_long_array(&self) -> Option<&[i64]> {
        self.view().as_long_array()
    }

    /// The text of a `TAG_String` (see [`TagView::as_str`]).
    pub fn as_str(&self) -> Option<&str> {
        self.view().as_str()
    }

    /// Any integer tag (byte, short, int, long) widened to `i64`.
    pub fn as_i64(&self) -> Option<i64> {
        self.view().as_i64()
    }

    /// Any float tag widened to `f64`.
    pub fn as_f64(&self) -> Option<f64> {
        self.view().as_f64()
    }

    /// The string of a `TAG_String`.
    pub fn as_string(&self) -> Option<&NbtString> {
        self.view().as_string()
    }

    /// The list of a `TAG_List`.
    pub fn as_list(&self) -> Option<&List> {
        self.view().as_list()
    }

    /// The compound of a `TAG_Compound`.
    pub fn as_compound(&self) -> Option<&Compound> {
        self.view().as_compound()
    }

    /// The entry `key`, if this is a compound that has it.
    pub fn get(&self, key: &str) -> Option<&Tag> {
        self.as_compound()?.get(key)
    }

    /// The entry `key`, mutable, if this is a compound that has it.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Tag> {
        self.as_compound_mut()?.get_mut(key)
    }
}
