//! Values as deep as the engine allows (1025 nested containers: the outermost at depth 0, the
//! innermost at 1024) through every path of the crate: bytes, typed JSON (tree and text) and
//! serde, on a thread whose stack is far smaller than the 2 MiB default, in debug builds.
//! The expected bytes are written out by hand from SPEC.md's layouts, not by the encoder.
#![cfg(all(feature = "godot", feature = "serde"))]

use def_runtime::godot::json::{Typed, from_json, from_json_str, to_json};
use def_runtime::godot::*;
use serde::{Deserialize, Serialize};

/// Stack of the test threads: an eighth of the default, so that any recursion that does not
/// grow its stack on demand fails here first.
const SMALL_STACK: usize = 256 * 1024;

fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(SMALL_STACK)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

fn nested(prefix: &[u8], levels: usize, innermost: &[u8]) -> Vec<u8> {
    let mut b = Vec::new();
    for _ in 0..levels {
        b.extend_from_slice(prefix);
    }
    b.extend_from_slice(innermost);
    b
}

/// Godot 3 `[[[…[]…]]]`, 1025 arrays.
fn deep_arrays_g3() -> Vec<u8> {
    nested(
        &[0x13, 0, 0, 0, 1, 0, 0, 0],
        1024,
        &[0x13, 0, 0, 0, 0, 0, 0, 0],
    )
}

/// Every deep shape, with the options that decode it.
fn deep_cases() -> Vec<(&'static str, Vec<u8>, DecodeOptions, EncodeOptions)> {
    let g3 = (
        DecodeOptions::new(Version::Godot3),
        EncodeOptions::new(Version::Godot3),
    );
    let g4 = (
        DecodeOptions::new(Version::GODOT_4_4),
        EncodeOptions::new(Version::GODOT_4_4),
    );
    // {nil: {nil: …}} (values nest), and {{…}: nil} (keys nest).
    let dict_values = nested(
        &[0x12, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0],
        1024,
        &[0x12, 0, 0, 0, 0, 0, 0, 0],
    );
    let mut dict_keys = nested(
        &[0x12, 0, 0, 0, 1, 0, 0, 0],
        1024,
        &[0x12, 0, 0, 0, 0, 0, 0, 0],
    );
    dict_keys.extend(std::iter::repeat_n([0u8, 0, 0, 0], 1024).flatten());
    // A full object "A" whose property "p" holds the next one; the innermost has no properties.
    let object = nested(
        &[
            0x11, 0, 0, 0, 1, 0, 0, 0, b'A', 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, b'p', 0, 0, 0,
        ],
        1024,
        &[0x11, 0, 0, 0, 1, 0, 0, 0, b'A', 0, 0, 0, 0, 0, 0, 0],
    );
    // Godot 4 Array[Array] nesting: header with kind BUILTIN, type id 28.
    let typed = nested(
        &[0x1c, 0, 1, 0, 28, 0, 0, 0, 1, 0, 0, 0],
        1024,
        &[0x1c, 0, 0, 0, 0, 0, 0, 0],
    );
    let objects = (g3.0.allow_objects(true), g3.1.full_objects(true));
    vec![
        ("arrays", deep_arrays_g3(), g3.0, g3.1),
        ("dictionary values", dict_values, g3.0, g3.1),
        ("dictionary keys", dict_keys, g3.0, g3.1),
        ("full objects", object, objects.0, objects.1),
        ("typed arrays", typed, g4.0, g4.1),
    ]
}

#[test]
fn engine_depth_survives_bytes_json_and_text() {
    on_small_stack(|| {
        for (name, bytes, dopts, eopts) in deep_cases() {
            let v = decode_exact(&bytes, dopts).unwrap_or_else(|e| panic!("{name}: {e}"));
            // One level more is refused, as the engine does (checked in godot_props).
            let tree = to_json(&v);
            let back = from_json(&tree).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(encode(&back, eopts).unwrap(), bytes, "{name}: JSON tree");
            // serde_json's tree drops recursively: see `to_json_trees_drop_on_a_default_thread`.
            std::mem::forget(tree);
            let mut texts = vec![serde_json::to_string(&Typed(&v)).unwrap()];
            // Pretty text indents every level: quadratic in depth (a few MB here), once is enough.
            if name == "arrays" {
                texts.push(serde_json::to_string_pretty(&Typed(&v)).unwrap());
            }
            for text in texts {
                let back = from_json_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
                assert_eq!(encode(&back, eopts).unwrap(), bytes, "{name}: JSON text");
            }
        }
    });
}

#[test]
fn to_json_trees_drop_on_a_default_thread() {
    // A `serde_json::Value` drops one level at a time on the caller's stack (serde_json's own
    // drop glue): the deepest trees must still drop on a default 2 MiB thread in debug builds.
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            for (_, bytes, dopts, _) in deep_cases() {
                let v = decode_exact(&bytes, dopts).unwrap();
                drop(to_json(&v));
            }
        })
        .unwrap()
        .join()
        .unwrap();
}

/// A recursive user type: `Nest(vec![Nest(vec![…])])` is an Array of Arrays.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Nest(Vec<Nest>);

#[test]
fn engine_depth_survives_serde() {
    on_small_stack(|| {
        let bytes = deep_arrays_g3();
        let v = decode_exact(&bytes, DecodeOptions::new(Version::Godot3)).unwrap();
        // A Variant through serde is itself.
        assert_eq!(to_variant(&v).unwrap(), v);
        assert_eq!(from_variant::<Variant>(&v).unwrap(), v);
        let nest: Nest = from_variant(&v).unwrap();
        let again = to_variant(&nest).unwrap();
        assert_eq!(
            encode(&again, EncodeOptions::new(Version::Godot3)).unwrap(),
            bytes
        );
    });
}

#[test]
fn too_deep_json_is_refused_with_the_limit() {
    on_small_stack(|| {
        // 1026 nested arrays: the innermost at depth 1025, one more than the engine reads.
        let mut v = Variant::array(vec![]);
        for _ in 0..1025 {
            v = Variant::array(vec![v]);
        }
        let text = serde_json::to_string(&Typed(&v)).unwrap();
        let err = from_json_str(&text).unwrap_err();
        assert!(err.message.contains("deeper than 1024"), "{err}");
        assert_eq!(err.path.matches("value").count(), 1025, "{}", err.path);
        // JSON text nested far deeper than any typed value: refused before parsing, with its place.
        let text = format!("{}\n{}", "[".repeat(10), "[".repeat(100_000));
        let err = from_json_str(&text).unwrap_err();
        assert!(err.message.contains("line 2 column 4092"), "{err}");
        // Brackets inside strings do not count.
        let text = format!(
            r#"{{"type": "String", "value": "{}\"{}"}}"#,
            "[".repeat(10_000),
            "{".repeat(10_000)
        );
        assert!(from_json_str(&text).is_ok());
    });
}
