//! A TERA proxy over TCP, as TERA Toolbox is one: it sits between a game client and its server,
//! splits each direction of the connection into packets, hooks messages by name, and passes on
//! everything no hook wants without touching it.
//!
//! Two hooks, one per direction, on a protocol generated for the two messages they need
//! ([`crate::protocol`]):
//! * client to server, `C_CHAT`: logged as JSON (the `Packet` enum's serde form), forwarded
//!   unchanged;
//! * server to client, `S_ITEMLIST`: its `money` doubled in place through a mutable zero-copy
//!   view of the packet's own bytes (no decode, no encode), then forwarded.
//!
//! Each direction reads what the socket gives into a [`Splitter`], relays the whole packets of
//! that read through the hook ([`Splitter::relay`]: the hook patches a packet in the splitter's
//! buffer, then the packets are copied to one output buffer in runs), and writes the buffer in
//! one call. `src/bin/proxy.rs` runs it between a fake server and a fake client; `tests/proxy.rs`
//! checks byte for byte what each side receives.

use std::sync::{Arc, Mutex};

use crate::protocol::c_chat::v1::CChat;
use crate::protocol::s_itemlist::v7::{SItemlist, view};
use def_runtime::Options;
use def_runtime::tera::framing::{Splitter, Verdict};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// What the proxy did on one connection.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Report {
    /// The `C_CHAT` packets, as JSON lines.
    pub logged: Vec<String>,
    /// `S_ITEMLIST` packets patched.
    pub patched: usize,
    /// Packets forwarded in each direction (client to server, server to client).
    pub forwarded: (usize, usize),
}

/// The options of a packet with this opcode (the protocol says which carry padding).
fn options(opcode: u16) -> Options {
    crate::protocol::MAP.options(opcode, Options::new())
}

/// The client-to-server hook: `C_CHAT` logged as JSON.
fn log_chat(packet: &[u8], report: &Mutex<Report>) {
    if def_runtime::tera::opcode(packet) != Some(CChat::OPCODE) {
        return;
    }
    let line = match crate::protocol::Packet::decode(packet, Options::new()) {
        Ok(p) => serde_json::to_string(&p)
            .unwrap_or_else(|e| format!("{{\"error\":{:?}}}", e.to_string())),
        // A packet the hook cannot read is still forwarded as it is.
        Err(e) => format!("{{\"error\":{:?}}}", e.to_string()),
    };
    report
        .lock()
        .expect("no panics while held")
        .logged
        .push(line);
}

/// The server-to-client hook: `S_ITEMLIST`'s `money` doubled in place.
fn double_money(packet: &mut [u8], report: &Mutex<Report>) {
    if def_runtime::tera::opcode(packet) != Some(SItemlist::OPCODE) {
        return;
    }
    // Too short for its fixed fields: forwarded unchanged. The view takes the protocol's padding.
    if let Ok(mut view) = view::SItemlist::new_mut(packet, Options::new()) {
        let money = view.view().money();
        view.set_money(money.saturating_mul(2));
        report.lock().expect("no panics while held").patched += 1;
    }
}

/// Copies one direction of the connection, packet by packet, through `hook`; returns the packets
/// forwarded. A header whose length is below 4 ends the connection with an error, as does a
/// packet cut off by the end of the stream.
async fn pump(
    mut from: impl AsyncRead + Unpin,
    mut to: impl AsyncWrite + Unpin,
    mut hook: impl FnMut(&mut [u8]),
) -> std::io::Result<usize> {
    let mut split = Splitter::new();
    let mut read = vec![0u8; 16 * 1024];
    let mut out = Vec::with_capacity(64 * 1024);
    let mut forwarded = 0;
    loop {
        let n = from.read(&mut read).await?;
        if n == 0 {
            split.finish().map_err(std::io::Error::other)?;
            to.shutdown().await?;
            return Ok(forwarded);
        }
        split.push(&read[..n]);
        out.clear();
        split
            .relay(&mut out, |packet| {
                hook(packet);
                forwarded += 1;
                Verdict::Forward
            })
            .map_err(std::io::Error::other)?;
        to.write_all(&out).await?;
    }
}

/// Serves one client accepted on `listener`: connects to the server at `server`, and copies
/// both directions through the hooks until both sides have closed.
pub async fn serve_one(
    listener: &TcpListener,
    server: std::net::SocketAddr,
) -> std::io::Result<Report> {
    let (client, _) = listener.accept().await?;
    let upstream = TcpStream::connect(server).await?;
    client.set_nodelay(true)?;
    upstream.set_nodelay(true)?;
    let report = Arc::new(Mutex::new(Report::default()));
    let (client_in, client_out) = client.into_split();
    let (server_in, server_out) = upstream.into_split();
    let (r1, r2) = (report.clone(), report.clone());
    // A task per direction: each waits on its own socket, and a full socket one way never
    // stalls the other.
    let up = tokio::spawn(pump(client_in, server_out, move |p| log_chat(p, &r1)));
    let down = tokio::spawn(pump(server_in, client_out, move |p| double_money(p, &r2)));
    let (up, down) = (up.await?, down.await?);
    let mut report = report.lock().expect("no panics while held").clone();
    report.forwarded = (up?, down?);
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
