//! Compounds read from a file share blocks of entries. What a user does with them (take one out
//! of its tree, drop the tree, send it to another thread, clone it, change it in place, grow it
//! by a thousand keys) behaves as with compounds built by hand: checked against trees built from
//! the samples' independent JSON dumps, never against the reader's own output alone.

use crate::support;

use def_runtime::nbt::dump::{self, Json};
use def_runtime::nbt::{
    Compound, Edition, List, Nbt, NbtFile, NbtString, ReadOptions, Tag, decode,
};

/// A sample read by the reader, and the same tree built from its JSON dump.
fn read_and_dumped(name: &str) -> Option<(Nbt, Nbt)> {
    let raw = std::fs::read(support::shared(&format!("nbt-samples/{name}"))?).unwrap();
    let text =
        std::fs::read_to_string(support::shared(&format!("nbt-samples/{name}.json"))?).unwrap();
    let dumped = dump::root_from_json(&Json::parse(&text).unwrap()).unwrap();
    let mut file = NbtFile::decode(&raw, Default::default()).unwrap();
    Some((file.roots.remove(0), dumped))
}

fn compounds(tag: &mut Tag, key: &str) -> Vec<Compound> {
    let Some(Tag::List(List::Compound(v))) = tag.as_compound_mut().unwrap().remove(key) else {
        panic!("{key} is not a list of compounds");
    };
    v.into_vec()
}

#[test]
fn compounds_taken_out_outlive_their_tree_and_move_between_threads() {
    let Some((mut read, mut dumped)) =
        read_and_dumped("pumpkin__structure_ancient_city_center_2.nbt")
    else {
        return;
    };
    assert_eq!(read, dumped);
    let blocks = compounds(&mut read.tag, "blocks");
    let want = compounds(&mut dumped.tag, "blocks");
    assert!(blocks.len() > 1000, "{} blocks", blocks.len());
    // The rest of the tree is dropped first; the blocks' compounds keep their entries.
    drop(read);
    // Four threads each take a quarter (moved, not copied) and drop it there: the shared blocks
    // are freed by whichever thread drops their last compound.
    let n = blocks.len();
    let mut quarters: Vec<Vec<(usize, Compound)>> = vec![Vec::new(); 4];
    for (i, c) in blocks.into_iter().enumerate() {
        quarters[i * 4 / n].push((i, c));
    }
    std::thread::scope(|s| {
        for q in quarters {
            let want = &want;
            s.spawn(move || {
                for (i, got) in &q {
                    assert_eq!(got, &want[*i]);
                }
                drop(q);
            });
        }
    });
}

#[test]
fn read_compounds_change_in_place_grow_shrink_and_clone_like_built_ones() {
    let Some((mut read, mut dumped)) = read_and_dumped("simdnbt__complex_player.dat") else {
        return;
    };
    let original = dumped.clone();
    // The same edits on both trees, then the trees are compared, and the read one is written
    // and read again.
    let mut copies = Vec::new();
    for t in [&mut read.tag, &mut dumped.tag] {
        let c = t.as_compound_mut().unwrap();
        copies.push(c.clone());
        // In place: a value changed, no entry added.
        *c.get_mut("XpLevel").unwrap() = Tag::Int(99);
        // Removed and added: the compound's length changes.
        assert!(c.remove("Inventory").is_some());
        for i in 0..1000 {
            c.insert(format!("k{i}"), i);
        }
        assert_eq!(c.insert("k500", "again"), Some(Tag::Int(500)));
    }
    assert_eq!(read, dumped);
    // The copies taken before the edits are untouched.
    for copy in copies {
        assert_eq!(Tag::Compound(copy), original.tag);
    }
    assert_eq!(
        read.tag.get("k500").and_then(Tag::as_str),
        Some("again"),
        "the key stays where it was"
    );
    let bytes = read.encode(def_runtime::nbt::Edition::Java).unwrap();
    let (back, _) = def_runtime::nbt::decode(&bytes, Default::default()).unwrap();
    assert_eq!(back, dumped);
}

