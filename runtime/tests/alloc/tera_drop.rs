//! Dropping dynamic values frees all they own: `Records` drops only the columns from the first
//! that can own memory and frees the rest as it lies, so a wrong starting column would leak.
//! The counting global allocator of `support/counting.rs` gives the live bytes; decoding a
//! packet, cloning its record, reading it back from JSON and building records by hand, then
//! dropping them, must leave none behind.

#![cfg(feature = "dynamic")]

use crate::counting;
use crate::support;

use def_runtime::tera::Options;
use def_runtime::tera::dynamic::{Array, Definition, Missing, Records, Value};
use hex::decode as from_hex;

/// The bytes `make`'s value leaves allocated once dropped (made and dropped inside).
fn left<T>(make: impl FnOnce() -> T) -> isize {
    counting::left(|| drop(make()))
}

fn long(tag: &str) -> Value {
    Value::String(tag.repeat(40).into())
}

/// Records built by hand, with owning values in every kind of place: before a scalar column,
/// only in a later element, nested, and none at all. The counter is global: the test holds
/// [`counting::serial`], as every test of this binary does, so that no other allocates meanwhile.
#[test]
fn nothing_is_left_after_a_drop() {
    let _s = counting::serial();
    let nested = || {
        Value::Array(Array::Object(
            Records::new(
                2,
                2,
                vec![
                    Value::Int32(1),
                    long("a"),
                    Value::Bytes(vec![7; 100]),
                    Value::Array(Array::Int32(vec![1, 2, 3])),
                ],
            )
            .unwrap(),
        ))
    };
    let cases: Vec<Box<dyn Fn() -> Records>> = vec![
        Box::new(|| {
            Records::new(3, 1, vec![Value::Int32(1), long("x"), Value::Bool(true)]).unwrap()
        }),
        Box::new(|| {
            Records::new(
                2,
                3,
                vec![
                    Value::Int32(1),
                    Value::Int32(2),
                    Value::Int32(3),
                    Value::Int32(4),
                    long("only in the last element, first column"),
                    Value::Int32(6),
                ],
            )
            .unwrap()
        }),
        Box::new(|| {
            Records::new(
                2,
                2,
                vec![nested(), Value::Byte(1), Value::Byte(2), nested()],
            )
            .unwrap()
        }),
        Box::new(|| Records::new(1, 4, vec![Value::UInt64(9); 4]).unwrap()),
        Box::new(|| Records::new(0, 7, Vec::new()).unwrap()),
    ];
    for (i, make) in cases.iter().enumerate() {
        assert_eq!(left(make), 0, "case {i}");
        assert_eq!(left(|| make().clone()), 0, "case {i}, cloned");
        assert_eq!(
            left(|| vec![Value::Array(Array::Object(make()))]),
            0,
            "case {i}, in a record's values"
        );
    }

    // Every public vector: decoded, cloned, and read back from its JSON.
    let Some((text, defs_dir)) = support::public_vectors() else {
        return;
    };
    let mut defs = std::collections::HashMap::new();
    let mut seen = 0;
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let name = v["def"].as_str().unwrap().to_string();
        let def: &Definition = defs.entry(name.clone()).or_insert_with(|| {
            Definition::from_file(&defs_dir.join(&name), def_parser::Mode::Compatible).unwrap()
        });
        let opts = Options::new().padding(v["padding"].as_bool().unwrap());
        let bytes = from_hex(v["hex"].as_str().unwrap()).unwrap();
        assert_eq!(
            left(|| def.decode(&bytes, opts).unwrap()),
            0,
            "{name}: decoded"
        );
        let record = def.decode(&bytes, opts).unwrap();
        assert_eq!(left(|| record.clone()), 0, "{name}: cloned");
        assert_eq!(left(|| record.to_values()), 0, "{name}: its values");
        assert_eq!(
            left(|| def.from_json(&v["object"], Missing::Error).unwrap()),
            0,
            "{name}: from JSON"
        );
        seen += 1;
    }
    assert!(seen > 10_000, "only {seen} vectors");
}
