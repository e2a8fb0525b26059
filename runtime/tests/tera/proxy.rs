//! The proxy between a fake client and a fake server on 127.0.0.1, both written with blocking
//! std sockets (every read and write under a timeout, so that no test can hang) and doing the real
//! handshake and cipher on their side with `session::Session` (itself checked against the
//! JavaScript reference in `session.rs`). What each side receives is decrypted with its own
//! keystream and compared byte for byte with what the other sent, or with what hooks were
//! expected to make of it, written out by hand.

#![cfg(feature = "proxy")]

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use def_runtime::Options;
use def_runtime::tera::dispatch::{Action, Direction, Dispatch, Filter, HookOptions};
use def_runtime::tera::protocol::OpcodeMap;
use def_runtime::tera::proxy::{Closed, Proxy, ProxyError, Sender};
use def_runtime::tera::session::{Cipher, HELLO, HandshakeError, KEY_LEN, KeyMixing, Session};

use crate::rng::Rng;
use crate::serve::serve_in_thread;
use crate::support;

/// The longest any socket operation of a test may wait.
const WAIT: Duration = Duration::from_secs(30);

/// A proxy serving on 127.0.0.1 in a thread of its own, in front of a fake server's listener.
struct Harness {
    proxy: SocketAddr,
    server: TcpListener,
    closed: Arc<(Mutex<Vec<Closed>>, Condvar)>,
}

impl Harness {
    /// `make` builds the proxy from the fake server's address.
    fn start(make: impl FnOnce(SocketAddr) -> Proxy) -> Harness {
        let server = TcpListener::bind("127.0.0.1:0").unwrap();
        server.set_nonblocking(true).unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let proxy_addr = listener.local_addr().unwrap();
        let closed = Arc::new((Mutex::new(Vec::new()), Condvar::new()));
        let sink = closed.clone();
        let proxy = make(server.local_addr().unwrap()).on_close(move |_, c| {
            sink.0.lock().unwrap().push(c);
            sink.1.notify_all();
        });
        serve_in_thread(proxy, listener);
        Harness {
            proxy: proxy_addr,
            server,
            closed,
        }
    }

    /// A client connected to the proxy, and the server's side of the proxy's connection.
    fn connect(&self) -> (TcpStream, TcpStream) {
        let client = TcpStream::connect_timeout(&self.proxy, WAIT).unwrap();
        timeouts(&client);
        (client, self.accept())
    }

