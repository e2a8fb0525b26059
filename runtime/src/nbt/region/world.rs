//! Whole worlds (feature `nbt-world`): every region file of a world folder read in parallel with
//! rayon, each chunk decoded (or only its header read) and handed to the caller, within one
//! memory budget, a chunk that cannot be read reported without stopping the scan.
//!
//! The work is split by chunk, not by file, so two threads share even a world of one region
//! file. A chunk's sectors are read with one positioned read (`pread`) into a buffer of its own;
//! nothing outlives the caller's visit of the chunk, so memory is bounded by what the threads
//! hold at once: the budget is divided between them, and each chunk (its stored bytes, external
//! file, inflated bytes and tree estimate, as [`super::RegionFile::decode_with_budget`] counts them) is
//! read within its thread's share.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

use super::{
    Chunk, ChunkStatus, DEFAULT_REGION_BUDGET, SECTOR, Slot, coords_from_name, decode_stored, fsx,
    invalid, slots, too_short, unread,
};
use crate::nbt::error::{NbtError, NbtErrorKind, Result};
use crate::nbt::file::FileOptions;

/// The folders of a world that hold region files, under the world folder and under each
/// dimension folder (`DIM-1`, `DIM1`, `dimensions/<namespace>/<name>`).
const KINDS: [&str; 3] = ["region", "entities", "poi"];

/// How many problems [`WorldScan::errors`] keeps (all are counted).
const KEPT_ERRORS: usize = 1000;

/// Options of [`scan_world`].
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct ScanOptions {
    /// How each chunk is decoded (edition, root form, limits); the compression is the chunk's.
    pub file: FileOptions,
    /// Read only each region's tables and each chunk's 5-byte header, nothing decompressed or
    /// decoded: [`Chunk::nbt`] is `None`, the status is [`ChunkStatus::Ok`] when the header
    /// fits the sectors and names a known scheme, and external chunks ([`ChunkStatus::External`])
    /// are not opened.
    pub headers_only: bool,
    /// Memory of the whole scan in bytes ([`DEFAULT_REGION_BUDGET`] by default): the list of
    /// region files may take a quarter, and the rest is divided between the threads; each
    /// chunk is read within its thread's share, counted as in
    /// [`RegionFile::decode_with_budget`](super::RegionFile::decode_with_budget), and is
    /// [`ChunkStatus::Invalid`] when it does not fit.
    pub budget: usize,
    /// Threads: 0 runs on the current rayon pool (the global one, a thread per core, unless
    /// the call is made inside another pool's `install`), another number on a pool of its own
    /// of that many threads, started and stopped by the call. A program that scans more than
    /// once keeps its pool: starting and stopping two threads, with their allocator arenas,
    /// adds a few milliseconds to a 768-chunk scan of 23–25 ms (docs/nbt-bench.md).
    pub threads: usize,
}

impl Default for ScanOptions {
    fn default() -> ScanOptions {
        ScanOptions {
            file: FileOptions::default(),
            headers_only: false,
            budget: DEFAULT_REGION_BUDGET,
            threads: 0,
        }
    }
}

/// What [`scan_world`] found.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct WorldScan {
    /// Region files found (read or not).
    pub files: usize,
    /// Used chunk slots seen, read or not.
    pub chunks: usize,
    /// Chunks read fine ([`ChunkStatus::Ok`]).
    pub ok: usize,
    /// Problems found, all of them counted here; at most 1 000 of them (the first found) are
    /// in `errors`.
    pub error_count: usize,
    /// Problems, sorted by file and slot: the file (relative to the world folder) and the
    /// error, [`NbtErrorKind::RegionChunk`] with the slot for a chunk that was not read, another
    /// error for a file or folder that could not be read at all.
    pub errors: Vec<(PathBuf, NbtError)>,
}

