//! Allocation guard: decoding adversarial input (huge announced counts, deep nesting, many
//! tiny elements) never allocates more than a small multiple of the input size.
#![cfg(feature = "godot")]

use crate::counting;

use counting::serial;
use def_runtime::godot::*;

/// Peak bytes allocated (above what was live before) while decoding `input` in every mode.
fn peak_during_decode(input: &[u8]) -> usize {
    let mut worst = 0;
    for version in [Version::Godot3, Version::GODOT_4_4] {
        for allow in [false, true] {
            let opts = DecodeOptions::new(version).allow_objects(allow);
            let peak = counting::measure(|| drop(decode(input, opts))).peak;
            worst = worst.max(peak);
        }
    }
    worst
}

fn words(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn repeat(unit: &[u8], n: usize) -> Vec<u8> {
    unit.iter().copied().cycle().take(unit.len() * n).collect()
}

#[test]
fn decode_memory_is_bounded_by_input_size() {
    let _serial = serial();
    let mut cases: Vec<(&str, Vec<u8>)> = vec![
        // Counts announcing 2^31 elements with almost nothing behind them.
        ("array count 2^31-1", words(&[0x13, 0x7fff_ffff, 0])),
        ("dictionary count 2^31-1", words(&[0x12, 0x7fff_ffff, 0, 0])),
        ("string array count 2^31-1", words(&[0x17, 0x7fff_ffff, 0])),
        (
            "node path 2^31-1 names",
            words(&[0x0f, 0xffff_ffff, 0xffff_ffff, 0, 0]),
        ),
        (
            "object 2^32-1 properties",
            [
                words(&[0x11, 1]),
                b"A\0\0\0".to_vec(),
                words(&[0xffff_ffff]),
            ]
            .concat(),
        ),
        ("byte array 2^31-1", words(&[0x14, 0x7fff_ffff, 0])),
        ("string 2^31-1", words(&[0x04, 0x7fff_fff0, 0])),
    ];
    // Deep nesting where every level announces a huge count.
    cases.push((
        "nested huge counts g3",
        repeat(&words(&[0x13, 0x7fff_ffff]), 5000),
    ));
    cases.push((
        "nested huge counts g4",
        repeat(&words(&[0x1c, 0x7fff_ffff]), 5000),
    ));
    // Many tiny elements: NILs in an array, empty arrays in an array, NIL pairs in a dict.
    let n = 100_000;
    cases.push((
        "array of nils",
        [words(&[0x13, n as u32]), repeat(&words(&[0]), n)].concat(),
    ));
    cases.push((
        "array of empty arrays",
        [words(&[0x13, n as u32]), repeat(&words(&[0x13, 0]), n)].concat(),
    ));
    cases.push((
        "dict of distinct int keys",
        [
            words(&[0x12, n as u32]),
            (0..n as u32).flat_map(|i| words(&[2, i, 0])).collect(),
        ]
        .concat(),
    ));
    cases.push((
        "string array of empties",
        [words(&[0x17, n as u32]), repeat(&words(&[0]), n)].concat(),
    ));
    cases.push((
        "packed vector2s",
        [words(&[0x18, n as u32]), repeat(&words(&[0, 0]), n)].concat(),
    ));
    for (name, input) in &cases {
        let peak = peak_during_decode(input);
        let bound = 40 * input.len() + 64 * 1024;
        assert!(
            peak <= bound,
            "{name}: peak {peak} bytes for {} input bytes (bound {bound})",
            input.len()
        );
        eprintln!(
            "{name}: {} input bytes, peak {peak} bytes ({:.1}x)",
            input.len(),
            peak as f64 / input.len() as f64
        );
    }
}
