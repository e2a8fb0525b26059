//! `region::scan_world` over a world built from the sample set: the sample chunks (and the two
//! sample region files) at new coordinates in every kind of folder a world has, each chunk read
//! checked against the sample's independent JSON dump, plus broken chunks and files that must
//! be reported without stopping the scan.
#![cfg(feature = "nbt-world")]

use crate::support;
use crate::world_support::{CHUNKS, region_bytes};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use def_runtime::nbt::dump::{self, Json};
use def_runtime::nbt::region::{self, ScanOptions, scan_world};
use def_runtime::nbt::{Compression, NbtErrorKind, compress};

/// What a slot of the test world should read as.
#[derive(Debug)]
enum Want {
    /// This tree (the dump's root).
    Tree(Json),
    /// This status.
    Status(&'static str),
}

struct World {
    dir: PathBuf,
    want: BTreeMap<(PathBuf, usize), Want>,
    /// Files that must be reported as a whole.
    bad_files: Vec<PathBuf>,
}

impl Drop for World {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn dump_root(samples: &Path, name: &str) -> Json {
    let j = Json::parse(&std::fs::read_to_string(samples.join(format!("{name}.json"))).unwrap())
        .unwrap();
    j.without("meta")
}

/// Writes the test world into a fresh temporary folder.
fn build_world(tag: &str) -> Option<World> {
    let samples = support::shared("nbt-samples")?;
    let dir = std::env::temp_dir().join(format!("nbt_world_{tag}_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut w = World {
        dir,
        want: BTreeMap::new(),
        bad_files: Vec::new(),
    };
    let raw: Vec<Vec<u8>> = CHUNKS
        .iter()
        .map(|n| std::fs::read(samples.join(n)).unwrap())
        .collect();
    let trees: Vec<Json> = CHUNKS.iter().map(|n| dump_root(&samples, n)).collect();
    let schemes = [
        (1, Compression::Gzip),
        (2, Compression::Zlib),
        (3, Compression::None),
        (4, Compression::Lz4),
    ];
    // (folder, region x, region z, chunks)
    let layout: [(&str, i32, i32, usize); 6] = [
        ("region", 0, 0, 64),
        ("region", -1, 2, 32),
        ("DIM-1/region", 0, 0, 16),
        ("DIM1/entities", 5, -3, 8),
        ("dimensions/mod/deep/region", 0, 0, 8),
        ("poi", 3, 3, 4),
    ];
    for (k, (folder, x, z, n)) in layout.into_iter().enumerate() {
        let rel = Path::new(folder).join(format!("r.{x}.{z}.mca"));
        std::fs::create_dir_all(w.dir.join(folder)).unwrap();
        let mut chunks = Vec::new();
        for i in 0..n {
            // Spread over the region: slot 37·i mod 1024 visits rows and columns.
            let slot = (37 * i + 5 * k) % 1024;
            let s = (i + k) % CHUNKS.len();
            let (id, how) = schemes[(i + k) % schemes.len()];
            chunks.push((slot, id, compress::compress(&raw[s], how).unwrap()));
            w.want
                .insert((rel.clone(), slot), Want::Tree(trees[s].clone()));
        }
        if k == 1 {
            // Broken slots: the scan reports them and goes on.
            let bad: [(usize, u8, Vec<u8>, &str); 3] = [
                (1000, 2, b"not zlib at all".to_vec(), "invalid"),
                (
                    1001,
                    9,
                    compress::compress(&raw[0], Compression::Zlib).unwrap(),
                    "unknown_compression",
                ),
                (1002, 3, raw[1][..100].to_vec(), "invalid"),
            ];
            for (slot, id, stored, status) in bad {
                chunks.push((slot, id, stored));
                w.want.insert((rel.clone(), slot), Want::Status(status));
            }
            // An external chunk (zlib + 128) in c.X.Z.mcc beside the region.
            let slot = 1003;
            chunks.push((slot, 2 | 0x80, Vec::new()));
            let (cx, cz) = (x * 32 + (slot % 32) as i32, z * 32 + (slot / 32) as i32);
            std::fs::write(
                w.dir.join(folder).join(format!("c.{cx}.{cz}.mcc")),
                compress::compress(&raw[3], Compression::Zlib).unwrap(),
            )
            .unwrap();
            w.want
                .insert((rel.clone(), slot), Want::Tree(trees[3].clone()));
        }
        std::fs::write(w.dir.join(&rel), region_bytes(&chunks)).unwrap();
    }
    // The two sample region files, moved, with the chunks their dumps list.
    for (name, folder, to) in [
        ("querz__r.0.0.mca", "entities", "r.1.1.mca"),
        ("twoolie__world_test_r.4.-4.mca", "DIM-1/poi", "r.-2.0.mca"),
    ] {
        std::fs::create_dir_all(w.dir.join(folder)).unwrap();
        let rel = Path::new(folder).join(to);
        std::fs::copy(samples.join(name), w.dir.join(&rel)).unwrap();
        let j =
            Json::parse(&std::fs::read_to_string(samples.join(format!("{name}.json"))).unwrap())
                .unwrap();
        let Some(Json::Array(chunks)) = j.get("chunks") else {
            panic!("{name}: no chunks")
        };
        for c in chunks {
            let Some(Json::Number(i)) = c.get("index") else {
                panic!("{name}: no index")
            };
            let want = match c.get("nbt") {
                Some(n) => Want::Tree(n.clone()),
                None => Want::Status("invalid"),
            };
            w.want.insert((rel.clone(), i.parse().unwrap()), want);
        }
    }
    // Files the scan reports and skips: too short for the tables, a symbolic link.
    std::fs::write(w.dir.join("region/r.7.7.mca"), [0u8; 100]).unwrap();
    w.bad_files.push(PathBuf::from("region/r.7.7.mca"));
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(
            w.dir.join("region/r.0.0.mca"),
            w.dir.join("region/r.8.8.mca"),
        )
        .unwrap();
        w.bad_files.push(PathBuf::from("region/r.8.8.mca"));
    }
    // Not region files: ignored.
    std::fs::write(w.dir.join("region/notes.txt"), b"x").unwrap();
    std::fs::write(w.dir.join("region/r.a.b.mca"), b"x").unwrap();
    Some(w)
}

/// What each slot read as: the tree's dump, or the status name.
type Seen = BTreeMap<(PathBuf, usize), Result<Json, String>>;

/// Runs a scan and gives what each slot read as: the tree's dump, or the status name.
fn scan(w: &World, opts: &ScanOptions) -> (region::WorldScan, Seen) {
    let seen = Mutex::new(BTreeMap::new());
    let summary = scan_world(&w.dir, *opts, |rel, ch| {
        assert!(ch.payload.is_empty());
        let got = match ch.nbt() {
            Some(f) => Ok(Json::parse(&dump::root_to_json(&f.roots[0])).unwrap()),
            None => Err(ch.status.name().to_string()),
        };
        let old = seen
            .lock()
            .unwrap()
            .insert((rel.to_path_buf(), ch.index), got);
        assert!(old.is_none(), "{rel:?} slot {} visited twice", ch.index);
    })
    .unwrap();
    (summary, seen.into_inner().unwrap())
}

#[test]
fn every_chunk_of_a_world_reads_as_its_dump_says() {
    let Some(w) = build_world("full") else {
        return;
    };
    for threads in [1, 2] {
        let mut opts = ScanOptions::default();
        opts.threads = threads;
        let (summary, seen) = scan(&w, &opts);
        assert_eq!(
            seen.keys().collect::<Vec<_>>(),
            w.want.keys().collect::<Vec<_>>(),
            "threads {threads}"
        );
        let mut trees = 0;
        for (key, want) in &w.want {
            match (want, &seen[key]) {
                (Want::Tree(j), Ok(got)) => {
                    assert!(got.same_as(j), "{key:?}: the tree differs from the dump");
                    trees += 1;
                }
                (Want::Status(s), Err(got)) => assert_eq!(s, got, "{key:?}"),
                (want, got) => panic!("{key:?}: want {want:?}, got {got:?}"),
            }
        }
        assert_eq!(summary.chunks, w.want.len());
        assert_eq!(summary.ok, trees);
        assert!(trees >= 134, "{trees}");
        // One error per broken chunk and per bad file, sorted by file.
        let bad_chunks = w
            .want
            .values()
            .filter(|v| matches!(v, Want::Status(_)))
            .count();
        assert_eq!(
            summary.error_count,
            bad_chunks + w.bad_files.len(),
            "{:#?}",
            summary.errors
        );
        assert_eq!(summary.errors.len(), summary.error_count);
        for f in &w.bad_files {
            assert!(
                summary.errors.iter().any(|(p, _)| p == f),
                "{f:?} not reported"
            );
        }
        for (p, e) in &summary.errors {
            if let NbtErrorKind::RegionChunk { index, .. } = e.kind() {
                assert!(
                    matches!(w.want[&(p.clone(), *index)], Want::Status(_)),
                    "{p:?} {e}"
                );
            }
        }
        let sorted = summary.errors.windows(2).all(|p| p[0].0 <= p[1].0);
        assert!(sorted);
        // Files listed: every region file but the link; the short one counts (it was tried).
        assert_eq!(summary.files, 9);
    }
}

#[test]
fn headers_only_reads_no_chunk_data() {
    let Some(w) = build_world("headers") else {
        return;
    };
    let mut opts = ScanOptions::default();
    opts.headers_only = true;
    let (summary, seen) = scan(&w, &opts);
    assert_eq!(seen.len(), w.want.len());
    for (key, got) in &seen {
        let want = match &w.want[key] {
            // The header of a chunk that does not decode is fine; only its scheme is checked.
            Want::Status("unknown_compression") => "unknown_compression",
            _ if key.1 == 1003 => "external",
            _ => "ok",
        };
        assert_eq!(got.as_ref().unwrap_err(), want, "{key:?}");
    }
    assert_eq!(summary.error_count, 1 + w.bad_files.len());
}

#[test]
fn a_small_budget_fails_chunks_not_the_scan() {
    let Some(w) = build_world("budget") else {
        return;
    };
    // 256 KiB: 96 KiB for each of two threads, after the listing's quarter; the small chunks
    // fit, the large ones are refused.
    let mut opts = ScanOptions::default();
    opts.threads = 2;
    opts.budget = 256 << 10;
    let (summary, seen) = scan(&w, &opts);
    assert_eq!(seen.len(), w.want.len());
    assert!(summary.ok > 0 && summary.ok < 134, "{}", summary.ok);
    let over = summary
        .errors
        .iter()
        .filter(|(_, e)| {
            let m = e.to_string();
            m.contains("memory it may use") || m.contains("limit") || m.contains("budget")
        })
        .count();
    assert!(over > 0, "{:#?}", summary.errors);
    // A missing folder is the scan's error.
    assert!(scan_world(&w.dir.join("nope"), opts, |_, _| {}).is_err());
    assert!(matches!(
        scan_world(&w.dir.join("region/notes.txt"), opts, |_, _| {}).map_err(|e| e.into_kind()),
        Err(NbtErrorKind::Region(_))
    ));
}

#[test]
fn hostile_worlds_are_reported_not_followed() {
    let dir = std::env::temp_dir().join(format!("nbt_world_hostile_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("region")).unwrap();
    // 1 024 slots on the same 255 sectors of bytes that are not zlib: read once.
    let mut file = vec![0u8; 8192];
    let loc = (2u32 << 8) | 255;
    for slot in 0..1024 {
        file[4 * slot..4 * slot + 4].copy_from_slice(&loc.to_be_bytes());
    }
    file.extend_from_slice(&(255 * 4096 - 4u32).to_be_bytes());
    file.push(2);
    file.resize(257 * 4096, 0x5A);
    std::fs::write(dir.join("region/r.0.0.mca"), &file).unwrap();
    #[cfg(unix)]
    {
        // A FIFO named like a region file, and a dimension folder that is a link elsewhere.
        let fifo = dir.join("region/r.1.0.mca");
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        std::os::unix::fs::symlink("/", dir.join("DIM-1")).unwrap();
    }
    let overlapping = std::sync::atomic::AtomicUsize::new(0);
    let scan = scan_world(&dir, ScanOptions::default(), |_, ch| {
        if ch.status.name() == "invalid" && ch.index > 0 {
            overlapping.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    })
    .unwrap();
    assert_eq!(scan.chunks, 1024);
    assert_eq!(scan.ok, 0);
    assert_eq!(overlapping.into_inner(), 1023);
    let messages: Vec<String> = scan
        .errors
        .iter()
        .map(|(p, e)| format!("{}: {e}", p.display()))
        .collect();
    assert!(
        messages
            .iter()
            .any(|m| m.contains("overlap those of slot 0")),
        "{messages:#?}"
    );
    #[cfg(unix)]
    {
        assert!(
            messages
                .iter()
                .any(|m| m.starts_with("region/r.1.0.mca: ") && m.contains("FIFO")),
            "{messages:#?}"
        );
        assert!(
            messages
                .iter()
                .any(|m| m.starts_with("DIM-1: ") && m.contains("symbolic link")),
            "{messages:#?}"
        );
        assert_eq!(scan.error_count, 1024 + 2);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_broken_chunk_is_visited_with_its_typed_error() {
    let Some(w) = build_world("typed") else {
        return;
    };
    let kinds = Mutex::new(BTreeMap::new());
    scan_world(&w.dir, ScanOptions::default(), |rel, ch| {
        if let region::ChunkStatus::Invalid(e) = &ch.status {
            let got = (format!("{:?}", e.kind()), e.offset());
            kinds
                .lock()
                .unwrap()
                .insert((rel.to_path_buf(), ch.index), got);
        }
    })
    .unwrap();
    let kinds = kinds.into_inner().unwrap();
    let rel = Path::new("region").join("r.-1.2.mca");
    // Slot 1000 holds bytes that are not zlib: the inflater's refusal.
    let (kind, offset) = &kinds[&(rel.clone(), 1000)];
    assert!(kind.starts_with("Decompress("), "{kind}");
    assert_eq!(*offset, None);
    // Slot 1002 holds the first 100 bytes of a chunk, uncompressed: the reader stops inside,
    // at a value that needs more bytes than are left.
    let (kind, offset) = &kinds[&(rel, 1002)];
    assert!(
        kind.starts_with("UnexpectedEof") || kind.starts_with("LengthTooLarge"),
        "{kind}"
    );
    assert!(matches!(offset, Some(o) if *o <= 100), "{offset:?}");
}
