//! [`NbtVec`]: the elements of a list or an array of the owned tree.
//!
//! A list or array the reader builds usually does not have an allocation of its own: its
//! elements lie in a block shared with the rest of the read ([`super::block`]). `NbtVec` hides
//! where they are: it reads and changes them in place as a slice, and moves them into a `Vec`
//! of their own, once, on the first edit that changes the length.

use std::borrow::{Borrow, BorrowMut};
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::{Deref, DerefMut};

use super::block::Pooled;

/// The elements of a [`List`](super::List) or of an array tag
/// ([`Tag::IntArray`](super::Tag::IntArray), …): a vector that may live in the memory its read
/// shares among the tree's containers.
///
/// It reads as a slice (`Deref<Target = [T]>`: `len`, `iter`, indexing, `get`, patterns over
/// `&v[..]`), is changed in place through `DerefMut` (`v[1] = 0.5`, `sort`, `fill`), and grows
/// with [`push`](NbtVec::push), [`Extend`] or any `Vec` method through
/// [`as_mut_vec`](NbtVec::as_mut_vec). Build one from a `Vec`, an array or an iterator
/// (`vec![1, 2, 3].into()`, `NbtVec::from([1, 2, 3])`, `collect()`); take the `Vec` out with
/// [`into_vec`](NbtVec::into_vec) or `Vec::from`.
///
/// A parsed document's lists and arrays of numbers (but the first few of a read, and any over
/// 64 KiB) lie in blocks shared with its compounds, so a parse makes a few allocations for all
/// of them, not one each. The first edit that may grow it ([`push`](NbtVec::push), [`Extend`],
/// [`as_mut_vec`](NbtVec::as_mut_vec)) moves such a vector's elements into a `Vec` of their own,
/// once ([`pop`](NbtVec::pop) and edits in place leave them where they are);
/// [`clone`](Clone::clone) makes a copy that owns its elements. A vector taken out of its
/// tree stays valid on its own, and keeps its block's memory until it is dropped or grown.
///
/// Equality, hashing and `Debug` are those of the slice.
pub struct NbtVec<T>(Repr<T>);

enum Repr<T> {
    Vec(Vec<T>),
    /// A range of a block the reader filled; made `Vec` by the first edit that changes the
    /// length.
    Pooled(Pooled<T>),
}

const _: () = assert!(std::mem::size_of::<NbtVec<i64>>() == std::mem::size_of::<Vec<i64>>());

impl<T> NbtVec<T> {
    /// An empty vector (no allocation).
    pub const fn new() -> NbtVec<T> {
        NbtVec(Repr::Vec(Vec::new()))
    }

    /// A vector of the reader's, whose elements are a range of one of its blocks.
    #[inline(always)]
    pub(crate) fn pooled(p: Pooled<T>) -> NbtVec<T> {
        NbtVec(Repr::Pooled(p))
    }

    /// Appends an element.
    pub fn push(&mut self, x: T) {
        self.as_mut_vec().push(x);
    }

    /// Removes the last element and returns it (`None` if there is none). Elements in a block
    /// stay there.
    pub fn pop(&mut self) -> Option<T> {
        match &mut self.0 {
            Repr::Vec(v) => v.pop(),
            Repr::Pooled(p) => p.pop(),
        }
    }

    /// The elements as a `Vec`, for any edit (`insert`, `remove`, `retain`, `truncate`, …).
    /// Elements in a block shared with their read move into a `Vec` of their own first, once.
    pub fn as_mut_vec(&mut self) -> &mut Vec<T> {
        if let Repr::Pooled(_) = self.0
            && let Repr::Pooled(p) = std::mem::replace(&mut self.0, Repr::Vec(Vec::new()))
        {
            self.0 = Repr::Vec(p.into_vec());
        }
        match &mut self.0 {
            Repr::Vec(v) => v,
            Repr::Pooled(_) => unreachable!("made a Vec above"),
        }
    }

    /// The elements as a `Vec` of their own.
    pub fn into_vec(self) -> Vec<T> {
        match self.0 {
            Repr::Vec(v) => v,
            Repr::Pooled(p) => p.into_vec(),
        }
    }
}

impl<T> Deref for NbtVec<T> {
    type Target = [T];

    #[inline(always)]
    fn deref(&self) -> &[T] {
        match &self.0 {
            Repr::Vec(v) => v,
            Repr::Pooled(p) => p.as_slice(),
        }
    }
}