    /// The server's side of the proxy's next connection.
    fn accept(&self) -> TcpStream {
        let end = Instant::now() + WAIT;
        loop {
            match self.server.accept() {
                Ok((s, _)) => {
                    s.set_nonblocking(false).unwrap();
                    timeouts(&s);
                    return s;
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock && Instant::now() < end => {
                    thread::sleep(Duration::from_millis(2))
                }
                Err(e) => panic!("the proxy did not connect to the server: {e}"),
            }
        }
    }

    /// How the next connection to end ended.
    fn next_closed(&self) -> Closed {
        let (m, cv) = &*self.closed;
        let mut list = m.lock().unwrap();
        let end = Instant::now() + WAIT;
        while list.is_empty() {
            let left = end.saturating_duration_since(Instant::now());
            assert!(!left.is_zero(), "no connection ended in time");
            list = cv.wait_timeout(list, left).unwrap().0;
        }
        list.remove(0)
    }
}

fn timeouts(s: &TcpStream) {
    s.set_read_timeout(Some(WAIT)).unwrap();
    s.set_write_timeout(Some(WAIT)).unwrap();
    s.set_nodelay(true).unwrap();
}

fn read_n(s: &mut TcpStream, n: usize) -> Vec<u8> {
    let mut b = vec![0; n];
    s.read_exact(&mut b).unwrap();
    b
}

/// The server's and the client's halves of a real handshake through the proxy: each side's
/// session (the client's and the server's are the same keystreams).
fn handshake(client: &mut TcpStream, server: &mut TcpStream, rng: &mut Rng) -> Session {
    let (c1, s1, c2, s2) = (rng.bytes(), rng.bytes(), rng.bytes(), rng.bytes());
    server.write_all(&HELLO).unwrap();
    assert_eq!(read_n(client, 4), HELLO);
    client.write_all(&c1).unwrap();
    assert_eq!(
        read_n(server, KEY_LEN),
        c1,
        "the client's first key passes unchanged"
    );
    server.write_all(&s1).unwrap();
    assert_eq!(read_n(client, KEY_LEN), s1);
    client.write_all(&c2).unwrap();
    assert_eq!(read_n(server, KEY_LEN), c2);
    server.write_all(&s2).unwrap();
    assert_eq!(read_n(client, KEY_LEN), s2);
    Session::new([&c1, &c2], [&s1, &s2], KeyMixing::FromPatch45)
}

/// Writes `data` in random chunks (each encrypted with `cipher` when there is one), then shuts
/// down the sending half.
fn send(mut s: TcpStream, data: Vec<u8>, mut cipher: Option<Cipher>, seed: u64) {
    let mut rng = Rng(seed);
    let mut at = 0;
    while at < data.len() {
        let n = (1 + rng.below(3000)).min(data.len() - at);
        let mut chunk = data[at..at + n].to_vec();
        if let Some(c) = &mut cipher {
            c.apply(&mut chunk);
        }
        s.write_all(&chunk).unwrap();
        at += n;
    }
    s.shutdown(Shutdown::Write).unwrap();
}

/// Reads until the other side closes, decrypting with `cipher`.
fn receive(s: &mut TcpStream, cipher: Option<Cipher>) -> Vec<u8> {
    let mut got = Vec::new();
    s.read_to_end(&mut got).unwrap();
    if let Some(mut c) = cipher {
        c.apply(&mut got);
    }
    got
}

/// The client sends `up` and the server `down`, at once, each in random chunks; returns what
/// the server and the client received. With `server_waits`, the server reads the whole of `up`
/// (until the client's half-close reaches it) before it sends anything.
fn exchange(
    client: TcpStream,
    server: TcpStream,
    session: Option<Session>,
    up: Vec<u8>,
    down: Vec<u8>,
    server_waits: bool,
) -> (Vec<u8>, Vec<u8>) {
    let (c_send, c_recv, s_send, s_recv) = match session {
        Some(s) => (
            Some(s.client_to_server.clone()),
            Some(s.server_to_client.clone()),
            Some(s.server_to_client),
            Some(s.client_to_server),
        ),
        None => (None, None, None, None),
    };
    let client_tx = client.try_clone().unwrap();
    let up_thread = thread::spawn(move || send(client_tx, up, c_send, 7));
    let server_thread = thread::spawn(move || {
        let mut server = server;
        let tx = server.try_clone().unwrap();
        if server_waits {
            let got = receive(&mut server, s_recv);
            send(tx, down, s_send, 11);
            got
        } else {
            let down_thread = thread::spawn(move || send(tx, down, s_send, 11));
            let got = receive(&mut server, s_recv);
            down_thread.join().unwrap();
            got
        }
    });
    let mut client = client;
    let client_got = receive(&mut client, c_recv);
    up_thread.join().unwrap();
    (server_thread.join().unwrap(), client_got)
}

/// The public vectors as two streams: the `C_` messages' packets (client to server) and the
/// others' (server to client).
fn vector_streams() -> Option<(Vec<u8>, usize, Vec<u8>, usize)> {
    let (text, _) = support::public_vectors()?;
    let (mut up, mut down, mut n_up, mut n_down) = (Vec::new(), Vec::new(), 0, 0);
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let bytes = hex::decode(v["hex"].as_str().unwrap()).unwrap();
        if v["def"].as_str().unwrap().starts_with("C_") {
            up.extend(bytes);
            n_up += 1;
        } else {
            down.extend(bytes);
            n_down += 1;
        }
    }
    Some((up, n_up, down, n_down))
}

const NO_NAMES: OpcodeMap = OpcodeMap::new(&[], &[], &[]);

/// A hook on every packet that only counts them, per direction: every packet then takes the
/// dispatcher's hooked path (a copy, the hook, the bytes forwarded as they came).
fn counting(counts: Arc<[AtomicU64; 2]>) -> impl Fn(&Sender) -> Dispatch + Send + Sync {
    move |_: &Sender| {
        let mut d = Dispatch::new(NO_NAMES, Options::new());
        let counts = counts.clone();
        d.all(HookOptions::new(), move |cx, _| {
            let i = usize::from(cx.direction() == Direction::ToClient);
            counts[i].fetch_add(1, Ordering::Relaxed);
            Action::Pass
        });
        d
    }
}

