//! Anvil region files (`r.X.Z.mca`): 1024 chunk slots, each compressed NBT in 4 KiB sectors.
//!
//! Layout (Minecraft's `RegionFile`): a 4 KiB table of locations (`u24 BE` first sector,
//! `u8` sector count), a 4 KiB table of `u32 BE` timestamps, then chunks, each `u32 BE` length
//! (compression byte included), `u8` compression id (1 gzip, 2 zlib, 3 none, 4 LZ4, 127
//! custom; +128 = stored outside in a `.mcc` file) and the data. A slot that cannot be read
//! is reported with its status instead of failing the whole file, as Minecraft skips it.

use super::compress::Compression;
use super::dump;
use super::error::{NbtError, Result};
use super::file::{FileOptions, NbtFile};

const SECTOR: usize = 4096;

/// Default whole-file budget of [`RegionFile::parse_with`]: 512 MiB of NBT over all chunks
/// (1 024 real chunks of some 100–300 KiB each make 100–300 MiB).
pub const DEFAULT_REGION_BUDGET: usize = 512 << 20;

/// Why a chunk slot could not be read (or `Ok`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ChunkStatus {
    /// Read fine.
    Ok,
    /// The sectors lie (partly) outside the file or hold under 5 bytes.
    OutOfFile,
    /// The length field is 0 or larger than the sectors.
    BadLength,
    /// Data is in an external `.mcc` file (compression id + 128), not read here.
    External,
    /// Unknown compression id.
    UnknownCompression,
    /// Decompression or NBT decoding failed; the message says why.
    Invalid(String),
}

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
    /// First sector.
    pub sector: u32,
    /// Sectors reserved.
    pub sector_count: u8,
    /// Last-modified time (seconds).
    pub timestamp: u32,
    /// Length field (compression byte + data), 0 if unreadable.
    pub length: u32,
    /// Compression id byte.
    pub compression_id: u8,
    /// Outcome of reading the slot.
    pub status: ChunkStatus,
    /// The stored (compressed) data.
    pub payload: Vec<u8>,
    /// The decoded chunk, when `status` is `Ok`.
    pub nbt: Option<NbtFile>,
}

impl Chunk {
    /// Chunk x within the region (0..32).
    pub fn x(&self) -> usize {
        self.index % 32
    }

    /// Chunk z within the region (0..32).
    pub fn z(&self) -> usize {
        self.index / 32
    }
}

/// A parsed region file: its used slots in index order.
#[derive(Clone, Debug, Default)]
pub struct RegionFile {
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

impl RegionFile {
    /// Parses a region file with default NBT options (Java, limits on).
    pub fn parse(data: &[u8]) -> Result<RegionFile> {
        RegionFile::parse_with(data, &FileOptions::default())
    }

    /// Parses a region file, decoding each chunk with `opts`, within [`DEFAULT_REGION_BUDGET`].
    pub fn parse_with(data: &[u8], opts: &FileOptions) -> Result<RegionFile> {
        RegionFile::parse_with_budget(data, opts, DEFAULT_REGION_BUDGET)
    }

    /// Parses a region file, decoding each chunk with `opts` (whose `max_decompressed` limits
    /// each chunk) and at most `budget` bytes of NBT over the whole file: the decompressed size
    /// of every chunk read, or its stored size if it is not compressed, failed reads included.
    /// Slots may point at the same sectors, so without it 1024 slots sharing one bomb cost 1024
    /// decompressions. Once the budget is spent, the remaining chunks get
    /// [`ChunkStatus::Invalid`] with a message saying so.
    pub fn parse_with_budget(data: &[u8], opts: &FileOptions, budget: usize) -> Result<RegionFile> {
        if data.len() < 2 * SECTOR {
            return Err(NbtError::Region(format!(
                "{} bytes is shorter than the 8 KiB header",
                data.len()
            )));
        }
        let mut chunks = Vec::new();
        let mut used = 0usize;
        for index in 0..1024 {
            let loc = be32(data, 4 * index);
            if loc == 0 {
                continue;
            }
            let sector = loc >> 8;
            let sector_count = (loc & 0xFF) as u8;
            let timestamp = be32(data, SECTOR + 4 * index);
            let mut ch = Chunk {
                index,
                sector,
                sector_count,
                timestamp,
                length: 0,
                compression_id: 0,
                status: ChunkStatus::Ok,
                payload: Vec::new(),
                nbt: None,
            };
            let start = sector as usize * SECTOR;
            let avail = data
                .len()
                .saturating_sub(start)
                .min(sector_count as usize * SECTOR);
            if sector < 2 || avail < 5 {
                ch.status = ChunkStatus::OutOfFile;
                chunks.push(ch);
                continue;
            }
            ch.length = be32(data, start);
            ch.compression_id = data[start + 4];
            let len = ch.length as usize;
            if len == 0 || len - 1 > sector_count as usize * SECTOR - 5 {
                ch.status = ChunkStatus::BadLength;
            } else if len + 4 > avail {
                ch.status = ChunkStatus::OutOfFile;
            } else if ch.compression_id & 0x80 != 0 {
                ch.status = ChunkStatus::External;
            } else if let Some(c) = compression_of(ch.compression_id) {
                let stored = &data[start + 5..start + 4 + len];
                let left = budget.saturating_sub(used);
                if left == 0 || (c == Compression::None && stored.len() > left) {
                    ch.status = ChunkStatus::Invalid(format!(
                        "the region file's budget of {budget} bytes of NBT is spent \
                         ({used} bytes read from earlier chunks)"
                    ));
                    chunks.push(ch);
                    continue;
                }
                ch.payload = stored.to_vec();
                let mut o = opts.clone();
                o.compression = Some(c);
                o.read.max_decompressed = o.read.max_decompressed.min(left);
                match NbtFile::read_counted(&ch.payload, &o, &mut used) {
                    Ok(f) => ch.nbt = Some(f),
                    Err(e) => ch.status = ChunkStatus::Invalid(e.to_string()),
                }
            } else {
                ch.status = ChunkStatus::UnknownCompression;
            }
            chunks.push(ch);
        }
        Ok(RegionFile { chunks })
    }

