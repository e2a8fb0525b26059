//! Runs every example program with no arguments (as a new user would first) and with some, and
//! checks what it prints.

use std::process::{Command, Output};

fn run(exe: &str, args: &[&str]) -> Output {
    Command::new(exe)
        .args(args)
        .output()
        .expect("run the example")
}

fn ok(exe: &str, args: &[&str]) -> String {
    let out = run(exe, args);
    assert!(
        out.status.success(),
        "{exe} {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

#[test]
fn build_rs() {
    let out = ok(env!("CARGO_BIN_EXE_build_rs"), &[]);
    assert!(
        out.contains("S_EXAMPLE v1: 1800341202000c00040302010c001200070012000000feff"),
        "{out}"
    );
}

#[test]
fn macro_() {
    let out = ok(env!("CARGO_BIN_EXE_macro"), &[]);
    assert!(
        out.contains(r#"json: {"channel":1,"isGm":false,"authorName":"Bob","message":"hi!"}"#),
        "{out}"
    );
}

#[test]
fn dynamic() {
    let out = ok(env!("CARGO_BIN_EXE_dynamic"), &[]);
    assert_eq!(
        out.trim(),
        r#"{"channel":1,"isGm":false,"authorName":"Bob","message":"hi!"}"#
    );
}

#[test]
fn decode_hex() {
    let exe = env!("CARGO_BIN_EXE_decode_hex");
    let out = ok(exe, &[]);
    let json: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(json["authorName"], "Bob");
    assert_eq!(json["message"], "hi!");
    // A packet given on the command line: channel 2, a GM, empty author, message "x".
    // length 19, opcode 1, offsets 13 and 15, channel, isGm, "" (terminator), "x" + terminator.
    let out = ok(exe, &["13000100 0d000f00 0200000001 0000 78000000"]);
    let json: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(
        json,
        serde_json::json!({"channel": 2, "isGm": true, "authorName": "", "message": "x"})
    );
    // A truncated packet fails with the packet, field and offset named.
    let out = run(exe, &["1d0001010d001500010000000042006f00"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("C_CHAT_EXAMPLE"), "{err}");
    // Not hex at all.
    assert!(!run(exe, &["zz"]).status.success());
}

#[test]
fn edit_and_reencode() {
    let out = ok(env!("CARGO_BIN_EXE_edit_and_reencode"), &[]);
    // "edited!" is 7 code units + terminator = 16 bytes where "hi!" took 8: length 29 + 8 = 37.
    assert!(
        out.contains(
            "after:  250001010d001500010000000042006f0062000000650064006900740065006400210000"
        ),
        "{out}"
    );
}

#[test]
fn proxy() {
    let out = ok(env!("CARGO_BIN_EXE_proxy"), &[]);
    assert!(
        out.contains(r#"logged: {"name":"C_CHAT","version":1,"data":{"channel":27,"message":"WTS épée +12"}}"#),
        "{out}"
    );
    assert!(out.contains("2 S_ITEMLIST patched"), "{out}");
    assert!(out.contains("the same as the client sent: true"), "{out}");
}

#[test]
fn ping() {
    let out = ok(env!("CARGO_BIN_EXE_ping"), &[]);
    assert!(out.contains(r#""hello": forwarded to the server"#), "{out}");
    assert!(out.contains(r#""!ping": silenced"#), "{out}");
    assert!(out.contains(r#""name":"proxy","message":"pong""#), "{out}");
}
