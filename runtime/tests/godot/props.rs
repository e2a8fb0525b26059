//! Property tests: random values round-trip (both versions, single and double precision,
//! through bytes and through the typed JSON form), and malformed, truncated or random input
//! never panics. Plus the nesting limit on inputs of 100 000 nested containers.
#![cfg(feature = "godot")]

use def_runtime::godot::json::{from_json, to_json};
use def_runtime::godot::*;
use proptest::collection::vec;
use proptest::prelude::*;

/// Bit-exact f32 → f64, the way single-precision math values are held.
fn widen(f: f32) -> f64 {
    if f.is_nan() {
        let b = f.to_bits();
        f64::from_bits(
            (u64::from(b >> 31) << 63) | 0x7FF0_0000_0000_0000 | (u64::from(b & 0x7F_FFFF) << 29),
        )
    } else {
        f64::from(f)
    }
}

fn real(double: bool) -> BoxedStrategy<f64> {
    if double {
        any::<u64>().prop_map(f64::from_bits).boxed()
    } else {
        any::<u32>().prop_map(|b| widen(f32::from_bits(b))).boxed()
    }
}

fn reals<const N: usize>(double: bool) -> BoxedStrategy<[f64; N]> {
    vec(real(double), N)
        .prop_map(|v| std::array::from_fn(|i| v[i]))
        .boxed()
}

fn f32s() -> BoxedStrategy<f32> {
    any::<u32>().prop_map(f32::from_bits).boxed()
}

fn text() -> BoxedStrategy<String> {
    "[a-zA-Z0-9 _./:é✓日😀]{0,12}".boxed()
}

/// Strings of the version: Godot 3 also holds code points that are not Unicode scalar values
/// (surrogates, up to 0x7FFF_FFFF; never NUL, which ends a string on the wire).
fn gstring(version: Version) -> BoxedStrategy<GString> {
    let unicode = text().prop_map(GString::from).boxed();
    if version.is_godot4() {
        return unicode;
    }
    let point = prop_oneof![
        0x20u32..0x80,
        0xD800u32..0xE000,
        0x80u32..0x11_0000,
        0x11_0000u32..=0x7FFF_FFFF,
    ];
    prop_oneof![
        unicode,
        vec(point, 0..6).prop_map(|p| GString::from_code_points(p).unwrap())
    ]
    .boxed()
}

fn color() -> BoxedStrategy<Color> {
    [f32s(), f32s(), f32s(), f32s()]
        .prop_map(Color::from_array)
        .boxed()
}

fn node_path() -> BoxedStrategy<NodePath> {
    (
        vec("[a-z]{0,5}", 0..4),
        vec("[a-z]{0,5}", 0..3),
        any::<bool>(),
    )
        .prop_map(|(names, subnames, absolute)| {
            let absolute = absolute && !(names.is_empty() && subnames.is_empty());
            NodePath {
                names: names.into_iter().map(GString::from).collect(),
                subnames: subnames.into_iter().map(GString::from).collect(),
                absolute,
            }
        })
        .boxed()
}

