//! Anvil region files (`r.X.Z.mca`): 1024 chunk slots, each compressed NBT in 4 KiB sectors.
//!
//! Layout (Minecraft's `RegionFile`): a 4 KiB table of locations (`u24 BE` first sector,
//! `u8` sector count), a 4 KiB table of `u32 BE` timestamps, then chunks, each `u32 BE` length
//! (compression byte included), `u8` compression id (1 gzip, 2 zlib, 3 none, 4 LZ4 in lz4-java's
//! block framing, 127 custom) and the data. A chunk too large for 255 sectors (about 1 MiB
//! compressed) is stored outside, whole, in `c.X.Z.mcc` beside the region (X, Z: the chunk's
//! world coordinates), and the slot holds a 5-byte stub: length 1, compression id + 128.
//!
//! Reading: a slot that cannot be read is reported with its [`ChunkStatus`] instead of failing
//! the whole file, as Minecraft skips it. External chunks are read by [`RegionFile::open`] (or
//! any loader given to [`RegionFile::decode_at`]).
//!
//! A region file and its folder are untrusted input. [`RegionFile::open`] reads an external
//! chunk file only if it is a regular file in the region's own folder (no symbolic link, FIFO,
//! socket or device) whose length fits the budget, checked before reading. One budget per file
//! ([`DEFAULT_REGION_BUDGET`], or [`RegionFile::decode_with_budget`]) covers every byte kept,
//! read or inflated and the estimated memory of every tree, failures included, so memory and
//! time stay within it whatever the file says. A slot whose sectors are an earlier slot's is
//! not read again.
//!
//! Writing ([`RegionFile::to_parts`], [`encode`](RegionFile::encode),
//! [`save`](RegionFile::save)) keeps every chunk that was not changed byte-for-byte: its stored
//! bytes are copied, not re-compressed (a chunk counts as changed once
//! [`Chunk::nbt_mut`] or [`Chunk::set_nbt`] is called). Chunks are laid out from sector 2 in
//! their original order, padded to whole sectors with zeros; timestamps and compression ids are
//! kept; a changed chunk is compressed with its [`NbtFile::compression`] (every scheme, LZ4
//! included) and goes external when it needs more than 255 sectors, as Minecraft does. A slot
//! whose bytes were not there to read (outside the file, bad length, external file missing) is
//! refused with [`NbtErrorKind::RegionChunk`] rather than dropped: remove it from
//! [`RegionFile::chunks`] to drop it on purpose.
//!
//! Whole worlds (feature `nbt-world`): [`scan_world`] reads every region file of a world folder
//! in parallel, chunk by chunk, within one memory budget, and hands each chunk to the caller.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

#[cfg(feature = "nbt-world")]
mod world;
#[cfg(feature = "nbt-world")]
pub use world::{ScanOptions, WorldScan, scan_world};

use super::compress::Compression;
use super::dump;
use super::error::{NbtError, NbtErrorKind, Result};
use super::file::{FileOptions, NbtFile};

const SECTOR: usize = 4096;

/// Largest sector count of a slot (one byte); bigger chunks go to a `.mcc` file.
const MAX_SECTORS: usize = 255;

/// Default budget of [`RegionFile::decode_with`] and [`RegionFile::open`]: 512 MiB of memory
/// for a whole region file (see [`RegionFile::decode_with_budget`] for what counts). A real
/// region's 1 024 chunks use some 100–300 MiB of it.
pub const DEFAULT_REGION_BUDGET: usize = 512 << 20;

/// Why a chunk slot could not be read (or `Ok`).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum ChunkStatus {
    /// Read fine.
    Ok,
    /// The sectors lie (partly) outside the file or hold under 5 bytes.
    OutOfFile,
    /// The length field is 0 or larger than the sectors.
    BadLength,
    /// Data is in an external `.mcc` file (compression id + 128) that was not read: parsed
    /// without a loader, or the file does not exist. A file that was refused or failed to read
    /// gives [`ChunkStatus::Invalid`] with the reason instead.
    External,
    /// Unknown compression id (the stored bytes are kept and written back).
    UnknownCompression,
    /// Not decoded; the error says why: decompression or NBT decoding failed (the decoder's
    /// error, with its offset and tag path), the region's budget was spent
    /// ([`NbtErrorKind::RegionBudget`]), the slot's sectors are an earlier slot's
    /// ([`NbtErrorKind::SlotOverlap`]), or its external file was refused (not a regular file
    /// in the region's folder, larger than the budget left) or could not be read
    /// ([`NbtErrorKind::Region`]). Shared, so that a [`Chunk`] stays `Clone`. The stored bytes,
    /// when they were kept ([`Chunk::payload`] not empty), are written back as they are; a slot
    /// without them is refused on write.
    Invalid(Arc<NbtError>),
}

/// Two [`ChunkStatus::Invalid`] are equal when their errors read the same (kind, offset, path
/// and message are all in the text).
impl PartialEq for ChunkStatus {
    fn eq(&self, other: &ChunkStatus) -> bool {
        match (self, other) {
            (ChunkStatus::Invalid(a), ChunkStatus::Invalid(b)) => {
                Arc::ptr_eq(a, b) || a.to_string() == b.to_string()
            }
            (a, b) => core::mem::discriminant(a) == core::mem::discriminant(b),
        }
    }
}

impl Eq for ChunkStatus {}

