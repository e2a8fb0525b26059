//! Whole NBT files: decompression, Bedrock's `level.dat` header, one or several roots, and
//! trailing bytes, read with [`NbtFile::decode`] and written back with [`NbtFile::encode`].

use super::compress::{self, Compression};
use super::error::{NbtError, NbtErrorKind, Result};
use super::flavor::{Cur, Edition};
use super::read::{ReadOptions, TreeBudget, read_root_limited};
use super::tag::Nbt;

/// Bedrock `level.dat` header: `i32 LE storage version, u32 LE payload length`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BedrockHeader {
    /// Storage version (e.g. 10).
    pub version: i32,
}

/// A decoded NBT file and how it was stored.
#[derive(Clone, Debug, PartialEq)]
pub struct NbtFile {
    /// The roots read (one unless [`FileOptions::all_roots`]).
    pub roots: Vec<Nbt>,
    /// Detected compression.
    pub compression: Compression,
    /// Bedrock `level.dat` header, if there was one.
    pub header: Option<BedrockHeader>,
    /// The flavour the file was read in.
    pub edition: Edition,
    /// Decompressed size (header included).
    pub decompressed_size: usize,
    /// Bytes of decompressed data the roots took (header included).
    pub consumed: usize,
    /// Decompressed bytes left after the roots (0 with `all_roots`). With
    /// [`FileOptions::strict_trailing`] they are an error instead.
    pub trailing: usize,
    /// Whether the compressed stream ended properly (checksum read). A zlib/gzip stream cut off
    /// after a complete NBT is accepted, as Minecraft accepts it.
    pub stream_complete: bool,
}

/// How to read a file: [`ReadOptions`] plus file-level choices.
#[derive(Clone, Copy, Debug, Default)]
pub struct FileOptions {
    /// Flavour, root form, limits.
    pub read: ReadOptions,
    /// Read roots until the data ends (concatenated roots, e.g. Bedrock palettes).
    pub all_roots: bool,
    /// Fail with [`NbtErrorKind::TrailingBytes`] if bytes remain after the root.
    pub strict_trailing: bool,
    /// Compression to assume instead of detecting it.
    pub compression: Option<Compression>,
    /// For Bedrock: whether an 8-byte `level.dat` header is present (`None`: detect it).
    pub bedrock_header: Option<bool>,
}

impl FileOptions {
    /// Options for an edition, defaults otherwise.
    pub fn new(edition: Edition) -> FileOptions {
        FileOptions {
            read: ReadOptions::new(edition),
            ..FileOptions::default()
        }
    }
}

/// Whether `data` starts with a plausible Bedrock `level.dat` header: a small version, a length
/// that matches the rest of the data exactly, and a compound type byte after it.
pub fn has_bedrock_header(data: &[u8]) -> bool {
    if data.len() < 11 {
        return false;
    }
    let version = i32::from_le_bytes([data[0], data[1], data[2], data[3]]);
    let len = u32::from_le_bytes([data[4], data[5], data[6], data[7]]) as usize;
    (0..=1000).contains(&version) && len == data.len() - 8 && data[8] == 10
}

impl NbtFile {
    /// A Java file of one root, to be stored with `compression` (for a new file, or a new
    /// region chunk: [`Chunk::new`](super::region::Chunk::new)).
    pub fn new(root: Nbt, compression: Compression) -> NbtFile {
        NbtFile {
            roots: vec![root],
            compression,
            header: None,
            edition: Edition::Java,
            decompressed_size: 0,
            consumed: 0,
            trailing: 0,
            stream_complete: true,
        }
    }

    /// Reads a file from its stored bytes.
    pub fn decode(raw: &[u8], opts: FileOptions) -> Result<NbtFile> {
        Self::decode_counted(raw, opts, &mut 0, usize::MAX)
    }

    /// [`decode`](Self::decode) within a memory budget: adds to `used` the bytes it inflates and
    /// the estimated memory of the tree it builds (read's `TreeBudget`), failed reads included
    /// (a decompression that hit its limit counts the whole limit), and stops once `used` would
    /// pass `limit` (decompression with [`NbtErrorKind::DecompressLimit`], the tree with
    /// [`NbtErrorKind::MemoryLimit`]). Uncompressed input is read where it lies and adds nothing
    /// for itself. Region files keep their whole-file budget with it.
    pub(crate) fn decode_counted(
        raw: &[u8],
        opts: FileOptions,
        used: &mut usize,
        limit: usize,
    ) -> Result<NbtFile> {
        let compression = opts.compression.unwrap_or_else(|| Compression::detect(raw));
        let (owned, complete, decomp_err);
        let data: &[u8] = if compression == Compression::None {
            complete = true;
            decomp_err = None;
            raw
        } else {
            let max = opts.read.max_decompressed.min(limit.saturating_sub(*used));
            let d = compress::decompress(raw, compression, max);
            let produced = match &d {
                Ok(d) => d.data.len(),
                Err(e) => match e.kind() {
                    NbtErrorKind::DecompressLimit { limit } => *limit,
                    _ => 0,
                },
            };
            *used = used.saturating_add(produced);
            let d = d?;
            complete = d.complete;
            decomp_err = d.error;
            owned = d.data;
            &owned
        };
        let mut tree = TreeBudget::of(opts.read, data.len());
        tree.limit = limit.saturating_sub(*used).min(opts.read.max_memory);
        let result = Self::decode_uncompressed_within(data, opts, &mut tree);
        *used = used.saturating_add(tree.used);
        match (result, decomp_err) {
            (Ok(mut f), _) => {
                f.compression = compression;
                f.stream_complete = complete;
                Ok(f)
            }
            // The stream broke and the NBT did not complete: the stream is the cause.
            (Err(_), Some(e)) => Err(NbtError::from(NbtErrorKind::Decompress(e))),
            (Err(e), None) => Err(e),
        }
    }

