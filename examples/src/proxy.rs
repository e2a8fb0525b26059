//! A TERA proxy over TCP, as TERA Toolbox is one, on the runtime's [`Proxy`]: it sits between a
//! game client and its server, splits each direction into packets, hooks messages by name, and
//! passes on everything no hook wants without touching it.
//!
//! Two hooks on a protocol generated for the two messages they need ([`crate::protocol`]):
//! * `C_CHAT` (client to server): logged as JSON (the `Packet` enum's serde form), forwarded
//!   unchanged;
//! * `S_ITEMLIST` (server to client): its `money` doubled in place through a mutable zero-copy
//!   view of the packet's own bytes (no decode, no encode), then forwarded.
//!
//! The proxy runs in plaintext (the demonstration's peers do no handshake); a real one drops
//! [`Proxy::plaintext`] and the classic session cipher is used. `src/bin/proxy.rs` runs it
//! between a fake server and a fake client; `tests/proxy.rs` checks byte for byte what each side
//! receives.

use std::sync::{Arc, Mutex};

use crate::protocol::s_itemlist::v7::view;
use def_runtime::Options;
use def_runtime::tera::dispatch::{Action, Dispatch, DispatchError, Filter, HookOptions};
use def_runtime::tera::proxy::{Closed, Proxy};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// What the proxy did on one connection.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Report {
    /// The `C_CHAT` packets, as JSON lines.
    pub logged: Vec<String>,
    /// `S_ITEMLIST` packets patched.
    pub patched: usize,
    /// Packets forwarded in each direction (client to server, server to client).
    pub forwarded: (u64, u64),
}

/// The options of a packet with this opcode (the protocol says which carry padding).
fn options(opcode: u16) -> Options {
    crate::protocol::MAP.options(opcode, Options::new())
}

/// The hooks of one connection, reporting into `report`.
pub fn hooks(report: Arc<Mutex<Report>>) -> Result<Dispatch, DispatchError> {
    let mut dispatch = Dispatch::new(crate::protocol::MAP, Options::new());
    // Each hook in the direction its message travels (a server may echo a C_CHAT: not logged).
    let from = |server: bool| {
        HookOptions::new().filter(Filter {
            incoming: Some(server),
            ..Filter::default()
        })
    };
    let log = report.clone();
    dispatch.raw("C_CHAT", from(false), move |_, packet| {
        let line = match crate::protocol::Packet::decode(packet, Options::new()) {
            Ok(p) => serde_json::to_string(&p)
                .unwrap_or_else(|e| format!("{{\"error\":{:?}}}", e.to_string())),
            // A packet the hook cannot read is still forwarded as it is.
            Err(e) => format!("{{\"error\":{:?}}}", e.to_string()),
        };
        log.lock().expect("no panics while held").logged.push(line);
        Action::Pass
    })?;
    dispatch.raw("S_ITEMLIST", from(true), move |_, packet| {
        // Too short for its fixed fields: forwarded unchanged. The view takes the padding.
        let Ok(mut view) = view::SItemlist::new_mut(packet, Options::new()) else {
            return Action::Pass;
        };
        let money = view.view().money();
        view.set_money(money.saturating_mul(2));
        report.lock().expect("no panics while held").patched += 1;
        Action::Modified
    })?;
    Ok(dispatch)
}

/// Serves one client accepted on `listener`: connects to the server at `server`, and carries
/// both directions through the hooks until both sides have closed. A stream that cannot be
/// split into packets (or cut inside one) is an error.
pub async fn serve_one(
    listener: &TcpListener,
    server: std::net::SocketAddr,
) -> std::io::Result<Report> {
    let (client, _) = listener.accept().await?;
    client.set_nodelay(true)?;
    let report = Arc::new(Mutex::new(Report::default()));
    let for_hooks = report.clone();
    let proxy = Proxy::new(server, move |_| {
        hooks(for_hooks.clone()).expect("both messages are in the protocol")
    })
    .plaintext();
    let closed: Closed = proxy.connection(client).await;
    if let Some(e) = closed.error {
        return Err(std::io::Error::other(e));
    }
    let mut report = report.lock().expect("no panics while held").clone();
    report.forwarded = (closed.to_server, closed.to_client);
    Ok(report)
}

/// A peer of the demonstration: sends `packets` in chunks of `chunk` bytes (so that packets
/// arrive cut at odd places), closes its sending side, and returns everything it received
/// until the other side closed.
pub async fn peer(stream: TcpStream, packets: Vec<u8>, chunk: usize) -> std::io::Result<Vec<u8>> {
    stream.set_nodelay(true)?;
    let (mut rx, mut tx) = stream.into_split();
    // Sends in a task of its own while this one receives: a peer that only sent first could
    // wait forever on a proxy waiting for it to read.
    let send = tokio::spawn(async move {
        for c in packets.chunks(chunk.max(1)) {
            tx.write_all(c).await?;
            tx.flush().await?;
        }
        tx.shutdown().await
    });
    let mut got = Vec::new();
    rx.read_to_end(&mut got).await?;
    send.await??;
    Ok(got)
}

/// The demonstration's traffic, in each direction a few packets of hooked and other messages
/// (and one opcode the map does not know), made with the generated structs.
pub mod traffic {
    use crate::protocol::{c_chat, s_itemlist};
    use def_runtime::Packet as _;

    /// An opcode no message of the protocol has: forwarded as it is.
    pub const UNKNOWN_OPCODE: u16 = 0xfffe;

    fn opcode(name: &str) -> u16 {
        crate::protocol::opcode_of(name).expect("in the map")
    }

    /// A `C_CHAT` packet.
    pub fn chat(channel: u32, message: &str) -> Vec<u8> {
        let p = c_chat::v1::CChat {
            channel,
            message: message.into(),
        };
        p.encode(opcode("C_CHAT"), super::options(opcode("C_CHAT")))
            .expect("fits")
    }

    /// An `S_ITEMLIST` packet with `money`, and one item.
    pub fn itemlist(money: i64) -> Vec<u8> {
        let p = s_itemlist::v7::SItemlist {
            game_id: 0x1122_3344_5566_7788,
            container: 14,
            money,
            items: vec![s_itemlist::v7::SItemlistItems {
                id: 99,
                amount: 3,
                ..Default::default()
            }],
            ..Default::default()
        };
        p.encode(opcode("S_ITEMLIST"), super::options(opcode("S_ITEMLIST")))
            .expect("fits")
    }

    /// A packet of an opcode the map does not know, with some body.
    pub fn unknown(body: &[u8]) -> Vec<u8> {
        let mut p = ((body.len() + 4) as u16).to_le_bytes().to_vec();
        p.extend_from_slice(&UNKNOWN_OPCODE.to_le_bytes());
        p.extend_from_slice(body);
        p
    }

    /// What the client sends: two chat lines around other packets.
    pub fn from_client() -> Vec<u8> {
        [
            unknown(b"hello"),
            chat(0, "hi there"),
            unknown(&[]),
            chat(27, "WTS épée +12"),
        ]
        .concat()
    }

    /// What the server sends: two item lists among other packets.
    pub fn from_server() -> Vec<u8> {
        [
            unknown(&[1, 2, 3]),
            itemlist(1_000),
            chat(1, "not hooked in this direction"),
            itemlist(-7),
            unknown(&[0; 300]),
        ]
        .concat()
    }
}