impl ChunkStatus {
    /// The status word used in dumps.
    pub fn name(&self) -> &'static str {
        match self {
            ChunkStatus::Ok => "ok",
            ChunkStatus::OutOfFile => "out_of_file",
            ChunkStatus::BadLength => "bad_length",
            ChunkStatus::External => "external",
            ChunkStatus::UnknownCompression => "unknown_compression",
            ChunkStatus::Invalid(_) => "invalid",
        }
    }
}

/// One used chunk slot.
#[derive(Clone, Debug)]
pub struct Chunk {
    /// Slot index, `x + 32 * z`.
    pub index: usize,
    /// First sector (0 for a chunk not read from a file).
    pub sector: u32,
    /// Sectors reserved.
    pub sector_count: u8,
    /// Last-modified time (seconds), written back as it is.
    pub timestamp: u32,
    /// Length field (compression byte + data), 0 if unreadable; 1 for an external stub.
    pub length: u32,
    /// Compression id byte as stored (+128 for an external chunk).
    pub compression_id: u8,
    /// Outcome of reading the slot.
    pub status: ChunkStatus,
    /// The stored (compressed) data: after the 5-byte header, or the whole `.mcc` file of an
    /// external chunk. Empty when it could not be read or was not kept (the slot shares an
    /// earlier slot's sectors, or the region's budget was spent).
    pub payload: Vec<u8>,
    nbt: Option<NbtFile>,
    changed: bool,
}

impl Chunk {
    /// A new chunk for slot (`x`, `z`) of a region (both 0..32), stored with `nbt.compression`
    /// (set it to the scheme wanted; [`Compression::None`] is id 3).
    pub fn new(x: usize, z: usize, nbt: NbtFile, timestamp: u32) -> Result<Chunk> {
        Ok(Chunk {
            index: slot_index(x, z)?,
            sector: 0,
            sector_count: 0,
            timestamp,
            length: 0,
            compression_id: id_of(nbt.compression),
            status: ChunkStatus::Ok,
            payload: Vec::new(),
            nbt: Some(nbt),
            changed: true,
        })
    }

    /// Chunk x within the region (0..32).
    pub fn x(&self) -> usize {
        self.index % 32
    }

    /// Chunk z within the region (0..32).
    pub fn z(&self) -> usize {
        self.index / 32
    }

    /// Whether the data is (or was read from) an external `.mcc` file.
    pub fn is_external(&self) -> bool {
        self.compression_id & 0x80 != 0
    }

    /// The compression scheme the chunk's id names (the external flag aside); `None` for an
    /// unknown id, and for a slot whose header was not read (`compression_id` 0).
    pub fn compression(&self) -> Option<Compression> {
        compression_of(self.compression_id & 0x7F)
    }

    /// The name of the file holding this chunk's data when it is external, beside a region
    /// file at region position `pos` (`c.<x>.<z>.mcc`, in world chunk coordinates).
    fn external_name(&self, pos: (i32, i32)) -> String {
        let (cx, cz) = (
            pos.0 as i64 * 32 + self.x() as i64,
            pos.1 as i64 * 32 + self.z() as i64,
        );
        format!("c.{cx}.{cz}.mcc")
    }

    /// Reads the chunk's length and compression id from the start of its sectors (`avail` bytes
    /// of them are in the file, `sectors` holds at least their first 5 when there are) and
    /// checks them against the sectors its slot reserves: the status when its data cannot be
    /// read from there.
    fn read_header(&mut self, sectors: &[u8], avail: usize) -> Option<ChunkStatus> {
        if avail < 5 {
            return Some(ChunkStatus::OutOfFile);
        }
        self.length = be32(sectors, 0);
        self.compression_id = sectors[4];
        let len = self.length as usize;
        if len == 0 || len - 1 > self.sector_count as usize * SECTOR - 5 {
            Some(ChunkStatus::BadLength)
        } else if len + 4 > avail {
            Some(ChunkStatus::OutOfFile)
        } else {
            None
        }
    }

    /// The decoded chunk, when `status` is `Ok`.
    pub fn nbt(&self) -> Option<&NbtFile> {
        self.nbt.as_ref()
    }

    /// The decoded chunk, mutable; marks the chunk changed, so it is re-encoded on write (with
    /// the [`NbtFile::compression`] it has then).
    pub fn nbt_mut(&mut self) -> Option<&mut NbtFile> {
        self.changed |= self.nbt.is_some();
        self.nbt.as_mut()
    }

    /// Replaces the chunk's data (the slot becomes readable, and is re-encoded on write).
    pub fn set_nbt(&mut self, nbt: NbtFile) {
        self.compression_id = id_of(nbt.compression);
        self.nbt = Some(nbt);
        self.status = ChunkStatus::Ok;
        self.changed = true;
    }

    /// Whether the chunk will be re-encoded on write (changed, or new).
    pub fn is_changed(&self) -> bool {
        self.changed
    }

    /// The compression id and stored bytes this chunk writes, or why it cannot.
    fn stored(&self) -> Result<(u8, std::borrow::Cow<'_, [u8]>)> {
        use std::borrow::Cow;
        if self.changed
            && let Some(f) = &self.nbt
        {
            return Ok((id_of(f.compression), Cow::Owned(f.encode()?)));
        }
        let readable = match self.status {
            ChunkStatus::Ok | ChunkStatus::UnknownCompression | ChunkStatus::Invalid(_) => {
                !self.payload.is_empty()
            }
            _ => false,
        };
        if !readable {
            return Err(NbtError::from(NbtErrorKind::RegionChunk {
                index: self.index,
                reason: format!(
                    "its data could not be read ({}), so it cannot be written back; remove it \
                     from `chunks` to drop it",
                    self.status.name()
                ),
            }));
        }
        Ok((self.compression_id & 0x7F, Cow::Borrowed(&self.payload)))
    }
}

