//! Long lists of alike compounds, which the zero-copy reader takes by their shape (a compound
//! that agrees with the one before it wherever its bytes decide how it reads is taken whole).
//! Every input is built here byte by byte; what the reader gives is checked against the values
//! written in, and against the owned reader (a separate walk of the same bytes) for what it
//! accepts, refuses and builds, in both flavours that have shapes and with strings checked or not.

use def_runtime::nbt::borrow::{BorrowedNbt, TagRef};
use def_runtime::nbt::{Edition, ReadOptions, decode};
use proptest::prelude::*;

/// Bytes of one flavour (Java big-endian, Bedrock little-endian).
struct Out {
    ed: Edition,
    b: Vec<u8>,
}

impl Out {
    fn new(ed: Edition) -> Out {
        Out { ed, b: Vec::new() }
    }

    fn u16(&mut self, v: u16) {
        let b = match self.ed {
            Edition::Java => v.to_be_bytes(),
            _ => v.to_le_bytes(),
        };
        self.b.extend(b);
    }

    fn i32(&mut self, v: i32) {
        let b = match self.ed {
            Edition::Java => v.to_be_bytes(),
            _ => v.to_le_bytes(),
        };
        self.b.extend(b);
    }

    /// An entry's type id and name.
    fn head(&mut self, id: u8, name: &[u8]) {
        self.b.push(id);
        self.u16(name.len() as u16);
        self.b.extend(name);
    }

    /// A string value.
    fn string(&mut self, s: &[u8]) {
        self.u16(s.len() as u16);
        self.b.extend(s);
    }

    /// A root compound named "" holding one list of `n` compounds, `blocks`, each written by
    /// `elem` (its entries; the end byte is written here).
    fn doc(ed: Edition, n: usize, mut elem: impl FnMut(&mut Out, usize)) -> Vec<u8> {
        let mut o = Out::new(ed);
        o.head(10, b"");
        o.head(9, b"blocks");
        o.b.push(10);
        o.i32(n as i32);
        for i in 0..n {
            elem(&mut o, i);
            o.b.push(0);
        }
        o.b.push(0);
        o.b
    }
}

/// `{pos: [x, y, z], state: s}`: a structure's block.
fn block(o: &mut Out, pos: [i32; 3], state: i32) {
    o.head(9, b"pos");
    o.b.push(3);
    o.i32(3);
    for v in pos {
        o.i32(v);
    }
    o.head(3, b"state");
    o.i32(state);
}

/// A list of `n` blocks, block `i` with [`numbers`]`(i)`.
fn blocks_doc(ed: Edition, n: usize) -> Vec<u8> {
    Out::doc(ed, n, |o, i| {
        let (pos, state) = numbers(i);
        block(o, pos, state);
    })
}

/// The numbers of block `i`.
fn numbers(i: usize) -> ([i32; 3], i32) {
    let i = i as i32;
    ([i, -2 * i, i * i], 7 * i - 50)
}

/// Both readers, strings checked: the zero-copy reader must accept what the owned reader
/// accepts and build the same tree; the owned tree is returned.
fn both(data: &[u8], ed: Edition) -> BorrowedNbt<'_> {
    let opts = ReadOptions::new(ed);
    let owned = decode(data, opts).expect("the owned reader accepts it").0;
    let doc = BorrowedNbt::decode(data, opts).expect("the zero-copy reader accepts it");
    assert_eq!(doc.to_owned_roots()[0], owned);
    let lazy = BorrowedNbt::decode_lazy(data, opts).expect("lazy accepts it");
    assert_eq!(lazy.to_owned_roots()[0], owned);
    doc
}

/// The `blocks` list's elements.
fn blocks<'d, 'a>(doc: &'d BorrowedNbt<'a>) -> Vec<def_runtime::nbt::borrow::CompoundRef<'d, 'a>> {
    let Some(TagRef::List(l)) = doc.root().value.as_compound().unwrap().get("blocks") else {
        panic!("no blocks list");
    };
    l.iter().map(|e| e.as_compound().unwrap()).collect()
}

fn ints(t: TagRef) -> Vec<i32> {
    let TagRef::List(l) = t else {
        panic!("not a list: {t:?}")
    };
    l.iter()
        .map(|x| match x {
            TagRef::Int(v) => v,
            other => panic!("not an int: {other:?}"),
        })
        .collect()
}

