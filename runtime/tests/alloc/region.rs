//! Region files and their folders as untrusted input, each case built here: external chunk
//! files that are FIFOs, symbolic links to `/dev/zero` or out of the folder, larger than the
//! budget; slots sharing one chunk; trees much larger than their bytes; region dumps holding
//! values the format cannot. Every case ends in a typed error or a chunk status saying why, and
//! the memory is measured by this binary's counting allocator against the budget given (no
//! test is timed: a FIFO that blocked would hang, so those run on a thread with a generous
//! hang guard, which is not a measurement).
#![cfg(all(feature = "nbt", unix))]

use crate::counting;
use crate::support;

use std::io::Write;
use std::path::{Path, PathBuf};

use def_runtime::nbt::dump::Json;
use def_runtime::nbt::region::{self, ChunkStatus, RegionFile};
use def_runtime::nbt::{FileOptions, NbtErrorKind};

/// Slack for what the budget does not cover: 1 024 `Chunk` values, their status messages, the
/// sector map, the test's own vectors.
const SLACK: usize = 1 << 20;

/// A fresh folder under the system's temporary folder, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let p =
            std::env::temp_dir().join(format!("nbt_region_hostile_{tag}_{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn be(v: u32) -> [u8; 4] {
    v.to_be_bytes()
}

/// A region whose slots `0..n` are external stubs (length 1, zlib + 128), each in a sector of
/// its own, as Minecraft writes them.
fn stub_region(n: usize) -> Vec<u8> {
    let mut out = vec![0u8; (2 + n) * 4096];
    for i in 0..n {
        let sector = 2 + i as u32;
        out[4 * i..4 * i + 4].copy_from_slice(&be((sector << 8) | 1));
        let at = sector as usize * 4096;
        out[at..at + 5].copy_from_slice(&[0, 0, 0, 1, 0x82]);
    }
    out
}

/// A region whose 1024 slots all point at one chunk in sector 2 (compression `id`, `body`).
fn shared_region(id: u8, body: &[u8]) -> Vec<u8> {
    let sectors = (body.len() + 5).div_ceil(4096);
    let mut out = vec![0u8; 8192];
    for slot in 0..1024 {
        out[4 * slot..4 * slot + 4].copy_from_slice(&be((2 << 8) | sectors as u32));
    }
    out.extend_from_slice(&be(body.len() as u32 + 1));
    out.push(id);
    out.extend_from_slice(body);
    out.resize((2 + sectors) * 4096, 0);
    out
}

/// A region of `chunks` (compression id, stored bytes), one after the other from sector 2.
fn region_of(chunks: &[(u8, Vec<u8>)]) -> Vec<u8> {
    let mut out = vec![0u8; 8192];
    for (i, (id, body)) in chunks.iter().enumerate() {
        let sector = out.len() / 4096;
        let count = (body.len() + 5).div_ceil(4096);
        out[4 * i..4 * i + 4].copy_from_slice(&be(((sector as u32) << 8) | count as u32));
        out.extend_from_slice(&be(body.len() as u32 + 1));
        out.push(*id);
        out.extend_from_slice(body);
        out.resize((sector + count) * 4096, 0);
    }
    out
}

fn zlib(data: &[u8]) -> Vec<u8> {
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    z.write_all(data).unwrap();
    z.finish().unwrap()
}

/// A small valid chunk: `{"": {Status: "full"}}` as NBT.
fn small_nbt() -> Vec<u8> {
    let mut v = vec![10, 0, 0, 8, 0, 6];
    v.extend_from_slice(b"Status");
    v.extend_from_slice(&[0, 4]);
    v.extend_from_slice(b"full");
    v.push(0);
    v
}

fn invalid_message(status: &ChunkStatus) -> String {
    match status {
        ChunkStatus::Invalid(e) => e.to_string(),
        other => panic!("expected Invalid, got {other:?}"),
    }
}

/// Runs `f` on a thread and waits for it: a FIFO that blocked the open or the read would hang
/// the test binary, so the guard fails the test instead after two minutes (a hang guard, far
/// above the milliseconds this takes; the assertions are on what was read).
fn without_hanging<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(std::time::Duration::from_secs(120))
        .expect("blocked: the region loader waited on a FIFO")
}