/// A region written out: the `.mca` bytes and the external chunk files beside it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RegionParts {
    /// The region file.
    pub region: Vec<u8>,
    /// External chunks: file name (`c.X.Z.mcc`) and contents, in slot order.
    pub external: Vec<(String, Vec<u8>)>,
}

/// A parsed region file: its position and its used slots in index order.
#[derive(Clone, Debug, Default)]
pub struct RegionFile {
    /// Region x (the `X` of `r.X.Z.mca`); names external chunk files.
    pub x: i32,
    /// Region z.
    pub z: i32,
    /// Used slots.
    pub chunks: Vec<Chunk>,
}

fn compression_of(id: u8) -> Option<Compression> {
    match id {
        1 => Some(Compression::Gzip),
        2 => Some(Compression::Zlib),
        3 => Some(Compression::None),
        4 => Some(Compression::Lz4),
        _ => None,
    }
}

/// A chunk's stored bytes decoded with its scheme, within `limit` bytes of memory counted in
/// `used` ([`NbtFile::decode_counted`]): the one decoding of chunk data, for `RegionFile` and the
/// world scan.
fn decode_stored(
    stored: &[u8],
    scheme: Compression,
    mut opts: FileOptions,
    used: &mut usize,
    limit: usize,
) -> Result<NbtFile> {
    opts.compression = Some(scheme);
    NbtFile::decode_counted(stored, opts, used, limit)
}

fn id_of(c: Compression) -> u8 {
    match c {
        Compression::Gzip => 1,
        Compression::Zlib => 2,
        Compression::Lz4 => 4,
        _ => 3,
    }
}

fn be32(d: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([d[at], d[at + 1], d[at + 2], d[at + 3]])
}

/// Region coordinates from a file name `r.X.Z.mca` (or `.mcr`).
pub fn coords_from_name(name: &str) -> Option<(i32, i32)> {
    let rest = name.strip_prefix("r.")?;
    let rest = rest
        .strip_suffix(".mca")
        .or_else(|| rest.strip_suffix(".mcr"))?;
    let (x, z) = rest.split_once('.')?;
    Some((x.parse().ok()?, z.parse().ok()?))
}

/// A loader of external chunk files: given `c.X.Z.mcc` and a limit, the file's bytes, or an
/// error ([`std::io::ErrorKind::NotFound`] when there is no such file). The limit is what the
/// region's budget has left: a loader should refuse a larger file before reading it, and must
/// not return more (more is refused, and counted). Bytes read by a loader that then fails are
/// the loader's to count; [`RegionFile::open`]'s own loader counts them against the budget.
pub type ExternalLoader<'a> = dyn FnMut(&str, usize) -> std::io::Result<Vec<u8>> + 'a;

/// What loading an external chunk gave.
enum Loaded {
    Bytes(Vec<u8>),
    /// No loader, or no such file: [`ChunkStatus::External`].
    Missing,
    /// Refused or failed: [`ChunkStatus::Invalid`] with this message.
    Refused(String),
}

/// The loader `decode_inner` calls: name, limit, and the bytes it read (added to, failures
/// included).
type Load<'a> = dyn FnMut(&str, usize, &mut usize) -> Loaded + 'a;

/// One used slot of a region file, from its tables.
pub(crate) struct Slot {
    pub(crate) index: usize,
    pub(crate) sector: u32,
    pub(crate) count: u8,
    pub(crate) timestamp: u32,
    /// Why it is not read, when its tables say so already.
    pub(crate) status: Option<ChunkStatus>,
}

impl Slot {
    /// The chunk of this slot before its sectors are read: position and timestamp from the
    /// tables, no header, no data, status `Ok`.
    pub(crate) fn unread_chunk(&self) -> Chunk {
        Chunk {
            index: self.index,
            sector: self.sector,
            sector_count: self.count,
            timestamp: self.timestamp,
            length: 0,
            compression_id: 0,
            status: ChunkStatus::Ok,
            payload: Vec::new(),
            nbt: None,
            changed: false,
        }
    }
}

/// The used slots of a region file of `len` bytes whose tables are `tables` (its first 8 KiB);
/// a slot outside the file, or whose reserved sectors (the count its location gives, as
/// Minecraft reserves them) overlap those of a slot with a smaller index, has its status. The
/// one reading of the tables for `RegionFile` and the world scan.
pub(crate) fn slots(tables: &[u8], len: u64) -> Vec<Slot> {
    let file_sectors = len.div_ceil(SECTOR as u64);
    // Reservations of the slots read so far: first sector → (end, slot); disjoint.
    let mut taken: BTreeMap<u64, (u64, usize)> = BTreeMap::new();
    let mut out = Vec::new();
    for index in 0..1024 {
        let loc = be32(tables, 4 * index);
        if loc == 0 {
            continue;
        }
        let sector = loc >> 8;
        let count = (loc & 0xFF) as u8;
        let mut slot = Slot {
            index,
            sector,
            count,
            timestamp: be32(tables, SECTOR + 4 * index),
            status: None,
        };
        let (start, end) = (
            sector as u64,
            (sector as u64 + count as u64).min(file_sectors),
        );
        if sector < 2 || start >= end {
            slot.status = Some(ChunkStatus::OutOfFile);
        } else {
            let before = taken
                .range(..=start)
                .next_back()
                .filter(|(_, (e, _))| *e > start);
            let after = taken.range(start..end).next();
            if let Some((_, &(_, other))) = before.or(after) {
                slot.status = Some(invalid(NbtErrorKind::SlotOverlap { other }));
            } else {
                taken.insert(start, (end, index));
            }
        }
        out.push(slot);
    }
    out
}