#[test]
fn every_public_vector_both_ways_encrypted_byte_for_byte() {
    let Some((up, n_up, down, n_down)) = vector_streams() else {
        return;
    };
    assert!(n_up > 1000 && n_down > 1000, "{n_up} and {n_down} packets");
    let counts = Arc::new([AtomicU64::new(0), AtomicU64::new(0)]);
    let h = Harness::start(|server| Proxy::new(server, counting(counts.clone())));
    let mut rng = Rng(0x5eed);
    for server_waits in [false, true] {
        let (mut client, mut server) = h.connect();
        let session = handshake(&mut client, &mut server, &mut rng);
        let (server_got, client_got) = exchange(
            client,
            server,
            Some(session),
            up.clone(),
            down.clone(),
            server_waits,
        );
        assert!(
            server_got == up,
            "the server got the client's stream changed"
        );
        assert!(
            client_got == down,
            "the client got the server's stream changed"
        );
        let closed = h.next_closed();
        assert!(closed.error.is_none(), "{:?}", closed.error);
        assert!(closed.failures.is_empty());
        assert_eq!(
            (closed.to_server, closed.to_client),
            (n_up as u64, n_down as u64)
        );
    }
    assert_eq!(counts[0].load(Ordering::Relaxed), 2 * n_up as u64);
    assert_eq!(counts[1].load(Ordering::Relaxed), 2 * n_down as u64);
}

#[test]
fn plaintext_mode_carries_the_vectors_unchanged() {
    let Some((up, _, down, _)) = vector_streams() else {
        return;
    };
    let h = Harness::start(|server| {
        Proxy::new(server, |_| Dispatch::new(NO_NAMES, Options::new())).plaintext()
    });
    let (client, server) = h.connect();
    let (server_got, client_got) = exchange(client, server, None, up.clone(), down.clone(), true);
    assert!(server_got == up && client_got == down);
    assert!(h.next_closed().error.is_none());
}

#[test]
fn the_older_key_mixing_and_a_plugged_transform() {
    let Some((up, _, down, _)) = vector_streams() else {
        return;
    };
    // The older mixing: the peers key their sessions with it too.
    let h = Harness::start(|server| {
        Proxy::new(server, |_| Dispatch::new(NO_NAMES, Options::new()))
            .key_mixing(KeyMixing::BeforePatch45)
    });
    let (mut client, mut server) = h.connect();
    let mut rng = Rng(99);
    let (c1, s1, c2, s2) = (rng.bytes(), rng.bytes(), rng.bytes(), rng.bytes());
    server.write_all(&[&HELLO[..], &s1].concat()).unwrap();
    client.write_all(&[c1, c2].concat()).unwrap();
    assert_eq!(read_n(&mut client, 4 + KEY_LEN), [&HELLO[..], &s1].concat());
    assert_eq!(read_n(&mut server, 2 * KEY_LEN), [c1, c2].concat());
    server.write_all(&s2).unwrap();
    assert_eq!(read_n(&mut client, KEY_LEN), s2);
    let session = Session::new([&c1, &c2], [&s1, &s2], KeyMixing::BeforePatch45);
    // The first 1000 packets of the client's stream.
    let cut: usize = def_runtime::tera::framing::packets(&up)
        .take(1000)
        .map(|p| p.unwrap().len())
        .sum();
    let up = up[..cut].to_vec();
    let (server_got, client_got) = exchange(
        client,
        server,
        Some(session),
        up.clone(),
        down.clone(),
        false,
    );
    assert!(server_got == up && client_got == down);
    assert!(h.next_closed().error.is_none());

    // A transform of the user's: every byte XORed with the first byte of the client's first
    // key, each way.
    struct Xor(u8);
    impl def_runtime::tera::proxy::Transform for Xor {
        fn decrypt(&mut self, data: &mut [u8]) {
            data.iter_mut().for_each(|b| *b ^= self.0);
        }
        fn encrypt(&mut self, data: &mut [u8]) {
            data.iter_mut().for_each(|b| *b ^= self.0);
        }
    }
    let seen = Arc::new(Mutex::new(Vec::new()));
    let seen2 = seen.clone();
    let h = Harness::start(|server| {
        Proxy::new(server, move |_| {
            let seen = seen2.clone();
            let mut d = Dispatch::new(NO_NAMES, Options::new());
            d.all(HookOptions::new(), move |_, p| {
                seen.lock().unwrap().push(p.clone());
                Action::Pass
            });
            d
        })
        .transform(|h| {
            let k = h.keys().expect("called once the keys are in")[0][0];
            [Box::new(Xor(k)), Box::new(Xor(k))]
        })
    });
    let (mut client, mut server) = h.connect();
    let mut rng = Rng(5);
    // The keys of a real handshake, though the transform uses only one byte of them.
    let _ = handshake(&mut client, &mut server, &mut rng);
    let mut rng = Rng(5);
    let k = rng.bytes::<KEY_LEN>()[0];
    let packet = [6u8, 0, 0x34, 0x12, 0xab, 0xcd];
    let xored: Vec<u8> = packet.iter().map(|b| b ^ k).collect();
    let (server_got, _) = exchange(client, server, None, xored.clone(), Vec::new(), false);
    assert_eq!(server_got, xored, "re-encrypted by the transform");
    assert_eq!(
        *seen.lock().unwrap(),
        [packet.to_vec()],
        "the hook saw the plaintext"
    );
    assert!(h.next_closed().error.is_none());
}

