//! `defc proxy` run as a process between a fake client and a fake server on 127.0.0.1, with the
//! tera-data definitions and its newest map: a real handshake and the classic cipher on both
//! peers' side (`session::Session`, checked against the JavaScript reference in the runtime's
//! tests), every public vector of a current message sent with its opcode from the map (the `C_`
//! ones by the client, the others by the server), each side's bytes compared with what the
//! other sent, and each line of `--log` compared with its vector: direction, opcode, name,
//! version, length, and the object the JavaScript reference gave. Every socket wait has a
//! timeout, and the process is killed at the end whatever happens.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use def_runtime::tera::dynamic::{LoadOptions, Protocol};
use def_runtime::tera::session::{Cipher, HELLO, KEY_LEN, KeyMixing, Session};
use serde_json::Value;

use crate::support;

const WAIT: Duration = Duration::from_secs(60);

/// The proxy process, killed when dropped.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn timeouts(s: &TcpStream) {
    s.set_read_timeout(Some(WAIT)).unwrap();
    s.set_write_timeout(Some(WAIT)).unwrap();
}

/// A `defc proxy` running towards `server`, with its standard error as lines, and one client
/// connected through it: the client's stream and the server's end of the proxy's upstream.
struct Through {
    _running: Running,
    /// Standard error after the first line, a line at a time (without its line break).
    lines: mpsc::Receiver<String>,
    /// The first line (`listening on ADDR, …`).
    first: String,
    client: TcpStream,
    upstream: TcpStream,
}

/// Starts `defc proxy --listen 127.0.0.1:0 --upstream SERVER --defs DEFS --map MAP --log LOG
/// EXTRA..`, reads the address it listens on from its first line, and connects a client
/// through it.
fn through(server: &TcpListener, defs: &Path, map: &Path, log: &Path, extra: &[&str]) -> Through {
    let mut child = Command::new(env!("CARGO_BIN_EXE_defc"))
        .args(["proxy", "--listen", "127.0.0.1:0", "--upstream"])
        .arg(server.local_addr().unwrap().to_string())
        .arg("--defs")
        .arg(defs)
        .arg("--map")
        .arg(map)
        .arg("--log")
        .arg(log)
        .args(extra)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let running = Running(child);
    let (tx, lines) = mpsc::channel();
    thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let first = lines.recv_timeout(WAIT).expect("defc proxy starts");
    let addr: SocketAddr = first
        .strip_prefix("listening on ")
        .and_then(|r| r.split(',').next())
        .unwrap_or_else(|| panic!("{first}"))
        .parse()
        .unwrap();
    let client = TcpStream::connect_timeout(&addr, WAIT).unwrap();
    timeouts(&client);
    server.set_nonblocking(true).unwrap();
    let end = Instant::now() + WAIT;
    let upstream = loop {
        match server.accept() {
            Ok((s, _)) => break s,
            Err(_) if Instant::now() < end => thread::sleep(Duration::from_millis(5)),
            Err(e) => panic!("the proxy did not connect: {e}"),
        }
    };
    upstream.set_nonblocking(false).unwrap();
    timeouts(&upstream);
    Through {
        _running: running,
        lines,
        first,
        client,
        upstream,
    }
}

fn read_n(s: &mut TcpStream, n: usize) -> Vec<u8> {
    let mut b = vec![0; n];
    s.read_exact(&mut b).unwrap();
    b
}

/// Writes `data` encrypted, in chunks of 1 to 1500 bytes, then shuts down the sending half.
fn send(mut s: TcpStream, data: Vec<u8>, mut cipher: Cipher, mut seed: u64) {
    let mut at = 0;
    while at < data.len() {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let n = (1 + (seed % 1500) as usize).min(data.len() - at);
        let mut chunk = data[at..at + n].to_vec();
        cipher.apply(&mut chunk);
        s.write_all(&chunk).unwrap();
        at += n;
    }
    s.shutdown(Shutdown::Write).unwrap();
}

fn receive(mut s: TcpStream, mut cipher: Cipher) -> Vec<u8> {
    let mut got = Vec::new();
    s.read_to_end(&mut got).unwrap();
    cipher.apply(&mut got);
    got
}

/// One expected log line: direction, opcode, name, version, length, and the object when the
/// packet's definition is the one the proxy decodes with (`None`: not compared).
struct Expected {
    dir: &'static str,
    opcode: u16,
    name: Option<String>,
    version: Option<u32>,
    object: Option<Value>,
    len: usize,
}