fn mkfifo(path: &Path) {
    let ok = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs")
        .success();
    assert!(ok, "mkfifo {}", path.display());
}

#[test]
fn a_fifo_named_like_an_external_chunk_is_refused_not_opened() {
    let _s = counting::serial();
    let dir = TempDir::new("fifo");
    let path = dir.0.join("r.0.0.mca");
    std::fs::write(&path, stub_region(2)).unwrap();
    mkfifo(&dir.0.join("c.0.0.mcc"));
    // The second stub's file exists and is fine: the FIFO does not stop the others.
    std::fs::write(dir.0.join("c.1.0.mcc"), zlib(&small_nbt())).unwrap();
    let r = without_hanging(move || RegionFile::open(&path)).expect("the region reads");
    let m = invalid_message(&r.chunks[0].status);
    assert!(
        m.contains("c.0.0.mcc") && m.contains("not a regular file"),
        "{m}"
    );
    assert!(r.chunks[0].payload.is_empty() && r.chunks[0].nbt().is_none());
    assert_eq!(r.chunks[1].status, ChunkStatus::Ok);

    // A FIFO as the region file itself is refused too (typed, before any read).
    let fifo = dir.0.join("r.5.5.mca");
    mkfifo(&fifo);
    let e = without_hanging(move || RegionFile::open(&fifo).map(|_| ())).unwrap_err();
    assert!(
        matches!(e.kind(), NbtErrorKind::Region(m) if m.contains("not a regular file")),
        "{e}"
    );
}

#[test]
fn external_chunks_linked_to_dev_zero_are_not_read() {
    let _s = counting::serial();
    let dir = TempDir::new("zero");
    let path = dir.0.join("r.0.0.mca");
    std::fs::write(&path, stub_region(1024)).unwrap();
    for i in 0..1024 {
        let link = dir.0.join(format!("c.{}.{}.mcc", i % 32, i / 32));
        std::os::unix::fs::symlink("/dev/zero", link).unwrap();
    }
    let mut r = None;
    let used = counting::measure(|| r = Some(without_hanging(move || RegionFile::open(&path))));
    let r = r.unwrap().expect("the region reads");
    assert_eq!(r.chunks.len(), 1024);
    for ch in &r.chunks {
        let m = invalid_message(&ch.status);
        assert!(m.contains("a symbolic link"), "{m}");
        assert!(ch.payload.is_empty());
    }
    // The 4 MiB region file and bookkeeping; before, each stub read 512 MiB of zeros.
    let region_len = (2 + 1024) * 4096;
    assert!(
        used.total < region_len + 2 * SLACK,
        "allocated {} bytes in all",
        used.total
    );
}