fn leaf(version: Version, double: bool) -> BoxedStrategy<Variant> {
    let d = double;
    let mut s: Vec<BoxedStrategy<Variant>> = vec![
        Just(Variant::Nil).boxed(),
        any::<bool>().prop_map(Variant::Bool).boxed(),
        any::<i64>().prop_map(Variant::Int).boxed(),
        (-5i64..5).prop_map(Variant::Int).boxed(),
        any::<u64>()
            .prop_map(|b| Variant::Float(f64::from_bits(b)))
            .boxed(),
        any::<f32>().prop_map(|f| Variant::Float(f.into())).boxed(),
        gstring(version).prop_map(Variant::String).boxed(),
        reals::<2>(d)
            .prop_map(|a| Variant::Vector2(Vector2::from_array(a)))
            .boxed(),
        reals::<4>(d)
            .prop_map(|a| Variant::Rect2(Box::new(Rect2::from_array(a))))
            .boxed(),
        reals::<3>(d)
            .prop_map(|a| Variant::Vector3(Vector3::from_array(a)))
            .boxed(),
        reals::<6>(d)
            .prop_map(|a| Variant::Transform2D(Box::new(Transform2D(a))))
            .boxed(),
        reals::<4>(d)
            .prop_map(|a| Variant::Plane(Box::new(Plane::from_array(a))))
            .boxed(),
        reals::<4>(d)
            .prop_map(|a| Variant::Quaternion(Box::new(Quaternion::from_array(a))))
            .boxed(),
        reals::<6>(d)
            .prop_map(|a| Variant::Aabb(Box::new(Aabb::from_array(a))))
            .boxed(),
        reals::<9>(d)
            .prop_map(|a| Variant::Basis(Box::new(Basis(a))))
            .boxed(),
        reals::<12>(d)
            .prop_map(|a| Variant::Transform3D(Box::new(Transform3D(a))))
            .boxed(),
        color().prop_map(Variant::Color).boxed(),
        node_path()
            .prop_map(|p| Variant::NodePath(Box::new(p)))
            .boxed(),
        (1u64..)
            .prop_map(|id| Variant::Object(Object::Id(id)))
            .boxed(),
        vec(any::<u8>(), 0..20)
            .prop_map(Variant::PackedByteArray)
            .boxed(),
        vec(any::<i32>(), 0..6)
            .prop_map(Variant::PackedInt32Array)
            .boxed(),
        vec(f32s(), 0..6)
            .prop_map(Variant::PackedFloat32Array)
            .boxed(),
        vec(gstring(version), 0..5)
            .prop_map(Variant::PackedStringArray)
            .boxed(),
        vec(reals::<2>(d), 0..4)
            .prop_map(|v| {
                Variant::PackedVector2Array(v.into_iter().map(Vector2::from_array).collect())
            })
            .boxed(),
        vec(reals::<3>(d), 0..4)
            .prop_map(|v| {
                Variant::PackedVector3Array(v.into_iter().map(Vector3::from_array).collect())
            })
            .boxed(),
        vec(color(), 0..4)
            .prop_map(Variant::PackedColorArray)
            .boxed(),
    ];
    match version {
        Version::Godot3 => s.push(Just(Variant::Rid(0)).boxed()),
        Version::Godot4 { .. } => s.extend([
            any::<u64>().prop_map(Variant::Rid).boxed(),
            any::<[i32; 2]>()
                .prop_map(|[x, y]| Variant::Vector2i(Vector2i { x, y }))
                .boxed(),
            any::<[i32; 3]>()
                .prop_map(|[x, y, z]| Variant::Vector3i(Vector3i { x, y, z }))
                .boxed(),
            any::<[i32; 4]>()
                .prop_map(|[x, y, z, w]| Variant::Vector4i(Vector4i { x, y, z, w }))
                .boxed(),
            any::<[i32; 4]>()
                .prop_map(|[x, y, w, h]| Variant::Rect2i(Rect2i { x, y, w, h }))
                .boxed(),
            reals::<4>(d)
                .prop_map(|a| Variant::Vector4(Box::new(Vector4::from_array(a))))
                .boxed(),
            reals::<16>(d)
                .prop_map(|a| Variant::Projection(Box::new(Projection(a))))
                .boxed(),
            gstring(version).prop_map(Variant::StringName).boxed(),
            Just(Variant::Callable).boxed(),
            (text(), any::<u64>())
                .prop_map(|(name, object)| Variant::Signal(Box::new(Signal { name, object })))
                .boxed(),
            vec(any::<i64>(), 0..5)
                .prop_map(Variant::PackedInt64Array)
                .boxed(),
            vec(any::<u64>().prop_map(f64::from_bits), 0..5)
                .prop_map(Variant::PackedFloat64Array)
                .boxed(),
            vec(reals::<4>(d), 0..4)
                .prop_map(|v| {
                    Variant::PackedVector4Array(v.into_iter().map(Vector4::from_array).collect())
                })
                .boxed(),
        ]),
    }
    proptest::strategy::Union::new(s).boxed()
}