/// An opcode the map does not have: the vectors of messages without an opcode travel with it.
const NOT_IN_MAP: u16 = 0xfffe;

#[test]
fn defc_proxy_carries_every_vector_and_logs_the_current_ones_with_their_objects() {
    let Some((text, defs)) = support::public_vectors() else {
        return;
    };
    let Some(maps) = support::tera_data("maps") else {
        return;
    };
    let map = maps.join("protocol.387463.map");
    // Which definition is current for each message, and its opcode: what the log must name.
    let protocol = Protocol::load(
        maps.parent().unwrap(),
        387463,
        &LoadOptions {
            ..LoadOptions::default()
        },
    )
    .unwrap();
    let current: HashMap<String, u16> = protocol
        .messages()
        .iter()
        .map(|m| {
            (
                format!("{}.{}.def", m.definition.name(), m.definition.version()),
                m.opcode,
            )
        })
        .collect();
    // A message with padded vectors is a padded opcode of this stream (`--padding-opcodes`).
    // Every vector goes through; the log's object is compared for those whose definition is
    // the current one and whose padding is their opcode's (a real stream holds only those).
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut padded_files: HashMap<&str, bool> = HashMap::new();
    for v in &lines {
        let padded = v["padding"].as_bool().unwrap();
        padded_files
            .entry(v["def"].as_str().unwrap())
            .and_modify(|any| *any |= padded)
            .or_insert(padded);
    }
    let padded: Vec<u16> = padded_files
        .iter()
        .filter(|&(_, &any)| any)
        .filter_map(|(file, _)| current.get(*file).copied())
        .collect();
    assert!(!padded.is_empty(), "the vectors hold padded packets");
    let (mut up, mut down) = (Vec::new(), Vec::new());
    let (mut want_up, mut want_down) = (Vec::new(), Vec::new());
    let mut compared = 0;
    for v in &lines {
        let file = v["def"].as_str().unwrap();
        let name = file.split('.').next().unwrap().to_string();
        let opcode = protocol.opcode_of(&name);
        let same = current.contains_key(file)
            && opcode.is_some_and(|o| v["padding"].as_bool().unwrap() == padded.contains(&o));
        compared += usize::from(same);
        let opcode = opcode.unwrap_or(NOT_IN_MAP);
        let mut bytes = hex::decode(v["hex"].as_str().unwrap()).unwrap();
        bytes[2..4].copy_from_slice(&opcode.to_le_bytes());
        let (stream, want, dir) = if name.starts_with("C_") {
            (&mut up, &mut want_up, "c2s")
        } else {
            (&mut down, &mut want_down, "s2c")
        };
        let message = protocol.message(opcode);
        want.push(Expected {
            dir,
            opcode,
            name: message.map(|_| name),
            version: message.map(|m| m.definition.version()),
            object: same.then(|| v["object"].clone()),
            len: bytes.len(),
        });
        stream.extend(bytes);
    }
    assert_eq!(want_up.len() + want_down.len(), lines.len(), "every vector");
    eprintln!(
        "{} vectors through the proxy, {compared} of them logged with their objects compared",
        lines.len()
    );
    assert!(
        compared > 2000 && want_up.len() > 1000 && want_down.len() > 1000,
        "{compared} compared of {} and {} packets",
        want_up.len(),
        want_down.len()
    );

    let server = TcpListener::bind("127.0.0.1:0").unwrap();
    let log = std::env::temp_dir().join(format!("defc-proxy-{}.jsonl", std::process::id()));
    let padding = padded
        .iter()
        .map(u16::to_string)
        .collect::<Vec<_>>()
        .join(",");
    let Through {
        _running,
        lines: rx,
        mut client,
        mut upstream,
        ..
    } = through(&server, &defs, &map, &log, &["--padding-opcodes", &padding]);

    // The handshake, each key checked as it passes.
    let key = |b: u8| -> [u8; KEY_LEN] { std::array::from_fn(|i| (i as u8).wrapping_mul(b)) };
    let (c1, s1, c2, s2) = (key(3), key(5), key(7), key(11));
    upstream.write_all(&HELLO).unwrap();
    assert_eq!(read_n(&mut client, 4), HELLO);
    client.write_all(&c1).unwrap();
    assert_eq!(read_n(&mut upstream, KEY_LEN), c1);
    upstream.write_all(&s1).unwrap();
    assert_eq!(read_n(&mut client, KEY_LEN), s1);
    client.write_all(&c2).unwrap();
    assert_eq!(read_n(&mut upstream, KEY_LEN), c2);
    upstream.write_all(&s2).unwrap();
    assert_eq!(read_n(&mut client, KEY_LEN), s2);
    let session = Session::new([&c1, &c2], [&s1, &s2], KeyMixing::FromPatch45);

    let (c_tx, s_tx) = (client.try_clone().unwrap(), upstream.try_clone().unwrap());
    let (up2, down2) = (up.clone(), down.clone());
    let c2s = session.client_to_server.clone();
    let s2c = session.server_to_client.clone();
    let senders = [
        thread::spawn(move || send(c_tx, up2, c2s, 17)),
        thread::spawn(move || send(s_tx, down2, s2c, 29)),
    ];
    let c2s = session.client_to_server.clone();
    let server_side = thread::spawn(move || receive(upstream, c2s));
    let client_got = receive(client, session.server_to_client.clone());
    let server_got = server_side.join().unwrap();
    for s in senders {
        s.join().unwrap();
    }
    assert!(
        server_got == up,
        "the server got the client's stream changed"
    );
    assert!(
        client_got == down,
        "the client got the server's stream changed"
    );

    // The connection's end is reported once the proxy is done with it; the log is written by
    // then.
    let closed = rx
        .recv_timeout(WAIT)
        .expect("the connection's end is reported");
    assert!(
        closed.ends_with(&format!(
            ": closed ({} packets client to server, {} server to client)",
            want_up.len(),
            want_down.len()
        )),
        "{closed}"
    );
    let text = std::fs::read_to_string(&log).unwrap();
    let _ = std::fs::remove_file(&log);
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), want_up.len() + want_down.len());
    let mut expected = [want_up.iter(), want_down.iter()];
    let mut failed = 0;
    for line in &lines {
        let keys: Vec<&str> = line
            .as_object()
            .unwrap()
            .keys()
            .map(|k| k.as_str())
            .collect();
        assert_eq!(
            keys[..6],
            ["dir", "opcode", "name", "version", "object", "len"]
        );
        assert!(
            keys.len() == 6 || (keys[6..] == ["error"] && line["object"].is_null()),
            "{line}"
        );
        let which = usize::from(line["dir"] == "s2c");
        let want = expected[which].next().expect("no more lines than packets");
        assert_eq!(line["dir"], want.dir);
        assert_eq!(line["opcode"], want.opcode);
        assert_eq!(line["name"], serde_json::json!(want.name));
        assert_eq!(line["version"], serde_json::json!(want.version));
        assert_eq!(line["len"], want.len);
        let Some(object) = &want.object else {
            continue;
        };
        if line["object"] != *object {
            failed += 1;
            if failed < 5 {
                eprintln!(
                    "{:?}.{:?}: logged {}, the vector has {object}",
                    want.name, want.version, line["object"]
                );
            }
        }
    }
    assert_eq!(failed, 0, "log objects that differ from their vector's");
}

