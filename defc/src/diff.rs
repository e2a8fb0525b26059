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
use serde_json::Value;

use crate::annotate::{load, packet_arg};
use crate::codec::decode_json;

/// One difference.
#[derive(Debug, PartialEq)]
pub enum Change {
    /// A value differs.
    Changed(String, Value, Value),
    /// An element only the second packet has.
    Added(String, Value),
    /// An element only the first packet has.
    Removed(String, Value),
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// The differences from `a` to `b`, under `path`.
pub fn diff(path: &str, a: &Value, b: &Value, out: &mut Vec<Change>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in x {
                match y.get(k) {
                    Some(w) => diff(&join(path, k), v, w, out),
                    None => out.push(Change::Removed(join(path, k), v.clone())),
                }
            }
            for (k, w) in y {
                if !x.contains_key(k) {
                    out.push(Change::Added(join(path, k), w.clone()));
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
            for i in 0..pairs {
                diff(&format!("{path}[{}]", head + i), &xm[i], &ym[i], out);
            }
            for (i, v) in xm.iter().enumerate().skip(pairs) {
                out.push(Change::Removed(format!("{path}[{}]", head + i), v.clone()));
            }
            for (i, w) in ym.iter().enumerate().skip(pairs) {
                out.push(Change::Added(format!("{path}[{}]", head + i), w.clone()));
            }
        }
        _ => {
            if a != b {
                out.push(Change::Changed(path.to_string(), a.clone(), b.clone()));
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
        diff("", &x, &y, &mut out);
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