#[test]
fn many_reads_on_many_threads_reuse_blocks_without_mixing_them() {
    let Some((_, dumped)) = read_and_dumped("fastanvil__21w44a-test1.nbt") else {
        return;
    };
    let raw =
        std::fs::read(support::shared("nbt-samples/fastanvil__21w44a-test1.nbt").unwrap()).unwrap();
    // Trees read on one thread are dropped on another, so blocks move between the threads'
    // spare blocks; every tree read must still equal the dump.
    let (tx, rx) = std::sync::mpsc::sync_channel::<Nbt>(4);
    std::thread::scope(|s| {
        s.spawn(|| {
            for _ in 0..40 {
                let mut f = NbtFile::decode(&raw, Default::default()).unwrap();
                tx.send(f.roots.remove(0)).unwrap();
            }
            drop(tx);
        });
        s.spawn(|| {
            let mut n = 0;
            for nbt in rx {
                let again = NbtFile::decode(&raw, Default::default()).unwrap();
                assert_eq!(nbt, dumped);
                assert_eq!(again.roots[0], dumped);
                n += 1;
            }
            assert_eq!(n, 40);
        });
    });
}

/// Strings of 23 bytes to 64 KiB lie in the read's blocks, the long ones in blocks of their own,
/// so a tree's drop moves between several blocks and a thread holds given-up references to a
/// few of them at once. Strings taken out of their trees, kept across later reads (which reuse
/// the blocks that were freed) and dropped out of order on two threads, must keep their bytes:
/// each is checked against the bytes the test wrote.
#[test]
fn strings_in_blocks_of_their_own_keep_their_bytes_however_they_drop() {
    const LENS: [usize; 12] = [
        23, 5_000, 40_000, 100, 17_000, 65_535, 30, 9_000, 1_025, 33_000, 64, 2_100,
    ];
    let text = |i: usize| -> Vec<u8> {
        (0..LENS[i % LENS.len()])
            .map(|j| b'a' + ((i * 7 + j) % 26) as u8)
            .collect()
    };
    let mut doc = vec![10, 0, 0];
    for i in 0..36 {
        let key = format!("s{i}");
        doc.extend([8, 0, key.len() as u8]);
        doc.extend(key.as_bytes());
        doc.extend((LENS[i % LENS.len()] as u16).to_be_bytes());
        doc.extend(text(i));
    }
    doc.push(0);
    let opts = ReadOptions::new(Edition::Java);
    let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<(usize, NbtString)>>(2);
    std::thread::scope(|s| {
        s.spawn(|| {
            let mut kept: Vec<(usize, NbtString)> = Vec::new();
            for round in 0..30 {
                let (mut nbt, _) = decode(&doc, opts).unwrap();
                let root = nbt.tag.as_compound_mut().unwrap();
                let mut taken = Vec::new();
                for i in (0..36).rev().step_by(1 + round % 3) {
                    let Some(Tag::String(s)) = root.remove(&format!("s{i}")) else {
                        panic!("s{i} is not a string");
                    };
                    taken.push((i, s));
                }
                // The rest of the tree drops now, the taken strings later, some here, some on
                // the other thread, in an order unlike the read's.
                drop(nbt);
                for (i, s) in kept.iter().chain(&taken) {
                    assert_eq!(s.as_mutf8(), text(*i), "round {round}, s{i}");
                }
                let (later, there): (Vec<_>, Vec<_>) =
                    taken.into_iter().partition(|(i, _)| (i + round) % 3 == 0);
                tx.send(there).unwrap();
                kept.retain(|(i, _)| (i + round) % 2 == 0);
                kept.extend(later);
            }
            drop(tx);
            for (i, s) in &kept {
                assert_eq!(s.as_mutf8(), text(*i));
            }
        });
        s.spawn(|| {
            for strings in rx {
                for (i, s) in strings.iter().rev() {
                    assert_eq!(s.as_mutf8(), text(*i));
                }
            }
        });
    });
}
