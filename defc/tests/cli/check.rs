//! `defc check` reads what the generator reads: regular UTF-8 files only. A FIFO named `.def`
//! is refused at once (reading it would block until a writer comes), and a UTF-16 file is
//! refused with the offset and a guess at its encoding, instead of "stream did not contain
//! valid UTF-8".

use std::path::Path;
use std::process::Command;

/// `defc args`, as text.
fn run(args: &[&str]) -> (bool, String, String) {
    crate::run::text(args, b"")
}

#[test]
fn fifos_and_utf16_files_are_refused_with_the_reason() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("defc-check");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("S_OK.1.def"), "int32 a\n").unwrap();
    // "int32 a" in UTF-16LE with its byte-order mark.
    let utf16: Vec<u8> = [0xff, 0xfe]
        .into_iter()
        .chain("int32 a\n".encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    std::fs::write(dir.join("S_WIDE.1.def"), utf16).unwrap();
    let fifo = dir.join("S_FIFO.1.def");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success(), "mkfifo (coreutils) is needed by this test");

    // A FIFO would block a reader that opened it: run under the hang guard.
    let out = crate::run::defc(&["check", dir.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains("S_WIDE.1.def: not UTF-8 text: byte 0xFF at byte offset 0")
            && stderr.contains("UTF-16LE"),
        "{stderr}"
    );
    assert!(
        stderr.contains("S_FIFO.1.def: not a regular file"),
        "{stderr}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("3 files, 0 warnings, 2 errors"), "{stdout}");
}

/// `defc` and its arguments; success, stdout, stderr.
#[test]
fn errors_have_one_prefix_and_bad_hex_its_position() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("defc-errors");
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("S_BAD.1.def");
    std::fs::write(&bad, "int33 x\n").unwrap();
    let (ok, _, err) = run(&["decode", "--def", bad.to_str().unwrap(), "04003412"]);
    assert!(!ok);
    assert!(err.starts_with("error: unknown type `int33`"), "{err}");
    assert_eq!(err.matches("error:").count(), 1, "{err}");

    let def = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../protocol-defs/data/definitions/S_EXAMPLE.1.def");
    let def = def.to_str().unwrap();
    let (ok, _, err) = run(&["decode", "--def", def, "2800 34zz"]);
    assert!(!ok);
    assert_eq!(err, "error: the packet is not hex: z at line 1, column 8\n");
    let (ok, _, err) = run(&["decode", "--def", def, "280"]);
    assert!(!ok);
    assert!(err.contains("odd number of hex digits (3)"), "{err}");
    // A bidi override in the input is shown escaped, not obeyed by the terminal.
    let (_, _, err) = run(&["annotate", "--def", def, "28\u{202e}00"]);
    assert!(err.contains("\\u{202e}"), "{err}");
}

#[test]
fn offsets_past_the_end_say_how_much_is_needed() {
    let def = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../protocol-defs/data/definitions/S_EXAMPLE.1.def");
    // S_EXAMPLE: int32 level, string name, array items. The name's offset (0x0e) lies inside the
    // 15-byte packet, but its UTF-16 unit needs 2 bytes and only 1 is left.
    let (ok, _, err) = run(&[
        "decode",
        "--def",
        def.to_str().unwrap(),
        "0f0034120e000000000007000000ff",
    ]);
    assert!(!ok);
    assert!(err.contains("run past the end of the packet"), "{err}");
}