fn container_type(version: Version) -> BoxedStrategy<ContainerType> {
    match version {
        Version::Godot3 => Just(ContainerType::Untyped).boxed(),
        Version::Godot4 { .. } => prop_oneof![
            3 => Just(ContainerType::Untyped),
            1 => proptest::sample::select(VariantType::ALL).prop_map(ContainerType::Builtin),
            1 => "[A-Z][a-z]{0,6}".prop_map(ContainerType::Class),
            1 => "[a-z]{1,6}".prop_map(|s| ContainerType::Script(format!("res://{s}.gd"))),
        ]
        .boxed(),
    }
}

fn variant(version: Version, double: bool) -> BoxedStrategy<Variant> {
    leaf(version, double)
        .prop_recursive(4, 48, 6, move |inner| {
            prop_oneof![
                (container_type(version), vec(inner.clone(), 0..6)).prop_map(
                    |(element_type, items)| Variant::Array(Box::new(Array {
                        element_type,
                        items
                    }))
                ),
                (
                    container_type(version),
                    container_type(version),
                    vec(inner.clone(), 0..6)
                )
                    .prop_map(|(key_type, value_type, values)| {
                        // Distinct keys, so that decoding does not collapse duplicates.
                        let entries = values
                            .into_iter()
                            .enumerate()
                            .map(|(i, v)| {
                                let k = if i % 2 == 0 {
                                    Variant::Int(i as i64)
                                } else {
                                    Variant::string(format!("k{i}"))
                                };
                                (k, v)
                            })
                            .collect();
                        Variant::Dictionary(Box::new(Dictionary {
                            key_type,
                            value_type,
                            entries,
                        }))
                    }),
                (
                    "[A-Z][a-zA-Z]{0,8}",
                    vec(
                        (
                            "[a-z_]{1,8}".prop_filter("not script", |n| n != "script"),
                            inner
                        ),
                        0..4
                    )
                )
                    .prop_map(|(class, properties)| Variant::Object(Object::Full(
                        Box::new(FullObject { class, properties })
                    ))),
            ]
        })
        .boxed()
}

fn round_trip(v: &Variant, version: Version, double: bool) -> Result<(), TestCaseError> {
    let enc = EncodeOptions::new(version)
        .full_objects(true)
        .double_precision(double);
    let bytes = encode(v, enc).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(bytes.len() % 4, 0, "engine encodings are 4-byte multiples");
    let (back, used) = decode(&bytes, DecodeOptions::new(version).allow_objects(true))
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(used, bytes.len());
    prop_assert_eq!(&back, v);
    prop_assert_eq!(encode(&back, enc).unwrap(), bytes);
    prop_assert_eq!(
        &from_json(&to_json(v)).map_err(|e| TestCaseError::fail(e.to_string()))?,
        v
    );
    Ok(())
}

/// `v` as an engine of `version` holds it after reading what we wrote: container types the
/// version has no header field for are gone (SPEC §9.3).
fn as_read_by(v: &Variant, version: Version) -> Variant {
    match v {
        Variant::Array(a) => Variant::Array(Box::new(Array {
            element_type: if version.typed_arrays() {
                a.element_type.clone()
            } else {
                ContainerType::Untyped
            },
            items: a.items.iter().map(|x| as_read_by(x, version)).collect(),
        })),
        Variant::Dictionary(d) => {
            let typed = version.typed_dictionaries();
            let keep = |t: &ContainerType| {
                if typed {
                    t.clone()
                } else {
                    ContainerType::Untyped
                }
            };
            Variant::Dictionary(Box::new(Dictionary {
                key_type: keep(&d.key_type),
                value_type: keep(&d.value_type),
                entries: d
                    .entries
                    .iter()
                    .map(|(k, x)| (as_read_by(k, version), as_read_by(x, version)))
                    .collect(),
            }))
        }
        Variant::Object(Object::Full(o)) => Variant::Object(Object::Full(Box::new(FullObject {
            class: o.class.clone(),
            properties: o
                .properties
                .iter()
                .map(|(n, x)| (n.clone(), as_read_by(x, version)))
                .collect(),
        }))),
        other => other.clone(),
    }
}