/// A packet of `opcode` with `body`.
fn packet(opcode: u16, body: &[u8]) -> Vec<u8> {
    let mut p = ((body.len() + 4) as u16).to_le_bytes().to_vec();
    p.extend_from_slice(&opcode.to_le_bytes());
    p.extend_from_slice(body);
    p
}

const MAP: OpcodeMap = OpcodeMap::new(
    &[
        ("C_CHANGE", 10),
        ("C_PANIC", 13),
        ("C_PING", 12),
        ("C_SECRET", 11),
        ("S_TICK", 20),
    ],
    &[
        (10, "C_CHANGE"),
        (11, "C_SECRET"),
        (12, "C_PING"),
        (13, "C_PANIC"),
        (20, "S_TICK"),
    ],
    &[],
);

/// Hooks that change `C_CHANGE` (its first body byte + 1), silence `C_SECRET`, answer
/// `C_PING` with a fake `S_PONG` to the client and announce it with a fake `C_NOTE` to the
/// server, and panic on `C_PANIC` (the first time it fires only counts: the hook stays).
fn mod_dispatch() -> Dispatch {
    let mut d = Dispatch::new(MAP, Options::new());
    d.raw("C_CHANGE", HookOptions::new(), |_, p| {
        p[4] = p[4].wrapping_add(1);
        Action::Modified
    })
    .unwrap();
    d.raw("C_SECRET", HookOptions::new(), |_, _| Action::Silence)
        .unwrap();
    d.raw("C_PING", HookOptions::new(), |cx, p| {
        let n = p[4];
        cx.send(Direction::ToClient, packet(30, &[n, n]));
        cx.send(Direction::ToServer, packet(31, &[n]));
        Action::Pass
    })
    .unwrap();
    d.raw("C_PANIC", HookOptions::new(), |_, p| {
        p[4] = 0xee; // dropped with the panic
        panic!("a mod's bug")
    })
    .unwrap();
    // A hook that sees silenced packets too still runs after the silence.
    d.raw(
        "C_SECRET",
        HookOptions::new().order(1).filter(Filter {
            silenced: None,
            ..Filter::default()
        }),
        |cx, _| {
            cx.send(Direction::ToClient, packet(32, &[]));
            Action::Pass
        },
    )
    .unwrap();
    d
}