#[test]
fn defc_proxy_logs_unknown_opcodes_with_an_error_and_forwards_them() {
    let Some(defs) = support::tera_data("definitions") else {
        return;
    };
    let Some(maps) = support::tera_data("maps") else {
        return;
    };
    let server = TcpListener::bind("127.0.0.1:0").unwrap();
    let log = std::env::temp_dir().join(format!("defc-proxy-u-{}.jsonl", std::process::id()));
    let map = maps.join("protocol.387463.map");
    let Through {
        _running,
        lines: rx,
        first,
        mut client,
        mut upstream,
    } = through(&server, &defs, &map, &log, &["--plaintext"]);
    assert!(first.ends_with(", plaintext)"), "{first}");
    // An opcode no map entry has, with a body of a control character.
    let packet = [7u8, 0, 0xfe, 0xff, 0x1b, 0x9b, 0];
    client.write_all(&packet).unwrap();
    client.shutdown(Shutdown::Write).unwrap();
    assert_eq!(read_n(&mut upstream, 7), packet);
    upstream.shutdown(Shutdown::Write).unwrap();
    let mut rest = Vec::new();
    client.read_to_end(&mut rest).unwrap();
    let closed = rx.recv_timeout(WAIT).expect("the end is reported");
    assert!(closed.contains(": closed (1 packets"), "{closed}");
    let text = std::fs::read_to_string(&log).unwrap();
    let _ = std::fs::remove_file(&log);
    let line: Value = serde_json::from_str(text.trim_end()).unwrap();
    assert_eq!(
        line,
        serde_json::json!({"dir": "c2s", "opcode": 0xfffe, "name": null, "version": null,
            "object": null, "len": 7, "error": "opcode 65534 is not in the map"})
    );
}
