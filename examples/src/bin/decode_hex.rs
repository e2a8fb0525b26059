//! Decodes a `C_CHAT_EXAMPLE` packet given as hex (spaces allowed) and prints it as JSON; with no
//! argument it decodes a built-in sample.
//!
//! `cargo run -p def-examples --bin decode_hex [-- HEX]`

use std::process::ExitCode;

use def_examples::defs::c_chat_example::v1::CChatExample;
use def_runtime::{Options, Packet};

fn main() -> ExitCode {
    let hex_text = std::env::args()
        .nth(1)
        .unwrap_or_else(|| def_examples::CHAT_SAMPLE_HEX.to_string());
    let bytes = match hex::decode(hex_text.replace([' ', '\n'], "")) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("not hex: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(op) = def_runtime::tera::opcode(&bytes) {
        eprintln!("opcode {op:#06x}, {} bytes", bytes.len());
    }
    // Strict: the header length must match and no byte may be left over.
    match CChatExample::decode(&bytes, Options::new().strict(true)) {
        Ok(packet) => {
            println!(
                "{}",
                serde_json::to_string_pretty(&packet).expect("serializes")
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            // For example: "C_CHAT_EXAMPLE v1 at byte 8 (0x8) in `message`: ...".
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
