//! Uses a build.rs-generated type and a def!-generated one, and prints both encoded.

use def_runtime::{Options, Packet};

mod generated {
    include!(concat!(env!("OUT_DIR"), "/_defs.rs"));
}

mod by_macro {
    def_macro::def!("macro_defs/S_MACRO.1.def");
}

fn main() {
    let built = generated::s_built::v1::SBuilt {
        id: 7,
        name: "a".into(),
    };
    let by_macro = by_macro::SMacro { value: -1 };
    let a = built.encode(1, Options::new()).expect("encodes");
    let b = by_macro.encode(2, Options::new()).expect("encodes");
    // S_BUILT: length 12, opcode 1, name at 8, id 7, "a" and the terminator.
    assert_eq!(a, [12, 0, 1, 0, 8, 0, 7, 0, b'a', 0, 0, 0]);
    // S_MACRO: length 8, opcode 2, value -1.
    assert_eq!(b, [8, 0, 2, 0, 0xff, 0xff, 0xff, 0xff]);
    println!("{a:02x?} {b:02x?}");
}
