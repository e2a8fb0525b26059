//! `def!` generates the same types as build.rs, at the call site, from a path relative to this
//! crate's `Cargo.toml`; the crate is rebuilt when the file changes.
//!
//! `cargo run -p def-examples --bin macro`

use def_runtime::{Options, Packet};

mod chat {
    // One definition per module: the expansion also declares `PADDING`.
    def_macro::def!("defs/C_CHAT_EXAMPLE.1.def", serde = true);
}

fn main() {
    let line = chat::CChatExample {
        channel: 1,
        is_gm: false,
        author_name: "Bob".into(),
        message: "hi!".into(),
    };
    let bytes = line
        .encode(0x0101, Options::new().padding(chat::PADDING))
        .expect("fits in a packet");
    println!("hex:  {}", hex::encode(&bytes));
    assert_eq!(bytes, def_examples::chat_sample(), "the hand-made sample");
    // The JSON form keeps the `.def` names.
    println!(
        "json: {}",
        serde_json::to_string(&line).expect("serializes")
    );
    let back = chat::CChatExample::decode(&bytes, Options::new()).expect("decodes");
    assert_eq!(back, line);
}
