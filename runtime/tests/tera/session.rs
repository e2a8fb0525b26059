//! The session cipher against vectors made by the public JavaScript implementation (TERA
//! Toolbox's `tera-network-proxy` `Session` over `tera-network-crypto`'s cipher, run under node):
//! random keys, both key mixings, both directions, chunks of 1 to 463 bytes so that words split
//! across calls; and the handshake that leads to it, fed in every split.

use def_runtime::tera::session::{Cipher, HELLO, Handshake, HandshakeError, KeyMixing, Session};
use serde_json::Value;

fn vectors() -> Value {
    serde_json::from_str(include_str!("session-vectors.json")).unwrap()
}

fn key(v: &Value) -> [u8; 128] {
    hex::decode(v.as_str().unwrap())
        .unwrap()
        .try_into()
        .unwrap()
}

fn mixing(s: &Value) -> KeyMixing {
    if s["before_patch_45"].as_bool().unwrap() {
        KeyMixing::BeforePatch45
    } else {
        KeyMixing::FromPatch45
    }
}

/// Runs one direction's chunks through `cipher`, each compared with the reference's output.
fn check(cipher: &mut Cipher, chunks: &Value, what: &str) -> usize {
    let mut bytes = 0;
    for (i, c) in chunks.as_array().unwrap().iter().enumerate() {
        let mut data = hex::decode(c[0].as_str().unwrap()).unwrap();
        let want = hex::decode(c[1].as_str().unwrap()).unwrap();
        cipher.apply(&mut data);
        assert_eq!(hex::encode(&data), hex::encode(&want), "{what}: chunk {i}");
        bytes += data.len();
    }
    bytes
}

#[test]
fn every_vector_in_every_chunking_of_the_reference() {
    let v = vectors();
    let sessions = v["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 8);
    let mut eras = [0, 0];
    for (n, s) in sessions.iter().enumerate() {
        let k: Vec<[u8; 128]> = s["keys"].as_array().unwrap().iter().map(key).collect();
        // Exchanged as client 1, server 1, client 2, server 2.
        let mut session = Session::new([&k[0], &k[2]], [&k[1], &k[3]], mixing(s));
        let c2s = check(
            &mut session.client_to_server,
            &s["c2s"],
            &format!("session {n} c2s"),
        );
        let s2c = check(
            &mut session.server_to_client,
            &s["s2c"],
            &format!("session {n} s2c"),
        );
        assert!(c2s > 0 && s2c > 0);
        eras[usize::from(mixing(s) == KeyMixing::BeforePatch45)] += 1;
    }
    assert_eq!(eras, [4, 4], "both key mixings");
}

#[test]
fn the_same_stream_in_one_call_or_byte_by_byte() {
    let v = vectors();
    let s = &v["sessions"][1];
    let k: Vec<[u8; 128]> = s["keys"].as_array().unwrap().iter().map(key).collect();
    let (mut whole, mut wanted) = (Vec::new(), Vec::new());
    for c in s["s2c"].as_array().unwrap() {
        whole.extend(hex::decode(c[0].as_str().unwrap()).unwrap());
        wanted.extend(hex::decode(c[1].as_str().unwrap()).unwrap());
    }
    let new = || Session::new([&k[0], &k[2]], [&k[1], &k[3]], mixing(s)).server_to_client;
    let mut one = whole.clone();
    new().apply(&mut one);
    assert_eq!(one, wanted);
    let mut bytewise = whole.clone();
    let mut c = new();
    for b in bytewise.chunks_mut(1) {
        c.apply(b);
    }
    assert_eq!(bytewise, wanted);
    // Empty calls change nothing.
    let mut c = new();
    let mut mixed = whole;
    c.apply(&mut []);
    let (a, b) = mixed.split_at_mut(3);
    c.apply(a);
    c.apply(&mut []);
    c.apply(b);
    assert_eq!(mixed, wanted);
}

#[test]
fn the_handshake_gives_the_session_of_its_keys_in_any_split() {
    let v = vectors();
    let s = &v["sessions"][5];
    let k: Vec<[u8; 128]> = s["keys"].as_array().unwrap().iter().map(key).collect();
    let server: Vec<u8> = [&HELLO[..], &k[1], &k[3], b"encrypted"].concat();
    let client: Vec<u8> = [&k[0][..], &k[2], b"more"].concat();
    for step in [1, 3, 4, 127, 128, 129, 1000] {
        let mut h = Handshake::new(mixing(s));
        let mut server_rest = Vec::new();
        for c in server.chunks(step) {
            let n = h.push_server(c).unwrap();
            server_rest.extend_from_slice(&c[n..]);
        }
        let mut client_rest = Vec::new();
        for c in client.chunks(step) {
            let n = h.push_client(c);
            client_rest.extend_from_slice(&c[n..]);
        }
        assert_eq!(
            (&server_rest[..], &client_rest[..]),
            (&b"encrypted"[..], &b"more"[..])
        );
        let mut session = h.session().expect("all four keys");
        let first = &s["c2s"][0];
        let mut data = hex::decode(first[0].as_str().unwrap()).unwrap();
        session.client_to_server.apply(&mut data);
        assert_eq!(
            hex::encode(data),
            first[1].as_str().unwrap(),
            "split {step}"
        );
    }
}

#[test]
fn a_handshake_is_incomplete_until_both_sides_sent_both_keys() {
    let mut h = Handshake::new(KeyMixing::FromPatch45);
    assert_eq!(h.push_server(&HELLO), Ok(4));
    assert!(h.session().is_none());
    assert_eq!(h.push_server(&[7; 300]), Ok(256));
    assert!(h.session().is_none());
    assert_eq!(h.push_client(&[9; 255]), 255);
    assert!(h.session().is_none());
    assert_eq!(h.push_client(&[9; 3]), 1);
    assert!(h.session().is_some());
}

#[test]
fn a_server_that_does_not_say_hello_is_refused() {
    let mut h = Handshake::new(KeyMixing::FromPatch45);
    assert_eq!(h.push_server(&[1, 0]), Ok(2));
    let e = h.push_server(&[0, 2, 9, 9]).unwrap_err();
    assert_eq!(e, HandshakeError::BadHello { got: [1, 0, 0, 2] });
    assert_eq!(
        e.to_string(),
        "server stream offset 0: the hello is 01 00 00 02, not 01 00 00 00"
    );
}
