//! A mod in TERA Toolbox's manner, on the runtime's dispatcher: a player who says `!ping` in
//! chat gets `pong` back from the proxy, and the server never sees the command.
//!
//! ```text
//! dispatch.hook::<CChat>(..)  C_CHAT "!ping"  ->  silenced; a fake S_CHAT "pong" to the client
//! ```
//!
//! `src/bin/ping.rs` runs it over two packets; `tests/ping.rs` reads what it sent with the
//! dynamic codec.

use def_runtime::Packet as _;
use def_runtime::tera::dispatch::{Action, Direction, Dispatch, DispatchError, HookOptions};

use crate::protocol::c_chat::v1::CChat;
use crate::protocol::opcodes;
use crate::protocol::s_chat::v4::SChat;

/// Installs the mod's hook; `name` is who the answer comes from.
pub fn install(dispatch: &mut Dispatch, name: &'static str) -> Result<(), DispatchError> {
    dispatch.hook::<CChat>(HookOptions::new(), move |cx, chat| {
        if chat.message.trim() != "!ping" {
            return Action::Pass;
        }
        let answer = SChat {
            channel: chat.channel,
            name: name.into(),
            message: "pong".into(),
            ..SChat::default()
        };
        // An S_CHAT always encodes; were it not so, the command would still be silenced.
        if let Ok(packet) = answer.encode(opcodes::S_CHAT, def_runtime::Options::new()) {
            cx.send(Direction::ToClient, packet);
        }
        Action::Silence
    })?;
    Ok(())
}