#[test]
fn alike_blocks_read_with_their_own_numbers() {
    for ed in [Edition::Java, Edition::Bedrock] {
        let data = blocks_doc(ed, 40);
        let doc = both(&data, ed);
        let elems = blocks(&doc);
        assert_eq!(elems.len(), 40);
        for (i, e) in elems.iter().enumerate() {
            let (pos, state) = numbers(i);
            assert_eq!(ints(e.get("pos").unwrap()), pos, "{ed:?} block {i}");
            assert!(matches!(e.get("state"), Some(TagRef::Int(s)) if s == state));
            assert_eq!(e.len(), 2);
        }
    }
}

#[test]
fn a_compound_as_long_but_read_differently_is_read_as_itself() {
    // After a run of alike blocks, block 20 differs only where its bytes decide how it reads,
    // and is exactly as long as the others.
    type Variant = fn(&mut Out);
    let variants: [(&str, Variant); 5] = [
        ("another key of the same length", |o| {
            block_keyed(o, b"stata");
        }),
        ("another type of the same width", |o| {
            o.head(9, b"pos");
            o.b.push(3);
            o.i32(3);
            for v in [1, 2, 3] {
                o.i32(v);
            }
            o.head(5, b"state");
            o.b.extend(match o.ed {
                Edition::Java => 1.5f32.to_be_bytes(),
                _ => 1.5f32.to_le_bytes(),
            });
        }),
        ("a shorter list, a longer key", |o| {
            o.head(9, b"pos");
            o.b.push(3);
            o.i32(2);
            for v in [1, 2] {
                o.i32(v);
            }
            o.head(3, b"state1234");
            o.i32(9);
        }),
        ("a list of floats", |o| {
            o.head(9, b"pos");
            o.b.push(5);
            o.i32(3);
            for v in [0.5f32, 1.5, 2.5] {
                o.b.extend(match o.ed {
                    Edition::Java => v.to_be_bytes(),
                    _ => v.to_le_bytes(),
                });
            }
            o.head(3, b"state");
            o.i32(9);
        }),
        ("the entries swapped", |o| {
            o.head(3, b"state");
            o.i32(9);
            o.head(9, b"pos");
            o.b.push(3);
            o.i32(3);
            for v in [1, 2, 3] {
                o.i32(v);
            }
        }),
    ];
    fn block_keyed(o: &mut Out, key: &[u8]) {
        o.head(9, b"pos");
        o.b.push(3);
        o.i32(3);
        for v in [1, 2, 3] {
            o.i32(v);
        }
        o.head(3, key);
        o.i32(9);
    }
    for ed in [Edition::Java, Edition::Bedrock] {
        let plain = Out::doc(ed, 1, |o, _| block(o, [1, 2, 3], 9)).len();
        for (what, variant) in variants {
            let data = Out::doc(ed, 40, |o, i| {
                if i == 20 {
                    variant(o)
                } else {
                    let (pos, state) = numbers(i);
                    block(o, pos, state)
                }
            });
            let one = Out::doc(ed, 1, |o, _| variant(o)).len();
            assert_eq!(one, plain, "{what}: not as long as a block");
            let doc = both(&data, ed);
            let e = &blocks(&doc)[20];
            match what {
                "another key of the same length" => {
                    assert!(e.get("state").is_none());
                    assert!(matches!(e.get("stata"), Some(TagRef::Int(9))));
                }
                "another type of the same width" => {
                    assert!(matches!(e.get("state"), Some(TagRef::Float(v)) if v == 1.5));
                }
                "a shorter list, a longer key" => {
                    assert_eq!(ints(e.get("pos").unwrap()), [1, 2]);
                    assert!(matches!(e.get("state1234"), Some(TagRef::Int(9))));
                }
                "a list of floats" => {
                    let Some(TagRef::List(l)) = e.get("pos") else {
                        panic!()
                    };
                    let v: Vec<_> = l.iter().collect();
                    assert!(
                        matches!(v[..], [TagRef::Float(a), TagRef::Float(b), TagRef::Float(c)] if (a, b, c) == (0.5, 1.5, 2.5))
                    );
                }
                _ => {
                    let keys: Vec<String> = e
                        .iter()
                        .map(|(k, _)| k.to_str().unwrap().into_owned())
                        .collect();
                    assert_eq!(keys, ["state", "pos"]);
                }
            }
            // The blocks after it are still read with their own numbers.
            for (i, e) in blocks(&doc).iter().enumerate().skip(21) {
                assert_eq!(
                    ints(e.get("pos").unwrap()),
                    numbers(i).0,
                    "{what}: block {i}"
                );
            }
        }
    }
}

