//! The proxy path: what a proxy pays per packet with zero-copy views, against a plain
//! copy and against the full decoder.
//!
//! `cargo bench -p protocol-defs --bench proxy`. The public vectors lie one after another in one
//! buffer, as they come off a connection; each packet of a current message gets its real opcode
//! (from the protocol's map, so that the proxy dispatches on the header as a real one does), the
//! others keep the vectors' 0x1234, which no message has here (passed through).
//!
//! * `stream/memcpy`: the whole stream copied into an output buffer in one call;
//! * `stream/proxy`: the proxy loop, `tera::framing::relay`: split the stream into packets, and
//!   for the hooked messages (`S_ITEMLIST`, `S_GET_USER_LIST`, `S_SHOW_ITEM_TOOLTIP`) a view and
//!   one fixed field read, every packet forwarded to the output buffer (in runs of consecutive
//!   packets, as `relay` copies them);
//! * `stream/proxy_copy_per_packet`: the same loop over `framing::packets`, a copy call per
//!   packet; `stream/split_only`: the split alone, the floor of any loop over the packets;
//! * `stream64m/*`: the same over the stream repeated to 64 MiB, twice the last-level cache
//!   (memory-bound, as bytes fresh from a socket are);
//! * `largest100/decode` against `largest100/view_one_field`: the 100 largest packets, fully
//!   decoded (and dropped) or viewed with one fixed field read; `largest100/view_walk_strings`
//!   reads every string of the top level of the same packets through the view (what a view costs
//!   when much of it is read);
//! * `largest100/decode_change_encode` against `largest100/patch_in_place`: one fixed field
//!   changed, by decoding, changing the struct and encoding into a reused buffer, or through a
//!   mutable view over the packet's own bytes.
//!
//! Time is the benchmark thread's CPU time, as in `codec.rs`.

#[path = "common/measure.rs"]
mod measure;

use std::hint::black_box;

use criterion::{Criterion, Throughput};
use def_runtime::tera::framing::{Verdict, packets, relay};
use def_runtime::{Options, Packet as _};
use measure::CpuTime;
use protocol_defs::{
    s_get_user_list::v21 as user_list, s_guild_quest_list::v1 as guild_quests,
    s_itemlist::v7 as itemlist, s_show_item_tooltip::v18 as tooltip,
    s_user_paperdoll_info::v15 as paperdoll,
};

/// One vector: its definition file, its place in the stream and its options.
struct Vector {
    file: String,
    range: std::ops::Range<usize>,
    opts: Options,
}

/// The vectors as one stream, current messages with their real opcodes.
fn load() -> (Vec<u8>, Vec<Vector>) {
    let shared = measure::shared_dir();
    let text = std::fs::read_to_string(shared.join("tera-vectors/public.jsonl"))
        .expect("public vectors (set WIRE_SHARED_DIR)");
    let mut stream = Vec::new();
    let mut out = Vec::new();
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let file = v["def"].as_str().unwrap().to_string();
        let hex = v["hex"].as_str().unwrap();
        let mut bytes: Vec<u8> = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect();
        let name = file.split('.').next().unwrap();
        let version: u32 = file.split('.').nth(1).unwrap().parse().unwrap();
        let current = protocol_defs::VERSIONS
            .iter()
            .any(|s| s.name == name && s.version == version && s.current);
        if let (true, Some(op)) = (current, protocol_defs::opcode_of(name)) {
            bytes[2..4].copy_from_slice(&op.to_le_bytes());
        }
        let opts = Options::new().padding(v["padding"].as_bool().unwrap());
        let start = stream.len();
        stream.extend_from_slice(&bytes);
        out.push(Vector {
            file,
            range: start..stream.len(),
            opts,
        });
    }
    (stream, out)
}

