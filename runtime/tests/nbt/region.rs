//! Region files: every compression scheme and an external (`.mcc`) chunk written by our writer
//! and checked by a reader written here from the format description (location and timestamp
//! tables, chunk headers), with the chunk bytes decompressed by flate2 and lz4_flex directly and
//! compared with the sample files they came from; read → write identity; unchanged chunks kept
//! byte-for-byte; unreadable slots refused, not dropped.
#![cfg(feature = "nbt")]

use crate::support;

use std::io::Read;

use def_runtime::nbt::region::{Chunk, ChunkStatus, RegionFile, RegionParts};
use def_runtime::nbt::{Compression, FileOptions, NbtError, NbtErrorKind, NbtFile, Tag};

fn sample(name: &str) -> Option<Vec<u8>> {
    Some(std::fs::read(support::shared(&format!("nbt-samples/{name}"))?).unwrap())
}

/// The uncompressed NBT of a sample (gunzipped by flate2 when it is gzip).
fn plain(raw: &[u8]) -> Vec<u8> {
    if raw.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(raw)
            .read_to_end(&mut out)
            .unwrap();
        out
    } else {
        raw.to_vec()
    }
}

/// One slot as the format describes it.
#[derive(Debug, PartialEq)]
struct Slot {
    index: usize,
    timestamp: u32,
    id: u8,
    stored: Vec<u8>,
}

/// Reads the tables and chunk headers of a region (independent of the crate's reader).
fn slots(region: &[u8]) -> Vec<Slot> {
    let be = |at: usize| u32::from_be_bytes(region[at..at + 4].try_into().unwrap());
    assert_eq!(region.len() % 4096, 0, "whole sectors");
    let mut out = Vec::new();
    let mut used = vec![false; region.len() / 4096];
    for index in 0..1024 {
        let loc = be(4 * index);
        if loc == 0 {
            continue;
        }
        let (sector, count) = ((loc >> 8) as usize, (loc & 0xff) as usize);
        assert!(sector >= 2 && count >= 1 && (sector + count) * 4096 <= region.len());
        for s in &mut used[sector..sector + count] {
            assert!(!*s, "sectors overlap");
            *s = true;
        }
        let len = be(sector * 4096) as usize;
        let id = region[sector * 4096 + 4];
        assert!(len + 4 <= count * 4096 && (len + 4).div_ceil(4096) == count);
        out.push(Slot {
            index,
            timestamp: be(4096 + 4 * index),
            id,
            stored: region[sector * 4096 + 5..sector * 4096 + 4 + len].to_vec(),
        });
    }
    out
}

/// lz4-java's `LZ4BlockOutputStream` framing (Minecraft's compression id 4), read from its
/// description: `"LZ4Block"`, token (0x10 raw / 0x20 LZ4 in the high nibble), compressed
/// length, decompressed length, checksum (LE u32), data; an empty block ends the stream.
fn unlz4(mut d: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        assert_eq!(&d[..8], b"LZ4Block");
        let le = |at: usize| u32::from_le_bytes(d[at..at + 4].try_into().unwrap()) as usize;
        let (method, clen, dlen) = (d[8] & 0xf0, le(9), le(13));
        let data = &d[21..21 + clen];
        if dlen == 0 {
            assert!(d.len() == 21 && clen == 0, "the end block ends the stream");
            return out;
        }
        match method {
            0x10 => out.extend_from_slice(data),
            0x20 => out.extend(lz4_flex::block::decompress(data, dlen).unwrap()),
            m => panic!("method {m:#x}"),
        }
        d = &d[21 + clen..];
    }
}

fn decompress(id: u8, stored: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    match id & 0x7f {
        1 => {
            flate2::read::GzDecoder::new(stored)
                .read_to_end(&mut out)
                .unwrap();
        }
        2 => {
            flate2::read::ZlibDecoder::new(stored)
                .read_to_end(&mut out)
                .unwrap();
        }
        3 => out = stored.to_vec(),
        4 => out = unlz4(stored),
        id => panic!("id {id}"),
    }
    out
}

