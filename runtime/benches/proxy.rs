//! Criterion benchmark of the whole proxy over loopback (`tera::proxy`, one current-thread tokio
//! runtime in a thread of its own), in one run:
//!
//! * `stream_*`: the public vectors as one stream (880 kB, 16 549 packets) from a client through
//!   the proxy to a server that reads it, per iteration; plaintext, and encrypted with the classic
//!   cipher (the client's encryption is done before the clock starts; the server only counts
//!   bytes), with no hooks and with 50 hooks on opcodes the stream does not have;
//! * `rtt_*`: one 100-byte packet to an echo server and back, encrypted, directly and through
//!   the proxy. The latency the proxy adds per packet and per traversal is half the difference
//!   of the two round trips; the p50 and p99 of each, from samples of its own, are printed
//!   first.
//!
//! `cargo bench -p def-runtime --bench proxy --features proxy` (needs `../shared`, or
//! `WIRE_SHARED_DIR`).

mod common;
#[path = "../tests/support/serve.rs"]
mod serve;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use def_runtime::Options;
use def_runtime::tera::dispatch::{Action, Dispatch, HookOptions};
use def_runtime::tera::proxy::{Proxy, Sender};
use def_runtime::tera::session::{Cipher, HELLO, KEY_LEN, KeyMixing, Session};
use serve::serve_in_thread;

/// A proxy on 127.0.0.1 in front of `upstream`, served in a thread of its own.
fn start(upstream: SocketAddr, plaintext: bool, hooks: usize) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let addr = listener.local_addr().unwrap();
    let m = common::hooked_map();
    let proxy = Proxy::new(upstream, move |_: &Sender| {
        let mut d = Dispatch::new(m, Options::new());
        for &(name, _) in m.by_name().iter().take(hooks) {
            d.raw(name, HookOptions::new(), |_, _| Action::Silence)
                .unwrap();
        }
        d
    });
    let proxy = if plaintext { proxy.plaintext() } else { proxy };
    serve_in_thread(proxy, listener);
    addr
}

fn key(b: u8) -> [u8; KEY_LEN] {
    std::array::from_fn(|i| (i as u8).wrapping_mul(b) ^ b)
}

/// A client connected to `addr` and the server's side of it (accepted on `server`), handshake
/// done; the session both use.
fn pair(
    server: &TcpListener,
    addr: SocketAddr,
    plaintext: bool,
) -> (TcpStream, TcpStream, Session) {
    let mut client = TcpStream::connect(addr).unwrap();
    let (mut up, _) = server.accept().unwrap();
    for s in [&client, &up] {
        s.set_nodelay(true).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    }
    let (c1, s1, c2, s2) = (key(3), key(5), key(7), key(11));
    if !plaintext {
        up.write_all(&HELLO).unwrap();
        let mut b = [0u8; 4 + 2 * KEY_LEN];
        client.read_exact(&mut b[..4]).unwrap();
        client.write_all(&c1).unwrap();
        up.read_exact(&mut b[..KEY_LEN]).unwrap();
        up.write_all(&s1).unwrap();
        client.read_exact(&mut b[..KEY_LEN]).unwrap();
        client.write_all(&c2).unwrap();
        up.read_exact(&mut b[..KEY_LEN]).unwrap();
        up.write_all(&s2).unwrap();
        client.read_exact(&mut b[..KEY_LEN]).unwrap();
    }
    let session = Session::new([&c1, &c2], [&s1, &s2], KeyMixing::FromPatch45);
    (client, up, session)
}

