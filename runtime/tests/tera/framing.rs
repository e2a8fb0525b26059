//! `tera::framing`: the slice iterator, the push/pull splitter and the tokio codec, against
//! packets built here (their bounds known independently of the splitter) and the golden
//! vectors of `tera-vectors/public.jsonl` (each line one whole packet).

use crate::support;

use def_runtime::tera::framing::{FrameError, MAX_PACKET_LEN, Splitter, Verdict, packets, relay};
use proptest::prelude::*;

/// A packet of `body.len() + 4` bytes with `opcode`.
fn packet(opcode: u16, body: &[u8]) -> Vec<u8> {
    let len = u16::try_from(body.len() + 4).unwrap();
    let mut p = len.to_le_bytes().to_vec();
    p.extend_from_slice(&opcode.to_le_bytes());
    p.extend_from_slice(body);
    p
}

fn from_hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// The public vectors, one packet each, in file order.
fn public_packets() -> Option<Vec<Vec<u8>>> {
    let path = support::shared("tera-vectors/public.jsonl")?;
    let text = std::fs::read_to_string(path).unwrap();
    Some(
        text.lines()
            .map(|line| {
                let v: serde_json::Value = serde_json::from_str(line).unwrap();
                from_hex(v["hex"].as_str().unwrap())
            })
            .collect(),
    )
}

/// Everything a splitter fed `stream` in `chunks` gives: packets (owned), and the end.
/// Checks the memory bound after every push.
fn split_chunks(
    stream: &[u8],
    chunks: impl IntoIterator<Item = usize>,
) -> (Vec<Vec<u8>>, Result<(), FrameError>) {
    let mut s = Splitter::new();
    let mut out = Vec::new();
    let mut at = 0;
    let mut chunks = chunks.into_iter();
    while at < stream.len() {
        let n = chunks.next().unwrap_or(usize::MAX).min(stream.len() - at);
        let before = s.buffered();
        s.push(&stream[at..at + n]);
        at += n;
        // Right after a non-empty push, the pulled bytes kept are fewer than those unpulled
        // before it; a reader that drains after each push has less than one packet unpulled
        // then. Pulls never grow the buffer; empty pushes change nothing.
        if n > 0 {
            let kept = s.buffer_len() - s.buffered();
            assert!(
                kept < before.max(1),
                "{kept} pulled bytes kept, {before} unpulled"
            );
            assert!(kept < MAX_PACKET_LEN);
        }
        while let Some(p) = s.next_packet() {
            match p {
                Ok(p) => out.push(p.to_vec()),
                Err(e) => return (out, Err(e)),
            }
        }
    }
    (out, s.finish())
}

/// The iterator's view of `stream`: packets and the end.
fn split_slice(stream: &[u8]) -> (Vec<Vec<u8>>, Result<(), FrameError>) {
    let mut out = Vec::new();
    for p in packets(stream) {
        match p {
            Ok(p) => out.push(p.to_vec()),
            Err(e) => return (out, Err(e)),
        }
    }
    (out, Ok(()))
}

#[test]
fn public_vectors_as_one_stream() {
    let Some(want) = public_packets() else { return };
    let stream = want.concat();
    assert!(want.len() > 1000, "{} vectors", want.len());

    let (got, end) = split_slice(&stream);
    assert_eq!(end, Ok(()));
    assert!(
        got == want,
        "slice iterator: packets differ from the vectors"
    );

    // Whole-stream, 1-byte, odd and pseudo-random chunk sizes (0 included: empty pushes).
    let mut x = 0x9e37_79b9_u32;
    let random = std::iter::from_fn(move || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        Some((x % 9000) as usize)
    });
    let sizes: [Box<dyn Iterator<Item = usize>>; 4] = [
        Box::new(std::iter::once(stream.len())),
        Box::new(std::iter::repeat(1)),
        Box::new([0, 3, 4097].into_iter().cycle()),
        Box::new(random),
    ];
    for chunks in sizes {
        let (got, end) = split_chunks(&stream, chunks);
        assert_eq!(end, Ok(()));
        assert!(got == want, "splitter: packets differ from the vectors");
    }

    // A capture cut short: the last vector loses its final byte.
    let cut = &stream[..stream.len() - 1];
    let last = want.last().unwrap();
    let offset = (stream.len() - last.len()) as u64;
    let incomplete = FrameError::Incomplete {
        offset,
        available: last.len() - 1,
        needed: last.len(),
    };
    let (got, end) = split_slice(cut);
    assert_eq!((got.len(), end), (want.len() - 1, Err(incomplete.clone())));
    let (got, end) = split_chunks(cut, std::iter::repeat(1000));
    assert_eq!((got.len(), end), (want.len() - 1, Err(incomplete)));
}

