//! The ping mod: `!ping` never reaches the server and the client gets `pong`, read back with the
//! dynamic codec from the corpus's own S_CHAT definition (a path independent of the generated
//! encoder); other chat passes byte for byte.

use def_examples::protocol::c_chat::v1::CChat;
use def_examples::protocol::{MAP, opcodes};
use def_parser::Mode;
use def_runtime::tera::dispatch::{Direction, Dispatch, Handled};
use def_runtime::tera::dynamic::Definition;
use def_runtime::{Options, Packet};

fn chat(text: &str) -> Vec<u8> {
    CChat {
        channel: 27,
        message: text.into(),
    }
    .encode(opcodes::C_CHAT, Options::new())
    .unwrap()
}

#[test]
fn ping_is_answered_and_silenced_and_other_chat_passes() {
    let mut d = Dispatch::new(MAP, Options::new());
    def_examples::ping::install(&mut d, "proxy").unwrap();

    let hello = chat("hello");
    assert_eq!(d.handle(Direction::ToServer, &hello), Handled::Forward);
    assert_eq!(d.take_sent().count(), 0);

    assert_eq!(
        d.handle(Direction::ToServer, &chat(" !ping ")),
        Handled::Silence
    );
    let sent: Vec<_> = d.take_sent().collect();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].0, Direction::ToClient);

    let data = std::env::var_os("TERA_DATA_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/tera-data").into());
    let def = Definition::from_file(&data.join("definitions/S_CHAT.4.def"), Mode::Compatible)
        .expect("tera-data's S_CHAT.4.def (set TERA_DATA_DIR)");
    assert_eq!(
        u16::from_le_bytes([sent[0].1[2], sent[0].1[3]]),
        MAP.opcode("S_CHAT").unwrap()
    );
    let json = def.decode_json(&sent[0].1, Options::new()).unwrap();
    assert_eq!(json["message"], "pong");
    assert_eq!(json["name"], "proxy");
    assert_eq!(json["channel"], 27);
    assert!(d.take_failures().is_empty());
}