impl<T> DerefMut for NbtVec<T> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [T] {
        match &mut self.0 {
            Repr::Vec(v) => v,
            Repr::Pooled(p) => p.as_mut_slice(),
        }
    }
}

impl<T> Default for NbtVec<T> {
    fn default() -> NbtVec<T> {
        NbtVec::new()
    }
}

impl<T: Clone> Clone for NbtVec<T> {
    /// A copy that owns its elements.
    fn clone(&self) -> NbtVec<T> {
        NbtVec(Repr::Vec(self.to_vec()))
    }
}

impl<T: fmt::Debug> fmt::Debug for NbtVec<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: PartialEq<U>, U> PartialEq<NbtVec<U>> for NbtVec<T> {
    fn eq(&self, other: &NbtVec<U>) -> bool {
        **self == **other
    }
}

impl<T: Eq> Eq for NbtVec<T> {}

impl<T: PartialEq<U>, U> PartialEq<Vec<U>> for NbtVec<T> {
    fn eq(&self, other: &Vec<U>) -> bool {
        **self == **other
    }
}

impl<T: PartialEq<U>, U> PartialEq<[U]> for NbtVec<T> {
    fn eq(&self, other: &[U]) -> bool {
        **self == *other
    }
}

impl<T: PartialEq<U>, U> PartialEq<&[U]> for NbtVec<T> {
    fn eq(&self, other: &&[U]) -> bool {
        **self == **other
    }
}

impl<T: PartialEq<U>, U, const N: usize> PartialEq<[U; N]> for NbtVec<T> {
    fn eq(&self, other: &[U; N]) -> bool {
        **self == other[..]
    }
}

impl<T: Hash> Hash for NbtVec<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (**self).hash(state)
    }
}

impl<T> From<Vec<T>> for NbtVec<T> {
    fn from(v: Vec<T>) -> NbtVec<T> {
        NbtVec(Repr::Vec(v))
    }
}

impl<T, const N: usize> From<[T; N]> for NbtVec<T> {
    fn from(a: [T; N]) -> NbtVec<T> {
        NbtVec(Repr::Vec(a.into()))
    }
}

impl<T: Clone> From<&[T]> for NbtVec<T> {
    fn from(s: &[T]) -> NbtVec<T> {
        NbtVec(Repr::Vec(s.to_vec()))
    }
}

impl<T> From<NbtVec<T>> for Vec<T> {
    fn from(v: NbtVec<T>) -> Vec<T> {
        v.into_vec()
    }
}

impl<T> FromIterator<T> for NbtVec<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> NbtVec<T> {
        NbtVec(Repr::Vec(iter.into_iter().collect()))
    }
}

impl<T> Extend<T> for NbtVec<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        self.as_mut_vec().extend(iter)
    }
}

impl<'a, T: Copy + 'a> Extend<&'a T> for NbtVec<T> {
    fn extend<I: IntoIterator<Item = &'a T>>(&mut self, iter: I) {
        self.as_mut_vec().extend(iter)
    }
}

impl<T> IntoIterator for NbtVec<T> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;

    fn into_iter(self) -> std::vec::IntoIter<T> {
        self.into_vec().into_iter()
    }
}

impl<'a, T> IntoIterator for &'a NbtVec<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> std::slice::Iter<'a, T> {
        self.iter()
    }
}

impl<'a, T> IntoIterator for &'a mut NbtVec<T> {
    type Item = &'a mut T;
    type IntoIter = std::slice::IterMut<'a, T>;

    fn into_iter(self) -> std::slice::IterMut<'a, T> {
        self.iter_mut()
    }
}

impl<T> AsRef<[T]> for NbtVec<T> {
    fn as_ref(&self) -> &[T] {
        self
    }
}

impl<T> AsMut<[T]> for NbtVec<T> {
    fn as_mut(&mut self) -> &mut [T] {
        self
    }
}

impl<T> Borrow<[T]> for NbtVec<T> {
    fn borrow(&self) -> &[T] {
        self
    }
}

impl<T> BorrowMut<[T]> for NbtVec<T> {
    fn borrow_mut(&mut self) -> &mut [T] {
        self
    }
}

impl<T: PartialEq<U>, U> PartialEq<NbtVec<U>> for Vec<T> {
    fn eq(&self, other: &NbtVec<U>) -> bool {
        **self == **other
    }
}