#[test]
fn length_below_four_is_an_error_with_its_offset() {
    let good = packet(0x1234, &[1, 2, 3]);
    for length in 0u16..4 {
        let mut stream = good.clone();
        stream.extend_from_slice(&length.to_le_bytes());
        stream.extend_from_slice(&[0xaa, 0xbb]);
        stream.extend_from_slice(&good); // never reached
        let bad = FrameError::BadLength {
            offset: good.len() as u64,
            length,
        };

        let mut it = packets(&stream);
        assert_eq!(it.next(), Some(Ok(&good[..])));
        assert_eq!(it.next(), Some(Err(bad.clone())));
        assert_eq!(it.next(), None, "the iterator ends after the error");

        for chunk in [1, 2, 5, stream.len()] {
            assert_eq!(
                split_chunks(&stream, std::iter::repeat(chunk)),
                (vec![good.clone()], Err(bad.clone())),
                "chunk {chunk}"
            );
        }

        // The error sticks, and later pushes are dropped.
        let mut s = Splitter::new();
        s.push(&stream);
        assert_eq!(s.next_packet(), Some(Ok(&good[..])));
        assert_eq!(s.next_packet(), Some(Err(bad.clone())));
        s.push(&good);
        assert_eq!(s.next_packet(), Some(Err(bad.clone())));
        assert_eq!(s.finish(), Err(bad.clone()));
        assert!(bad.to_string().contains(&format!("offset {}", good.len())));
    }
}

#[test]
fn a_packet_past_the_end_waits_for_more_bytes() {
    let p = packet(7, &[9; 20]);
    let mut s = Splitter::new();
    for (i, b) in p.iter().enumerate() {
        assert_eq!(s.next_packet(), None);
        let needed = if i < 2 { 4 } else { p.len() };
        assert_eq!(
            s.finish(),
            if i == 0 {
                Ok(())
            } else {
                Err(FrameError::Incomplete {
                    offset: 0,
                    available: i,
                    needed,
                })
            }
        );
        s.push(&[*b]);
    }
    assert_eq!(s.next_packet(), Some(Ok(&p[..])));
    assert_eq!(s.next_packet(), None);
    assert_eq!(s.finish(), Ok(()));
    assert_eq!(s.offset(), p.len() as u64);

    // Whole packets left unpulled at the end are the caller's mistake, said as such.
    let mut s = Splitter::new();
    s.push(&p);
    assert_eq!(
        s.finish(),
        Err(FrameError::Unpulled {
            offset: 0,
            len: p.len()
        })
    );

    // A header cut: the length is known from its 2 bytes, 4 are needed before them.
    for (cut, needed) in [(&[5u8, 0, 1][..], 5), (&[5, 0], 5), (&[5], 4)] {
        assert_eq!(
            packets(cut).collect::<Vec<_>>(),
            [Err(FrameError::Incomplete {
                offset: 0,
                available: cut.len(),
                needed
            })]
        );
    }
    // A length below 4 is an error as soon as its 2 bytes are there.
    assert_eq!(
        packets(&[3, 0]).collect::<Vec<_>>(),
        [Err(FrameError::BadLength {
            offset: 0,
            length: 3
        })]
    );
    assert_eq!(packets(&[]).count(), 0);
}

