//! Hostile Godot Variant input beyond `godot/checks.rs` (string, packed-array and container
//! checks), `godot/props.rs` (100 000 nested arrays, dictionaries, typed arrays and objects stop
//! at depth 1024 on a small stack) and `alloc/godot.rs`: container counts of 2^31 in a few bytes,
//! a dictionary key nested 100 000 deep, and the same cases in both versions with and without
//! objects. Figures in docs/reliability.md.
#![cfg(feature = "godot")]

use def_runtime::godot::{DecodeErrorKind, DecodeOptions, Version, decode};

fn words(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn all_modes() -> impl Iterator<Item = DecodeOptions> {
    [Version::Godot3, Version::GODOT_4_4]
        .into_iter()
        .flat_map(|v| [false, true].map(|a| DecodeOptions::new(v).allow_objects(a)))
}

fn ids(v: Version) -> (u32, u32, u32) {
    // (array, dictionary, packed byte array)
    match v {
        Version::Godot3 => (19, 18, 20),
        Version::Godot4 { .. } => (28, 27, 29),
    }
}

#[test]
fn counts_of_2_pow_31_in_a_few_bytes() {
    for o in all_modes() {
        let (array, dict, packed) = ids(o.version);
        // Array and Dictionary of 2^31 - 1 entries (bit 31 is the shared flag), three nils behind.
        for head in [array, dict] {
            let b = words(&[head, 0x7fff_ffff, 0, 0, 0]);
            let e = decode(&b, o).unwrap_err();
            assert!(
                matches!(
                    e.kind(),
                    DecodeErrorKind::MissingHeader { remaining: 0 }
                        | DecodeErrorKind::Truncated { .. }
                ),
                "{:?} {head}: {e}",
                o.version
            );
        }
        // Packed byte array of 2^31 - 1 bytes: refused on the count, before allocating.
        let b = words(&[packed, 0x7fff_ffff, 0]);
        let e = decode(&b, o).unwrap_err();
        assert!(
            matches!(
                e.kind(),
                DecodeErrorKind::PackedPastEnd {
                    count: 0x7fff_ffff,
                    remaining: 4,
                    ..
                }
            ),
            "{:?}: {e}",
            o.version
        );
        // String of 2^31 - 1 bytes.
        let b = words(&[4, 0x7fff_ffff, 0x6161_6161]);
        let e = decode(&b, o).unwrap_err();
        assert!(
            matches!(
                e.kind(),
                DecodeErrorKind::StringPastEnd {
                    len: 0x7fff_ffff,
                    remaining: 4,
                    ..
                }
            ),
            "{:?}: {e}",
            o.version
        );
    }
}

#[test]
fn dictionary_key_nested_100_000_deep() {
    // { [[[[…]]]]: nil }: the key alone is 100 000 arrays deep.
    std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(|| {
            for o in all_modes() {
                let (array, dict, _) = ids(o.version);
                let mut b = words(&[dict, 1]);
                for _ in 0..100_000 {
                    b.extend(words(&[array, 1]));
                }
                b.extend(words(&[0, 0]));
                let e = decode(&b, o).unwrap_err();
                assert!(
                    matches!(
                        e.kind(),
                        DecodeErrorKind::TooDeep {
                            depth: 1025,
                            limit: 1024
                        }
                    ),
                    "{:?}: {e}",
                    o.version
                );
            }
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn invalid_utf8_in_strings_names_and_keys() {
    for o in all_modes() {
        let (_, dict, _) = ids(o.version);
        // String "\xff", and a dictionary whose key is that string.
        let s = words(&[4, 1, 0xff]);
        let e = decode(&s, o).unwrap_err();
        assert!(
            matches!(e.kind(), DecodeErrorKind::InvalidUtf8 { at: 0 }),
            "{e}"
        );
        let mut d = words(&[dict, 1]);
        d.extend(&s);
        d.extend(words(&[0]));
        let e = decode(&d, o).unwrap_err();
        assert!(
            matches!(e.kind(), DecodeErrorKind::InvalidUtf8 { at: 0 }),
            "{e}"
        );
        assert_eq!(e.offset(), 16, "{e}");
    }
}

#[test]
fn dictionary_keys_nested_300_deep_with_an_index_at_every_level_fit_a_small_stack() {
    // Each level: the deeper Dictionary as its first key, then 16 more keys, so that every
    // level builds its key-hash index and hashes the whole chain below (the hash recurses
    // through Dictionary entries). Two equal chains as keys also compare recursively.
    use def_runtime::godot::{DecodeOptions, EncodeOptions, Variant, Version, decode, encode};
    let mut v = Variant::Int(7);
    for _ in 0..300 {
        let mut e = vec![(v, Variant::Nil)];
        e.extend((0..16).map(|i| (Variant::Int(i), Variant::Nil)));
        v = Variant::dictionary(e);
    }
    let mut top = vec![(v.clone(), Variant::Int(1)), (v, Variant::Int(2))];
    top.extend((0..16).map(|i| (Variant::Int(100 + i), Variant::Nil)));
    let bytes = encode(
        &Variant::dictionary(top),
        EncodeOptions::new(Version::GODOT_4_4),
    )
    .expect("encodes");
    let got = std::thread::Builder::new()
        .stack_size(64 << 10)
        .spawn(move || {
            // The value goes back to the main thread to be dropped (dropping recurses).
            decode(&bytes, DecodeOptions::new(Version::GODOT_4_4))
                .expect("decodes")
                .0
        })
        .expect("thread")
        .join()
        .expect("no stack overflow");
    let Variant::Dictionary(d) = &got else {
        panic!("a dictionary")
    };
    // The two equal chains are one key, the later value kept.
    assert_eq!((d.entries.len(), &d.entries[0].1), (17, &Variant::Int(2)));
}