#[test]
fn a_compound_as_long_that_does_not_read_is_refused() {
    // Block 20 changes one byte that decides how it reads, so that it no longer reads; both
    // readers must refuse the list (a shape taken from the blocks before it must not vouch
    // for it).
    for ed in [Edition::Java, Edition::Bedrock] {
        let good = blocks_doc(ed, 40);
        // Offsets within a block: pos head 0..6, element type 6, count 7..11, ints 11..23,
        // state head 23..31 (type id 23, name length 24..26), its int 31..35, end byte 35.
        let start = blocks_doc(ed, 20).len() - 1;
        let count_hi = if ed == Edition::Java { 7 } else { 10 };
        let len_lo = if ed == Edition::Java { 25 } else { 24 };
        let changes: [(&str, usize, u8); 5] = [
            ("a type id no tag has", 23, 13),
            ("a name length past its name", len_lo, 6),
            ("a list count past the compound", count_hi, 0x40),
            ("an element type no tag has", 6, 14),
            ("no end byte", 35, 1),
        ];
        for (what, at, byte) in changes {
            let mut data = good.clone();
            data[start + at] = byte;
            let opts = ReadOptions::new(ed);
            assert!(
                decode(&data, opts).is_err(),
                "{ed:?} {what}: the owned reader keeps it"
            );
            for lazy in [false, true] {
                let r = if lazy {
                    BorrowedNbt::decode_lazy(&data, opts)
                } else {
                    BorrowedNbt::decode(&data, opts)
                };
                assert!(r.is_err(), "{ed:?} {what}: the zero-copy reader keeps it");
            }
        }
    }
}

#[test]
fn checked_reads_check_every_alike_string() {
    // `{id: "minecraft:stone", n: i}` forty times; block 25's id has a byte that is not
    // Modified UTF-8 (0xFF) where the others have 's', so it is as long as the others.
    for ed in [Edition::Java, Edition::Bedrock] {
        let data = Out::doc(ed, 40, |o, i| {
            o.head(8, b"id");
            o.string(if i == 25 {
                b"minecraft:\xFFtone"
            } else {
                b"minecraft:stone"
            });
            o.head(3, b"n");
            o.i32(i as i32);
        });
        let opts = ReadOptions::new(ed);
        let owned = decode(&data, opts).expect_err("the owned reader refuses it");
        let ours = BorrowedNbt::decode(&data, opts).expect_err("a checked read refuses it");
        assert_eq!(ours.offset(), owned.offset());
        assert_eq!(ours.to_string(), owned.to_string());
        // Unchecked, the bytes are kept as they are and found on use or on validation.
        let lazy = BorrowedNbt::decode_lazy(&data, opts).expect("lazy keeps it");
        let elems = blocks(&lazy);
        for (i, e) in elems.iter().enumerate() {
            let Some(TagRef::String(s)) = e.get("id") else {
                panic!()
            };
            assert_eq!(s.check().is_ok(), i != 25, "{ed:?} block {i}");
            assert!(matches!(e.get("n"), Some(TagRef::Int(n)) if n == i as i32));
        }
        let late = lazy.validate_strings().expect_err("validation finds it");
        assert_eq!(late.offset(), owned.offset());
        assert!(owned.to_string().contains("blocks[25]"), "{owned}");
        // A bad key is found the same way.
        let data = Out::doc(ed, 40, |o, i| {
            o.head(8, if i == 30 { b"i\xFF" } else { b"id" });
            o.string(b"minecraft:stone");
            o.head(3, b"n");
            o.i32(i as i32);
        });
        let owned = decode(&data, opts).expect_err("the owned reader refuses it");
        assert!(owned.to_string().contains("blocks[30]"), "{owned}");
        let ours = BorrowedNbt::decode(&data, opts).expect_err("a checked read refuses it");
        assert_eq!(ours.to_string(), owned.to_string());
        let lazy = BorrowedNbt::decode_lazy(&data, opts).expect("lazy keeps it");
        let late = lazy.validate_strings().expect_err("validation finds it");
        assert_eq!(late.to_string(), owned.to_string());
    }
}