#[test]
fn hooks_modify_silence_inject_and_a_panic_does_not_end_the_connection() {
    for plaintext in [false, true] {
        let h = Harness::start(|server| {
            let p = Proxy::new(server, |_| mod_dispatch());
            if plaintext { p.plaintext() } else { p }
        });
        let (mut client, mut server) = h.connect();
        let session = (!plaintext).then(|| handshake(&mut client, &mut server, &mut Rng(3)));
        let up = [
            packet(10, &[1, 2]),
            packet(11, b"password"),
            packet(99, &[]),
            packet(12, &[7]),
            packet(13, &[5]),
            packet(13, &[6]),
            packet(10, &[0xff]),
        ]
        .concat();
        let down = [packet(20, &[1]), packet(20, &[2])].concat();
        let (server_got, client_got) = exchange(client, server, session, up, down.clone(), true);
        // Written out by hand: the change, the silence, the fake before the ping, the packets
        // the panicking hook saw forwarded as they came, the wrapping change.
        let want_up = [
            packet(10, &[2, 2]),
            packet(99, &[]),
            packet(31, &[7]),
            packet(12, &[7]),
            packet(13, &[5]),
            packet(13, &[6]),
            packet(10, &[0x00]),
        ]
        .concat();
        assert_eq!(server_got, want_up, "plaintext: {plaintext}");
        // The server waits for the client's half-close before sending, so the fakes to the client
        // come first, in the order their packets were read.
        let want_down = [packet(32, &[]), packet(30, &[7, 7]), down].concat();
        assert_eq!(client_got, want_down, "plaintext: {plaintext}");
        let closed = h.next_closed();
        assert!(closed.error.is_none(), "{:?}", closed.error);
        assert_eq!(
            closed.failures.len(),
            1,
            "reported once: {:?}",
            closed.failures
        );
        assert_eq!(closed.failures[0].message, "C_PANIC");
        assert!(closed.failures[0].what.contains("a mod's bug"));
        assert_eq!((closed.to_server, closed.to_client), (7, 2));
    }
}

#[cfg(feature = "dynamic")]
#[test]
fn a_dynamic_protocol_hooked_by_name_and_version() {
    use def_runtime::tera::dynamic::{LoadOptions, Protocol};
    let Some(data) = support::tera_data("maps") else {
        return;
    };
    let data = data.parent().unwrap().to_path_buf();
    let Some((text, _)) = support::public_vectors() else {
        return;
    };
    let protocol = Arc::new(Protocol::load(&data, 387463, &LoadOptions::default()).unwrap());
    let msg = protocol
        .messages()
        .iter()
        .find(|m| m.definition.name() == "S_CHAT")
        .expect("S_CHAT is current");
    let (opcode, version) = (msg.opcode, msg.definition.version());
    // A vector of the current S_CHAT, its opcode set to the map's.
    let file = format!("S_CHAT.{version}.def");
    let v: serde_json::Value = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| {
            v["def"] == file.as_str()
                && v["object"]["message"]
                    .as_str()
                    .is_some_and(|m| !m.is_empty())
        })
        .expect("a vector with a message");
    let mut bytes = hex::decode(v["hex"].as_str().unwrap()).unwrap();
    bytes[2..4].copy_from_slice(&opcode.to_le_bytes());

    let p = protocol.clone();
    let h = Harness::start(move |server| {
        Proxy::new(server, move |_| {
            let mut d = Dispatch::for_protocol(p.clone(), Options::new());
            d.hook_json("S_CHAT", None, HookOptions::new(), |_, obj| {
                obj["message"] = serde_json::Value::from("changed");
                Action::Modified
            })
            .unwrap();
            d
        })
        .plaintext()
    });
    let (client, server) = h.connect();
    let (_, client_got) = exchange(client, server, None, Vec::new(), bytes.clone(), false);
    let got = protocol
        .definition("S_CHAT", version)
        .unwrap()
        .decode_json(&client_got, Options::new())
        .unwrap();
    let mut want = v["object"].clone();
    assert_ne!(want["message"], "changed");
    want["message"] = serde_json::Value::from("changed");
    assert_eq!(got, want);
    assert_eq!(u16::from_le_bytes([client_got[2], client_got[3]]), opcode);
    assert!(h.next_closed().error.is_none());

    // Registration errors: an unknown message, a version the folder does not have.
    let mut d = Dispatch::for_protocol(protocol.clone(), Options::new());
    let err = d
        .hook_json("C_NOT_A_MESSAGE", None, HookOptions::new(), |_, _| {
            Action::Pass
        })
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "the protocol has no message C_NOT_A_MESSAGE"
    );
    let err = d
        .hook_json("S_CHAT", Some(9999), HookOptions::new(), |_, _| {
            Action::Pass
        })
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "the protocol has no definition of S_CHAT version 9999"
    );
    // A generated crate's map has no definitions.
    let mut d = Dispatch::new(MAP, Options::new());
    assert!(
        d.hook_json("C_PING", None, HookOptions::new(), |_, _| Action::Pass)
            .is_err()
    );
}