/// (sample, compression, slot x, slot z): one chunk per scheme, and a 2.6 MB one stored
/// uncompressed, too large for 255 sectors: external.
const CHUNKS: [(&str, Compression, usize, usize); 5] = [
    ("fastnbt__chunk.nbt", Compression::Gzip, 0, 0),
    ("fastnbt__chunk1.14.nbt", Compression::Zlib, 5, 1),
    ("fastanvil__1.17.1.chunk", Compression::None, 31, 31),
    ("fastanvil__etho.chunk", Compression::Lz4, 2, 7),
    (
        "pumpkin__bedrock_biome_definitions.nbt",
        Compression::None,
        3,
        0,
    ),
];

fn build() -> Option<(RegionFile, Vec<Vec<u8>>)> {
    let mut region = RegionFile {
        x: -1,
        z: 2,
        chunks: vec![],
    };
    let mut plains = vec![];
    for (i, (name, how, x, z)) in CHUNKS.into_iter().enumerate() {
        let raw = sample(name)?;
        let mut f = NbtFile::decode(&raw, FileOptions::default()).unwrap();
        f.compression = how;
        region.insert(Chunk::new(x, z, f, 1_700_000_000 + i as u32).unwrap());
        plains.push(plain(&raw));
    }
    Some((region, plains))
}

fn check_independently(parts: &RegionParts, plains: &[Vec<u8>]) {
    let found = slots(&parts.region);
    assert_eq!(found.len(), CHUNKS.len());
    for (i, (_, how, x, z)) in CHUNKS.into_iter().enumerate() {
        let slot = found.iter().find(|s| s.index == x + 32 * z).unwrap();
        assert_eq!(slot.timestamp, 1_700_000_000 + i as u32);
        let want_id = match how {
            Compression::Gzip => 1,
            Compression::Zlib => 2,
            Compression::None => 3,
            _ => 4,
        };
        let external = plains[i].len() + 5 > 255 * 4096;
        assert_eq!(slot.id, want_id | if external { 0x80 } else { 0 });
        let stored = if external {
            assert!(slot.stored.is_empty(), "an external stub has length 1");
            // World chunk coordinates: region (-1, 2) × 32 + slot.
            let name = format!("c.{}.{}.mcc", -32 + x as i64, 64 + z as i64);
            let (_, bytes) = parts.external.iter().find(|(n, _)| *n == name).unwrap();
            bytes.clone()
        } else {
            slot.stored.clone()
        };
        assert!(
            decompress(slot.id, &stored) == plains[i],
            "slot {x},{z}: the chunk's NBT is the sample's bytes"
        );
    }
    assert_eq!(parts.external.len(), 1);
}

