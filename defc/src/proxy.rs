//! `defc proxy`: a TERA proxy between a game client and its server, thin over the runtime's
//! `tera::proxy::Proxy` with a protocol loaded at run time; `--log FILE` writes each packet as a
//! JSON line.

use std::fs::File;
use std::io::{LineWriter, Write};
use std::net::{SocketAddr, ToSocketAddrs};
use std::path::Path;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use def_runtime::Options;
use def_runtime::tera::dispatch::{Action, Direction, Dispatch, HookOptions};
use def_runtime::tera::dynamic::{LoadOptions, Protocol};
use def_runtime::tera::proxy::{Closed, Proxy, Sender};
use def_runtime::tera::session::KeyMixing;
use serde_json::{Map, Value};

use crate::tera::fail;

/// The options of `defc proxy`.
pub struct Args<'a> {
    /// Where clients connect.
    pub listen: &'a str,
    /// The server.
    pub upstream: &'a str,
    /// The definitions folder.
    pub defs: &'a Path,
    /// The opcode map.
    pub map: &'a Path,
    /// `deprecated.json`.
    pub deprecated: Option<&'a Path>,
    /// The patch: current versions and the cipher's key mixing.
    pub patch: Option<u32>,
    /// The platform whose files override the plain ones.
    pub platform: def_parser::ast::Platform,
    /// Opcodes whose packets carry 8 bytes of padding after the header.
    pub padding_opcodes: Vec<u16>,
    /// No handshake, no cipher.
    pub plaintext: bool,
    /// The JSON Lines log.
    pub log: Option<&'a Path>,
}

/// The first address `addr` resolves to (`what` names it in errors).
fn address(addr: &str, what: &str) -> Result<SocketAddr, String> {
    addr.to_socket_addrs()
        .map_err(|e| format!("{what} {addr}: {e}"))?
        .next()
        .ok_or_else(|| format!("{what} {addr}: no address"))
}

/// The log line of one packet: `{"dir", "opcode", "name", "version", "object", "len"}`, and
/// `"error"` when there is no object.
pub fn log_line(protocol: &Protocol, direction: Direction, packet: &[u8]) -> String {
    let opcode = def_runtime::tera::opcode(packet);
    let name = opcode.and_then(|o| protocol.name_of(o));
    let message = opcode.and_then(|o| protocol.message(o));
    let mut line = Map::new();
    let dir = match direction {
        Direction::ToServer => "c2s",
        Direction::ToClient => "s2c",
    };
    line.insert("dir".into(), dir.into());
    line.insert("opcode".into(), opcode.map_or(Value::Null, Value::from));
    line.insert("name".into(), name.map_or(Value::Null, Value::from));
    line.insert(
        "version".into(),
        message.map_or(Value::Null, |m| m.definition.version().into()),
    );
    let (object, error) = match (opcode, message) {
        (Some(_), Some(m)) => {
            match m
                .definition
                .decode_json(packet, Options::new().padding(m.padding))
            {
                Ok(v) => (v, None),
                Err(e) => (Value::Null, Some(e.to_string())),
            }
        }
        (Some(o), None) => (
            Value::Null,
            Some(match name {
                Some(n) => format!("no current definition of {n}"),
                None => format!("opcode {o} is not in the map"),
            }),
        ),
        (None, _) => (
            Value::Null,
            Some(String::from("packet shorter than its header")),
        ),
    };
    line.insert("object".into(), object);
    line.insert("len".into(), packet.len().into());
    if let Some(e) = error {
        line.insert("error".into(), e.into());
    }
    crate::out::json(Value::Object(line).to_string())
}

/// `defc proxy --listen ADDR --upstream ADDR --defs DIR --map FILE [--deprecated FILE]
/// [--patch N] [--plaintext] [--log FILE]`.
pub fn run(a: &Args<'_>) -> ExitCode {
    match serve(a) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(e),
    }
}

fn serve(a: &Args<'_>) -> Result<(), String> {
    let upstream = address(a.upstream, "upstream")?;
    let listen = address(a.listen, "listen")?;
    let version = a
        .map
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(def_parser::protocol::map_version)
        .unwrap_or(0);
    let o = LoadOptions {
        patch: a.patch,
        platform: a.platform,
        padding_opcodes: a.padding_opcodes.clone(),
        ..LoadOptions::default()
    };
    let protocol = Arc::new(
        Protocol::load_files(a.defs, a.map, a.deprecated, version, &o)
            .map_err(|e| e.to_string())?,
    );
    let log = match a.log {
        Some(p) => Some(Arc::new(Mutex::new(LineWriter::new(
            File::create(p).map_err(|e| format!("{}: {e}", p.display()))?,
        )))),
        None => None,
    };
    let p = protocol.clone();
    let make = move |_: &Sender| {
        let mut d = Dispatch::for_protocol(p.clone(), Options::new());
        if let Some(log) = &log {
            let (p, log) = (p.clone(), log.clone());
            // First of all hooks, on real packets as they arrived.
            d.all(HookOptions::new().order(i32::MIN), move |cx, packet| {
                let line = log_line(&p, cx.direction(), packet);
                let mut w = log.lock().unwrap_or_else(|e| e.into_inner());
                // A log that cannot be written does not stop the traffic.
                let _ = writeln!(w, "{line}");
                Action::Pass
            });
        }
        d
    };
    let mut proxy = Proxy::new(upstream, make).on_close(report);
    proxy = if a.plaintext {
        proxy.plaintext()
    } else {
        proxy.key_mixing(a.patch.map_or(KeyMixing::FromPatch45, KeyMixing::for_patch))
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .map_err(|e| format!("starting the runtime: {e}"))?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .map_err(|e| format!("listen {listen}: {e}"))?;
        let bound = listener
            .local_addr()
            .map_err(|e| format!("listen {listen}: {e}"))?;
        eprintln!(
            "listening on {bound}, forwarding to {upstream} (protocol {}: {} messages{})",
            protocol.version(),
            protocol.messages().len(),
            if a.plaintext { ", plaintext" } else { "" }
        );
        proxy
            .serve(listener)
            .await
            .map_err(|e| format!("accepting on {bound}: {e}"))
    })
}

/// One line on standard error per connection that ended, and one per hook failure.
fn report(client: SocketAddr, closed: Closed) {
    let how = match &closed.error {
        None => String::from("closed"),
        Some(e) => format!("ended: {e}"),
    };
    eprintln!(
        "{}",
        crate::out::message(&format!(
            "{client}: {how} ({} packets client to server, {} server to client)",
            closed.to_server, closed.to_client
        ))
    );
    for f in &closed.failures {
        eprintln!("{}", crate::out::message(&format!("{client}: {f}")));
    }
}