impl RegionFile {
    /// Parses a region file with default NBT options (Java, limits on); external chunks are
    /// left unread ([`ChunkStatus::External`]).
    pub fn decode(data: &[u8]) -> Result<RegionFile> {
        RegionFile::decode_with(data, FileOptions::default())
    }

    /// Parses a region file, decoding each chunk with `opts`, within [`DEFAULT_REGION_BUDGET`].
    pub fn decode_with(data: &[u8], opts: FileOptions) -> Result<RegionFile> {
        RegionFile::decode_with_budget(data, opts, DEFAULT_REGION_BUDGET)
    }

    /// Parses a region file, decoding each chunk with `opts` (whose `max_decompressed` limits
    /// each chunk), within `budget` bytes of memory over the whole file. What counts, failed
    /// reads included: each chunk's stored bytes kept in [`Chunk::payload`] (a copy of its
    /// sectors, or the external file read), every byte inflated (the whole limit for a
    /// decompression that hits it) and an estimate from above of each tree built, made as it
    /// is built (each string, array and list element, compound entry and growth of the
    /// reader's scratch vector, at its size in memory: see docs/reliability.md). `data`
    /// itself is the caller's and does not count. Once the budget is spent, the chunks left
    /// get [`ChunkStatus::Invalid`] saying so (without their stored bytes when those would
    /// not fit), so time and memory stay within the budget whatever the file holds.
    ///
    /// A slot whose sectors overlap those of an earlier slot (Minecraft never writes such a
    /// table) is not read: it gets [`ChunkStatus::Invalid`] naming that slot, so one chunk is
    /// never copied or decoded once per slot pointing at it.
    pub fn decode_with_budget(data: &[u8], opts: FileOptions, budget: usize) -> Result<RegionFile> {
        RegionFile::decode_inner(data, (0, 0), opts, budget, &mut |_, _, _| Loaded::Missing)
    }

    /// Reads `path` (`r.X.Z.mca`) and the external chunks beside it, within
    /// [`DEFAULT_REGION_BUDGET`]. The region position comes from the file name (0, 0 if it
    /// does not have the usual form).
    ///
    /// `path` is the caller's: it is opened as [`std::fs::File::open`] would (a symbolic link
    /// is followed), but must be a regular file (not a FIFO, socket or device). The external
    /// chunk files `c.X.Z.mcc` are named by the region's contents, so they are untrusted: one
    /// is read only if it is a regular file in `path`'s folder itself, not a symbolic link
    /// (even one that stays in the folder), FIFO, socket or device, and only if its length
    /// fits in what the budget has left, checked before reading; it is read into a buffer of
    /// that length, and a file with more to read (one that grows) is refused. Otherwise the
    /// chunk gets [`ChunkStatus::Invalid`] saying why ([`ChunkStatus::External`] when the file
    /// does not exist).
    pub fn open(path: &Path) -> Result<RegionFile> {
        RegionFile::open_with(path, FileOptions::default(), DEFAULT_REGION_BUDGET)
    }

    /// [`open`](Self::open) with options and a budget, which counts the region file's own
    /// bytes and the external files read besides what
    /// [`decode_with_budget`](Self::decode_with_budget) counts.
    pub fn open_with(path: &Path, opts: FileOptions, budget: usize) -> Result<RegionFile> {
        let data = fsx::read_regular(path, budget)?;
        let pos = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(coords_from_name)
            .unwrap_or((0, 0));
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let mut load = |name: &str, limit: usize, read: &mut usize| match fsx::read_in_folder(
            dir, name, limit, read,
        ) {
            Ok(bytes) => Loaded::Bytes(bytes),
            Err(fsx::Refusal::Missing) => Loaded::Missing,
            Err(fsx::Refusal::Other(why)) => {
                Loaded::Refused(format!("external chunk file {name}: {why}"))
            }
        };
        RegionFile::decode_inner(&data, pos, opts, budget - data.len(), &mut load)
    }