#[test]
fn a_reader_that_lags_keeps_memory_and_work_bounded() {
    // Push a lot, then pull one packet per 1-byte push: each push may move the unpulled bytes
    // only when the pulled ones are as many, so the buffer stays under twice what is unpulled.
    let p = packet(1, &[0; 96]);
    let stream: Vec<u8> = std::iter::repeat_n(&p[..], 2000)
        .flatten()
        .copied()
        .collect();
    let mut s = Splitter::new();
    s.push(&stream[..stream.len() / 2]);
    let mut pulled = 0;
    for b in &stream[stream.len() / 2..] {
        s.push(std::slice::from_ref(b));
        assert!(s.buffer_len() <= 2 * s.buffered() + 1);
        if let Some(got) = s.next_packet() {
            assert_eq!(got, Ok(&p[..]));
            pulled += 1;
        }
    }
    while let Some(got) = s.next_packet() {
        assert_eq!(got, Ok(&p[..]));
        pulled += 1;
    }
    assert_eq!((pulled, s.finish()), (2000, Ok(())));
}

/// The hook of the relay tests: drops the packets whose opcode is 0 mod 3, flips the last byte
/// of those whose opcode is 1 mod 3 (in place), forwards the rest untouched.
fn verdict(p: &mut [u8]) -> Verdict {
    match u16::from_le_bytes([p[2], p[3]]) % 3 {
        0 => Verdict::Drop,
        1 => {
            *p.last_mut().unwrap() ^= 0xff;
            Verdict::Forward
        }
        _ => Verdict::Forward,
    }
}

/// What relaying `packets` through [`verdict`] must give, built packet by packet.
fn relayed(packets: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    for p in packets {
        match u16::from_le_bytes([p[2], p[3]]) % 3 {
            0 => {}
            1 => {
                out.extend_from_slice(&p[..p.len() - 1]);
                out.push(p[p.len() - 1] ^ 0xff);
            }
            _ => out.extend_from_slice(p),
        }
    }
    out
}

#[test]
fn relay_forwards_the_public_vectors_byte_for_byte() {
    let Some(mut want) = public_packets() else {
        return;
    };
    let stream = want.concat();
    assert!(
        stream.len() > 200_000,
        "runs of 32 KiB are ended many times"
    );

    // Everything forwarded: the output is the stream, and the hook saw each vector in order.
    let (mut input, mut out, mut seen) = (stream.clone(), Vec::new(), Vec::new());
    let consumed = relay(&mut input, &mut out, |p| {
        seen.push(p.to_vec());
        Verdict::Forward
    });
    assert_eq!(consumed, Ok(stream.len()));
    assert!(seen == want, "the hook saw other packets than the vectors");
    assert!(out == stream, "forwarded bytes differ from the stream");

    // Drops and in-place patches, with opcodes spread over the three cases.
    for (i, p) in want.iter_mut().enumerate() {
        p[2..4].copy_from_slice(&(i as u16).to_le_bytes());
    }
    let stream = want.concat();
    let (mut input, mut out) = (stream.clone(), Vec::new());
    assert_eq!(relay(&mut input, &mut out, verdict), Ok(stream.len()));
    assert!(
        out == relayed(&want),
        "relay: output differs from packet by packet"
    );

    // A capture cut short: the last packet is left to the caller, untouched.
    let cut = stream.len() - 1;
    let (mut input, mut out) = (stream[..cut].to_vec(), Vec::new());
    let last = want.pop().unwrap();
    assert_eq!(
        relay(&mut input, &mut out, verdict),
        Ok(stream.len() - last.len())
    );
    assert!(out == relayed(&want));
    assert_eq!(input[stream.len() - last.len()..], last[..last.len() - 1]);
}

#[test]
fn relay_stops_at_a_length_below_four() {
    let good = packet(0x1235, &[1, 2, 3]); // 1235 = 1 mod 3: patched
    for length in 0u16..4 {
        let mut stream = [good.clone(), good.clone()].concat();
        stream.extend_from_slice(&length.to_le_bytes());
        stream.extend_from_slice(&[0xaa, 0xbb]);
        stream.extend_from_slice(&good); // never reached
        let bad = FrameError::BadLength {
            offset: 2 * good.len() as u64,
            length,
        };
        let want = relayed(&[good.clone(), good.clone()]);

        let (mut input, mut out) = (stream.clone(), Vec::new());
        assert_eq!(relay(&mut input, &mut out, verdict), Err(bad.clone()));
        assert_eq!(out, want, "the packets before the bad header are relayed");

        // The splitter counts the offset from its first byte, and the error sticks.
        let mut s = Splitter::new();
        s.push(&stream[..3]);
        assert_eq!(s.relay(&mut Vec::new(), verdict), Ok(()));
        s.push(&stream[3..]);
        let mut out = Vec::new();
        assert_eq!(s.relay(&mut out, verdict), Err(bad.clone()));
        assert_eq!(out, want);
        assert_eq!(s.relay(&mut out, verdict), Err(bad.clone()));
        assert_eq!(s.next_packet(), Some(Err(bad.clone())));
        assert_eq!(s.finish(), Err(bad));
    }
}