#[test]
fn symbolic_links_are_not_followed_in_or_out_of_the_folder() {
    let _s = counting::serial();
    let world = TempDir::new("links");
    let region_dir = world.0.join("region");
    std::fs::create_dir(&region_dir).unwrap();
    // A file outside the region's folder that holds a valid chunk: followed, it would decode
    // and be written back into the region.
    let secret = world.0.join("secret.dat");
    std::fs::write(&secret, zlib(&small_nbt())).unwrap();
    std::os::unix::fs::symlink(&secret, region_dir.join("c.0.0.mcc")).unwrap();
    // A link that stays in the folder, to a regular file there: refused too (decision: no
    // symbolic links at all, so that no check of where one leads can be raced).
    std::fs::write(region_dir.join("inside.bin"), zlib(&small_nbt())).unwrap();
    std::os::unix::fs::symlink("inside.bin", region_dir.join("c.1.0.mcc")).unwrap();
    // A relative link out of the folder.
    std::os::unix::fs::symlink("../secret.dat", region_dir.join("c.2.0.mcc")).unwrap();
    // The fourth stub's file is a regular file: read.
    std::fs::write(region_dir.join("c.3.0.mcc"), zlib(&small_nbt())).unwrap();
    let path = region_dir.join("r.0.0.mca");
    std::fs::write(&path, stub_region(4)).unwrap();

    let r = RegionFile::open(&path).unwrap();
    for ch in &r.chunks[..3] {
        let m = invalid_message(&ch.status);
        assert!(m.contains("a symbolic link"), "{m}");
        assert!(ch.nbt().is_none() && ch.payload.is_empty());
    }
    assert_eq!(r.chunks[3].status, ChunkStatus::Ok);
    // What was not read cannot be written back: writing refuses, naming the slot.
    let e = r.to_parts().unwrap_err();
    assert!(
        matches!(e.kind(), NbtErrorKind::RegionChunk { index: 0, .. }),
        "{e}"
    );

    // Saving never writes through a link: the chunk of slot 3 is external, and its file name
    // is now a link to the secret file.
    let mut only = r.clone();
    only.chunks.retain(|c| c.index == 3);
    std::fs::remove_file(region_dir.join("c.3.0.mcc")).unwrap();
    std::os::unix::fs::symlink(&secret, region_dir.join("c.3.0.mcc")).unwrap();
    let before = std::fs::read(&secret).unwrap();
    let e = only.save(&path).unwrap_err();
    assert!(
        matches!(e.kind(), NbtErrorKind::Region(m) if m.contains("symbolic link")),
        "{e}"
    );
    assert_eq!(
        std::fs::read(&secret).unwrap(),
        before,
        "the secret file was written"
    );
}

#[test]
fn an_external_file_over_the_budget_is_refused_before_it_is_read() {
    let _s = counting::serial();
    let dir = TempDir::new("big");
    let path = dir.0.join("r.0.0.mca");
    std::fs::write(&path, stub_region(1)).unwrap();
    let f = std::fs::File::create(dir.0.join("c.0.0.mcc")).unwrap();
    f.set_len(64 << 20).unwrap(); // sparse: 64 MiB of zeros on no disk
    drop(f);
    let budget = 1 << 20;
    let mut r = None;
    let used = counting::measure(|| {
        r = Some(RegionFile::open_with(&path, FileOptions::default(), budget))
    });
    let r = r.unwrap().unwrap();
    let m = invalid_message(&r.chunks[0].status);
    assert!(
        m.contains("67108864 bytes") && m.contains("(not read)"),
        "{m}"
    );
    assert!(used.total < 64 << 10, "allocated {} bytes", used.total);
}

/// A file holding more than its length says (here a `/proc` file, whose length is 0, reached
/// through the link the caller's region path may be) is refused after its length, not read on
/// into a buffer that grows: what is held is what the length said.
#[test]
fn a_file_with_more_than_its_length_is_refused() {
    let _s = counting::serial();
    let maps = Path::new("/proc/self/maps");
    if !maps.exists() {
        return;
    }
    let dir = TempDir::new("proc");
    let path = dir.0.join("r.0.0.mca");
    std::os::unix::fs::symlink(maps, &path).unwrap();
    let mut r = None;
    let used = counting::measure(|| r = Some(RegionFile::open(&path)));
    match r.unwrap().map_err(|e| e.into_kind()) {
        Err(NbtErrorKind::Region(m)) => assert!(
            m.contains("holds more than the 0 bytes its length said"),
            "{m}"
        ),
        other => panic!("{other:?}"),
    }
    assert!(used.peak < 64 << 10, "held {} bytes", used.peak);
}