/// Whether `v` holds `PackedVector4Array` as a value, or as a container type that `version`
/// writes (it drops the others).
fn has_vector4_array(v: &Variant, version: Version) -> bool {
    let pv4 = |t: &ContainerType| *t == ContainerType::Builtin(VariantType::PackedVector4Array);
    let dict_types = version.typed_dictionaries();
    match v {
        Variant::PackedVector4Array(_) => true,
        Variant::Array(a) => {
            (version.typed_arrays() && pv4(&a.element_type))
                || a.items.iter().any(|x| has_vector4_array(x, version))
        }
        Variant::Dictionary(d) => {
            (dict_types && (pv4(&d.key_type) || pv4(&d.value_type)))
                || d.entries
                    .iter()
                    .any(|(k, x)| has_vector4_array(k, version) || has_vector4_array(x, version))
        }
        Variant::Object(Object::Full(o)) => o
            .properties
            .iter()
            .any(|(_, x)| has_vector4_array(x, version)),
        _ => false,
    }
}

fn no_panic(bytes: &[u8]) {
    for version in [Version::Godot3, Version::GODOT_4_4] {
        for allow in [false, true] {
            if let Ok((v, used)) = decode(bytes, DecodeOptions::new(version).allow_objects(allow)) {
                assert!(used <= bytes.len());
                let _ = encode(&v, EncodeOptions::new(version).full_objects(true));
                let _ = to_json(&v);
            }
        }
    }
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(400)
}

proptest! {
    // 400 cases each unless PROPTEST_CASES says otherwise (e.g. a longer fuzzing run).
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn godot3_values_round_trip(v in variant(Version::Godot3, false)) {
        round_trip(&v, Version::Godot3, false)?;
    }

    #[test]
    fn godot4_values_round_trip(v in variant(Version::GODOT_4_4, false)) {
        round_trip(&v, Version::GODOT_4_4, false)?;
    }

    /// Any 4.4 value written for an older 4.x: refused if it holds `PackedVector4Array` before
    /// 4.3, else read back as that engine holds it, in the bytes 4.4 writes for that value.
    #[test]
    fn older_godot4_targets_read_what_is_written(v in variant(Version::GODOT_4_4, false), minor in 0u8..4) {
        let target = Version::Godot4 { minor };
        let enc = EncodeOptions::new(target).full_objects(true);
        let written = encode(&v, enc);
        if minor < 3 && has_vector4_array(&v, target) {
            prop_assert!(written.is_err());
            return Ok(());
        }
        let bytes = written.map_err(|e| TestCaseError::fail(e.to_string()))?;
        let expected = as_read_by(&v, target);
        let back = decode_exact(&bytes, DecodeOptions::new(target).allow_objects(true))
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&back, &expected);
        let newest = EncodeOptions::new(Version::GODOT_4_4).full_objects(true);
        prop_assert_eq!(encode(&expected, newest).unwrap(), bytes);
    }

    #[test]
    fn godot4_double_precision_round_trip(v in variant(Version::GODOT_4_4, true)) {
        round_trip(&v, Version::GODOT_4_4, true)?;
    }

    #[test]
    fn random_bytes_never_panic(bytes in vec(any::<u8>(), 0..300)) {
        no_panic(&bytes);
    }

    #[test]
    fn random_words_never_panic(words in vec(prop_oneof![0u32..40, any::<u32>(), Just(0x8000_0001u32), Just(0x7fff_ffff)], 0..60)) {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        no_panic(&bytes);
    }

    #[test]
    fn mutated_encodings_never_panic(v in variant(Version::GODOT_4_4, false), flips in vec((any::<usize>(), any::<u8>()), 1..6)) {
        for version in [Version::Godot3, Version::GODOT_4_4] {
            let Ok(mut bytes) = encode(&v, EncodeOptions::new(version).full_objects(true)) else { continue };
            for (at, x) in &flips {
                let n = bytes.len();
                bytes[at % n] ^= x | 1;
            }
            no_panic(&bytes);
        }
    }

    #[test]
    fn truncated_encodings_are_refused_or_shorter(v in variant(Version::GODOT_4_4, false)) {
        let bytes = encode(&v, EncodeOptions::new(Version::GODOT_4_4).full_objects(true)).unwrap();
        let opts = DecodeOptions::new(Version::GODOT_4_4).allow_objects(true);
        for cut in 0..bytes.len() {
            match decode(&bytes[..cut], opts) {
                Err(_) => {}
                // Only a byte array's missing padding at the very end may be absent.
                Ok((w, used)) => {
                    prop_assert!(used <= cut);
                    prop_assert_eq!(&w, &v);
                    prop_assert!(bytes.len() - cut < 4);
                }
            }
        }
    }

    #[test]
    fn frames_split_anywhere(values in vec(variant(Version::Godot3, false), 1..5), cuts in vec(any::<usize>(), 0..6)) {
        let enc = EncodeOptions::new(Version::Godot3).full_objects(true);
        let mut stream = Vec::new();
        for v in &values {
            framing::encode_framed_into(v, enc, framing::Framing::PacketPeerStream, &mut stream).unwrap();
        }
        let mut points: Vec<usize> = cuts.iter().map(|c| c % (stream.len() + 1)).collect();
        points.push(0);
        points.push(stream.len());
        points.sort_unstable();
        let mut dec = FrameDecoder::new(DecodeOptions::new(Version::Godot3).allow_objects(true));
        let mut got = Vec::new();
        for w in points.windows(2) {
            dec.push(&stream[w[0]..w[1]]);
            while let Some(v) = dec.next_value().unwrap() {
                got.push(v);
            }
        }
        prop_assert_eq!(got, values);
        prop_assert_eq!(dec.buffered(), 0);
    }
}

