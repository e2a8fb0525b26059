//! Decodes a packet, changes a field, encodes it again and prints the new bytes as hex: what a
//! proxy does. With no argument it edits the built-in sample.
//!
//! `cargo run -p def-examples --bin edit_and_reencode [-- HEX [NEW_MESSAGE]]`

use def_examples::defs::c_chat_example::v1::CChatExample;
use def_runtime::{Options, Packet};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let bytes = match args.next() {
        Some(h) => hex::decode(h.replace(' ', ""))?,
        None => def_examples::chat_sample(),
    };
    let message = args.next().unwrap_or_else(|| "edited!".to_string());
    let opcode = def_runtime::tera::opcode(&bytes).ok_or("no header")?;
    let opts = Options::new();

    let mut packet = CChatExample::decode(&bytes, opts)?;
    println!("before: {}  {:?}", hex::encode(&bytes), packet.message);
    packet.message = message.into();
    // Lengths and offsets are recomputed: the packet grows or shrinks with the string.
    let out = packet.encode(opcode, opts)?;
    println!("after:  {}  {:?}", hex::encode(&out), packet.message);
    assert_eq!(CChatExample::decode(&out, opts)?, packet);
    Ok(())
}