/// Reads every region file (`r.X.Z.mca`, `.mcr`) of the world folder `dir`, in `region/`,
/// `entities/` and `poi/` of the world and of each dimension (`DIM-1`, `DIM1`,
/// `dimensions/<namespace>/<name>`), in parallel, and calls `visit` with each used chunk slot
/// (the region file's path relative to `dir`, and the chunk, decoded when its status is
/// [`ChunkStatus::Ok`] and `headers_only` is off) on the thread that read it, in no set
/// order. A chunk that cannot be read is visited with its status, and counted and reported in
/// [`WorldScan::errors`]; so is a file that cannot be read, and the scan goes on. The chunk's
/// stored bytes are not kept ([`Chunk::payload`] is empty).
///
/// The world folder is untrusted below `dir`: symbolic links, FIFOs, sockets and devices in it
/// are reported, not followed or opened; an external chunk `c.X.Z.mcc` is read only as
/// [`RegionFile::open`](super::RegionFile::open) reads one. A slot whose reserved sectors
/// overlap those of a slot with a smaller index is [`ChunkStatus::Invalid`], so no sector is
/// decoded twice. A thread holds one chunk at a time, unless `visit` itself waits on rayon work
/// (then its thread may take up another chunk meanwhile). The error is for `dir` itself (not a
/// folder, or not readable), or a thread pool that could not be started.
pub fn scan_world<F>(dir: &Path, opts: ScanOptions, visit: F) -> Result<WorldScan>
where
    F: Fn(&Path, &Chunk) + Sync,
{
    let run = || scan(dir, &opts, &visit);
    if opts.threads == 0 {
        return run();
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(opts.threads)
        .build()
        .map_err(std::io::Error::other)?
        .install(run)
}

/// What the threads add up.
struct Tally {
    chunks: AtomicUsize,
    ok: AtomicUsize,
    error_count: AtomicUsize,
    errors: Mutex<Vec<(PathBuf, NbtError)>>,
}

impl Tally {
    /// Reports `dir/rel`, which is not a real folder or regular file, as not followed.
    fn not_followed(&self, dir: &Path, rel: &Path) {
        if let Ok(m) = std::fs::symlink_metadata(dir.join(rel)) {
            self.error(rel, not_followed(&m));
        }
    }

    fn error(&self, file: &Path, e: NbtError) {
        self.error_count.fetch_add(1, Ordering::Relaxed);
        let mut kept = self.errors.lock().unwrap_or_else(|p| p.into_inner());
        if kept.len() < KEPT_ERRORS {
            kept.push((file.to_path_buf(), e));
        }
    }
}

fn scan(
    dir: &Path,
    opts: &ScanOptions,
    visit: &(dyn Fn(&Path, &Chunk) + Sync),
) -> Result<WorldScan> {
    let meta = std::fs::metadata(dir)?;
    if !meta.is_dir() {
        return Err(refused(format!("{}: not a folder", dir.display())));
    }
    let tally = Tally {
        chunks: AtomicUsize::new(0),
        ok: AtomicUsize::new(0),
        error_count: AtomicUsize::new(0),
        errors: Mutex::new(Vec::new()),
    };
    let mut listing = Listing {
        files: Vec::new(),
        left: opts.budget / 4,
    };
    for root in dimension_folders(dir, &tally) {
        for kind in KINDS {
            listing.region_files(dir, &root.join(kind), &tally);
        }
    }
    let files = listing.files;
    let spent = opts.budget / 4 - listing.left;
    let share = (opts.budget - spent) / rayon::current_num_threads().max(1);
    files.par_iter().for_each(|rel| {
        if let Err(e) = scan_file(dir, rel, opts, share, &tally, visit) {
            tally.error(rel, e);
        }
    });
    let mut errors = tally.errors.into_inner().unwrap_or_else(|p| p.into_inner());
    errors.sort_by(|a, b| (&a.0, slot_of(&a.1)).cmp(&(&b.0, slot_of(&b.1))));
    Ok(WorldScan {
        files: files.len(),
        chunks: tally.chunks.into_inner(),
        ok: tally.ok.into_inner(),
        error_count: tally.error_count.into_inner(),
        errors,
    })
}

/// An error the scan makes of its own: for a world folder, a folder in it or a region file
/// that is not read, and for a chunk refused before it is decoded (too large for a thread's
/// share, an external file not read). How a chunk's status is reported is [`unread`]'s.
#[cold]
fn refused(why: String) -> NbtError {
    NbtError::from(NbtErrorKind::Region(why))
}

/// The slot an error is about (0 for a file's), to sort the report.
fn slot_of(e: &NbtError) -> usize {
    match e.kind() {
        NbtErrorKind::RegionChunk { index, .. } => *index,
        _ => 0,
    }
}

/// The world folder and its dimension folders that exist, relative to `dir`.
fn dimension_folders(dir: &Path, tally: &Tally) -> Vec<PathBuf> {
    let mut roots = vec![PathBuf::new()];
    for d in ["DIM-1", "DIM1"] {
        if is_folder(dir, Path::new(d), tally) {
            roots.push(PathBuf::from(d));
        }
    }
    let dims = Path::new("dimensions");
    if is_folder(dir, dims, tally) {
        for ns in sorted_folders(dir, dims, tally) {
            roots.extend(sorted_folders(dir, &ns, tally));
        }
    }
    roots
}

/// Whether `dir/rel` is a folder (not a link to one); anything else there is reported.
fn is_folder(dir: &Path, rel: &Path, tally: &Tally) -> bool {
    match std::fs::symlink_metadata(dir.join(rel)) {
        Ok(m) if m.is_dir() => true,
        Ok(m) => {
            tally.error(rel, not_followed(&m));
            false
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
        Err(e) => {
            tally.error(rel, e.into());
            false
        }
    }
}

fn not_followed(m: &std::fs::Metadata) -> NbtError {
    refused(format!(
        "{}; a world's folders and region files are read only when they are real folders and \
         regular files",
        fsx::kind(m)
    ))
}

/// The folders in `dir/rel`, relative to `dir`, sorted.
fn sorted_folders(dir: &Path, rel: &Path, tally: &Tally) -> Vec<PathBuf> {
    let mut out = Vec::new();
    match std::fs::read_dir(dir.join(rel)) {
        Ok(entries) => {
            for e in entries.flatten() {
                match e.file_type() {
                    Ok(t) if t.is_dir() => out.push(rel.join(e.file_name())),
                    Ok(t) if t.is_symlink() => tally.not_followed(dir, &rel.join(e.file_name())),
                    _ => {}
                }
            }
        }
        Err(e) => tally.error(rel, e.into()),
    }
    out.sort();
    out
}

/// The region files found so far and what the budget for listing them has left.
struct Listing {
    files: Vec<PathBuf>,
    left: usize,
}

impl Listing {
    /// Adds the region files of `dir/rel` (if it is a folder), sorted.
    fn region_files(&mut self, dir: &Path, rel: &Path, tally: &Tally) {
        if !is_folder(dir, rel, tally) {
            return;
        }
        let entries = match std::fs::read_dir(dir.join(rel)) {
            Ok(e) => e,
            Err(e) => return tally.error(rel, e.into()),
        };
        let first = self.files.len();
        for e in entries.flatten() {
            let name = e.file_name();
            if name.to_str().and_then(coords_from_name).is_none() {
                continue;
            }
            let path = rel.join(&name);
            match e.file_type() {
                Ok(t) if t.is_file() => {}
                Ok(_) => {
                    tally.not_followed(dir, &path);
                    continue;
                }
                Err(e) => {
                    tally.error(&path, e.into());
                    continue;
                }
            }
            let cost = path.as_os_str().len() + std::mem::size_of::<PathBuf>();
            if cost > self.left {
                tally.error(
                    rel,
                    refused(format!(
                        "more region files than the scan's budget can list; {path:?} and the \
                         rest of the folder are not read"
                    )),
                );
                break;
            }
            self.left -= cost;
            self.files.push(path);
        }
        self.files[first..].sort();
    }
}

/// An open region file of a scan.
struct Region<'a> {
    file: File,
    /// Its path (for platforms without positioned reads).
    path: PathBuf,
    /// Its length when opened.
    len: u64,
    /// Its folder, where its external chunks are.
    folder: &'a Path,
    /// Region coordinates (from the name).
    pos: (i32, i32),
}

fn scan_file(
    dir: &Path,
    rel: &Path,
    opts: &ScanOptions,
    share: usize,
    tally: &Tally,
    visit: &(dyn Fn(&Path, &Chunk) + Sync),
) -> Result<()> {
    let path = dir.join(rel);
    let (file, len) = fsx::open_regular(&path)?;
    if len < 2 * SECTOR as u64 {
        return Err(too_short(len));
    }
    let mut tables = vec![0u8; 2 * SECTOR];
    read_at(&file, &path, &mut tables, 0)?;
    let slots = slots(&tables, len);
    let name = rel.file_name().and_then(|n| n.to_str());
    let region = Region {
        file,
        folder: path.parent().unwrap_or(dir),
        path: path.clone(),
        len,
        pos: name.and_then(coords_from_name).unwrap_or((0, 0)),
    };
    slots.par_iter().for_each(|slot| {
        let ch = region.chunk(slot, opts, share);
        tally.chunks.fetch_add(1, Ordering::Relaxed);
        let ok = ch.status == ChunkStatus::Ok;
        let expected = opts.headers_only && ch.status == ChunkStatus::External;
        if ok || expected {
            tally.ok.fetch_add(ok as usize, Ordering::Relaxed);
        } else {
            tally.error(rel, unread(ch.index, &ch.status));
        }
        visit(rel, &ch);
    });
    Ok(())
}

impl Region<'_> {
    /// Reads and decodes one slot within `share` bytes of memory.
    fn chunk(&self, slot: &Slot, opts: &ScanOptions, share: usize) -> Chunk {
        let mut ch = slot.unread_chunk();
        ch.status = match &slot.status {
            Some(s) => s.clone(),
            None => self.read(&mut ch, opts, share).unwrap_or_else(invalid),
        };
        ch
    }

    /// Fills in `ch` from its sectors: the status it ends with, or why it could not be read.
    fn read(&self, ch: &mut Chunk, opts: &ScanOptions, share: usize) -> Result<ChunkStatus> {
        let reserved = ch.sector_count as usize * SECTOR;
        let start = ch.sector as u64 * SECTOR as u64;
        let avail = self.len.saturating_sub(start).min(reserved as u64) as usize;
        if avail < 5 {
            return Ok(ChunkStatus::OutOfFile);
        }
        if avail > share {
            return Err(refused(format!(
                "its {avail} bytes of sectors are more than a thread's share of the scan's \
                 budget ({share} bytes)"
            )));
        }
        // The whole chunk in one read (its header only, when that is all that is asked).
        let mut sectors = vec![0u8; if opts.headers_only { 5 } else { avail }];
        read_at(&self.file, &self.path, &mut sectors, start)?;
        if let Some(status) = ch.read_header(&sectors, avail) {
            return Ok(status);
        }
        let n = ch.length as usize;
        let Some(c) = ch.compression() else {
            return Ok(ChunkStatus::UnknownCompression);
        };
        if opts.headers_only {
            return Ok(if ch.is_external() {
                ChunkStatus::External
            } else {
                ChunkStatus::Ok
            });
        }
        let mut used = sectors.len();
        let external;
        let stored: &[u8] = if ch.is_external() {
            let name = ch.external_name(self.pos);
            let left = share.saturating_sub(used);
            external = match fsx::read_in_folder(self.folder, &name, left, &mut used) {
                Ok(bytes) => bytes,
                Err(fsx::Refusal::Missing) => return Ok(ChunkStatus::External),
                Err(fsx::Refusal::Other(why)) => {
                    return Err(refused(format!("external chunk file {name}: {why}")));
                }
            };
            &external
        } else {
            &sectors[5..n + 4]
        };
        ch.nbt = Some(decode_stored(stored, c, opts.file, &mut used, share)?);
        Ok(ChunkStatus::Ok)
    }
}

/// Fills `buf` from `file` at byte `at`, without moving a cursor other threads share.
fn read_at(file: &File, path: &Path, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        let _ = path;
        std::os::unix::fs::FileExt::read_exact_at(file, buf, at)
    }
    #[cfg(windows)]
    {
        let _ = path;
        let mut done = 0;
        while done < buf.len() {
            let n =
                std::os::windows::fs::FileExt::seek_read(file, &mut buf[done..], at + done as u64)?;
            if n == 0 {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            done += n;
        }
        Ok(())
    }
    #[cfg(not(any(unix, windows)))]
    {
        // No positioned reads: a handle of its own.
        use std::io::{Read, Seek};
        let _ = file;
        let (mut f, _) = fsx::open_regular(path).map_err(std::io::Error::other)?;
        f.seek(std::io::SeekFrom::Start(at))?;
        f.read_exact(buf)
    }
}