fn nested(prefix: &[u8], levels: usize, innermost: &[u8]) -> Vec<u8> {
    let mut b = Vec::with_capacity(prefix.len() * levels + innermost.len());
    for _ in 0..levels {
        b.extend_from_slice(prefix);
    }
    b.extend_from_slice(innermost);
    b
}

const ARRAY_OF_ONE_G3: &[u8] = &[0x13, 0, 0, 0, 1, 0, 0, 0];
const ARRAY_OF_ONE_G4: &[u8] = &[0x1c, 0, 0, 0, 1, 0, 0, 0];
const EMPTY_ARRAY_G3: &[u8] = &[0x13, 0, 0, 0, 0, 0, 0, 0];

#[test]
fn hundred_thousand_nested_containers_hit_the_depth_limit() {
    // Dictionary {nil: …} nesting, typed-array nesting and object-property nesting too.
    let dict_g3: &[u8] = &[0x12, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0];
    let typed_g4: &[u8] = &[0x1c, 0, 1, 0, 28, 0, 0, 0, 1, 0, 0, 0];
    let object_g3: &[u8] = &[
        0x11, 0, 0, 0, 1, 0, 0, 0, b'A', 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, b'p', 0, 0, 0,
    ];
    // (one level, version, allow_objects, offset of the first child inside a level)
    let cases: [(&[u8], Version, bool, usize); 5] = [
        (ARRAY_OF_ONE_G3, Version::Godot3, false, 8),
        (ARRAY_OF_ONE_G4, Version::GODOT_4_4, false, 8),
        (dict_g3, Version::Godot3, false, 8),
        (typed_g4, Version::GODOT_4_4, false, 12),
        (object_g3, Version::Godot3, true, 24),
    ];
    for (prefix, version, allow, child) in cases {
        let bytes = nested(prefix, 100_000, &[0, 0, 0, 0]);
        let err = decode(&bytes, DecodeOptions::new(version).allow_objects(allow)).unwrap_err();
        assert!(
            matches!(
                err.kind(),
                DecodeErrorKind::TooDeep {
                    depth: 1025,
                    limit: 1024
                }
            ),
            "{err}"
        );
        assert_eq!(err.engine_error(), EngineError::OutOfMemory);
        assert_eq!(err.path().segments().len(), 1025);
        // The first thing at depth 1025 is the child of the container at depth 1024.
        assert_eq!(err.offset(), 1024 * prefix.len() + child);
    }
}