    /// The chunk at (x, z) within the region.
    pub fn chunk(&self, x: usize, z: usize) -> Option<&Chunk> {
        self.chunks.iter().find(|c| c.index == x + 32 * z)
    }

    /// Writes a region file: chunks laid out from sector 2 in index order, decoded chunks
    /// re-encoded with their compression, others copied as stored. Unreadable slots are dropped.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let mut out = vec![0u8; 2 * SECTOR];
        for ch in &self.chunks {
            let (id, body) = match (&ch.nbt, &ch.status) {
                (Some(f), _) => (id_of(f.compression), f.to_bytes()?),
                (None, ChunkStatus::Ok) => (ch.compression_id, ch.payload.clone()),
                _ => continue,
            };
            let sector = out.len() / SECTOR;
            let count = (body.len() + 5).div_ceil(SECTOR);
            if count > 255 || sector > 0xFF_FFFF || ch.index >= 1024 {
                return Err(NbtError::Region("chunk too large for a region slot".into()));
            }
            out.extend_from_slice(&((body.len() + 1) as u32).to_be_bytes());
            out.push(id);
            out.extend_from_slice(&body);
            out.resize((sector + count) * SECTOR, 0);
            let loc = ((sector as u32) << 8) | count as u32;
            out[4 * ch.index..4 * ch.index + 4].copy_from_slice(&loc.to_be_bytes());
            let ts = SECTOR + 4 * ch.index;
            out[ts..ts + 4].copy_from_slice(&ch.timestamp.to_be_bytes());
        }
        Ok(out)
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
                    if let ChunkStatus::Invalid(m) = &ch.status {
                        write!(w, ",\"error\":{}", dump::json_string(m))?;
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
pub fn from_json(j: &dump::Json) -> Result<RegionFile> {
    let bad = |m: &str| NbtError::Json {
        offset: 0,
        message: m.to_string(),
    };
    let Some(dump::Json::Array(items)) = j.get("chunks") else {
        return Err(bad("expected \"chunks\""));
    };
    let num = |c: &dump::Json, k: &str| -> Result<u64> {
        match c.get(k) {
            Some(dump::Json::Number(n)) => n.parse().map_err(|_| bad("bad chunk number")),
            _ => Err(bad("missing chunk field")),
        }
    };
    let mut chunks = Vec::new();
    for c in items {
        let Some(n) = c.get("nbt") else { continue };
        let index = num(c, "index")? as usize;
        let id = num(c, "compression_id")? as u8;
        let compression = compression_of(id).ok_or_else(|| bad("unknown compression id"))?;
        let root = dump::root_from_json(n)?;
        let timestamp = num(c, "timestamp")? as u32;
        if index >= 1024 {
            return Err(bad("chunk index over 1023"));
        }
        chunks.push(Chunk {
            index,
            sector: 0,
            sector_count: 0,
            timestamp,
            length: 0,
            compression_id: id,
            status: ChunkStatus::Ok,
            payload: Vec::new(),
            nbt: Some(NbtFile {
                roots: vec![root],
                compression,
                header: None,
                edition: super::Edition::Java,
                decompressed_size: 0,
                consumed: 0,
                trailing: 0,
                stream_complete: true,
            }),
        });
    }
    chunks.sort_by_key(|c| c.index);
    Ok(RegionFile { chunks })
}