/// A stream of packets with bodies of 0 to 300 bytes, a few maximal ones, and a tail: nothing,
/// a cut packet, or a header with a length below 4.
fn stream_strategy() -> impl Strategy<Value = (Vec<Vec<u8>>, Vec<u8>)> {
    let body = prop_oneof![
        20 => proptest::collection::vec(any::<u8>(), 0..300),
        1 => Just(vec![0x5a; MAX_PACKET_LEN - 4]),
    ];
    let packets = proptest::collection::vec((any::<u16>(), body), 0..40)
        .prop_map(|ps| ps.iter().map(|(op, b)| packet(*op, b)).collect::<Vec<_>>());
    let tail = prop_oneof![
        Just(Vec::new()),
        (any::<u16>(), 1usize..100, 0usize..100).prop_map(|(op, n, cut)| {
            let p = packet(op, &vec![1; n]);
            p[..cut.min(p.len() - 1)].to_vec()
        }),
        (0u16..4, any::<u16>()).prop_map(|(len, op)| {
            let mut h = len.to_le_bytes().to_vec();
            h.extend_from_slice(&op.to_le_bytes());
            h
        }),
    ];
    (packets, tail)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn any_chunking_gives_the_same_packets(
        (want, tail) in stream_strategy(),
        chunks in proptest::collection::vec(
            prop_oneof![3 => 0usize..3, 3 => 0usize..200, 1 => 0usize..70000],
            0..200,
        ),
    ) {
        let whole = want.concat();
        let mut stream = whole.clone();
        stream.extend_from_slice(&tail);

        let (from_slice, slice_end) = split_slice(&stream);
        let (from_chunks, chunks_end) = split_chunks(&stream, chunks);
        // The packets built, in order; concatenated, they are the stream up to the tail.
        prop_assert!(from_slice == want);
        prop_assert!(from_chunks == want);
        prop_assert_eq!(from_chunks.concat(), whole.clone());

        let offset = whole.len() as u64;
        let expected_end = match tail.as_slice() {
            [] => Ok(()),
            [a, b, _, _] if u16::from_le_bytes([*a, *b]) < 4 => Err(FrameError::BadLength {
                offset,
                length: u16::from_le_bytes([*a, *b]),
            }),
            t => Err(FrameError::Incomplete {
                offset,
                available: t.len(),
                needed: match *t {
                    [a, b, ..] => usize::from(u16::from_le_bytes([a, b])),
                    _ => 4,
                },
            }),
        };
        prop_assert_eq!(&slice_end, &expected_end);
        prop_assert_eq!(&chunks_end, &expected_end);
    }

    #[test]
    fn any_chunking_relays_the_same_bytes(
        (want, tail) in stream_strategy(),
        chunks in proptest::collection::vec(
            prop_oneof![3 => 0usize..3, 3 => 0usize..200, 1 => 0usize..70000],
            0..200,
        ),
    ) {
        let mut stream = want.concat();
        stream.extend_from_slice(&tail);
        let expected = relayed(&want);

        // The whole stream at once.
        let (mut input, mut out) = (stream.clone(), Vec::new());
        let end = relay(&mut input, &mut out, verdict);
        prop_assert!(out == expected);
        let bad_tail = matches!(*tail, [a, b, _, _] if u16::from_le_bytes([a, b]) < 4);
        prop_assert_eq!(end.is_err(), bad_tail);

        // In chunks, through the splitter, relaying after each push.
        let mut s = Splitter::new();
        let (mut out, mut at, mut err) = (Vec::new(), 0, None);
        let mut chunks = chunks.into_iter();
        while at < stream.len() && err.is_none() {
            let n = chunks.next().unwrap_or(usize::MAX).min(stream.len() - at);
            s.push(&stream[at..at + n]);
            at += n;
            err = s.relay(&mut out, verdict).err();
        }
        prop_assert!(out == expected);
        prop_assert_eq!(err.is_some(), bad_tail);
        prop_assert_eq!(s.offset(), want.iter().map(|p| p.len() as u64).sum::<u64>());
    }
}