#[test]
fn depth_limit_is_the_engines() {
    let opts = DecodeOptions::new(Version::Godot3);
    // 1025 nested arrays: the innermost is at depth 1024, still accepted.
    let ok = nested(ARRAY_OF_ONE_G3, 1024, EMPTY_ARRAY_G3);
    let (v, used) = decode(&ok, opts).unwrap();
    assert_eq!(used, ok.len());
    // Encoding is limited the same way; 1025 levels encode to the same bytes.
    assert_eq!(encode(&v, EncodeOptions::new(Version::Godot3)).unwrap(), ok);
    let too_deep = nested(ARRAY_OF_ONE_G3, 1025, EMPTY_ARRAY_G3);
    assert!(matches!(
        decode(&too_deep, opts).unwrap_err().kind(),
        DecodeErrorKind::TooDeep { .. }
    ));
    let deeper = Variant::array(vec![v]);
    let err = encode(&deeper, EncodeOptions::new(Version::Godot3)).unwrap_err();
    assert!(
        matches!(err.kind(), EncodeErrorKind::TooDeep { .. }),
        "{err}"
    );
}

#[test]
fn deep_decode_fits_a_small_stack() {
    // Decoding and encoding are iterative: 100 000 levels of input in a 64 KiB thread. (Only
    // dropping a 1025-level value recurses, in the compiler's drop glue, so it happens outside.)
    let bytes = nested(ARRAY_OF_ONE_G4, 100_000, &[0, 0, 0, 0]);
    std::thread::Builder::new()
        .stack_size(64 * 1024)
        .spawn(move || {
            let err = decode(&bytes, DecodeOptions::new(Version::GODOT_4_4)).unwrap_err();
            assert!(matches!(err.kind(), DecodeErrorKind::TooDeep { .. }));
            let ok = nested(ARRAY_OF_ONE_G4, 1024, &[0x1c, 0, 0, 0, 0, 0, 0, 0]);
            let (v, _) = decode(&ok, DecodeOptions::new(Version::GODOT_4_4)).unwrap();
            assert_eq!(
                encode(&v, EncodeOptions::new(Version::GODOT_4_4)).unwrap(),
                ok
            );
            v
        })
        .unwrap()
        .join()
        .map(drop)
        .unwrap();
}

#[test]
fn variant_stays_small() {
    assert!(
        std::mem::size_of::<Variant>() <= 32,
        "{}",
        std::mem::size_of::<Variant>()
    );
}

#[test]
fn many_container_keys_decode_in_linear_time() {
    // 50 000 distinct keys [i] (and, for Godot 4, {i: nil}): content hashing keeps the duplicate
    // check linear, so this takes milliseconds, not the minutes a quadratic scan would.
    let n = 50_000u32;
    let build = |dict: u32, key: &dyn Fn(u32) -> Vec<u32>| {
        let mut words = vec![dict, n];
        for i in 0..n {
            words.extend(key(i));
            words.push(0);
        }
        words
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect::<Vec<u8>>()
    };
    let cases = [
        (build(0x12, &|i| vec![0x13, 1, 2, i]), Version::Godot3),
        (build(0x1b, &|i| vec![0x1c, 1, 2, i]), Version::GODOT_4_4),
        (build(0x1b, &|i| vec![0x1b, 1, 2, i, 0]), Version::GODOT_4_4),
    ];
    let start = std::time::Instant::now();
    for (bytes, version) in &cases {
        let (v, _) = decode(bytes, DecodeOptions::new(*version)).unwrap();
        let Variant::Dictionary(d) = v else {
            panic!("{v:?}")
        };
        assert_eq!(d.entries.len(), n as usize);
    }
    assert!(
        start.elapsed() < std::time::Duration::from_secs(20),
        "{:?}",
        start.elapsed()
    );
}
