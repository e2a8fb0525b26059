//! Decoders take time linear in their input (timed at n and 10 n, see `support/scaling.rs`), the
//! dynamic encoder allocates in proportion to its input, and region files stay within their
//! whole-file budget (both counted by the allocator).
//!
//! * dynamic TERA codec: a definition of n fields, a packet for it;
//! * Godot: a Dictionary of n distinct keys of every key type (the key hash covered only the
//!   type tag of Color, NodePath, the math types and packed float arrays, so each new key was
//!   compared with every earlier one), in both versions where the type exists;
//! * NBT: a compound of n entries, binary and SNBT; a mixed list in 1.21.5 SNBT;
//! * regions: 1024 slots sharing one chunk that claims 64 MiB of LZ4 (or holding copies of
//!   it), 1024 copies of a zlib bomb.

use crate::counting;
use crate::scaling_support as scaling;
use crate::support;

use def_runtime::godot::{self, DecodeOptions, EncodeOptions, Variant, Version};
use def_runtime::nbt::region::{ChunkStatus, RegionFile};
use def_runtime::nbt::{Compound, FileOptions, NbtErrorKind, Tag, snbt};

#[test]
fn dynamic_decode_of_a_wide_definition() {
    let _s = counting::serial();
    let make = |n: usize| {
        // In objects of 1 000 (a level or object has at most `MAX_MEMBERS`).
        let text: String = (0..n)
            .map(|i| {
                let head = if i.is_multiple_of(1000) {
                    format!("object o{}\n", i / 1000)
                } else {
                    String::new()
                };
                format!("{head}- byte f{i}\n")
            })
            .collect();
        let def = def_runtime::tera::dynamic::Definition::from_text(
            "S_WIDE.1.def",
            &text,
            def_parser::Mode::Compatible,
        )
        .expect("compiles");
        let len = 4 + n;
        let mut packet = vec![0u8; len];
        packet[..2].copy_from_slice(&(len as u16).to_le_bytes());
        let value = def
            .decode_json(&packet, Default::default())
            .expect("decodes");
        (def, packet, value)
    };
    // Baseline: encoding the same value (one hash look-up per field).
    scaling::assert_linear_like(
        "dynamic decode",
        5_000,
        make,
        |(def, packet, _)| {
            let v = def
                .decode_json(packet, Default::default())
                .expect("decodes");
            assert!(v.as_object().is_some());
        },
        make,
        |(def, _, value)| {
            def.encode(value, 1, Default::default(), Default::default())
                .expect("encodes");
        },
    );
}