/// What the proxy loop does with the packets of the hooked messages: a view, one fixed field.
/// The protocol's padding rule is looked up only for them (a binary search over the padded
/// opcodes; a proxy has no use for it on packets it passes through).
#[inline]
fn hook(packet: &[u8], opcode: u16, ops: &[u16; 3]) -> u64 {
    let opts = || Options::new().padding(protocol_defs::has_padding(opcode));
    if opcode == ops[0] {
        itemlist::view::SItemlist::new(packet, opts()).map_or(0, |v| v.money() as u64)
    } else if opcode == ops[1] {
        user_list::view::SGetUserList::new(packet, opts()).map_or(0, |v| v.max_characters() as u64)
    } else if opcode == ops[2] {
        tooltip::view::SShowItemTooltip::new(packet, opts()).map_or(0, |v| v.dbid())
    } else {
        0
    }
}

/// Per definition among the 100 largest: view + one field, full decode, patch in place, and
/// decode + change + encode.
struct Ops {
    view: fn(&[u8], Options) -> u64,
    decode: fn(&[u8], Options),
    patch: fn(&mut [u8], Options),
    reencode: fn(&[u8], Options, &mut Vec<u8>),
    strings: fn(&[u8], Options) -> usize,
}

macro_rules! ops {
    ($m:ident :: $ty:ident, $get:ident, $set:ident, $field:ident, [$($s:ident),*]) => {
        Ops {
            view: |b, o| $m::view::$ty::new(b, o).unwrap().$get() as u64,
            decode: |b, o| drop(black_box($m::$ty::decode(b, o).unwrap())),
            patch: |b, o| {
                let mut v = $m::view::$ty::new_mut(b, o).unwrap();
                let x = v.view().$get();
                v.$set(x ^ 1);
            },
            reencode: |b, o, out| {
                let mut p = $m::$ty::decode(b, o).unwrap();
                p.$field ^= 1;
                out.clear();
                p.encode_into(u16::from_le_bytes([b[2], b[3]]), o, out).unwrap();
            },
            strings: |b, o| {
                let v = $m::view::$ty::new(b, o).unwrap();
                black_box(&v);
                0 $(+ v.$s().unwrap().len())*
            },
        }
    };
}

fn ops_of(file: &str) -> Ops {
    match file {
        "S_ITEMLIST.7.def" => ops!(itemlist::SItemlist, money, set_money, money, []),
        "S_GET_USER_LIST.21.def" => ops!(
            user_list::SGetUserList,
            max_characters,
            set_max_characters,
            max_characters,
            []
        ),
        "S_SHOW_ITEM_TOOLTIP.18.def" => {
            ops!(
                tooltip::SShowItemTooltip,
                dbid,
                set_dbid,
                dbid,
                [soulbound_name]
            )
        }
        "S_USER_PAPERDOLL_INFO.15.def" => ops!(
            paperdoll::SUserPaperdollInfo,
            level,
            set_level,
            level,
            [name, guild, guild_rank]
        ),
        "S_GUILD_QUEST_LIST.1.def" => ops!(
            guild_quests::SGuildQuestList,
            guild_funds,
            set_guild_funds,
            guild_funds,
            [guild_name, guild_master]
        ),
        other => panic!("no benchmark operations for {other}"),
    }
}

