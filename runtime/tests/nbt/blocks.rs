//! Compounds read from a file share blocks of entries. What a user does with them (take one out
//! of its tree, drop the tree, send it to another thread, clone it, change it in place, grow it
//! by a thousand keys) behaves as with compounds built by hand: checked against trees built from
//! the samples' independent JSON dumps, never against the reader's own output alone.

use crate::support;

use def_runtime::nbt::dump::{self, Json};
use def_runtime::nbt::{Compound, List, Nbt, NbtFile, Tag};

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
