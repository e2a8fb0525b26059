//! The dynamic codec: a `.def` read at run time (no code generation), packets to and from
//! `serde_json::Value` in the tera-vectors JSON form. Needs def-runtime's `dynamic` feature.
//!
//! `cargo run -p def-examples --bin dynamic [-- FILE.def HEX]`

use def_runtime::Options;
use def_runtime::tera::dynamic::{Definition, Missing};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().unwrap_or_else(|| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/defs/C_CHAT_EXAMPLE.1.def").to_string()
    });
    let bytes = match args.next() {
        Some(h) => hex::decode(h.replace(' ', ""))?,
        None => def_examples::chat_sample(),
    };
    let def = Definition::from_file(path.as_ref(), def_parser::Mode::Compatible)?;
    let json = def.decode_json(&bytes, Options::new())?;
    println!("{json}");
    let opcode = def_runtime::tera::opcode(&bytes).ok_or("no header")?;
    let again = def.encode(&json, opcode, Options::new(), Missing::Error)?;
    assert_eq!(again, bytes, "the dynamic codec round-trips");
    Ok(())
}
