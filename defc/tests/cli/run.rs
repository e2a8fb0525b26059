//! Runs the `defc` binary of this build: arguments, bytes on standard input, and a time limit
//! (a child still running after two minutes is killed and the test fails: a guard against a
//! hang, not a measurement).

use std::io::Write;
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// How long a run may take before it counts as a hang.
const HANG: Duration = Duration::from_secs(120);

/// `defc args` with nothing on standard input.
pub fn defc(args: &[&str]) -> Output {
    defc_with(args, b"")
}

/// `defc args` with `stdin` on standard input (written from a thread of its own, so that a
/// large input and a large output cannot wait on each other).
pub fn defc_with(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_defc"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let stdin = stdin.to_vec();
    // A command that does not read its input closes the pipe: not an error here.
    std::thread::spawn(move || {
        let _ = input.write_all(&stdin);
    });
    let id = child.id();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(HANG) {
        Ok(out) => out.unwrap(),
        Err(_) => {
            // Only the child this run started, by its id.
            let _ = Command::new("kill").arg(id.to_string()).status();
            panic!("defc {args:?} did not finish in {HANG:?}");
        }
    }
}

/// The outcome as text: success, standard output, standard error (both must be UTF-8).
pub fn text(args: &[&str], stdin: &[u8]) -> (bool, String, String) {
    let out = defc_with(args, stdin);
    (
        out.status.success(),
        String::from_utf8(out.stdout).expect("UTF-8 standard output"),
        String::from_utf8(out.stderr).expect("UTF-8 standard error"),
    )
}
