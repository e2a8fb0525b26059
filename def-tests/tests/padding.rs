//! A padded and an unpadded packet read and written through every public entry point of a
//! generated protocol, with default options: each gives the values written by hand from
//! LAYOUT.md (a header, 8 bytes of padding for the padded message, then `int64 money` and
//! `int32 count`), or an error; none reads the padding as fields.

use def_runtime::{Options, Packet as _};
use def_tests::protocol::{
    self, Packet, PacketView, opcodes, s_padded_money::v1 as padded, s_plain_money::v1 as plain,
};

const MONEY: i64 = 0x0102_0304_0506_0708;
const COUNT: i32 = -5;

/// The packet by hand: length, opcode, the padding if any, then the fields little-endian.
fn packet(opcode: u16, padding: bool) -> Vec<u8> {
    let mut body = Vec::new();
    if padding {
        body.extend_from_slice(&[0xee; 8]);
    }
    body.extend_from_slice(&MONEY.to_le_bytes());
    body.extend_from_slice(&COUNT.to_le_bytes());
    let mut p = ((body.len() + 4) as u16).to_le_bytes().to_vec();
    p.extend_from_slice(&opcode.to_le_bytes());
    p.extend_from_slice(&body);
    p
}

#[test]
fn the_opcodes_are_constants() {
    assert_eq!(opcodes::S_PADDED_MONEY, 100);
    assert_eq!(opcodes::S_PLAIN_MONEY, 101);
    assert_eq!(padded::SPaddedMoney::OPCODE, 100);
    assert_eq!(plain::SPlainMoney::OPCODE, 101);
    assert!(protocol::has_padding(100) && !protocol::has_padding(101));
    assert_eq!(protocol::PROTOCOL_VERSION, 1);
    assert_eq!(
        protocol::SELECTION,
        "messages: *; versions: current; views; serde"
    );
}

#[test]
fn every_entry_point_reads_the_padded_packet_with_its_padding() {
    let bytes = packet(100, true);
    let opts = Options::new();
    // The protocol's enum, owned and viewed.
    match Packet::decode(&bytes, opts).unwrap() {
        Packet::SPaddedMoney(m) => assert_eq!((m.money, m.count), (MONEY, COUNT)),
        other => panic!("{other:?}"),
    }
    match Packet::view(&bytes, opts).unwrap() {
        PacketView::SPaddedMoney(v) => assert_eq!((v.money(), v.count()), (MONEY, COUNT)),
        other => panic!("{other:?}"),
    }
    // The message type and its views, made by hand with options that say no padding.
    let m = padded::SPaddedMoney::decode(&bytes, opts).unwrap();
    assert_eq!((m.money, m.count), (MONEY, COUNT));
    let v = padded::view::SPaddedMoney::new(&bytes, opts).unwrap();
    assert_eq!((v.money(), v.count()), (MONEY, COUNT));
    assert_eq!(v.to_owned().unwrap(), m);
    let mut patched = bytes.clone();
    let mut w = padded::view::SPaddedMoney::new_mut(&mut patched, opts).unwrap();
    w.set_count(7);
    assert_eq!(w.view().money(), MONEY);
    assert_eq!(
        patched[..20],
        bytes[..20],
        "the padding and money are untouched"
    );
    assert_eq!(patched[20..], 7i32.to_le_bytes());
    // The table of definitions, JSON included.
    let def = protocol::definition("S_PADDED_MONEY.1.def").unwrap();
    (def.validate)(&bytes, opts).unwrap();
    let json = def.decode_json(&bytes, opts).unwrap();
    assert_eq!(json, serde_json::json!({"money": MONEY, "count": COUNT}));
    // Writing: every entry point writes the padding.
    assert_eq!(Packet::SPaddedMoney(m.clone()).encode().unwrap().len(), 24);
    assert_eq!(m.encode(100, opts).unwrap()[..4], bytes[..4]);
    assert_eq!(m.encode(100, opts).unwrap()[12..], bytes[12..]);
    assert_eq!(m.encoded_len(opts), 24);
    assert_eq!(def.encode_json(&json, 100, opts).unwrap().len(), 24);
}

#[test]
fn every_entry_point_reads_the_plain_packet_without_padding() {
    let bytes = packet(101, false);
    let opts = Options::new();
    match Packet::decode(&bytes, opts).unwrap() {
        Packet::SPlainMoney(m) => assert_eq!((m.money, m.count), (MONEY, COUNT)),
        other => panic!("{other:?}"),
    }
    match Packet::view(&bytes, opts).unwrap() {
        PacketView::SPlainMoney(v) => assert_eq!((v.money(), v.count()), (MONEY, COUNT)),
        other => panic!("{other:?}"),
    }
    // The enum applies the protocol's rule whatever the options say, owned and viewed alike.
    let wrong = Options::new().padding(true);
    match (
        Packet::decode(&bytes, wrong).unwrap(),
        Packet::view(&bytes, wrong).unwrap(),
    ) {
        (Packet::SPlainMoney(m), PacketView::SPlainMoney(v)) => {
            assert_eq!((m.money, m.count), (MONEY, COUNT));
            assert_eq!((v.money(), v.count()), (MONEY, COUNT));
        }
        other => panic!("{other:?}"),
    }
    let m = plain::SPlainMoney::decode(&bytes, opts).unwrap();
    assert_eq!((m.money, m.count), (MONEY, COUNT));
    let v = plain::view::SPlainMoney::new(&bytes, opts).unwrap();
    assert_eq!((v.money(), v.count()), (MONEY, COUNT));
    assert_eq!(Packet::SPlainMoney(m.clone()).encode().unwrap(), bytes);
    assert_eq!(m.encode(101, opts).unwrap(), bytes);
    let def = protocol::definition("S_PLAIN_MONEY.1.def").unwrap();
    assert_eq!(
        def.decode_json(&bytes, opts).unwrap(),
        serde_json::json!({"money": MONEY, "count": COUNT})
    );
}

#[test]
fn a_padded_message_without_its_padding_is_an_error_not_garbage() {
    // The padded message's opcode on bytes written without padding: 16 bytes, 12 of them body.
    let bytes = packet(100, false);
    let opts = Options::new();
    assert!(Packet::decode(&bytes, opts).is_err());
    assert!(Packet::view(&bytes, opts).is_err());
    assert!(padded::SPaddedMoney::decode(&bytes, opts).is_err());
    assert!(padded::view::SPaddedMoney::new(&bytes, opts).is_err());
    let def = protocol::definition("S_PADDED_MONEY.1.def").unwrap();
    assert!(def.decode_json(&bytes, opts).is_err());
}

#[test]
fn unknown_opcodes_are_raw_both_ways() {
    let bytes = packet(7, false);
    match Packet::view(&bytes, Options::new()).unwrap() {
        PacketView::Raw(b) => assert_eq!(b, &bytes[..]),
        other => panic!("{other:?}"),
    }
    let p = Packet::decode(&bytes, Options::new()).unwrap();
    assert_eq!(p.opcode(), 7);
    assert_eq!(p.encode().unwrap(), bytes);
}