#[test]
fn external_files_read_count_against_one_budget() {
    let _s = counting::serial();
    let dir = TempDir::new("many");
    let n = 256;
    let path = dir.0.join("r.0.0.mca");
    std::fs::write(&path, stub_region(n)).unwrap();
    // Each external file: 64 KiB that are not zlib (they fail to decode, and still count).
    let junk = vec![0x55u8; 64 << 10];
    for i in 0..n {
        std::fs::write(dir.0.join(format!("c.{}.{}.mcc", i % 32, i / 32)), &junk).unwrap();
    }
    let region_len = (2 + n) * 4096;
    let budget = region_len + (2 << 20);
    let mut r = None;
    let used = counting::measure(|| {
        r = Some(RegionFile::open_with(&path, FileOptions::default(), budget))
    });
    let r = r.unwrap().unwrap();
    let read: Vec<_> = r.chunks.iter().filter(|c| !c.payload.is_empty()).collect();
    // 2 MiB of budget after the region file: 32 files of 64 KiB, whatever their fate.
    assert_eq!(read.len(), 32, "files read");
    for ch in &read {
        assert!(
            matches!(ch.status, ChunkStatus::Invalid(_)),
            "{:?}",
            ch.status
        );
    }
    let refused = r
        .chunks
        .iter()
        .filter(|c| invalid_message(&c.status).contains("left in the budget (not read)"))
        .count();
    assert_eq!(refused, n - 32);
    assert!(
        used.peak < budget + SLACK,
        "peak {} over the budget {budget}",
        used.peak
    );
}

#[test]
fn slots_sharing_one_big_chunk_read_it_once() {
    let _s = counting::serial();
    // 255 sectors of bytes that are not zlib: the first slot fails to decode and keeps its
    // stored bytes (to write them back); every other slot points at the same sectors.
    let body: Vec<u8> = (0..255 * 4096 - 5).map(|i| (i * 7 % 251) as u8).collect();
    let file = shared_region(2, &body);
    assert_eq!(file.len(), 257 * 4096);
    let mut r = None;
    let used = counting::measure(|| r = Some(RegionFile::decode(&file).unwrap()));
    let r = r.unwrap();
    assert_eq!(r.chunks.len(), 1024);
    assert!(matches!(r.chunks[0].status, ChunkStatus::Invalid(_)));
    assert_eq!(r.chunks[0].payload, body);
    for ch in &r.chunks[1..] {
        let m = invalid_message(&ch.status);
        assert!(m.contains("overlap those of slot 0"), "{m}");
        assert!(ch.payload.is_empty());
    }
    // One copy of the 1 MiB chunk; before, 1 024 copies (1 GiB).
    assert!(used.peak < body.len() + SLACK, "peak {} bytes", used.peak);
    // The shared slots cannot be written back; dropped, the region writes one chunk.
    let e = r.to_parts().unwrap_err();
    assert!(
        matches!(e.kind(), NbtErrorKind::RegionChunk { index: 1, .. }),
        "{e}"
    );
    let mut one = r.clone();
    one.chunks.truncate(1);
    let parts = one.to_parts().unwrap();
    assert_eq!(parts.region.len(), file.len());

    // A valid chunk shared by every slot decodes once, for the first slot.
    let file = shared_region(2, &zlib(&small_nbt()));
    let r = RegionFile::decode(&file).unwrap();
    assert_eq!(r.chunks[0].status, ChunkStatus::Ok);
    assert_eq!(
        r.chunks.iter().filter(|c| c.nbt().is_some()).count(),
        1,
        "decoded once"
    );
}

/// The NBT of a compound holding a list of `n` empty compounds: one input byte per tree node.
fn empty_compounds(n: usize) -> Vec<u8> {
    let mut v = vec![10, 0, 0, 9, 0, 1, b'l', 10];
    v.extend_from_slice(&(n as i32).to_be_bytes());
    v.resize(v.len() + n, 0); // each element: TAG_End at once
    v.push(0);
    v
}