#[test]
fn every_scheme_and_an_external_chunk_round_trip_byte_identical() {
    let Some((region, plains)) = build() else {
        return;
    };
    let parts = region.to_parts().unwrap();
    check_independently(&parts, &plains);
    assert!(
        matches!(region.encode().map_err(NbtError::into_kind), Err(NbtErrorKind::Region(m)) if m.contains("c.-29.64.mcc"))
    );

    // On disk and back: the external chunk is read from beside the region.
    let dir = std::env::temp_dir().join(format!("nbt_region_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("r.-1.2.mca");
    region.save(&path).unwrap();
    let back = RegionFile::open(&path).unwrap();
    assert_eq!((back.x, back.z), (-1, 2));
    for ch in &back.chunks {
        assert_eq!(ch.status, ChunkStatus::Ok, "slot {}", ch.index);
        assert!(!ch.is_changed());
    }
    assert!(back.chunk(3, 0).unwrap().is_external());
    let again = back.to_parts().unwrap();
    assert!(again == parts, "read → write is byte-identical");
    // Through the JSON dump (`defc nbt dump` → `encode`): the external chunk comes back too.
    let json = def_runtime::nbt::dump::Json::parse(&back.to_json()).unwrap();
    let mut from_dump = def_runtime::nbt::region::from_json(&json).unwrap();
    // The dump holds chunks, not the region's position (which names the .mcc files).
    (from_dump.x, from_dump.z) = (-1, 2);
    check_independently(&from_dump.to_parts().unwrap(), &plains);

    // Without the .mcc file the slot is reported, and writing refuses instead of dropping it.
    std::fs::remove_file(dir.join("c.-29.64.mcc")).unwrap();
    let mut lost = RegionFile::open(&path).unwrap();
    assert_eq!(lost.chunk(3, 0).unwrap().status, ChunkStatus::External);
    match lost.to_parts().map_err(NbtError::into_kind) {
        Err(NbtErrorKind::RegionChunk { index: 3, reason }) => assert!(reason.contains("external")),
        other => panic!("{other:?}"),
    }
    lost.chunks.retain(|c| c.status == ChunkStatus::Ok);
    assert_eq!(slots(&lost.to_parts().unwrap().region).len(), 4);
    // A new chunk from a tree: written with the scheme asked for, read back the same.
    let tree = def_runtime::nbt::Nbt::named("", def_runtime::nbt::compound! {"xPos": 7i32});
    let new = NbtFile::new(tree.clone(), Compression::Lz4);
    lost.insert(Chunk::new(9, 9, new, 5).unwrap());
    let parts = lost.to_parts().unwrap();
    let slot = slots(&parts.region)
        .into_iter()
        .find(|s| s.index == 9 + 32 * 9)
        .unwrap();
    assert_eq!((slot.id, slot.timestamp), (4, 5));
    // {"": {xPos: 7}} in Java NBT, byte by byte.
    let want = b"\x0a\x00\x00\x03\x00\x04xPos\x00\x00\x00\x07\x00";
    assert_eq!(decompress(slot.id, &slot.stored), want);
    assert!(Chunk::new(32, 0, NbtFile::new(tree, Compression::None), 0).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_changed_chunk_is_re_encoded_and_the_others_keep_their_bytes() {
    let Some((region, _)) = build() else {
        return;
    };
    let before = region.to_parts().unwrap();
    let mut r = RegionFile::decode_at(
        &before.region,
        (-1, 2),
        FileOptions::default(),
        1 << 30,
        Some(&mut |name: &str, _| {
            Ok(before
                .external
                .iter()
                .find(|(n, _)| n == name)
                .unwrap()
                .1
                .clone())
        }),
    )
    .unwrap();
    let ch = r.chunk_mut(5, 1).unwrap();
    *ch.nbt_mut()
        .unwrap()
        .root_mut()
        .unwrap()
        .get_path_mut("Level.xPos")
        .unwrap() = Tag::Int(12345);
    ch.nbt_mut().unwrap().compression = Compression::Lz4;
    let after = r.to_parts().unwrap();
    let (old, new) = (slots(&before.region), slots(&after.region));
    for (a, b) in old.iter().zip(&new) {
        if a.index == 5 + 32 {
            assert_eq!(b.id, 4, "re-encoded with the scheme asked for");
            let f = NbtFile::decode(&decompress(b.id, &b.stored), FileOptions::default()).unwrap();
            assert_eq!(
                f.root().unwrap().get_path("Level.xPos").unwrap().as_int(),
                Some(12345)
            );
        } else {
            assert_eq!(a, b, "unchanged chunk kept byte-for-byte");
        }
    }
    assert_eq!(before.external, after.external);
}

#[test]
fn real_regions_keep_their_chunks_and_timestamps() {
    for name in ["querz__r.0.0.mca", "twoolie__world_test_r.4.-4.mca"] {
        let Some(raw) = sample(name) else {
            return;
        };
        let r = RegionFile::decode(&raw).unwrap();
        let out = r.encode().unwrap();
        assert_eq!(slots(&out), slots(&raw), "{name}");
    }
}

#[test]
fn unreadable_slots_are_refused_and_unknown_schemes_kept() {
    let mut region = vec![0u8; 3 * 4096];
    // Slot 0: sector 2, one sector, id 127 (custom), 3 bytes of data: kept as stored.
    region[0..4].copy_from_slice(&((2u32 << 8) | 1).to_be_bytes());
    region[2 * 4096..2 * 4096 + 8].copy_from_slice(&[0, 0, 0, 4, 127, 1, 2, 3]);
    // Slot 1: points past the end of the file.
    region[4..8].copy_from_slice(&((9u32 << 8) | 1).to_be_bytes());
    let mut r = RegionFile::decode(&region).unwrap();
    assert_eq!(r.chunks[0].status, ChunkStatus::UnknownCompression);
    assert_eq!(r.chunks[1].status, ChunkStatus::OutOfFile);
    assert!(matches!(
        r.encode().map_err(NbtError::into_kind),
        Err(NbtErrorKind::RegionChunk { index: 1, .. })
    ));
    r.chunks.retain(|c| c.index != 1);
    let out = r.encode().unwrap();
    assert_eq!(
        slots(&out),
        [Slot {
            index: 0,
            timestamp: 0,
            id: 127,
            stored: vec![1, 2, 3]
        }]
    );
}

#[test]
fn corrupted_headers_never_lose_a_chunk_silently() {
    // The property the nbt_file fuzz target checks, over byte changes in a real region's
    // tables and chunk header: writing back either refuses or keeps every chunk it writes.
    let Some(raw) = sample("querz__r.0.0.mca") else {
        return;
    };
    let spots = [
        4 * 97,
        4 * 97 + 3,
        4096 + 4 * 97,
        2 * 4096,
        2 * 4096 + 3,
        2 * 4096 + 4,
        0,
        3,
    ];
    let mut written = 0;
    for at in spots {
        for v in [0u8, 1, 2, 3, 4, 0x7f, 0x82, 0xff] {
            let mut bad = raw.clone();
            bad[at] = v;
            let Ok(r) = RegionFile::decode(&bad) else {
                continue;
            };
            let Ok(parts) = r.to_parts() else {
                assert!(r.chunks.iter().any(|c| c.payload.is_empty()));
                continue;
            };
            written += 1;
            let back = RegionFile::decode(&parts.region).unwrap();
            let key = |r: &RegionFile| {
                r.chunks
                    .iter()
                    .filter(|c| !c.is_external())
                    .map(|c| (c.index, c.timestamp, c.compression_id, c.payload.clone()))
                    .collect::<Vec<_>>()
            };
            assert_eq!(key(&back), key(&r), "byte {at} = {v}");
        }
    }
    assert!(written > 10, "{written} variants written back");
}

#[test]
fn a_chunk_tree_is_one_call_away_or_an_error_saying_why() {
    let Some(raw) = sample("querz__r.0.0.mca") else {
        return;
    };
    let mut r = RegionFile::decode(&raw).unwrap();
    let all: Vec<(usize, usize)> = (0..32).flat_map(|z| (0..32).map(move |x| (x, z))).collect();
    let &(x, z) = all
        .iter()
        .find(|&&(x, z)| r.tree(x, z).is_ok())
        .expect("a chunk that reads");
    // The edit of one value in a region: one call to the tree, one to the place.
    let path = if r.tree(x, z).unwrap().get_path("Level.xPos").is_ok() {
        "Level.xPos"
    } else {
        "xPos"
    };
    let old = r.tree_mut(x, z).unwrap().set_path(path, 4242i32).unwrap();
    assert!(matches!(old, Tag::Int(_)));
    let back = RegionFile::decode(&r.encode().unwrap()).unwrap();
    assert_eq!(
        back.tree(x, z).unwrap().get_path(path).unwrap().as_int(),
        Some(4242)
    );

    // An empty slot and a place outside the region are errors, not panics or `None`s.
    if let Some(&(ex, ez)) = all.iter().find(|&&(x, z)| r.chunk(x, z).is_none()) {
        let e = r.tree_mut(ex, ez).unwrap_err();
        assert!(e.to_string().ends_with("no chunk in this slot"), "{e}");
    }
    let e = r.tree(32, 0).unwrap_err();
    assert!(e.to_string().contains("outside a region"), "{e}");
}

#[test]
fn a_region_dump_shows_hidden_characters_as_json_escapes_only() {
    // A key and a value holding ESC, a C1 control and a bidi override.
    let hostile = "a\u{1b}[2J\u{9b}\u{202e}b";
    let mut root = def_runtime::nbt::Compound::new();
    root.insert(hostile, Tag::from(hostile));
    let file = NbtFile::new(def_runtime::nbt::Nbt::named("", root), Compression::Zlib);
    let mut region = RegionFile {
        x: 0,
        z: 0,
        chunks: vec![],
    };
    region.insert(Chunk::new(0, 0, file, 7).unwrap());
    let mut out = Vec::new();
    region.write_json(&mut out).unwrap();
    // Printable ASCII only: every other character is a `\u` escape, so nothing reaches a
    // terminal raw, and a JSON reader gets the same text back.
    assert!(
        out.iter().all(|b| (0x20..0x7f).contains(b)),
        "{}",
        String::from_utf8_lossy(&out)
    );
    let text = String::from_utf8(out).unwrap();
    serde_json::from_str::<serde_json::Value>(&text).expect("valid JSON");
    assert!(text.contains("\\u001b") && text.contains("\\u009b") && text.contains("\\u202e"));
}

#[test]
fn a_chunk_that_is_not_read_keeps_its_typed_error() {
    // A region laid out by hand: slot 0 holds an uncompressed chunk (scheme 3) whose NBT ends
    // inside its second entry; slot 1's location points at slot 0's sector.
    let nbt = [
        10u8, 0, 0, // root compound, empty name
        3, 0, 4, b'x', b'P', b'o', b's', 0, 0, 0, 7, // int xPos = 7
        8, 0, 1, b's', 0, // string s: its length needs 2 bytes, one is there
    ];
    let mut file = vec![0u8; 3 * 4096];
    for slot in 0..2 {
        file[4 * slot..4 * slot + 4].copy_from_slice(&((2u32 << 8) | 1).to_be_bytes());
    }
    let at = 2 * 4096;
    file[at..at + 4].copy_from_slice(&(nbt.len() as u32 + 1).to_be_bytes());
    file[at + 4] = 3;
    file[at + 5..at + 5 + nbt.len()].copy_from_slice(&nbt);

    let region = RegionFile::decode(&file).expect("the tables are whole");
    let ChunkStatus::Invalid(e) = &region.chunk(0, 0).unwrap().status else {
        panic!("{:?}", region.chunk(0, 0).unwrap().status);
    };
    // The decoder's own error: the byte where it stopped, the tag it was reading.
    assert!(
        matches!(e.kind(), NbtErrorKind::UnexpectedEof { needed: 1 }),
        "{e}"
    );
    // At the string's 2-byte length, of which one byte is there.
    assert_eq!(e.offset(), Some(nbt.len() - 1));
    assert_eq!(e.path().to_string(), "s");
    let ChunkStatus::Invalid(e) = &region.chunk(1, 0).unwrap().status else {
        panic!("{:?}", region.chunk(1, 0).unwrap().status);
    };
    assert!(
        matches!(e.kind(), NbtErrorKind::SlotOverlap { other: 0 }),
        "{e}"
    );
    // The tree accessor says the same, with the slot.
    let why = region.tree(0, 0).unwrap_err().to_string();
    assert!(why.contains(&format!("at byte {}", nbt.len() - 1)), "{why}");
}
