//! The options after the path: padding, runtime path, strict, no serde, no comments.
use def_runtime::{Options, Packet};

/// The runtime under another name, as a crate that re-exports it would have it.
pub mod my {
    pub use def_runtime as rt;
}

mod padded {
    def_macro::def!(
        "tests/ui/defs/S_EXAMPLE.1.def",
        padding = true,
        runtime = "crate::my::rt",
        strict = true,
        comments = false,
        serde = false,
    );
}

// The malformed line that `strict = true` rejects (see `fail/malformed_strict.rs`) is skipped in
// the default compatible mode, as the reference does.
mod lenient {
    def_macro::def!("tests/ui/defs/S_MALFORMED.1.def");
}

fn main() {
    let l = lenient::SMalformed { a: 1, b: 2 };
    assert_eq!(
        l.encode(3, Options::new()).unwrap(),
        [12, 0, 3, 0, 1, 0, 0, 0, 2, 0, 0, 0]
    );
    assert!(padded::PADDING);
    let p = padded::SExample {
        number: 1,
        list: Vec::new(),
    };
    let opts = Options::new().padding(padded::PADDING);
    // header 4, padding 8, meta 4 (count 0, offset 0: an empty array writes nothing), number 4.
    let bytes = p.encode(7, opts).unwrap();
    assert_eq!(
        bytes,
        [
            0x14, 0x00, 0x07, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0
        ]
    );
    assert_eq!(padded::SExample::decode(&bytes, opts).unwrap(), p);
}