/// A compound of `n` byte entries with one-letter names: four input bytes per entry.
fn flat_compound(n: usize) -> Vec<u8> {
    let mut v = vec![10, 0, 0];
    for i in 0..n {
        v.extend_from_slice(&[1, 0, 1, b'a' + (i % 26) as u8, 1]);
    }
    v.push(0);
    v
}

#[test]
fn tree_memory_counts_against_the_budget() {
    let _s = counting::serial();
    let budget = 16 << 20;
    for (what, nbt) in [
        ("empty compounds", empty_compounds(4 << 20)),
        ("flat compound", flat_compound(1 << 20)),
    ] {
        let file = region_of(&[(2, zlib(&nbt))]);
        let mut r = None;
        let used = counting::measure(|| {
            r = Some(RegionFile::decode_with_budget(&file, FileOptions::default(), budget).unwrap())
        });
        let r = r.unwrap();
        // 4 MiB of input would make 100–200 MiB of tree: the read stops at the budget.
        let m = invalid_message(&r.chunks[0].status);
        assert!(m.contains("bytes of memory it may use"), "{what}: {m}");
        assert!(
            used.peak < budget + SLACK,
            "{what}: peak {} over the budget {budget}",
            used.peak
        );
    }
}

/// Peak memory of parsing `file` with `budget`, and how many chunks decoded. On a thread of its
/// own, which has no spare blocks from an earlier parse (they would hide memory from the count).
fn peak_at(file: &[u8], budget: usize) -> (usize, usize) {
    std::thread::scope(|s| {
        s.spawn(|| {
            let mut ok = 0;
            let used = counting::measure(|| {
                let r =
                    RegionFile::decode_with_budget(file, FileOptions::default(), budget).unwrap();
                ok = r.chunks.iter().filter(|c| c.nbt().is_some()).count();
            });
            (used.peak, ok)
        })
        .join()
        .unwrap()
    })
}

#[test]
fn the_budget_bounds_the_peak_of_real_chunks_too() {
    let _s = counting::serial();
    // 1 024 copies of real chunks (1.12 to 1.17, zlib), each in sectors of its own: a full
    // region as Minecraft writes it.
    let names = [
        "fastanvil__1.12.chunk",
        "fastanvil__1.17.1.chunk",
        "fastanvil__etho-max-heights.chunk",
        "fastanvil__unicode.chunk",
    ];
    let mut stored = Vec::new();
    for name in names {
        let Some(p) = support::shared(&format!("nbt-samples/{name}")) else {
            return;
        };
        stored.push((2u8, zlib(&std::fs::read(p).unwrap())));
    }
    let chunks: Vec<_> = (0..1024)
        .map(|i| stored[i % stored.len()].clone())
        .collect();
    let file = region_of(&chunks);
    // With the default budget a full region decodes, every chunk.
    let (peak, ok) = peak_at(&file, region::DEFAULT_REGION_BUDGET);
    assert_eq!(ok, 1024);
    // On 128 of them (linear, so the same ratios), the smallest budget that decodes them all
    // (to 256 KiB) is what the estimate charges: it must be at least the memory really used,
    // or the budget would not bound it.
    let file = region_of(&chunks[..128]);
    let (peak128, ok) = peak_at(&file, region::DEFAULT_REGION_BUDGET);
    assert_eq!(ok, 128);
    let (mut lo, mut hi) = (0usize, 4 * peak128);
    assert_eq!(peak_at(&file, hi).1, 128);
    while hi - lo > 256 << 10 {
        let mid = lo + (hi - lo) / 2;
        if peak_at(&file, mid).1 == 128 {
            hi = mid
        } else {
            lo = mid
        }
    }
    println!(
        "real chunks: 1024 peak at {peak} bytes ({:.1}% of the default budget); 128 need a \
         budget of {hi} bytes, {:.2}x their peak of {peak128}",
        100.0 * peak as f64 / region::DEFAULT_REGION_BUDGET as f64,
        hi as f64 / peak128 as f64,
    );
    assert!(
        peak128 <= hi,
        "peak {peak128} above the budget charged {hi}"
    );
    // Any smaller budget bounds the peak as well, the chunks past it refused.
    for budget in [hi / 2, hi / 8] {
        let (p, ok) = peak_at(&file, budget);
        assert!(ok < 128);
        assert!(p < budget + SLACK, "peak {p} over the budget {budget}");
    }
}