    /// Parses a region file at region position `pos`, reading external chunks through
    /// `external` (skipped, [`ChunkStatus::External`], without one or when it says
    /// [`NotFound`](std::io::ErrorKind::NotFound); [`ChunkStatus::Invalid`] with its error
    /// otherwise); see [`decode_with_budget`](Self::decode_with_budget) for `budget`, which the
    /// bytes `external` returns count against too (it is given what is left as its limit).
    pub fn decode_at(
        data: &[u8],
        pos: (i32, i32),
        opts: FileOptions,
        budget: usize,
        external: Option<&mut ExternalLoader<'_>>,
    ) -> Result<RegionFile> {
        let Some(external) = external else {
            return RegionFile::decode_inner(data, pos, opts, budget, &mut |_, _, _| {
                Loaded::Missing
            });
        };
        let mut load = |name: &str, limit: usize, read: &mut usize| match external(name, limit) {
            Ok(bytes) => {
                *read = read.saturating_add(bytes.len());
                if bytes.len() > limit {
                    Loaded::Refused(format!(
                        "external chunk file {name}: the loader gave {} bytes, more than the \
                         {limit} left in the budget",
                        bytes.len()
                    ))
                } else {
                    Loaded::Bytes(bytes)
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Loaded::Missing,
            Err(e) => Loaded::Refused(format!("external chunk file {name}: {e}")),
        };
        RegionFile::decode_inner(data, pos, opts, budget, &mut load)
    }

    fn decode_inner(
        data: &[u8],
        pos: (i32, i32),
        opts: FileOptions,
        budget: usize,
        load: &mut Load<'_>,
    ) -> Result<RegionFile> {
        if data.len() < 2 * SECTOR {
            return Err(too_short(data.len() as u64));
        }
        let mut chunks = Vec::new();
        let mut used = 0usize;
        let spent = |used: usize| invalid(NbtErrorKind::RegionBudget { budget, used });
        for slot in slots(data, data.len() as u64) {
            let mut ch = slot.unread_chunk();
            let start = slot.sector as usize * SECTOR;
            let avail = data
                .len()
                .saturating_sub(start)
                .min(slot.count as usize * SECTOR);
            if let Some(status) = slot
                .status
                .or_else(|| ch.read_header(&data[start.min(data.len())..], avail))
            {
                ch.status = status;
                chunks.push(ch);
                continue;
            }
            let len = ch.length as usize;
            let left = budget.saturating_sub(used);
            if ch.is_external() {
                let name = ch.external_name(pos);
                let mut read = 0;
                let loaded = load(&name, left, &mut read);
                used = used.saturating_add(read);
                match loaded {
                    Loaded::Bytes(bytes) => ch.payload = bytes,
                    Loaded::Missing => {
                        ch.status = ChunkStatus::External;
                        chunks.push(ch);
                        continue;
                    }
                    Loaded::Refused(why) => {
                        ch.status = invalid(NbtErrorKind::Region(why));
                        chunks.push(ch);
                        continue;
                    }
                }
            } else if len - 1 > left {
                ch.status = spent(used);
                chunks.push(ch);
                continue;
            } else {
                used += len - 1;
                ch.payload = data[start + 5..start + 4 + len].to_vec();
            }
            let Some(c) = ch.compression() else {
                ch.status = ChunkStatus::UnknownCompression;
                chunks.push(ch);
                continue;
            };
            if used >= budget {
                ch.status = spent(used);
                chunks.push(ch);
                continue;
            }
            match decode_stored(&ch.payload, c, opts, &mut used, budget) {
                Ok(f) => ch.nbt = Some(f),
                Err(e) => ch.status = invalid(e),
            }
            chunks.push(ch);
        }
        Ok(RegionFile {
            x: pos.0,
            z: pos.1,
            chunks,
        })
    }

    /// The chunk at (x, z) within the region.
    pub fn chunk(&self, x: usize, z: usize) -> Option<&Chunk> {
        self.chunks.iter().find(|c| c.index == x + 32 * z)
    }

    /// The chunk at (x, z) within the region, mutable.
    pub fn chunk_mut(&mut self, x: usize, z: usize) -> Option<&mut Chunk> {
        self.chunks.iter_mut().find(|c| c.index == x + 32 * z)
    }

    /// The decoded chunk at (x, z), or why there is none: outside the region, an empty slot,
    /// or a chunk that was not read (its status says why).
    pub fn tree(&self, x: usize, z: usize) -> Result<&NbtFile> {
        let index = slot_index(x, z)?;
        let chunk = self.chunk(x, z).ok_or_else(|| empty_slot(index))?;
        chunk
            .nbt
            .as_ref()
            .ok_or_else(|| unread(index, &chunk.status))
    }

    /// The decoded chunk at (x, z), mutable, marked changed (re-encoded on write); an error as
    /// [`RegionFile::tree`] says: `region.tree_mut(1, 3)?.set_path("xPos", 1i32)?`.
    pub fn tree_mut(&mut self, x: usize, z: usize) -> Result<&mut NbtFile> {
        let index = slot_index(x, z)?;
        let chunk = self.chunk_mut(x, z).ok_or_else(|| empty_slot(index))?;
        if chunk.nbt.is_none() {
            return Err(unread(index, &chunk.status));
        }
        Ok(chunk.nbt_mut().expect("checked above"))
    }

    /// Puts `chunk` in its slot, replacing (and returning) the chunk there.
    pub fn insert(&mut self, chunk: Chunk) -> Option<Chunk> {
        match self.chunks.binary_search_by_key(&chunk.index, |c| c.index) {
            Ok(i) => Some(std::mem::replace(&mut self.chunks[i], chunk)),
            Err(i) => {
                self.chunks.insert(i, chunk);
                None
            }
        }
    }

    /// Writes the region and its external chunks (see the module docs for what is kept).
    pub fn to_parts(&self) -> Result<RegionParts> {
        let mut out = RegionParts {
            region: vec![0u8; 2 * SECTOR],
            external: Vec::new(),
        };
        let mut seen = [false; 1024];
        // Original order on disk; new chunks (sector 0) after, in slot order.
        let mut order: Vec<&Chunk> = self.chunks.iter().collect();
        order.sort_by_key(|c| (c.sector == 0, c.sector, c.index));
        for ch in order {
            if ch.index >= 1024 || std::mem::replace(&mut seen[ch.index], true) {
                return Err(NbtError::from(NbtErrorKind::RegionChunk {
                    index: ch.index,
                    reason: "slot index over 1023 or used twice".into(),
                }));
            }
            let (id, body) = ch.stored()?;
            let region = &mut out.region;
            let sector = region.len() / SECTOR;
            let external =
                (ch.is_external() && !ch.changed) || body.len() + 5 > MAX_SECTORS * SECTOR;
            if external {
                region.extend_from_slice(&1u32.to_be_bytes());
                region.push(id | 0x80);
                out.external
                    .push((ch.external_name((self.x, self.z)), body.into_owned()));
            } else {
                region.extend_from_slice(&((body.len() + 1) as u32).to_be_bytes());
                region.push(id);
                region.extend_from_slice(&body);
            }
            let count = (region.len() - sector * SECTOR).div_ceil(SECTOR);
            if sector > 0xFF_FFFF {
                return Err(NbtError::from(NbtErrorKind::RegionChunk {
                    index: ch.index,
                    reason: "the region is over 64 GiB (sector numbers have 24 bits)".into(),
                }));
            }
            region.resize((sector + count) * SECTOR, 0);
            let loc = ((sector as u32) << 8) | count as u32;
            region[4 * ch.index..4 * ch.index + 4].copy_from_slice(&loc.to_be_bytes());
            let ts = SECTOR + 4 * ch.index;
            region[ts..ts + 4].copy_from_slice(&ch.timestamp.to_be_bytes());
        }
        Ok(out)
    }

    /// The region file alone; an error if a chunk has to be external (then use
    /// [`to_parts`](Self::to_parts) or [`save`](Self::save)).
    pub fn encode(&self) -> Result<Vec<u8>> {
        let parts = self.to_parts()?;
        if let Some((name, _)) = parts.external.first() {
            return Err(NbtError::from(NbtErrorKind::Region(format!(
                "chunk {name} is stored outside the region: write it with to_parts or save"
            ))));
        }
        Ok(parts.region)
    }

    /// Writes the region to `path` and its external chunks beside it. `path` is written as
    /// [`std::fs::write`] does; an external chunk file is written only if it is a regular file
    /// in `path`'s folder or does not exist (a symbolic link there is refused, not written
    /// through).
    pub fn save(&self, path: &Path) -> Result<()> {
        let parts = self.to_parts()?;
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        for (name, bytes) in &parts.external {
            fsx::write_in_folder(dir, name, bytes)?;
        }
        std::fs::write(path, &parts.region)?;
        Ok(())
    }

    /// The dump form: `{"chunks":[{index,x,z,sector,sector_count,timestamp,length,
    /// compression_id,compression,stream_complete,status,decompressed_size,trailing_bytes,nbt}]}`.
    pub fn to_json(&self) -> String {
        let mut out = Vec::new();
        self.write_json(&mut out)
            .expect("writing to a Vec cannot fail");
        String::from_utf8(out).expect("the dump is UTF-8")
    }

    /// [`to_json`](Self::to_json) written to `w` chunk by chunk, each chunk's NBT in pieces of
    /// 64 KiB: the text (2–4 bytes per byte of a large array) is never held whole.
    pub fn write_json(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        w.write_all(b"{\"chunks\":[")?;
        for (i, ch) in self.chunks.iter().enumerate() {
            if i > 0 {
                w.write_all(b",")?;
            }
            write!(
                w,
                "{{\"index\":{},\"x\":{},\"z\":{},\"sector\":{},\"sector_count\":{},\"timestamp\":{},\"length\":{},\"compression_id\":{}",
                ch.index,
                ch.x(),
                ch.z(),
                ch.sector,
                ch.sector_count,
                ch.timestamp,
                ch.length,
                ch.compression_id
            )?;
            if let Some(c) = compression_of(ch.compression_id) {
                write!(w, ",\"compression\":\"{}\"", c.name())?;
            }
            match &ch.nbt {
                Some(f) => {
                    write!(
                        w,
                        ",\"stream_complete\":{},\"status\":\"ok\",\"decompressed_size\":{},\"trailing_bytes\":{},\"nbt\":",
                        f.stream_complete, f.decompressed_size, f.trailing,
                    )?;
                    dump::write_root_json(&f.roots[0], w)?;
                }
                None => {
                    write!(w, ",\"status\":\"{}\"", ch.status.name())?;
                    if let ChunkStatus::Invalid(e) = &ch.status {
                        write!(w, ",\"error\":{}", dump::json_string(&e.to_string()))?;
                    }
                }
            }
            w.write_all(b"}")?;
        }
        w.write_all(b"]}")
    }
}

/// Reads a region file's chunks back from the dump's `chunks` array (JSON form of
/// [`RegionFile::to_json`]); chunks without `nbt` are skipped.
///
/// Each value must fit the region format, or the dump is refused with
/// [`NbtErrorKind::RegionDump`] naming the entry (its place in `chunks` and its slot): `index` in
/// 0..1024 and used once, `x` and `z` (when given) the slot's, `timestamp` a 32-bit number,
/// `compression_id` one of the schemes (1 gzip, 2 zlib, 3 none, 4 LZ4, each + 128 for an
/// external chunk), `nbt` a root that reads. Nothing is truncated to fit. The layout fields
/// (`sector`, `sector_count`, `length`) and the read report (`status`, sizes) are not read:
/// writing lays the chunks out again.
pub fn from_json(j: &dump::Json) -> Result<RegionFile> {
    let Some(dump::Json::Array(items)) = j.get("chunks") else {
        return Err(NbtError::from(NbtErrorKind::Json {
            at: 0,
            message: "expected \"chunks\", an array".into(),
        }));
    };
    let mut chunks = Vec::new();
    let mut seen = [None::<usize>; 1024];
    for (entry, c) in items.iter().enumerate() {
        let bad = |slot: Option<usize>, reason: String| {
            NbtError::from(NbtErrorKind::RegionDump {
                entry,
                slot,
                reason,
            })
        };
        // A whole number of at most `max`, or why not.
        let num = |slot: Option<usize>, k: &str, max: u64| -> Result<Option<u64>> {
            match c.get(k) {
                None => Ok(None),
                Some(dump::Json::Number(n)) => match n.parse::<u64>() {
                    Ok(v) if v <= max => Ok(Some(v)),
                    Ok(_) => Err(bad(slot, format!("`{k}` {n} does not fit (at most {max})"))),
                    Err(_) => Err(bad(
                        slot,
                        format!(
                            "`{k}` {} is not a whole number from 0 to {max}",
                            clip_num(n)
                        ),
                    )),
                },
                Some(_) => Err(bad(slot, format!("`{k}` is not a number"))),
            }
        };
        let Some(n) = c.get("nbt") else { continue };
        let index = num(None, "index", 1023)?
            .ok_or_else(|| bad(None, "`index` is missing".into()))? as usize;
        let slot = Some(index);
        if let Some(first) = seen[index].replace(entry) {
            return Err(bad(
                slot,
                format!("slot {index} is chunks[{first}]'s already"),
            ));
        }
        for (k, want) in [("x", index % 32), ("z", index / 32)] {
            if let Some(v) = num(slot, k, 31)?
                && v as usize != want
            {
                return Err(bad(
                    slot,
                    format!("`{k}` {v} is not slot {index}'s ({want})"),
                ));
            }
        }
        let id = num(slot, "compression_id", 255)?
            .ok_or_else(|| bad(slot, "`compression_id` is missing".into()))? as u8;
        let compression = compression_of(id & 0x7F).ok_or_else(|| {
            bad(
                slot,
                format!(
                    "`compression_id` {id} is not a scheme that can be written (1 gzip, 2 \
                     zlib, 3 none, 4 LZ4; + 128 external)"
                ),
            )
        })?;
        let timestamp = num(slot, "timestamp", u32::MAX as u64)?
            .ok_or_else(|| bad(slot, "`timestamp` is missing".into()))?
            as u32;
        let root = dump::root_from_json(n).map_err(|e| bad(slot, format!("`nbt`: {e}")))?;
        chunks.push(Chunk {
            index,
            sector: 0,
            sector_count: 0,
            timestamp,
            length: 0,
            compression_id: id,
            status: ChunkStatus::Ok,
            payload: Vec::new(),
            changed: true,
            nbt: Some(NbtFile::new(root, compression)),
        });
    }
    chunks.sort_by_key(|c| c.index);
    Ok(RegionFile { x: 0, z: 0, chunks })
}

/// A number from the dump as text for a message, shortened when long.
fn clip_num(n: &str) -> String {
    if n.len() <= 40 {
        n.to_string()
    } else {
        format!("{}…({} characters)", &n[..20], n.len())
    }
}

/// Files of a world opened as untrusted input: regular files only, never a FIFO (which would
/// block the open or the read for ever) or a device (`/dev/zero` never ends), sizes checked
/// before reading and reads bounded, and for the files a region names, no symbolic links.
mod fsx {
    use std::fs::{File, Metadata, OpenOptions};
    use std::io::Read;
    use std::path::Path;

    use super::super::error::{NbtError, NbtErrorKind, Result};

    /// Why an external file was not read.
    pub(super) enum Refusal {
        /// It does not exist.
        Missing,
        /// Refused, or the read failed: why.
        Other(String),
    }

    /// Options that never block on a FIFO (`O_NONBLOCK`) and, unless `follow`, refuse a
    /// symbolic link as the last component (`O_NOFOLLOW`), so that what is opened is what was
    /// checked even if the folder changes in between.
    fn options(follow: bool) -> OpenOptions {
        let mut o = OpenOptions::new();
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            let nofollow = if follow { 0 } else { libc::O_NOFOLLOW };
            o.custom_flags(libc::O_NONBLOCK | nofollow);
        }
        #[cfg(not(unix))]
        let _ = follow;
        o
    }

    pub(super) fn kind(m: &Metadata) -> &'static str {
        let t = m.file_type();
        if t.is_symlink() {
            "a symbolic link"
        } else if t.is_dir() {
            "a folder"
        } else {
            "not a regular file (a FIFO, socket or device)"
        }
    }