#[test]
fn garbage_instead_of_a_key_is_refused_and_others_are_served() {
    let h =
        Harness::start(|server| Proxy::new(server, |_| Dispatch::new(NO_NAMES, Options::new())));
    // A client that sends 100 bytes of text where its keys go, then closes.
    let (mut client, mut server) = h.connect();
    server.write_all(&HELLO).unwrap();
    assert_eq!(read_n(&mut client, 4), HELLO);
    client.write_all(&[b'x'; 100]).unwrap();
    client.shutdown(Shutdown::Write).unwrap();
    assert_eq!(read_n(&mut server, 100), [b'x'; 100]);
    // The proxy closes both sides.
    let mut rest = Vec::new();
    server.read_to_end(&mut rest).unwrap();
    assert!(rest.is_empty());
    let closed = h.next_closed();
    match closed.error {
        Some(ProxyError::HandshakeCut {
            direction: Direction::ToServer,
            got: 100,
            needed: 256,
        }) => {}
        other => panic!("{other:?}"),
    }
    // A server whose hello is wrong.
    let (mut client, mut server) = h.connect();
    server.write_all(b"HTTP").unwrap();
    let mut rest = Vec::new();
    client.read_to_end(&mut rest).unwrap();
    let closed = h.next_closed();
    match &closed.error {
        Some(ProxyError::Handshake(HandshakeError::BadHello { got })) => assert_eq!(got, b"HTTP"),
        other => panic!("{other:?}"),
    }
    assert!(closed.error.unwrap().to_string().contains("48 54 54 50"));
    // A client still gets through.
    let (mut client, mut server) = h.connect();
    let session = handshake(&mut client, &mut server, &mut Rng(1));
    let up = packet(10, &[1]);
    let (server_got, _) = exchange(client, server, Some(session), up.clone(), Vec::new(), false);
    assert_eq!(server_got, up);
    assert!(h.next_closed().error.is_none());
}

#[test]
fn a_stream_that_cannot_be_split_ends_its_connection_only() {
    let h = Harness::start(|server| {
        Proxy::new(server, |_| Dispatch::new(NO_NAMES, Options::new())).plaintext()
    });
    let (mut client, mut server) = h.connect();
    // One good packet, then a header of length 2.
    client
        .write_all(&[packet(1, &[9]), vec![2, 0, 0, 0]].concat())
        .unwrap();
    let mut got = Vec::new();
    server.read_to_end(&mut got).unwrap();
    assert_eq!(got, packet(1, &[9]));
    let mut rest = Vec::new();
    let _ = client.read_to_end(&mut rest);
    let closed = h.next_closed();
    let err = closed.error.expect("an error");
    assert_eq!(
        err.to_string(),
        "client to server: packet header at stream offset 5 gives length 2, below the 4-byte header; the stream cannot be split further"
    );
    // The next client is served.
    let (client, server) = h.connect();
    let (server_got, client_got) = exchange(
        client,
        server,
        None,
        packet(1, &[1]),
        packet(2, &[2]),
        false,
    );
    assert_eq!((server_got, client_got), (packet(1, &[1]), packet(2, &[2])));
}