fn dump_with(chunk: &str) -> Json {
    let good = r#"{"index":0,"x":0,"z":0,"timestamp":5,"compression_id":2,
        "nbt":{"type":"compound","name":"","value":{}}}"#;
    let text = format!(r#"{{"chunks":[{good},{chunk}]}}"#);
    Json::parse(&text).unwrap()
}

#[test]
fn region_dumps_holding_what_the_format_cannot_are_refused_at_their_chunk() {
    let _s = counting::serial();
    let nbt = r#""nbt":{"type":"compound","name":"","value":{}}"#;
    let cases = [
        (
            format!(r#"{{"index":37,"timestamp":4294967301,"compression_id":2,{nbt}}}"#),
            Some(37),
            "`timestamp` 4294967301 does not fit (at most 4294967295)",
        ),
        (
            format!(r#"{{"index":37,"timestamp":5,"compression_id":258,{nbt}}}"#),
            Some(37),
            "`compression_id` 258 does not fit (at most 255)",
        ),
        (
            format!(r#"{{"index":37,"timestamp":5,"compression_id":127,{nbt}}}"#),
            Some(37),
            "`compression_id` 127 is not a scheme",
        ),
        (
            format!(r#"{{"index":1500,"timestamp":5,"compression_id":2,{nbt}}}"#),
            None,
            "`index` 1500 does not fit (at most 1023)",
        ),
        (
            format!(r#"{{"index":0,"timestamp":5,"compression_id":2,{nbt}}}"#),
            Some(0),
            "slot 0 is chunks[0]'s already",
        ),
        (
            format!(r#"{{"index":37,"x":4,"z":1,"timestamp":5,"compression_id":2,{nbt}}}"#),
            Some(37),
            "`x` 4 is not slot 37's (5)",
        ),
        (
            format!(r#"{{"index":37,"timestamp":-1,"compression_id":2,{nbt}}}"#),
            Some(37),
            "`timestamp` -1 is not a whole number",
        ),
        (
            r#"{"index":37,"timestamp":5,"compression_id":2,"nbt":{"type":"nope"}}"#.to_string(),
            Some(37),
            "`nbt`: ",
        ),
    ];
    for (chunk, slot, reason) in cases {
        let e = region::from_json(&dump_with(&chunk)).unwrap_err();
        match e.kind() {
            NbtErrorKind::RegionDump {
                entry: 1,
                slot: s,
                reason: r,
            } => {
                assert_eq!(*s, slot, "{e}");
                assert!(r.contains(reason), "{e}");
            }
            _ => panic!("{chunk}: {e}"),
        }
        // The message names the entry (the second) and, when it has one, the slot.
        let text = e.to_string();
        assert!(text.starts_with("NBT: region dump, chunks[1]"), "{text}");
        if slot == Some(37) {
            assert!(text.contains("(slot 37: x 5, z 1)"), "{text}");
        }
    }
    // The third chunk of a dump is named as such.
    let text = r#"{"chunks":[
        {"index":0,"timestamp":1,"compression_id":2,"nbt":{"type":"compound","name":"","value":{}}},
        {"index":1,"timestamp":1,"compression_id":2,"nbt":{"type":"compound","name":"","value":{}}},
        {"index":4096,"timestamp":1,"compression_id":2,"nbt":{"type":"compound","name":"","value":{}}}]}"#;
    let e = region::from_json(&Json::parse(text).unwrap()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "NBT: region dump, chunks[2]: `index` 4096 does not fit (at most 1023)"
    );
}