    /// Whether two metadata describe the same file (device and inode where there are such).
    fn same_file(a: &Metadata, b: &Metadata) -> bool {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            a.dev() == b.dev() && a.ino() == b.ino()
        }
        #[cfg(not(unix))]
        {
            a.len() == b.len()
        }
    }

    /// Reads `f`, whose length was `len` (at most `limit`) when opened, into a buffer of exactly
    /// that size, never grown: a file with more to read than its length said (one that grows
    /// while it is read, or a `/proc` file that says 0) is refused. `read` gets the bytes read,
    /// failures included.
    fn read_bounded(
        mut f: File,
        len: u64,
        limit: usize,
        read: &mut usize,
    ) -> std::result::Result<Vec<u8>, String> {
        let len = len.min(limit as u64) as usize;
        let mut data = Vec::new();
        data.try_reserve_exact(len)
            .map_err(|_| format!("no memory for its {len} bytes"))?;
        let r = (&mut f).take(len as u64).read_to_end(&mut data);
        *read = read.saturating_add(data.len());
        r.map_err(|e| format!("read failed: {e}"))?;
        let mut more = [0u8; 1];
        match f.read(&mut more) {
            Ok(0) => Ok(data),
            Ok(_) => {
                *read = read.saturating_add(1);
                Err(format!(
                    "it holds more than the {len} bytes its length said (it grew while it was \
                     read); not kept"
                ))
            }
            Err(e) => Err(format!("read failed: {e}")),
        }
    }

    /// The file `name` of folder `dir`, if it is a regular file there (not a symbolic link,
    /// FIFO, socket or device) of at most `limit` bytes. `read` gets the bytes read.
    pub(super) fn read_in_folder(
        dir: &Path,
        name: &str,
        limit: usize,
        read: &mut usize,
    ) -> std::result::Result<Vec<u8>, Refusal> {
        let path = dir.join(name);
        let other = |m: String| Refusal::Other(m);
        let before = match std::fs::symlink_metadata(&path) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(Refusal::Missing),
            Err(e) => return Err(other(e.to_string())),
        };
        if !before.file_type().is_file() {
            return Err(other(format!(
                "{}; external chunks are read only from regular files in the region's folder",
                kind(&before)
            )));
        }
        if before.len() > limit as u64 {
            return Err(other(format!(
                "{} bytes, more than the {limit} left in the budget (not read)",
                before.len()
            )));
        }
        let f = options(false)
            .read(true)
            .open(&path)
            .map_err(|e| other(e.to_string()))?;
        let now = f.metadata().map_err(|e| other(e.to_string()))?;
        if !now.file_type().is_file() || !same_file(&before, &now) {
            return Err(other(
                "it was replaced while it was opened; not read".to_string(),
            ));
        }
        read_bounded(f, now.len(), limit, read).map_err(other)
    }

    /// The file at `path` opened for reading, and its length, if it is a regular file there
    /// (not a symbolic link, FIFO, socket or device).
    #[cfg_attr(not(feature = "nbt-world"), allow(dead_code))]
    pub(super) fn open_regular(path: &Path) -> Result<(File, u64)> {
        let f = options(false).read(true).open(path);
        // What is there: the open file's, or (when O_NOFOLLOW refused a link, say) the path's.
        let m = match &f {
            Ok(f) => f.metadata()?,
            Err(_) => std::fs::symlink_metadata(path)?,
        };
        if !m.file_type().is_file() {
            return Err(NbtError::from(NbtErrorKind::Region(format!(
                "{}; not read",
                kind(&m)
            ))));
        }
        let f = f?;
        Ok((f, m.len()))
    }

    /// The file at `path` (a symbolic link is followed: the path is the caller's), if it is a
    /// regular file of at most `limit` bytes.
    pub(super) fn read_regular(path: &Path, limit: usize) -> Result<Vec<u8>> {
        let f = options(true).read(true).open(path)?;
        let m = f.metadata()?;
        let refuse = |why: String| {
            NbtError::from(NbtErrorKind::Region(format!("{}: {why}", path.display())))
        };
        if !m.file_type().is_file() {
            return Err(refuse(kind(&m).to_string()));
        }
        if m.len() > limit as u64 {
            return Err(refuse(format!(
                "{} bytes, more than the budget of {limit} (not read)",
                m.len()
            )));
        }
        read_bounded(f, m.len(), limit, &mut 0).map_err(refuse)
    }

    /// Writes `bytes` to the file `name` of folder `dir`, which must be a regular file there or
    /// not exist: a symbolic link (to a file anywhere) is not written through.
    pub(super) fn write_in_folder(dir: &Path, name: &str, bytes: &[u8]) -> Result<()> {
        use std::io::Write;
        let path = dir.join(name);
        let refuse = |why: &str| {
            NbtError::from(NbtErrorKind::Region(format!(
                "{}: {why}; external chunks are written only to regular files in the region's \
                 folder",
                path.display()
            )))
        };
        match std::fs::symlink_metadata(&path) {
            Ok(m) if !m.file_type().is_file() => return Err(refuse(kind(&m))),
            _ => {}
        }
        let mut f = options(false)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)?;
        if !f.metadata()?.file_type().is_file() {
            return Err(refuse("not a regular file"));
        }
        f.write_all(bytes)?;
        Ok(())
    }
}