/// A key type's name, whether Godot 3 has it, and key number `i` of it.
type Key = (&'static str, bool, fn(usize) -> Variant);

#[test]
fn dynamic_encode_under_a_long_name() {
    let _s = counting::serial();
    // An array whose name is 100 n bytes, with n elements: every element rendered its path
    // (copying the name) while encoding, n x 100 n bytes. Counted, not timed: what the encoder
    // allocates must stay within a small multiple of its input (the name once, the elements,
    // the output), at n and at 10 n, which the old path copies exceeded a hundredfold.
    for n in [500, 5_000] {
        let name = "a".repeat(100 * n);
        let def = def_runtime::tera::dynamic::Definition::from_text(
            "S_LONG.1.def",
            &format!("array {name}\n- int32 x\n"),
            def_parser::Mode::Compatible,
        )
        .expect("compiles");
        let items: Vec<serde_json::Value> = (0..n).map(|i| serde_json::json!({ "x": i })).collect();
        let value = serde_json::json!({ name.clone(): items });
        let used = counting::measure(|| {
            def.encode(&value, 1, Default::default(), Default::default())
                .expect("encodes");
        });
        let input = name.len() + 64 * n;
        eprintln!(
            "dynamic encode, long array name: n = {n}: {} bytes allocated",
            used.total
        );
        assert!(
            used.total <= 4 * input,
            "n = {n}: encoding allocated {} bytes for a {input}-byte input",
            used.total
        );
    }
}

/// A key of each type that had no value hash, number `i`.
fn keys() -> Vec<Key> {
    use godot::*;
    let keys: Vec<Key> = vec![
        ("Color", true, |i| {
            Variant::Color(Color::from_array([i as f32, 0.5, 0.0, 1.0]))
        }),
        ("NodePath", true, |i| {
            Variant::NodePath(Box::new(NodePath::parse(&format!("/root/n{i}:p"))))
        }),
        ("Vector2", true, |i| {
            Variant::Vector2(Vector2::from_array([i as f64, -0.0]))
        }),
        ("Rect2", true, |i| {
            Variant::Rect2(Box::new(Rect2::from_array([i as f64, 0.0, 1.0, 1.0])))
        }),
        ("Plane", true, |i| {
            Variant::Plane(Box::new(Plane::from_array([0.0, 1.0, 0.0, i as f64])))
        }),
        ("Quaternion", true, |i| {
            Variant::Quaternion(Box::new(Quaternion::from_array([0.0, 0.0, i as f64, 1.0])))
        }),
        ("AABB", true, |i| {
            Variant::Aabb(Box::new(Aabb::from_array([
                i as f64, 0.0, 0.0, 1.0, 1.0, 1.0,
            ])))
        }),
        ("Transform2D", true, |i| {
            let mut a = [0.0; 6];
            a[4] = i as f64;
            Variant::Transform2D(Box::new(Transform2D(a)))
        }),
        ("Basis", true, |i| {
            let mut a = [0.0; 9];
            a[8] = i as f64;
            Variant::Basis(Box::new(Basis(a)))
        }),
        ("Transform3D", true, |i| {
            let mut a = [0.0; 12];
            a[11] = i as f64;
            Variant::Transform3D(Box::new(Transform3D(a)))
        }),
        ("Vector4", false, |i| {
            Variant::Vector4(Box::new(Vector4::from_array([i as f64, 0.0, 0.0, 0.0])))
        }),
        ("Projection", false, |i| {
            let mut a = [0.0; 16];
            a[15] = i as f64;
            Variant::Projection(Box::new(Projection(a)))
        }),
        ("Signal", false, |i| {
            Variant::Signal(Box::new(Signal {
                name: format!("s{i}"),
                object: 1,
            }))
        }),
        ("PackedFloat32Array", true, |i| {
            Variant::PackedFloat32Array(vec![0.0, i as f32])
        }),
        ("PackedFloat64Array", false, |i| {
            Variant::PackedFloat64Array(vec![i as f64])
        }),
        ("PackedVector2Array", true, |i| {
            Variant::PackedVector2Array(vec![Vector2::from_array([i as f64, 0.0])])
        }),
        ("PackedVector3Array", true, |i| {
            Variant::PackedVector3Array(vec![Vector3::from_array([i as f64, 0.0, 0.0])])
        }),
        ("PackedVector4Array", false, |i| {
            Variant::PackedVector4Array(vec![Vector4::from_array([i as f64, 0.0, 0.0, 0.0])])
        }),
        ("PackedColorArray", true, |i| {
            Variant::PackedColorArray(vec![Color::from_array([0.0, i as f32, 0.0, 0.0])])
        }),
        ("Dictionary", false, |i| {
            Variant::dictionary(
                (0..12)
                    .map(|k| (Variant::Int(k), Variant::Int((i * 12) as i64 + k)))
                    .collect(),
            )
        }),
        ("Array", true, |i| {
            Variant::array(vec![Variant::Int(i as i64), Variant::Nil])
        }),
        ("String", true, |i| Variant::string(format!("k{i}"))),
    ];
    keys
}

#[test]
fn godot_key_hash_spreads_every_key_type() {
    // The cause of the quadratic decoding, checked directly: 10 000 distinct keys of each type
    // must give (nearly) 10 000 distinct hashes. The old hash gave 1 for Color, NodePath, the
    // math types and packed float arrays.
    use def_runtime::__private::godot_key_hash;
    let _s = counting::serial();
    for (name, in_g3, key) in keys() {
        for version in [Version::Godot3, Version::GODOT_4_4] {
            if version == Version::Godot3 && !in_g3 {
                continue;
            }
            let hashes: std::collections::HashSet<u64> = (0..10_000)
                .map(|i| godot_key_hash(&key(i), version))
                .collect();
            assert!(
                hashes.len() >= 9_990,
                "{version} {name}: {} distinct hashes for 10 000 keys",
                hashes.len()
            );
        }
    }
}

#[test]
fn godot_dictionaries_decode_in_linear_time() {
    let _s = counting::serial();
    // Inputs that were once quadratic (160 000 Color keys took minutes, 40 000 NodePath keys 12.5 s), and
    // Dictionary keys, which compare entry by entry.
    for (name, in_g3, key) in keys() {
        if !matches!(name, "Color" | "NodePath" | "Dictionary") {
            continue;
        }
        let mut versions = vec![Version::GODOT_4_4];
        if in_g3 {
            versions.push(Version::Godot3);
        }
        for version in versions {
            let encode =
                |v: Variant| godot::encode(&v, EncodeOptions::new(version)).expect("encodes");
            let decode = |bytes: &Vec<u8>| {
                godot::decode(bytes, DecodeOptions::new(version))
                    .expect("decodes")
                    .0
            };
            // Baseline: the same keys in an Array (no duplicate-key check).
            scaling::assert_linear_like(
                &format!("{version} Dictionary of {name} keys"),
                600,
                |n| {
                    encode(Variant::dictionary(
                        (0..n).map(|i| (key(i), Variant::Nil)).collect(),
                    ))
                },
                |bytes| {
                    let Variant::Dictionary(d) = decode(bytes) else {
                        panic!("a dictionary")
                    };
                    assert!(d.entries.len() >= 600, "distinct keys stay apart");
                },
                |n| {
                    encode(Variant::array(
                        (0..n).flat_map(|i| [key(i), Variant::Nil]).collect(),
                    ))
                },
                |bytes| {
                    decode(bytes);
                },
            );
        }
    }
}

#[test]
fn godot_keys_equal_as_the_engine_says_collapse_through_the_hash() {
    // Past 16 entries, duplicates are found by hash: 0.0 and -0.0 (and NaN and NaN, except in a
    // Godot 3 PoolRealArray) must hash alike to collapse as they did by scanning.
    use godot::*;
    let _s = counting::serial();
    let nan2 = f32::from_bits(0x7fc0_0001);
    for version in [Version::Godot3, Version::GODOT_4_4] {
        let mut entries: Vec<(Variant, Variant)> =
            (0..20).map(|i| (Variant::Int(i), Variant::Nil)).collect();
        let pairs = [
            (
                Variant::Color(Color::from_array([0.0, 1.0, f32::NAN, 1.0])),
                Variant::Color(Color::from_array([-0.0, 1.0, nan2, 1.0])),
            ),
            (
                Variant::Vector2(Vector2::from_array([0.0, f64::NAN])),
                Variant::Vector2(Vector2::from_array([-0.0, -f64::NAN])),
            ),
            (
                Variant::Basis(Box::new(Basis([0.0; 9]))),
                Variant::Basis(Box::new(Basis([-0.0; 9]))),
            ),
            (
                Variant::PackedColorArray(vec![Color::from_array([0.0; 4])]),
                Variant::PackedColorArray(vec![Color::from_array([-0.0; 4])]),
            ),
            (
                Variant::NodePath(Box::new(NodePath::parse("/a/b:c"))),
                Variant::NodePath(Box::new(NodePath::parse("/a/b:c"))),
            ),
            (
                Variant::PackedFloat32Array(vec![0.0]),
                Variant::PackedFloat32Array(vec![-0.0]),
            ),
        ];
        for (i, (a, b)) in pairs.iter().enumerate() {
            assert!(a.godot_key_eq(b, version), "{version} pair {i} is one key");
            entries.push((a.clone(), Variant::Int(1)));
            entries.push((b.clone(), Variant::Int(2)));
        }
        // NaN in a Godot 3 PoolRealArray is never equal to itself: two keys there.
        let nan_pool = Variant::PackedFloat32Array(vec![f32::NAN]);
        entries.push((nan_pool.clone(), Variant::Int(3)));
        entries.push((nan_pool, Variant::Int(4)));
        let bytes = godot::encode(&Variant::dictionary(entries), EncodeOptions::new(version))
            .expect("encodes");
        let (v, _) = godot::decode(&bytes, DecodeOptions::new(version)).expect("decodes");
        let Variant::Dictionary(d) = v else {
            panic!("a dictionary")
        };
        let pool_nans = if version == Version::Godot3 { 2 } else { 1 };
        assert_eq!(d.entries.len(), 20 + pairs.len() + pool_nans, "{version}");
        for (k, v) in &d.entries[20..20 + pairs.len()] {
            assert_eq!(
                v,
                &Variant::Int(2),
                "{version}: {k:?} keeps the later value"
            );
        }
    }
}

#[test]
fn nbt_and_snbt_compounds() {
    let _s = counting::serial();
    let read = |b: &Vec<u8>| {
        def_runtime::nbt::NbtFile::decode(b, FileOptions::default()).expect("reads");
    };
    // Baseline: a list of as many strings (one allocation each, as a compound's names).
    scaling::assert_linear_like(
        "NBT compound",
        10_000,
        |n| {
            // Java, named root: compound "" of n ints.
            let mut b = vec![10, 0, 0];
            for i in 0..n {
                let name = format!("k{i}");
                b.push(3);
                b.extend_from_slice(&(name.len() as u16).to_be_bytes());
                b.extend_from_slice(name.as_bytes());
                b.extend_from_slice(&(i as i32).to_be_bytes());
            }
            b.push(0);
            b
        },
        read,
        |n| {
            // compound "" { list "l" of n strings }
            let mut b = vec![10, 0, 0, 9, 0, 1, b'l', 8];
            b.extend_from_slice(&(n as i32).to_be_bytes());
            for i in 0..n {
                let name = format!("k{i}");
                b.extend_from_slice(&(name.len() as u16).to_be_bytes());
                b.extend_from_slice(name.as_bytes());
            }
            b.push(0);
            b
        },
        read,
    );
    let parse = |t: &String| {
        snbt::parse(t).expect("parses");
    };
    scaling::assert_linear_like(
        "SNBT compound",
        5_000,
        |n| {
            let body: Vec<String> = (0..n).map(|i| format!("k{i}:{i}")).collect();
            format!("{{{}}}", body.join(","))
        },
        parse,
        |n| {
            let body: Vec<String> = (0..n).map(|i| format!("\"k{i}\"")).collect();
            format!("[{}]", body.join(","))
        },
        parse,
    );
    // The 1.21.5 dialect: a list of mixed types (every element wrapped in a compound) and
    // numbers with separators, against a plain list of as many strings.
    let modern = |t: &String| {
        snbt::parse_in(t, snbt::Dialect::Modern).expect("parses");
    };
    scaling::assert_linear_like(
        "SNBT 1.21.5 mixed list",
        5_000,
        |n| {
            let body: Vec<String> = (0..n)
                .map(|i| {
                    if i % 2 == 0 {
                        format!("0x{:x}_{:x}ub", i % 16, i % 16)
                    } else {
                        format!("\"k{i}\"")
                    }
                })
                .collect();
            format!("[{}]", body.join(","))
        },
        modern,
        |n| {
            let body: Vec<String> = (0..n).map(|i| format!("\"k{i}\"")).collect();
            format!("[{}]", body.join(","))
        },
        modern,
    );
}

/// Inserting keys into a compound of a parsed chunk (its root, as a world tool adding data
/// would), then setting each again: linear in the number of inserts, like pushing as many
/// entries without looking for their keys.
#[test]
fn inserts_into_a_parsed_chunk_compound() {
    let _s = counting::serial();
    let Some(path) = support::shared("nbt-samples/fastanvil__21w44a-test1.nbt") else {
        return;
    };
    let bytes = std::fs::read(path).unwrap();
    // The root as the reader builds it (its entries in the read's blocks), read anew for every
    // run: the first insert of a new key moves its entries into a vector of its own.
    let parsed = || -> Compound {
        let mut file = def_runtime::nbt::NbtFile::decode(&bytes, FileOptions::default()).unwrap();
        match file.roots.remove(0).tag {
            Tag::Compound(c) => c,
            _ => panic!("a compound root"),
        }
    };
    let base = parsed().len();
    let make = |n: usize| (0..n).map(|i| format!("added{i}")).collect::<Vec<String>>();
    scaling::assert_linear_like(
        "NBT compound inserts",
        2_000,
        make,
        |keys: &Vec<String>| {
            let mut c = parsed();
            for (i, k) in keys.iter().enumerate() {
                c.insert(k.as_str(), i as i32);
            }
            for k in keys {
                c.insert(k.as_str(), -1);
            }
            assert_eq!(c.len(), base + keys.len());
        },
        make,
        |keys: &Vec<String>| {
            let mut c = parsed();
            for (i, k) in keys.iter().enumerate() {
                c.entries_mut().push((k.as_str().into(), (i as i32).into()));
            }
            let base = c.len() - keys.len();
            for e in &mut c.entries_mut()[base..] {
                e.1 = Tag::Int(-1);
            }
        },
    );
}

/// A region file whose 1024 slots all point at one chunk in sector 2.
fn region_sharing(id: u8, body: &[u8]) -> Vec<u8> {
    let sectors = (body.len() + 5).div_ceil(4096);
    let mut out = vec![0u8; 8192];
    for slot in 0..1024 {
        out[4 * slot..4 * slot + 4].copy_from_slice(&((2u32 << 8) | sectors as u32).to_be_bytes());
    }
    out.extend_from_slice(&((body.len() + 1) as u32).to_be_bytes());
    out.push(id);
    out.extend_from_slice(body);
    out.resize((2 + sectors) * 4096, 0);
    out
}

/// A region file whose 1024 slots each hold a copy of one chunk, in sectors of their own.
fn region_copies(id: u8, body: &[u8]) -> Vec<u8> {
    let sectors = (body.len() + 5).div_ceil(4096);
    let mut out = vec![0u8; 8192];
    for slot in 0..1024 {
        let at = out.len();
        let loc = (((at / 4096) as u32) << 8) | sectors as u32;
        out[4 * slot..4 * slot + 4].copy_from_slice(&loc.to_be_bytes());
        out.extend_from_slice(&((body.len() + 1) as u32).to_be_bytes());
        out.push(id);
        out.extend_from_slice(body);
        out.resize(at + sectors * 4096, 0);
    }
    out
}

#[test]
fn region_slots_sharing_an_lz4_chunk_that_claims_64_mib() {
    let _s = counting::serial();
    // One LZ4 block: 40 bytes said to hold 64 MiB, then garbage.
    let mut body = b"LZ4Block".to_vec();
    body.push(0x20);
    body.extend_from_slice(&40u32.to_le_bytes());
    body.extend_from_slice(&(64u32 << 20).to_le_bytes());
    body.extend_from_slice(&0u32.to_le_bytes());
    body.extend_from_slice(&[0x1f; 40]);
    for (what, file) in [
        ("shared", region_sharing(4, &body)),
        ("copies", region_copies(4, &body)),
    ] {
        let mut region = None;
        let used = counting::measure(|| region = Some(RegionFile::decode(&file).expect("parses")));
        let region = region.expect("parsed");
        assert_eq!(region.chunks.len(), 1024);
        for ch in &region.chunks {
            let ChunkStatus::Invalid(e) = &ch.status else {
                panic!("{:?}", ch.status)
            };
            let m = e.to_string();
            // Shared: the first slot reads the block, the others are refused as its sectors.
            let expect = if what == "copies" || ch.index == 0 {
                "LZ4"
            } else {
                "overlap"
            };
            assert!(m.contains(expect), "{what}: {m}");
        }
        // Before: 64 MiB zero-filled per slot, 64 GiB in all.
        assert!(
            used.total < 8 << 20,
            "{what}: allocated {} bytes",
            used.total
        );
    }
}

#[test]
fn region_slots_holding_copies_of_a_zlib_bomb_stop_at_the_file_budget() {
    use std::io::Write;
    let _s = counting::serial();
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    z.write_all(&vec![0u8; 4 << 20]).expect("compresses");
    let bomb = z.finish().expect("compresses");
    assert!(bomb.len() < 8192);
    let file = region_copies(2, &bomb);
    let budget = 16 << 20;
    let mut region = None;
    let used = counting::measure(|| {
        region = Some(
            RegionFile::decode_with_budget(&file, FileOptions::default(), budget).expect("parses"),
        )
    });
    let region = region.expect("parsed");
    let spent = region
        .chunks
        .iter()
        .filter(|c| {
            matches!(&c.status, ChunkStatus::Invalid(e)
                if matches!(e.kind(), NbtErrorKind::RegionBudget { budget: 16_777_216, .. }))
        })
        .count();
    // Four slots decompress their 4 MiB of zeros (not NBT: invalid) and spend the budget.
    assert!(spent >= 1019, "{spent} slots refused by the budget");
    // Before: 1024 × 4 MiB decompressed. Now about the budget, with the output buffers' growth.
    assert!(used.total < 4 * budget, "allocated {} bytes", used.total);
}

#[test]
fn dumping_a_large_array_streams_its_text() {
    use std::io::Write;
    let _s = counting::serial();
    // gzip of a named compound holding one byte array of 4 MiB (a small file: zeros).
    let n = 4 << 20;
    let mut nbt = vec![10, 0, 0, 7, 0, 1, b'a'];
    nbt.extend_from_slice(&(n as i32).to_be_bytes());
    nbt.resize(nbt.len() + n, 0);
    nbt.push(0);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gz.write_all(&nbt).expect("compresses");
    let file = gz.finish().expect("compresses");
    let mut text_len = 0;
    let used = counting::measure(|| {
        let f = def_runtime::nbt::NbtFile::decode(&file, FileOptions::default()).expect("reads");
        let mut sink = Counter(0);
        def_runtime::nbt::dump::write_file_json(&f, false, &mut sink).expect("writes");
        text_len = sink.0;
    });
    assert!(text_len > 2 * n, "{text_len} bytes of text");
    // The inflated bytes (their buffer grows by doubling) and the tree's copy; not the text.
    assert!(
        used.peak < 4 * n,
        "peak {} bytes for {n} bytes of NBT",
        used.peak
    );
    assert_eq!(
        def_runtime::nbt::dump::file_to_json(
            &def_runtime::nbt::NbtFile::decode(&file, FileOptions::default()).expect("reads"),
            false
        )
        .len(),
        text_len,
        "the streamed text is the text"
    );
}

/// A writer that only counts.
struct Counter(usize);

impl std::io::Write for Counter {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0 += b.len();
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn godot_typed_json_streams_within_a_small_multiple() {
    use def_runtime::godot::json::{Typed, to_json};
    let _s = counting::serial();
    // 200 000 Nils in an Array: 800 kB of wire.
    let v = Variant::array(vec![Variant::Nil; 200_000]);
    let wire = godot::encode(&v, EncodeOptions::new(Version::GODOT_4_4)).expect("encodes");
    let (v, _) = godot::decode(&wire, DecodeOptions::new(Version::GODOT_4_4)).expect("decodes");
    let tree = counting::measure(|| drop(to_json(&v)));
    let mut sink = Counter(0);
    let streamed = counting::measure(|| {
        serde_json::to_writer(&mut sink, &Typed(&v)).expect("writes");
    });
    eprintln!(
        "typed JSON of {} wire bytes: tree {} bytes at peak, stream {} bytes at peak, {} bytes of text",
        wire.len(),
        tree.peak,
        streamed.peak,
        sink.0
    );
    assert!(tree.peak > 50 * wire.len(), "the tree is the large one");
    assert!(
        streamed.peak < 1 << 16,
        "streaming holds one value at a time"
    );
    assert!(sink.0 < 8 * wire.len(), "{} bytes of text", sink.0);
}

#[test]
fn godot_typed_json_stream_is_the_tree_text() {
    use def_runtime::godot::json::{Typed, to_json};
    use godot::*;
    let _s = counting::serial();
    let mut d = Dictionary::new(vec![
        (
            Variant::string("k"),
            Variant::PackedColorArray(vec![Color::from_array([0.5, -0.0, f32::NAN, 1.0])]),
        ),
        (
            Variant::Int(3),
            Variant::PackedFloat64Array(vec![0.1, f64::INFINITY]),
        ),
        (
            Variant::Nil,
            Variant::PackedVector3Array(vec![Vector3::from_array([1.0, 2.0, 3.0])]),
        ),
        (
            Variant::Bool(true),
            Variant::PackedStringArray(vec!["a".into(), "\"b".into()]),
        ),
        (
            Variant::Float(-0.0),
            Variant::PackedInt64Array(vec![i64::MIN, 7]),
        ),
        (
            Variant::string("o"),
            Variant::Object(Object::Full(Box::new(FullObject {
                class: "Node".into(),
                properties: vec![
                    ("script".into(), Variant::Nil),
                    ("x".into(), Variant::Int(1)),
                ],
            }))),
        ),
    ]);
    d.key_type = ContainerType::Untyped;
    d.value_type = ContainerType::Untyped;
    let typed_array = Array {
        element_type: ContainerType::Builtin(VariantType::Int),
        items: vec![Variant::Int(1), Variant::Int(2)],
    };
    let mut typed_dict = Dictionary::new(vec![(Variant::string("a"), Variant::Int(1))]);
    typed_dict.key_type = ContainerType::Builtin(VariantType::String);
    typed_dict.value_type = ContainerType::Class("Node".into());
    let v = Variant::array(vec![
        Variant::Dictionary(Box::new(d)),
        Variant::Array(Box::new(typed_array)),
        Variant::Dictionary(Box::new(typed_dict)),
        Variant::PackedByteArray(vec![0, 255]),
        Variant::PackedInt32Array(vec![-1]),
        Variant::PackedFloat32Array(vec![1.5]),
        Variant::PackedVector2Array(vec![]),
        Variant::PackedVector4Array(vec![Vector4::from_array([0.0; 4])]),
        Variant::NodePath(Box::new(NodePath::parse("/a:b"))),
    ]);
    let streamed = serde_json::to_string(&Typed(&v)).expect("writes");
    assert_eq!(streamed, to_json(&v).to_string());
    let pretty = serde_json::to_string_pretty(&Typed(&v)).expect("writes");
    assert_eq!(
        pretty,
        serde_json::to_string_pretty(&to_json(&v)).expect("writes")
    );
}
