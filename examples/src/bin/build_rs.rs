//! Uses the types that `build.rs` generated from `defs/` (see `src/lib.rs` for the `include!`):
//! builds a packet, encodes it, decodes it back.
//!
//! `cargo run -p def-examples --bin build_rs`

use def_examples::defs::s_example::v1::{SExample, SExampleList};
use def_runtime::{Options, Packet};

fn main() {
    let packet = SExample {
        number: 0x0102_0304,
        list: vec![SExampleList { value: 7 }, SExampleList { value: -2 }],
    };
    let opts = Options::new();
    let bytes = packet.encode(0x1234, opts).expect("fits in a packet");
    println!(
        "{} v{}: {}",
        SExample::NAME,
        SExample::VERSION,
        hex::encode(&bytes)
    );
    // Worked out by hand from LAYOUT.md: header, list's count and offset, number, two elements
    // (here, next, value).
    assert_eq!(
        hex::encode(&bytes),
        "18003412".to_owned() + "02000c00" + "04030201" + "0c0012000700" + "12000000feff"
    );
    let back = SExample::decode(&bytes, opts.strict(true)).expect("decodes");
    assert_eq!(back, packet);
    println!("{}", serde_json::to_string(&back).expect("serializes"));
}