/// The slot of chunk (x, z) of a region; an error outside 0..32.
fn slot_index(x: usize, z: usize) -> Result<usize> {
    if x < 32 && z < 32 {
        Ok(x + 32 * z)
    } else {
        Err(NbtError::from(NbtErrorKind::Region(format!(
            "chunk (x {x}, z {z}) is outside a region (0..32 each way)"
        ))))
    }
}

#[cold]
fn empty_slot(index: usize) -> NbtError {
    NbtError::from(NbtErrorKind::RegionChunk {
        index,
        reason: String::from("no chunk in this slot"),
    })
}

/// A region file of `len` bytes, too short for its tables.
#[cold]
fn too_short(len: u64) -> NbtError {
    NbtError::from(NbtErrorKind::Region(format!(
        "{len} bytes is shorter than the 8 KiB header"
    )))
}

/// [`ChunkStatus::Invalid`] with `e` (an error, or the kind of one).
#[cold]
fn invalid(e: impl Into<NbtError>) -> ChunkStatus {
    ChunkStatus::Invalid(Arc::new(e.into()))
}

#[cold]
fn unread(index: usize, status: &ChunkStatus) -> NbtError {
    let reason = match status {
        ChunkStatus::Invalid(why) => format!("not read: {why}"),
        other => format!("not read ({})", other.name()),
    };
    NbtError::from(NbtErrorKind::RegionChunk { index, reason })
}