fn throughput(c: &mut Criterion) {
    let stream = common::public_stream();
    let packets = def_runtime::tera::framing::packets(&stream).count();
    let mut g = c.benchmark_group("proxy");
    g.throughput(Throughput::Elements(packets as u64));
    g.sample_size(20);
    for (plaintext, hooks) in [(true, 0), (false, 0), (false, 50)] {
        let server = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = start(server.local_addr().unwrap(), plaintext, hooks);
        let (mut client, mut up, session) = pair(&server, addr, plaintext);
        let mut cipher: Option<Cipher> = (!plaintext).then(|| session.client_to_server.clone());
        // The server reads each iteration's bytes and says when they are all in.
        let (go, ready) = (mpsc::channel::<usize>(), mpsc::channel::<()>());
        let (go_tx, go_rx) = go;
        let (done_tx, done_rx) = ready;
        thread::spawn(move || {
            let mut buf = vec![0u8; 1 << 16];
            while let Ok(mut left) = go_rx.recv() {
                while left > 0 {
                    let n = up.read(&mut buf).unwrap();
                    assert!(n > 0, "the proxy closed");
                    left -= n;
                }
                done_tx.send(()).unwrap();
            }
        });
        let name = match (plaintext, hooks) {
            (true, _) => String::from("stream_plaintext"),
            (false, h) => format!("stream_encrypted_{h}_hooks"),
        };
        g.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let mut data = stream.clone();
                    if let Some(c) = &mut cipher {
                        c.apply(&mut data);
                    }
                    let start = Instant::now();
                    go_tx.send(data.len()).unwrap();
                    client.write_all(&data).unwrap();
                    done_rx.recv().unwrap();
                    total += start.elapsed();
                }
                total
            })
        });
    }
    g.finish();
}

/// An echo server's side for the round trips: each packet decrypted and sent back encrypted.
fn echo(mut up: TcpStream, session: Session, len: usize) {
    let (mut dec, mut enc) = (session.client_to_server, session.server_to_client);
    thread::spawn(move || {
        let mut buf = vec![0u8; len];
        while up.read_exact(&mut buf).is_ok() {
            dec.apply(&mut buf);
            enc.apply(&mut buf);
            if up.write_all(&buf).is_err() {
                break;
            }
        }
    });
}

/// One round trip of `packet` (the client's ciphers kept between calls).
fn round_trip(client: &mut TcpStream, s: &mut Session, packet: &[u8], buf: &mut [u8]) {
    buf.copy_from_slice(packet);
    s.client_to_server.apply(buf);
    client.write_all(buf).unwrap();
    client.read_exact(buf).unwrap();
    s.server_to_client.apply(buf);
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn latency(c: &mut Criterion) {
    let mut packet = vec![0u8; 100];
    packet[..4].copy_from_slice(&[100, 0, 0x34, 0x12]);
    let server = TcpListener::bind("127.0.0.1:0").unwrap();
    let proxied = start(server.local_addr().unwrap(), false, 0);
    let mut ends = Vec::new();
    for addr in [server.local_addr().unwrap(), proxied] {
        // Directly, the client connects to the echo server itself; the handshake is the same.
        let (client, up, session) = pair(&server, addr, false);
        echo(up, session.clone(), packet.len());
        ends.push((client, session));
    }
    let mut buf = vec![0u8; packet.len()];
    let mut p50 = Vec::new();
    for ((client, session), what) in ends.iter_mut().zip(["direct", "through the proxy"]) {
        let mut samples: Vec<Duration> = (0..20_000)
            .map(|_| {
                let t = Instant::now();
                round_trip(client, session, &packet, &mut buf);
                t.elapsed()
            })
            .collect();
        samples.sort();
        let (a, b) = (percentile(&samples, 0.5), percentile(&samples, 0.99));
        p50.push((a, b));
        println!("round trip {what}: p50 {a:?}, p99 {b:?} (20000 samples)");
    }
    let half = |x: Duration, y: Duration| x.saturating_sub(y) / 2;
    println!(
        "added per packet and traversal: p50 {:?}, p99 {:?}",
        half(p50[1].0, p50[0].0),
        half(p50[1].1, p50[0].1)
    );
    let mut g = c.benchmark_group("proxy");
    g.throughput(Throughput::Elements(1));
    for ((client, session), name) in ends.iter_mut().zip(["rtt_direct", "rtt_proxied"]) {
        g.bench_function(name, |b| {
            b.iter(|| round_trip(client, session, &packet, &mut buf))
        });
    }
    g.finish();
}

criterion_group!(benches, latency, throughput);
criterion_main!(benches);
