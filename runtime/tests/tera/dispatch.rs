//! The hook dispatcher: typed, raw and every-packet hooks, order, filters, once, unhook, fake
//! packets, and failing hooks, over packets of the repository's sample definitions. Expected
//! bytes are written out by hand from LAYOUT.md (the README's S_EXAMPLE packet).

use std::sync::{Arc, Mutex};

use def_runtime::tera::dispatch::{
    Action, Direction, Dispatch, DispatchError, Filter, Handled, HookOptions,
};
use def_runtime::tera::protocol::OpcodeMap;
use def_runtime::{Options, Packet};

mod s_example {
    def_macro::def!("../protocol-defs/data/definitions/S_EXAMPLE.1.def");
}
mod c_example_move {
    def_macro::def!("../protocol-defs/data/definitions/C_EXAMPLE_MOVE.1.def");
}
use c_example_move::CExampleMove;
use s_example::SExample;

const MAP: OpcodeMap = OpcodeMap::new(
    &[("C_EXAMPLE_MOVE", 1002), ("S_EXAMPLE", 1001)],
    &[(1001, "S_EXAMPLE"), (1002, "C_EXAMPLE_MOVE")],
    &[],
);

/// S_EXAMPLE (opcode 1001 = 0x03e9): level 7, name "Hi", items (1, -2), (3, 4).
const PACKET: [u8; 40] = [
    0x28, 0x00, 0xe9, 0x03, 0x0e, 0x00, 0x02, 0x00, 0x14, 0x00, 0x07, 0x00, 0x00, 0x00, 0x48, 0x00,
    0x69, 0x00, 0x00, 0x00, 0x14, 0x00, 0x1e, 0x00, 0x01, 0x00, 0x00, 0x00, 0xfe, 0xff, 0x1e, 0x00,
    0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x04, 0x00,
];

/// The same packet with `level` (offset 10) set to `level`.
fn with_level(level: u8) -> Vec<u8> {
    let mut p = PACKET.to_vec();
    p[10] = level;
    p
}

fn dispatch() -> Dispatch {
    Dispatch::new(MAP, Options::new())
}

type Log = Arc<Mutex<Vec<String>>>;

fn log() -> Log {
    Arc::new(Mutex::new(Vec::new()))
}

fn note(log: &Log, s: impl Into<String>) {
    log.lock().unwrap().push(s.into());
}

#[test]
fn a_typed_hook_changes_a_field_and_the_rest_stays() {
    let mut d = dispatch();
    d.hook::<SExample>(HookOptions::new(), |_, p| {
        p.level = 8;
        Action::Modified
    })
    .unwrap();
    assert_eq!(
        d.handle(Direction::ToClient, &PACKET),
        Handled::Replace(with_level(8))
    );
}

#[test]
fn hooks_of_one_type_share_one_decoded_message() {
    let mut d = dispatch();
    // The first changes the message without saying so; the second sees the change.
    d.hook::<SExample>(HookOptions::new(), |_, p| {
        p.level = 9;
        Action::Pass
    })
    .unwrap();
    let seen = log();
    let s = seen.clone();
    d.hook::<SExample>(HookOptions::new(), move |_, p| {
        note(&s, format!("{}", p.level));
        Action::Pass
    })
    .unwrap();
    // Nobody said Modified: the packet goes on as it came.
    assert_eq!(d.handle(Direction::ToClient, &PACKET), Handled::Forward);
    assert_eq!(*seen.lock().unwrap(), ["9"]);
}

#[test]
fn hooks_run_by_order_then_registration_raw_typed_and_every_packet_alike() {
    let mut d = dispatch();
    let calls = log();
    for (name, order) in [("a", 10), ("b", -5), ("c", 0), ("d", -5)] {
        let c = calls.clone();
        d.raw("S_EXAMPLE", HookOptions::new().order(order), move |_, _| {
            note(&c, name);
            Action::Pass
        })
        .unwrap();
    }
    let c = calls.clone();
    d.all(HookOptions::new().order(0), move |_, _| {
        note(&c, "every");
        Action::Pass
    });
    let c = calls.clone();
    d.hook::<SExample>(HookOptions::new().order(-10), move |_, _| {
        note(&c, "typed");
        Action::Pass
    })
    .unwrap();
    d.handle(Direction::ToClient, &PACKET);
    assert_eq!(
        *calls.lock().unwrap(),
        ["typed", "b", "d", "c", "every", "a"]
    );
}