    /// Reads from already decompressed bytes.
    pub fn decode_uncompressed(data: &[u8], opts: FileOptions) -> Result<NbtFile> {
        Self::decode_uncompressed_within(data, opts, &mut TreeBudget::of(opts.read, data.len()))
    }

    fn decode_uncompressed_within(
        data: &[u8],
        opts: FileOptions,
        tree: &mut TreeBudget,
    ) -> Result<NbtFile> {
        if data.len() > u32::MAX as usize {
            return Err(NbtError::from(NbtErrorKind::InputTooLarge {
                len: data.len(),
            }));
        }
        let header = opts.read.edition == Edition::Bedrock
            && opts
                .bedrock_header
                .unwrap_or_else(|| has_bedrock_header(data));
        let mut c = Cur::new(data);
        let header = if header {
            let h = c.take(8)?;
            Some(BedrockHeader {
                version: i32::from_le_bytes([h[0], h[1], h[2], h[3]]),
            })
        } else {
            None
        };
        let mut roots = vec![read_root_limited(&mut c, opts.read, tree)?];
        if opts.all_roots {
            while c.remaining() > 0 {
                // The roots' vector grows by doubling: three root values each, as lists are.
                tree.used = tree.used.saturating_add(3 * std::mem::size_of::<Nbt>());
                if tree.used > tree.limit {
                    return Err(NbtError::at(
                        NbtErrorKind::MemoryLimit { limit: tree.limit },
                        c.pos,
                    ));
                }
                roots.push(read_root_limited(&mut c, opts.read, tree)?);
            }
        }
        let trailing = c.remaining();
        if trailing > 0 && opts.strict_trailing {
            return Err(NbtError::at(
                NbtErrorKind::TrailingBytes { count: trailing },
                c.pos,
            ));
        }
        Ok(NbtFile {
            roots,
            compression: Compression::None,
            header,
            edition: opts.read.edition,
            decompressed_size: data.len(),
            consumed: c.pos,
            trailing,
            stream_complete: true,
        })
    }

    /// The first root.
    pub fn root(&self) -> Option<&Nbt> {
        self.roots.first()
    }

    /// The first root, mutable: change it and write the file back with
    /// [`encode`](Self::encode) (same compression and header).
    pub fn root_mut(&mut self) -> Option<&mut Nbt> {
        self.roots.first_mut()
    }

    /// The value at `path` below the first root's value (see [`Tag::get_path`](super::Tag::get_path)).
    pub fn get_path(&self, path: &str) -> Result<super::TagView<'_>> {
        self.root().ok_or_else(no_root)?.get_path(path)
    }

    /// The tag at `path` below the first root's value, mutable (see
    /// [`Tag::get_path_mut`](super::Tag::get_path_mut)): the edit of one value in a file is
    /// `*file.get_path_mut("Level.Sections[1].Palette[0].Name")? = "minecraft:stone".into();`.
    pub fn get_path_mut(&mut self, path: &str) -> Result<&mut super::Tag> {
        self.root_mut().ok_or_else(no_root)?.get_path_mut(path)
    }

    /// The value at any `path` below the first root's value, list elements included, mutable
    /// (see [`Tag::get_path_view_mut`](super::Tag::get_path_view_mut)).
    pub fn get_path_view_mut(&mut self, path: &str) -> Result<super::TagViewMut<'_>> {
        self.root_mut().ok_or_else(no_root)?.get_path_view_mut(path)
    }

    /// Sets the value at `path` below the first root's value and gives the old one (see
    /// [`Tag::set_path`](super::Tag::set_path)): `file.set_path("Motion[1]", 0.5f64)?;`.
    pub fn set_path(&mut self, path: &str, value: impl Into<super::Tag>) -> Result<super::Tag> {
        self.root_mut().ok_or_else(no_root)?.set_path(path, value)
    }

    /// The uncompressed form: header (with the length recomputed) and roots.
    pub fn encode_uncompressed(&self) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(self.decompressed_size.max(64));
        if let Some(h) = self.header {
            out.extend_from_slice(&h.version.to_le_bytes());
            out.extend_from_slice(&[0; 4]);
        }
        for r in &self.roots {
            r.encode_into(&mut out, self.edition)?;
        }
        if self.header.is_some() {
            let len = u32::try_from(out.len() - 8)
                .map_err(|_| NbtError::unwritable("level.dat body over 4 GiB"))?;
            out[4..8].copy_from_slice(&len.to_le_bytes());
        }
        Ok(out)
    }

    /// The stored form: [`encode_uncompressed`](Self::encode_uncompressed) compressed as `self.compression`.
    pub fn encode(&self) -> Result<Vec<u8>> {
        compress::compress(&self.encode_uncompressed()?, self.compression)
    }
}

#[cold]
fn no_root() -> NbtError {
    NbtError::from(NbtErrorKind::PathNotFound {
        reason: "the file has no root".into(),
    })
}
