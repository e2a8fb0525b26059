//! `defc diff --def F.def HEX HEX`: what differs between two packets of one message, field by
//! field: values that changed, array elements added or removed.
//!
//! Arrays are matched from both ends: the elements equal at the start and at the end are the
//! same, those between are compared in pairs, and the surplus of the longer array is reported
//! added (in the second packet) or removed (from the first). One element inserted or deleted
//! anywhere is so reported as that one change, in linear time.

use std::path::Path;
use std::process::ExitCode;

use def_runtime::Options;
use def_runtime::PathSegment;
use def_runtime::tera::spans::path_text;
use serde_json::Value;

use crate::annotate::{load, packet_arg};
use crate::codec::decode_json;

/// One difference, at a field path (`path_text` writes it).
#[derive(Debug, PartialEq)]
pub enum Change {
    /// A value differs.
    Changed(String, Value, Value),
    /// An element only the second packet has.
    Added(String, Value),
    /// An element only the first packet has.
    Removed(String, Value),
}

/// The differences from `a` to `b`, under `path` (the steps to them, one per name or index, so
/// that a name holding `.` or `[` stays one step).
pub fn diff(path: &mut Vec<PathSegment>, a: &Value, b: &Value, out: &mut Vec<Change>) {
    // Runs `f` with one more step on the path.
    fn at<R>(
        path: &mut Vec<PathSegment>,
        step: PathSegment,
        f: impl FnOnce(&mut Vec<PathSegment>) -> R,
    ) -> R {
        path.push(step);
        let r = f(path);
        path.pop();
        r
    }
    let key = |k: &String| PathSegment::Field(k.clone().into());
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in x {
                match y.get(k) {
                    Some(w) => at(path, key(k), |p| diff(p, v, w, out)),
                    None => at(path, key(k), |p| {
                        out.push(Change::Removed(path_text(p), v.clone()))
                    }),
                }
            }
            for (k, w) in y {
                if !x.contains_key(k) {
                    at(path, key(k), |p| {
                        out.push(Change::Added(path_text(p), w.clone()))
                    });
                }
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            let head = x.iter().zip(y).take_while(|(v, w)| v == w).count();
            let tail = x[head..]
                .iter()
                .rev()
                .zip(y[head..].iter().rev())
                .take_while(|(v, w)| v == w)
                .count();
            let (xm, ym) = (&x[head..x.len() - tail], &y[head..y.len() - tail]);
            let pairs = xm.len().min(ym.len());
            let index = |i: usize| PathSegment::Index(head + i);
            for i in 0..pairs {
                at(path, index(i), |p| diff(p, &xm[i], &ym[i], out));
            }
            for (i, v) in xm.iter().enumerate().skip(pairs) {
                at(path, index(i), |p| {
                    out.push(Change::Removed(path_text(p), v.clone()))
                });
            }
            for (i, w) in ym.iter().enumerate().skip(pairs) {
                at(path, index(i), |p| {
                    out.push(Change::Added(path_text(p), w.clone()))
                });
            }
        }
        _ => {
            if a != b {
                out.push(Change::Changed(path_text(path), a.clone(), b.clone()));
            }
        }
    }
}

/// `defc diff`: prints one line per difference; exit status 0 when there is none, 1 when there
/// are some (as `diff` does), 2 on an error.
pub fn run(def: &Path, padding: bool, a: &str, b: &str) -> ExitCode {
    let go = || -> Result<Vec<Change>, String> {
        let d = load(def)?;
        let opts = Options::new().padding(padding);
        let first = packet_arg(a).map_err(|e| format!("first packet: {e}"))?;
        let second = packet_arg(b).map_err(|e| format!("second packet: {e}"))?;
        let x = decode_json(&d, &first, opts).map_err(|e| format!("first packet: {e}"))?;
        let y = decode_json(&d, &second, opts).map_err(|e| format!("second packet: {e}"))?;
        let mut out = Vec::new();
        diff(&mut Vec::new(), &x, &y, &mut out);
        Ok(out)
    };
    match go() {
        Ok(changes) => {
            let mut text = String::new();
            for c in &changes {
                // Paths and values come from the packets: shown by the rule for input text.
                let path = |p: &str| def_text::shown(p, def_text::PATH).to_string();
                let value = crate::out::value;
                text.push_str(&match c {
                    Change::Changed(p, x, y) => {
                        format!("~ {}: {} -> {}\n", path(p), value(x), value(y))
                    }
                    Change::Added(p, v) => format!("+ {}: {}\n", path(p), value(v)),
                    Change::Removed(p, v) => format!("- {}: {}\n", path(p), value(v)),
                });
            }
            crate::annotate::print_out(&text);
            if changes.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(e) => {
            crate::tera::fail(e);
            ExitCode::from(2)
        }
    }
}
