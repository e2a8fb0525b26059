//! Minecraft's NBT format: Java and Bedrock flavours, SNBT, region files.
//!
//! * [`Tag`], [`List`], [`Compound`], [`Nbt`]: the owned tree; build it with [`nbt!`] or the
//!   builders, read it with [`decode`] / [`decode_all`], write it with [`Nbt::encode`].
//! * [`borrow`]: a zero-copy reader over the input bytes, for speed.
//! * [`NbtFile`]: whole files with compression autodetect and Bedrock's `level.dat` header.
//! * [`region`]: Anvil `.mca` region files.
//! * [`snbt`]: the text form, printed and parsed.
//! * [`dump`]: the JSON dump form used by `defc nbt dump` and the sample set.
//! * `serde_nbt` (feature `serde`): derive your own types from NBT and back.
//! * [`TagView`] / [`TagViewMut`]: a value or list element seen in place; paths such as
//!   `Level.Sections[1].Palette[0].Name` reach any value ([`Tag::get_path`],
//!   [`Tag::get_path_mut`]), in the syntax errors print ([`ValuePath`](crate::ValuePath)).
//!
//! The reader is exact: read → write is byte-identical for every valid file (entry order, empty
//! list types, NaN bits and raw Modified UTF-8 are kept), and it is hardened against hostile
//! input: nesting is limited as Minecraft does (512 levels, root included) without unbounded
//! recursion, declared lengths are checked against the remaining bytes before allocating, and
//! decompression has a size limit. Errors ([`NbtError`]) carry the byte offset and tag path.

#[macro_use]
mod wide;

mod block;
pub mod borrow;
pub mod compress;
pub mod dump;
mod error;
mod file;
mod flavor;
pub(crate) mod mutf8;
mod path;
mod read;
pub mod region;
#[cfg(feature = "serde")]
pub mod serde_nbt;
mod shape;
pub mod snbt;
mod tag;
mod vec;
mod view;
mod write;

pub use compress::Compression;
pub use error::{NbtError, NbtErrorKind, Result};
pub use file::{BedrockHeader, FileOptions, NbtFile, has_bedrock_header};
pub use flavor::Edition;
pub use read::{
    DEFAULT_MAX_DECOMPRESSED, DEFAULT_MAX_DEPTH, DEFAULT_MAX_MEMORY, MAX_DEPTH_CAP, ReadOptions,
    RootForm, decode, decode_all, decode_exact,
};
pub use tag::{Compound, List, Nbt, NbtString, Tag, TagType};
pub use vec::NbtVec;
pub use view::{TagView, TagViewMut};
pub use write::encode_all;

#[doc(inline)]
pub use crate::__nbt_compound as compound;
#[doc(inline)]
pub use crate::__nbt_tag as nbt;

/// Runs one level of a recursive walk, making sure the stack cannot run out.
///
/// Every walk over a tree or an input (readers, writer, dump, SNBT, JSON) recurses once per
/// list/compound level, bounded by the depth limit (at most [`MAX_DEPTH_CAP`]). A debug build can
/// use several KiB per level, so every 16 levels this asks `stacker` for at least 256 KiB of
/// headroom and switches to a fresh heap-allocated stack segment if there is less. The check is
/// a couple of instructions, done once per 16 levels, so the fast paths do not feel it.
#[inline(always)]
pub(crate) fn guard<R>(depth: usize, f: impl FnOnce() -> R) -> R {
    if depth.is_multiple_of(16) {
        stacker::maybe_grow(256 << 10, 4 << 20, f)
    } else {
        f()
    }
}