#[test]
fn silenced_packets_reach_only_hooks_that_ask_for_them() {
    let mut d = dispatch();
    let seen = log();
    d.raw("S_EXAMPLE", HookOptions::new().order(-1), |_, _| {
        Action::Silence
    })
    .unwrap();
    for (name, silenced) in [
        ("default", Some(false)),
        ("any", None),
        ("only", Some(true)),
    ] {
        let s = seen.clone();
        let filter = Filter {
            silenced,
            ..Filter::default()
        };
        d.raw(
            "S_EXAMPLE",
            HookOptions::new().filter(filter),
            move |cx, _| {
                assert!(cx.is_silenced());
                note(&s, name);
                Action::Pass
            },
        )
        .unwrap();
    }
    assert_eq!(d.handle(Direction::ToClient, &PACKET), Handled::Silence);
    assert_eq!(*seen.lock().unwrap(), ["any", "only"]);
}

#[test]
fn the_direction_filter() {
    let mut d = dispatch();
    let seen = log();
    for (name, incoming) in [("in", Some(true)), ("out", Some(false))] {
        let s = seen.clone();
        let filter = Filter {
            incoming,
            ..Filter::default()
        };
        d.all(HookOptions::new().filter(filter), move |_, _| {
            note(&s, name);
            Action::Pass
        });
    }
    d.handle(Direction::ToClient, &PACKET);
    d.handle(Direction::ToServer, &PACKET);
    assert_eq!(*seen.lock().unwrap(), ["in", "out"]);
}

#[test]
fn a_hook_fires_once_or_until_unhooked() {
    let mut d = dispatch();
    let calls = log();
    let c = calls.clone();
    d.raw("S_EXAMPLE", HookOptions::new().once(), move |_, _| {
        note(&c, "once");
        Action::Pass
    })
    .unwrap();
    let c = calls.clone();
    let id = d
        .raw("S_EXAMPLE", HookOptions::new(), move |_, _| {
            note(&c, "always");
            Action::Pass
        })
        .unwrap();
    d.handle(Direction::ToClient, &PACKET);
    d.handle(Direction::ToClient, &PACKET);
    assert!(d.unhook(id));
    assert!(!d.unhook(id));
    d.handle(Direction::ToClient, &PACKET);
    assert_eq!(*calls.lock().unwrap(), ["once", "always", "always"]);
}

#[test]
fn a_command_is_silenced_and_answered_with_a_fake_packet() {
    let mut d = dispatch();
    // A client move with `running` set is the "command": silenced, answered with an S_EXAMPLE.
    d.hook::<CExampleMove>(HookOptions::new(), |cx, m| {
        if !m.running {
            return Action::Pass;
        }
        let answer = SExample {
            level: 42,
            ..Default::default()
        };
        cx.send(
            Direction::ToClient,
            answer.encode(1001, Options::new()).unwrap(),
        );
        Action::Silence
    })
    .unwrap();
    // Fake packets go through the hooks that ask for them.
    let fakes = log();
    let f = fakes.clone();
    let filter = Filter {
        fake: Some(true),
        ..Filter::default()
    };
    d.hook::<SExample>(HookOptions::new().filter(filter), move |cx, p| {
        assert!(cx.is_fake());
        note(&f, format!("fake level {}", p.level));
        Action::Pass
    })
    .unwrap();

    let running = CExampleMove {
        running: true,
        ..Default::default()
    };
    let command = running.encode(1002, Options::new()).unwrap();
    let walking = CExampleMove::default()
        .encode(1002, Options::new())
        .unwrap();

    assert_eq!(d.handle(Direction::ToServer, &walking), Handled::Forward);
    assert_eq!(d.take_sent().count(), 0);
    assert_eq!(d.handle(Direction::ToServer, &command), Handled::Silence);
    let sent: Vec<_> = d.take_sent().collect();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].0, Direction::ToClient);
    // Header (length 16, opcode 1001), `name` at 14, no items (count 0, offset 0), level 42,
    // then the empty name's terminator.
    assert_eq!(
        sent[0].1,
        [0x10, 0, 0xe9, 0x03, 0x0e, 0, 0, 0, 0, 0, 42, 0, 0, 0, 0, 0]
    );
    assert_eq!(
        SExample::decode(&sent[0].1, Options::new()).unwrap().level,
        42
    );
    assert_eq!(*fakes.lock().unwrap(), ["fake level 42"]);

    // From outside the hooks too.
    d.send(Direction::ToClient, with_level(5));
    assert_eq!(
        d.take_sent().map(|(_, b)| b).collect::<Vec<_>>(),
        [with_level(5)]
    );
    assert_eq!(fakes.lock().unwrap().len(), 2);
}

