//! The ping mod (`def_examples::ping`) over two chat packets from the client: `hello` goes on to
//! the server, `!ping` is silenced and answered with a fake S_CHAT to the client.
//!
//! `cargo run -p def-examples --bin ping`

use def_examples::protocol::c_chat::v1::CChat;
use def_examples::protocol::{MAP, opcodes};
use def_runtime::tera::dispatch::{Direction, Dispatch, Handled};
use def_runtime::{Options, Packet};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut dispatch = Dispatch::new(MAP, Options::new());
    def_examples::ping::install(&mut dispatch, "proxy")?;
    for text in ["hello", "!ping"] {
        let chat = CChat {
            channel: 0,
            message: text.into(),
        };
        let packet = chat.encode(opcodes::C_CHAT, Options::new())?;
        let handled = dispatch.handle(Direction::ToServer, &packet);
        for (direction, fake) in dispatch.take_sent() {
            let answer = def_examples::protocol::Packet::decode(&fake, Options::new())?;
            println!(
                "{text:?}: sent {direction:?}: {}",
                serde_json::to_string(&answer)?
            );
        }
        match handled {
            Handled::Forward => println!("{text:?}: forwarded to the server"),
            Handled::Replace(_) => println!("{text:?}: forwarded, changed"),
            Handled::Silence => println!("{text:?}: silenced"),
        }
    }
    for failure in dispatch.take_failures() {
        eprintln!("hook failed: {failure}");
    }
    Ok(())
}