fn bench(c: &mut Criterion<CpuTime>) {
    let (stream, all) = load();
    let ops: [u16; 3] = ["S_ITEMLIST", "S_GET_USER_LIST", "S_SHOW_ITEM_TOOLTIP"]
        .map(|n| protocol_defs::opcode_of(n).unwrap());

    // The proxy loop with a copy per packet; it gives the stream back unchanged.
    let mut out = Vec::with_capacity(stream.len());
    let per_packet = |stream: &[u8], out: &mut Vec<u8>| {
        out.clear();
        let mut seen = 0u64;
        for p in packets(stream) {
            let p = p.unwrap();
            let opcode = u16::from_le_bytes([p[2], p[3]]);
            seen = seen.wrapping_add(hook(p, opcode, &ops));
            out.extend_from_slice(p);
        }
        seen
    };
    // The library's proxy loop (`framing::relay`): the same hook on each packet, forwarded
    // packets copied in runs. It takes `&mut` (a hook may patch in place); this one does not.
    let relayed = |stream: &mut [u8], out: &mut Vec<u8>| {
        out.clear();
        let mut seen = 0u64;
        let n = relay(stream, out, |p| {
            let opcode = u16::from_le_bytes([p[2], p[3]]);
            seen = seen.wrapping_add(hook(p, opcode, &ops));
            Verdict::Forward
        })
        .unwrap();
        black_box(n);
        seen
    };
    // The floor of any loop over the packets: the split alone.
    let split_only = |stream: &[u8]| packets(stream).map(|p| p.unwrap().len()).sum::<usize>();
    let mut input = stream.clone();
    per_packet(&stream, &mut out);
    assert!(out == stream);
    relayed(&mut input, &mut out);
    assert!(out == stream && input == stream);

    let mut g = c.benchmark_group("proxy/stream");
    g.throughput(Throughput::Bytes(stream.len() as u64));
    g.bench_function("memcpy", |b| {
        b.iter(|| {
            out.clear();
            out.extend_from_slice(black_box(&stream));
            black_box(out.len())
        })
    });
    g.bench_function("proxy", |b| {
        b.iter(|| black_box(relayed(&mut input, &mut out)))
    });
    g.bench_function("proxy_copy_per_packet", |b| {
        b.iter(|| black_box(per_packet(&stream, &mut out)))
    });
    g.bench_function("split_only", |b| {
        b.iter(|| black_box(split_only(black_box(&stream))))
    });
    g.finish();

    // The same packets repeated to 64 MiB, twice the last-level cache (32 MiB here), and
    // written to a 64 MiB output: memcpy and the loop both stream from and to memory, as a
    // proxy does with bytes fresh from a socket.
    let mut big = stream.repeat((64 << 20) / stream.len() + 1);
    let mut big_out = Vec::with_capacity(big.len());
    relayed(&mut big, &mut big_out);
    assert!(big_out == big);
    let mut g = c.benchmark_group("proxy/stream64m");
    g.throughput(Throughput::Bytes(big.len() as u64));
    g.sample_size(10);
    g.bench_function("memcpy", |b| {
        b.iter(|| {
            big_out.clear();
            big_out.extend_from_slice(black_box(&big));
            black_box(big_out.len())
        })
    });
    g.bench_function("proxy", |b| {
        b.iter(|| black_box(relayed(&mut big, &mut big_out)))
    });
    g.bench_function("proxy_copy_per_packet", |b| {
        b.iter(|| black_box(per_packet(&big, &mut big_out)))
    });
    g.bench_function("split_only", |b| {
        b.iter(|| black_box(split_only(black_box(&big))))
    });
    g.finish();

    let mut largest: Vec<&Vector> = all.iter().collect();
    largest.sort_by_key(|v| std::cmp::Reverse(v.range.len()));
    largest.truncate(100);
    let set: Vec<(&Vector, Ops)> = largest.iter().map(|v| (*v, ops_of(&v.file))).collect();
    let mut g = c.benchmark_group("proxy/largest100");
    g.throughput(Throughput::Elements(set.len() as u64));
    g.bench_function("decode", |b| {
        b.iter(|| {
            for (v, o) in &set {
                (o.decode)(&stream[v.range.clone()], v.opts);
            }
        })
    });
    g.bench_function("view_one_field", |b| {
        b.iter(|| {
            let mut s = 0u64;
            for (v, o) in &set {
                s = s.wrapping_add((o.view)(&stream[v.range.clone()], v.opts));
            }
            black_box(s)
        })
    });
    g.bench_function("view_walk_strings", |b| {
        b.iter(|| {
            let mut s = 0usize;
            for (v, o) in &set {
                s += (o.strings)(&stream[v.range.clone()], v.opts);
            }
            black_box(s)
        })
    });
    let mut buf = Vec::with_capacity(70_000);
    g.bench_function("decode_change_encode", |b| {
        b.iter(|| {
            for (v, o) in &set {
                (o.reencode)(&stream[v.range.clone()], v.opts, &mut buf);
            }
        })
    });
    let mut patched = stream.clone();
    g.bench_function("patch_in_place", |b| {
        b.iter(|| {
            for (v, o) in &set {
                (o.patch)(&mut patched[v.range.clone()], v.opts);
            }
        })
    });
    g.finish();
}

criterion::criterion_group! {
    name = benches;
    config = measure::config();
    targets = bench
}
criterion::criterion_main!(benches);