mod codec {
    #![cfg(feature = "tokio")]

    use bytes::BytesMut;
    use def_runtime::tera::framing::{CodecError, FrameError, TeraCodec};
    use tokio_util::codec::{Decoder, Encoder};

    use super::{packet, public_packets};

    /// What the decoder gives for `stream` arriving in `chunk`-byte reads, then end of stream.
    fn decode_all(stream: &[u8], chunk: usize) -> (Vec<Vec<u8>>, Result<(), FrameError>) {
        let mut codec = TeraCodec::new();
        let mut buf = BytesMut::new();
        let mut out = Vec::new();
        let end = (|| {
            for c in stream.chunks(chunk) {
                buf.extend_from_slice(c);
                while let Some(p) = codec.decode(&mut buf)? {
                    out.push(p.to_vec());
                }
            }
            while let Some(p) = codec.decode_eof(&mut buf)? {
                out.push(p.to_vec());
            }
            Ok::<(), CodecError>(())
        })();
        let end = end.map_err(|e| match e {
            CodecError::Frame(f) => f,
            other => panic!("{other}"),
        });
        (out, end)
    }

    #[test]
    fn decoder_splits_the_public_vectors() {
        let Some(want) = public_packets() else { return };
        let stream = want.concat();
        for chunk in [1, 1000, stream.len()] {
            let (got, end) = decode_all(&stream, chunk);
            assert_eq!(end, Ok(()));
            assert!(
                got == want,
                "chunk {chunk}: packets differ from the vectors"
            );
        }
        let (got, end) = decode_all(&stream[..stream.len() - 2], 777);
        assert_eq!(got.len(), want.len() - 1);
        assert!(matches!(end, Err(FrameError::Incomplete { .. })), "{end:?}");
    }

    #[test]
    fn decoder_errors() {
        let good = packet(3, &[1, 2]);
        let mut stream = good.clone();
        stream.extend_from_slice(&[2, 0, 0, 0]);
        let bad = FrameError::BadLength {
            offset: good.len() as u64,
            length: 2,
        };
        assert_eq!(
            decode_all(&stream, 3),
            (vec![good.clone()], Err(bad.clone()))
        );

        // The error sticks, even when good bytes follow.
        let mut codec = TeraCodec::new();
        let mut buf = BytesMut::from(&stream[..]);
        assert_eq!(codec.decode(&mut buf).unwrap().unwrap(), good[..]);
        for _ in 0..2 {
            match codec.decode(&mut buf) {
                Err(CodecError::Frame(e)) => assert_eq!(e, bad),
                other => panic!("{other:?}"),
            }
            buf.extend_from_slice(&good);
        }
    }

    #[test]
    fn encoder_checks_the_header_length() {
        let mut codec = TeraCodec::new();
        let mut dst = BytesMut::new();
        let a = packet(0x1234, &[7; 10]);
        let b = packet(0x0001, &[]);
        codec.encode(&a[..], &mut dst).unwrap();
        codec.encode(BytesMut::from(&b[..]), &mut dst).unwrap();
        assert_eq!(dst[..], [a.clone(), b].concat()[..]);

        let before = dst.len();
        let cases: [(&[u8], Option<u16>); 4] = [
            (&[], None),
            (&[3, 0, 1], None),
            (&a[..a.len() - 1], Some(a.len() as u16)),
            (&[4, 0, 1, 0, 9], Some(4)),
        ];
        for (bytes, header) in cases {
            match codec.encode(bytes, &mut dst) {
                Err(CodecError::LengthMismatch { header: h, actual }) => {
                    assert_eq!((h, actual), (header, bytes.len()))
                }
                other => panic!("{bytes:?}: {other:?}"),
            }
        }
        assert_eq!(dst.len(), before, "nothing written on error");
    }
}
