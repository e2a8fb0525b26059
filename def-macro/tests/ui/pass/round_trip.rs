//! A definition compiles and round-trips a packet; the bytes are worked out by hand from LAYOUT.md.
use def_runtime::{Options, Packet};

mod s_example {
    def_macro::def!("tests/ui/defs/S_EXAMPLE.1.def", serde = true);
}
use s_example::{SExample, SExampleList};

// header: length 24, opcode 0x1234
// meta of `list`: count 2, offset 12
// number: 0x01020304
// element 0 at 12: here 12, next 18, value 7
// element 1 at 18: here 18, next 0, value -2
const BYTES: [u8; 24] = [
    0x18, 0x00, 0x34, 0x12, //
    0x02, 0x00, 0x0c, 0x00, //
    0x04, 0x03, 0x02, 0x01, //
    0x0c, 0x00, 0x12, 0x00, 0x07, 0x00, //
    0x12, 0x00, 0x00, 0x00, 0xfe, 0xff,
];

fn main() {
    let p = SExample::decode(&BYTES, Options::new().strict(true)).unwrap();
    let expected = SExample {
        number: 0x0102_0304,
        list: vec![SExampleList { value: 7 }, SExampleList { value: -2 }],
    };
    assert_eq!(p, expected);
    assert_eq!(p.encode(0x1234, Options::new()).unwrap(), BYTES);
    assert_eq!(p.encoded_len(Options::new()), 24);
    assert_eq!(<SExample as Packet>::NAME, "S_EXAMPLE");
    assert_eq!(<SExample as Packet>::VERSION, 1);
    assert!(!s_example::PADDING);

    let json = serde_json::to_string(&p).unwrap();
    assert_eq!(
        json,
        r#"{"number":16909060,"list":[{"value":7},{"value":-2}]}"#
    );
    let back: SExample = serde_json::from_str(&json).unwrap();
    assert_eq!(back, p);

    // With padding: 8 zero bytes after the header, every offset 8 further.
    let padded = p.encode(0x1234, Options::new().padding(true)).unwrap();
    let expected_padded: [u8; 32] = [
        0x20, 0x00, 0x34, 0x12, 0, 0, 0, 0, 0, 0, 0, 0, //
        0x02, 0x00, 0x14, 0x00, //
        0x04, 0x03, 0x02, 0x01, //
        0x14, 0x00, 0x1a, 0x00, 0x07, 0x00, //
        0x1a, 0x00, 0x00, 0x00, 0xfe, 0xff,
    ];
    assert_eq!(padded, expected_padded);
    assert_eq!(
        SExample::decode(&padded, Options::new().padding(true)).unwrap(),
        p
    );
}