#[test]
fn half_close_from_the_server_and_a_reset_client() {
    let h = Harness::start(|server| {
        Proxy::new(server, |_| Dispatch::new(NO_NAMES, Options::new())).plaintext()
    });
    // The server closes its sending half first; the client goes on sending after that.
    let (mut client, mut server) = h.connect();
    server.write_all(&packet(5, b"bye")).unwrap();
    server.shutdown(Shutdown::Write).unwrap();
    let mut got = Vec::new();
    client.read_to_end(&mut got).unwrap();
    assert_eq!(got, packet(5, b"bye"));
    client.write_all(&packet(6, b"still here")).unwrap();
    assert_eq!(read_n(&mut server, 14), packet(6, b"still here"));
    client.shutdown(Shutdown::Write).unwrap();
    let mut rest = Vec::new();
    server.read_to_end(&mut rest).unwrap();
    assert!(rest.is_empty());
    let closed = h.next_closed();
    assert!(closed.error.is_none());
    assert_eq!((closed.to_server, closed.to_client), (1, 1));

    // A client that resets its connection: the proxy drops the server's.
    let (client, mut server) = h.connect();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .unwrap();
    {
        let _in_rt = rt.enter();
        client.set_nonblocking(true).unwrap();
        let c = tokio::net::TcpStream::from_std(client).unwrap();
        c.set_zero_linger().unwrap();
        drop(c);
    }
    let mut rest = Vec::new();
    // The server sees its connection end (an end of stream or a reset), in time.
    let _ = server.read_to_end(&mut rest);
    assert!(rest.is_empty());
    let closed = h.next_closed();
    assert!(
        matches!(
            closed.error,
            Some(ProxyError::Io {
                direction: Direction::ToServer,
                writing: false,
                ..
            })
        ),
        "{:?}",
        closed.error
    );
}

#[test]
fn a_sender_kept_outside_the_hooks_sends_fakes_both_ways() {
    let slot: Arc<Mutex<Option<Sender>>> = Arc::new(Mutex::new(None));
    let kept = slot.clone();
    let h = Harness::start(move |server| {
        Proxy::new(server, move |sender| {
            *kept.lock().unwrap() = Some(sender.clone());
            let mut d = Dispatch::new(MAP, Options::new());
            // Fakes go through the hooks too: this one marks the fake S_TICKs it sees.
            d.raw(
                "S_TICK",
                HookOptions::new().filter(Filter {
                    fake: Some(true),
                    ..Filter::default()
                }),
                |_, p| {
                    p[4] = 0xfa;
                    Action::Modified
                },
            )
            .unwrap();
            // A sender used inside a hook (whose lock it must not take).
            let inner = sender.clone();
            d.raw("C_PING", HookOptions::new(), move |_, p| {
                assert!(inner.send(Direction::ToClient, packet(21, &[p[4]])));
                Action::Pass
            })
            .unwrap();
            d
        })
    });
    let (mut client, mut server) = h.connect();
    let session = handshake(&mut client, &mut server, &mut Rng(8));
    let (mut to_server, mut from_server) = (
        session.client_to_server.clone(),
        session.server_to_client.clone(),
    );
    let (mut at_server, mut at_client) = (session.client_to_server, session.server_to_client);
    let sender = slot
        .lock()
        .unwrap()
        .clone()
        .expect("made with the connection");
    // Nothing else moves on the connection: the sender's packets are written at once.
    assert!(sender.send(Direction::ToClient, packet(20, &[1])));
    let mut got = read_n(&mut client, 5);
    at_client.apply(&mut got);
    assert_eq!(got, packet(20, &[0xfa]), "through the hooks as a fake");
    assert!(sender.send(Direction::ToServer, packet(10, &[2])));
    let mut got = read_n(&mut server, 5);
    at_server.apply(&mut got);
    assert_eq!(got, packet(10, &[2]));
    // From inside a hook.
    let mut ping = packet(12, &[3]);
    to_server.apply(&mut ping);
    client.write_all(&ping).unwrap();
    let mut got = read_n(&mut client, 5);
    at_client.apply(&mut got);
    assert_eq!(got, packet(21, &[3]));
    let mut got = read_n(&mut server, 5);
    at_server.apply(&mut got);
    assert_eq!(got, packet(12, &[3]));
    // The server's own packets still decrypt after the fakes.
    let mut tick = packet(20, &[4]);
    from_server.apply(&mut tick);
    server.write_all(&tick).unwrap();
    let mut got = read_n(&mut client, 5);
    at_client.apply(&mut got);
    assert_eq!(got, packet(20, &[4]));
    client.shutdown(Shutdown::Write).unwrap();
    server.shutdown(Shutdown::Write).unwrap();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    client.read_to_end(&mut a).unwrap();
    server.read_to_end(&mut b).unwrap();
    let closed = h.next_closed();
    assert!(
        closed.error.is_none() && closed.failures.is_empty(),
        "{closed:?}"
    );
    assert!(
        !sender.send(Direction::ToClient, packet(20, &[5])),
        "the connection is gone"
    );
}