#[test]
fn a_run_cut_short_is_refused_at_every_length() {
    for ed in [Edition::Java, Edition::Bedrock] {
        let data = blocks_doc(ed, 30);
        for end in 0..data.len() {
            let cut = &data[..end];
            let opts = ReadOptions::new(ed);
            assert!(decode(cut, opts).is_err());
            assert!(
                BorrowedNbt::decode(cut, opts).is_err(),
                "{ed:?} cut at {end}"
            );
            assert!(
                BorrowedNbt::decode_lazy(cut, opts).is_err(),
                "{ed:?} cut at {end}"
            );
        }
    }
}

/// A list of `n` compounds of three shapes with numbers and strings from the strategy, as
/// bytes; then `flips` bytes changed.
fn mixed_list() -> impl Strategy<Value = (Edition, Vec<u8>)> {
    (
        prop_oneof![Just(Edition::Java), Just(Edition::Bedrock)],
        prop::collection::vec((0u8..3, any::<i32>(), 0usize..3), 8..60),
        prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..3),
    )
        .prop_map(|(ed, elems, flips)| {
            let words: [&[u8]; 3] = [
                b"minecraft:stone",
                b"minecraft:dirt\xC0",
                b"minecraft:stane",
            ];
            let mut data = Out::doc(ed, elems.len(), |o, i| {
                let (kind, v, w) = elems[i];
                match kind {
                    0 => block(o, [v, v ^ 1, v >> 3], v),
                    1 => {
                        o.head(8, b"id");
                        o.string(words[w]);
                        o.head(1, b"Count");
                        o.b.push(v as u8);
                    }
                    _ => {
                        o.head(9, b"Motion");
                        o.b.push(6);
                        o.i32(w as i32);
                        for k in 0..w {
                            o.b.extend((v as f64 + k as f64).to_bits().to_be_bytes());
                        }
                        o.head(8, b"tag");
                        o.string(&words[w][..10]);
                    }
                }
            });
            for (at, b) in flips {
                let at = at.index(data.len());
                data[at] ^= b;
            }
            (ed, data)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// Whatever the bytes, the zero-copy reader accepts what the owned reader accepts and
    /// builds the same tree, and refuses the rest with the same error; read lazily, it accepts
    /// the same structures and finds the same strings bad when asked.
    #[test]
    fn shapes_never_change_what_is_read((ed, data) in mixed_list()) {
        let opts = ReadOptions::new(ed);
        let owned = decode(&data, opts);
        match (&owned, BorrowedNbt::decode(&data, opts)) {
            (Ok((tree, used)), Ok(doc)) => {
                prop_assert_eq!(doc.consumed(), *used);
                prop_assert_eq!(&doc.to_owned_roots()[0], tree);
            }
            (Err(a), Err(b)) => prop_assert_eq!(a.to_string(), b.to_string()),
            (a, b) => prop_assert!(false, "owned {:?}, zero-copy {:?}", a.as_ref().map(|_| ()), b.map(|_| ())),
        }
        let lazy = BorrowedNbt::decode_lazy(&data, opts);
        if ed == Edition::Java {
            // Java's owned reader can leave strings unchecked too.
            let unchecked = decode(&data, opts.check_strings(false));
            prop_assert_eq!(unchecked.is_ok(), lazy.is_ok());
        }
        match (&owned, lazy) {
            (Ok((tree, _)), Ok(doc)) => {
                prop_assert!(doc.validate_strings().is_ok());
                prop_assert_eq!(&doc.to_owned_roots()[0], tree);
            }
            (Err(a), Ok(doc)) => {
                let b = doc.validate_strings();
                prop_assert!(b.is_err(), "lazy kept what the owned reader refused: {}", a);
                prop_assert_eq!(a.to_string(), b.unwrap_err().to_string());
            }
            (Ok(_), Err(b)) => prop_assert!(false, "lazy refused what the owned reader kept: {}", b),
            (Err(_), Err(_)) => {}
        }
    }
}