#[test]
fn a_hook_that_panics_is_reported_once_and_the_packet_goes_on_unchanged() {
    let mut d = dispatch();
    d.raw("S_EXAMPLE", HookOptions::new(), |_, bytes| {
        bytes[10] = 99;
        panic!("hook bug");
    })
    .unwrap();
    let after = log();
    let a = after.clone();
    d.raw("S_EXAMPLE", HookOptions::new(), move |_, bytes| {
        note(&a, format!("level byte {}", bytes[10]));
        Action::Pass
    })
    .unwrap();
    for _ in 0..3 {
        assert_eq!(d.handle(Direction::ToClient, &PACKET), Handled::Forward);
    }
    let failures = d.take_failures();
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert_eq!(failures[0].message, "S_EXAMPLE");
    assert_eq!(failures[0].what, "panicked: hook bug");
    assert_eq!(after.lock().unwrap().len(), 3);
    assert!(after.lock().unwrap().iter().all(|l| l == "level byte 7"));
}

#[test]
fn a_typed_hook_on_a_packet_that_does_not_decode_is_reported_and_the_packet_passes() {
    let mut d = dispatch();
    d.hook::<SExample>(HookOptions::new(), |_, p| {
        p.level = 1;
        Action::Modified
    })
    .unwrap();
    // The name's offset points past the end.
    let mut bad = PACKET.to_vec();
    bad[8] = 0xf0;
    assert_eq!(d.handle(Direction::ToClient, &bad), Handled::Forward);
    let f = d.take_failures();
    assert_eq!(f.len(), 1);
    assert!(f[0].what.starts_with("does not decode: "), "{}", f[0].what);
}

#[test]
fn a_message_the_protocol_does_not_have_is_refused_at_registration() {
    let mut d = dispatch();
    let e = d
        .raw("S_NOPE", HookOptions::new(), |_, _| Action::Pass)
        .unwrap_err();
    assert_eq!(
        e,
        DispatchError::UnknownMessage {
            name: "S_NOPE".into()
        }
    );
    assert_eq!(e.to_string(), "the protocol has no message S_NOPE");
}

#[test]
fn packets_without_hooks_pass_and_short_ones_too() {
    let mut d = dispatch();
    d.raw("C_EXAMPLE_MOVE", HookOptions::new(), |_, _| Action::Silence)
        .unwrap();
    assert_eq!(d.handle(Direction::ToClient, &PACKET), Handled::Forward);
    assert_eq!(d.handle(Direction::ToClient, &[1, 0]), Handled::Forward);
}

#[test]
fn fake_packets_answering_fake_packets_stop_at_the_bound() {
    let mut d = dispatch();
    let filter = Filter {
        fake: None,
        ..Filter::default()
    };
    d.raw(
        "S_EXAMPLE",
        HookOptions::new().filter(filter),
        |cx, bytes| {
            cx.send(Direction::ToClient, bytes.clone());
            Action::Pass
        },
    )
    .unwrap();
    assert_eq!(d.handle(Direction::ToClient, &PACKET), Handled::Forward);
    assert_eq!(d.take_sent().count(), 1024);
    let f = d.take_failures();
    assert_eq!(f.len(), 1);
    assert!(
        f[0].what.contains("more than 1024 fake packets"),
        "{}",
        f[0].what
    );
}
