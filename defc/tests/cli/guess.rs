//! `defc guess` on a capture built from the public vectors: each message's packets get the opcode
//! the newest map assigns it (messages the map lacks are left out); for a message that also has
//! vectors with padding, its padded packets are used (padding is a per-opcode property, so a real
//! capture has one form per opcode). The map is the independent expectation.
//!
//! Besides the three figures a report gives (claims right, true message missing from a candidate
//! list, opcodes claimed), each run is checked against the *identifiability ceiling*: an opcode
//! is identifiable when every naming of the capture's opcodes consistent with the candidates
//! (one message per opcode, one opcode per message, messages outside the capture free to own
//! opcodes outside it) gives it its true name. It is computed here from the map's truth by
//! alternating paths, not by the claim code; the claims must be exactly the identifiable
//! opcodes. A second, coarser bound comes from the `.def` text alone: an opcode whose message
//! has a *layout twin* (another message with the same field types in the same order) that the
//! priors allow can never be identified.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use crate::{run, support};

fn read_map(path: &Path) -> BTreeMap<String, u16> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .filter_map(|l| {
            let l = l.split('#').next().unwrap().trim();
            let (name, op) = l.split_once('=')?;
            Some((name.trim().to_string(), op.trim().parse().ok()?))
        })
        .collect()
}

/// The maps of tera-data, oldest first.
fn maps(dir: &Path) -> Vec<PathBuf> {
    let mut maps: Vec<(u64, PathBuf)> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| {
            let p = e.ok()?.path();
            let n = p.file_name()?.to_str()?;
            let v = n
                .strip_prefix("protocol.")?
                .strip_suffix(".map")?
                .parse()
                .ok()?;
            Some((v, p))
        })
        .collect();
    maps.sort();
    maps.into_iter().map(|m| m.1).collect()
}

/// The side of a message from its name (`C_`, `S_`, also after a prefix: `TTB_S_`).
fn side(name: &str) -> Option<&'static str> {
    let parts: Vec<&str> = name.split('_').take(2).collect();
    if parts.contains(&"C") {
        Some("client")
    } else if parts.contains(&"S") {
        Some("server")
    } else {
        None
    }
}

/// A capture and what it truly holds.
struct Capture {
    /// Hex lines.
    plain: String,
    /// JSON lines with each packet's direction.
    with_direction: String,
    /// Opcode → message.
    truth: BTreeMap<u16, String>,
    /// Message → the definition file its packets were written with.
    files: BTreeMap<String, String>,
    header_only: BTreeSet<u16>,
}

/// The capture of the messages of `map` whose vectors' definition file `keep` accepts.
fn capture(vectors: &Path, map: &BTreeMap<String, u16>, keep: impl Fn(&str) -> bool) -> Capture {
    // name -> (file, padding -> packets)
    let mut by_name: BTreeMap<String, (String, BTreeMap<bool, Vec<String>>)> = BTreeMap::new();
    for line in std::fs::read_to_string(vectors).unwrap().lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let file = v["def"].as_str().unwrap();
        let name = file.split('.').next().unwrap().to_string();
        let padding = v["padding"].as_bool().unwrap();
        let hex = v["hex"].as_str().unwrap().to_string();
        let e = by_name.entry(name).or_default();
        e.0 = file.to_string();
        e.1.entry(padding).or_default().push(hex);
    }
    let mut c = Capture {
        plain: String::from("# built by defc/tests/guess.rs from tera-vectors\n"),
        with_direction: String::new(),
        truth: BTreeMap::new(),
        files: BTreeMap::new(),
        header_only: BTreeSet::new(),
    };
    c.with_direction = c.plain.clone();
    for (name, (file, forms)) in &by_name {
        let Some(&op) = map.get(name) else { continue };
        if !keep(file) {
            continue;
        }
        let packets = forms.get(&true).or(forms.get(&false)).unwrap();
        // A real capture knows which side sent each packet: here, from the name; none for the
        // others (`I_`).
        let dir = side(name).map_or(String::new(), |d| format!(",\"direction\":\"{d}\""));
        for hex in packets {
            let [lo, hi] = op.to_le_bytes();
            let hex = format!("{}{lo:02x}{hi:02x}{}", &hex[..4], &hex[8..]);
            c.plain.push_str(&format!("{hex}\n"));
            c.with_direction
                .push_str(&format!("{{\"hex\":\"{hex}\"{dir}}}\n"));
        }
        if packets.iter().all(|h| h.len() == 8) {
            c.header_only.insert(op);
        }
        c.truth.insert(op, name.clone());
        c.files.insert(name.clone(), file.clone());
    }
    c
}

/// The priors of one run.
#[derive(Clone, Copy)]
struct Priors {
    direction: bool,
    names: bool,
    current: bool,
}

impl Priors {
    fn label(&self) -> String {
        let mut l = Vec::new();
        if self.direction {
            l.push("direction");
        }
        if self.names {
            l.push("names");
        }
        if self.current {
            l.push("current");
        }
        if l.is_empty() {
            "none".into()
        } else {
            l.join("+")
        }
    }
}

/// One run's figures.
struct Figures {
    claimed: usize,
    right: usize,
    eligible: usize,
    missing: Vec<String>,
    /// Opcodes identifiable at all (see the module docs).
    ceiling: usize,
    /// Opcodes whose message has no layout twin the priors allow.
    untwinned: usize,
}

/// Runs `defc guess` on `c` with `priors`, and checks its claims against the ceiling.
fn run_guess(env: &Env, tag: &str, c: &Capture, p: Priors) -> Figures {
    let label = format!("{tag}-{}", p.label());
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("defc-guess");
    std::fs::create_dir_all(&dir).unwrap();
    let cap = dir.join(format!("{label}.txt"));
    let report = dir.join(format!("{label}.json"));
    let text = if p.direction {
        &c.with_direction
    } else {
        &c.plain
    };
    std::fs::write(&cap, text).unwrap();
    let (defs, previous) = (env.defs.to_str().unwrap(), env.previous.to_str().unwrap());
    let mut args = vec![
        "guess",
        "--defs",
        defs,
        "--report",
        report.to_str().unwrap(),
    ];
    // Every candidate: the ceiling below is computed from all of them.
    args.extend(["--report-candidates", "100000"]);
    if p.names {
        args.extend(["--names", previous]);
    }
    if p.current {
        args.push("--current");
    }
    args.push(cap.to_str().unwrap());
    let out = run::defc(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let claimed = read_map_text(&String::from_utf8(out.stdout).unwrap());
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let right = claimed
        .iter()
        .filter(|(n, op)| c.truth.get(op) == Some(n))
        .count();
    let mut missing = Vec::new();
    // Opcode → the messages no prior and no implausible value rules out.
    let mut allowed: BTreeMap<u16, BTreeSet<String>> = BTreeMap::new();
    for o in report["opcodes"].as_array().unwrap() {
        let op = o["opcode"].as_u64().unwrap() as u16;
        let t = &c.truth[&op];
        if c.header_only.contains(&op) {
            assert_eq!(o["status"], "header-only", "opcode {op}");
            assert!(o["claim"].is_null());
            continue;
        }
        let cands = o["candidates"].as_array().unwrap();
        assert_eq!(o["more_candidates"], 0, "opcode {op}");
        if !cands.iter().any(|c| c["name"] == t.as_str()) {
            missing.push(format!("{op} {t}"));
        }
        allowed.insert(
            op,
            cands
                .iter()
                .filter(|c| c["excluded"].is_null() && c["implausible"] == 0)
                .map(|c| c["name"].as_str().unwrap().to_string())
                .collect(),
        );
    }
    // The priors are true of this capture: the true message stays allowed.
    for (op, a) in &allowed {
        assert!(
            a.contains(&c.truth[op]),
            "{label}: {op} {} ruled out",
            c.truth[op]
        );
    }
    let identifiable = identifiable(&allowed, &c.truth);
    let claimed_ops: BTreeSet<u16> = claimed.values().copied().collect();
    assert_eq!(
        claimed_ops, identifiable,
        "{label}: claims are not the identifiable opcodes"
    );
    let untwinned = allowed
        .keys()
        .filter(|op| !has_twin(env, c, p, &c.truth[op]))
        .count();
    assert!(
        identifiable.len() <= untwinned,
        "{label}: {} identifiable, but only {untwinned} without a layout twin",
        identifiable.len()
    );
    let f = Figures {
        claimed: claimed.len(),
        right,
        eligible: c.truth.len() - c.header_only.len(),
        missing,
        ceiling: identifiable.len(),
        untwinned,
    };
    eprintln!(
        "guess ({label}): {} opcodes ({} header-only); claimed {} ({:.1} % of {}), {} right ({:.1} %); \
         true message missing from {} candidate lists; ceiling {} ({:.1} %); without a layout twin {} ({:.1} %)",
        c.truth.len(),
        c.header_only.len(),
        f.claimed,
        100.0 * f.claimed as f64 / f.eligible as f64,
        f.eligible,
        f.right,
        100.0 * f.right as f64 / f.claimed.max(1) as f64,
        f.missing.len(),
        f.ceiling,
        100.0 * f.ceiling as f64 / f.eligible as f64,
        f.untwinned,
        100.0 * f.untwinned as f64 / f.eligible as f64,
    );
    assert!(
        f.missing.is_empty(),
        "{label}: true message not a candidate: {:?}",
        f.missing
    );
    assert_eq!(
        f.right, f.claimed,
        "{label}: {} of {} claims right",
        f.right, f.claimed
    );
    f
}

/// The opcodes every consistent naming gives their true message. With the truth as the
/// matching, opcode `o` can take another message `n` exactly when, moving `n`'s owner to
/// another of its messages and so on, the chain ends at a message no opcode of the capture
/// owns, or at `o`'s own (freed) message.
fn identifiable(
    allowed: &BTreeMap<u16, BTreeSet<String>>,
    truth: &BTreeMap<u16, String>,
) -> BTreeSet<u16> {
    let owner: BTreeMap<&str, u16> = allowed.keys().map(|op| (truth[op].as_str(), *op)).collect();
    allowed
        .keys()
        .filter(|&&o| {
            let mut seen = BTreeSet::from([o]);
            let mut stack = vec![o];
            while let Some(x) = stack.pop() {
                for n in &allowed[&x] {
                    if *n == truth[&x] {
                        continue;
                    }
                    match owner.get(n.as_str()) {
                        None => return false,
                        Some(&y) if y == o => return false,
                        Some(&y) => {
                            if seen.insert(y) {
                                stack.push(y);
                            }
                        }
                    }
                }
            }
            true
        })
        .copied()
        .collect()
}

/// The shared inputs.
struct Env {
    defs: PathBuf,
    previous: PathBuf,
    /// Definition file → its layout signature.
    layouts: BTreeMap<String, Vec<String>>,
    /// Current (name, version) of the newest protocol.
    current: BTreeSet<(String, u32)>,
    previous_names: BTreeSet<String>,
}

/// The byte layout of a `.def`, from its text alone: per line, the nesting depth and the type,
/// with a `ref` given as the line of the field it refers to. Names and comments are dropped,
/// so two messages with the same signature decode exactly the same packets.
fn signature(text: &str) -> Vec<String> {
    let lines: Vec<(usize, String, String)> = text
        .lines()
        .filter_map(|l| {
            let l = l.split('#').next().unwrap().replace('\u{feff}', "");
            let l = l.trim();
            let body = l.trim_start_matches(['-', ' ', '\t']);
            let depth = l[..l.len() - body.len()].matches('-').count();
            let mut words = body.split_whitespace();
            let ty = words.next()?.to_string();
            let name = words.next().unwrap_or("").to_string();
            Some((depth, ty, name))
        })
        .collect();
    lines
        .iter()
        .enumerate()
        .map(|(i, (depth, ty, name))| {
            if ty == "ref" {
                let target = lines
                    .iter()
                    .enumerate()
                    .skip(i + 1)
                    .find(|(_, (d, t, n))| d == depth && t != "ref" && n == name)
                    .map_or(usize::MAX, |(j, _)| j);
                format!("{depth} ref {target}")
            } else {
                format!("{depth} {ty}")
            }
        })
        .collect()
}

/// Whether message `t` (as its capture file writes it) has a layout twin the priors allow, with
/// which the capture can be renamed: another message with a definition of the same signature
/// that is absent from the capture, or present and written with the same signature.
fn has_twin(env: &Env, c: &Capture, p: Priors, t: &str) -> bool {
    let sig = &env.layouts[&c.files[t]];
    env.layouts.iter().any(|(file, s)| {
        let mut parts = file.split('.');
        let (name, version) = (parts.next().unwrap(), parts.next().unwrap());
        let version: u32 = version.parse().unwrap();
        s == sig
            && name != t
            && !(p.direction && side(name).is_some() && side(t).is_some() && side(name) != side(t))
            && !(p.direction && side(name).is_some() && side(t).is_none())
            && (!p.names || env.previous_names.contains(name))
            && (!p.current || env.current.contains(&(name.to_string(), version)))
            && c.files.get(name).is_none_or(|f| env.layouts[f] == *sig)
    })
}

#[test]
fn guess_on_the_public_vectors() {
    let (Some(vectors), Some(defs), Some(data)) = (
        support::shared("tera-vectors/public.jsonl"),
        support::tera_data("definitions"),
        support::tera_data(""),
    ) else {
        return;
    };
    let maps = maps(&data.join("maps"));
    let map = read_map(maps.last().expect("a map"));
    // The previous patch's map, for the names (never its opcodes).
    let previous = maps[maps.len().saturating_sub(2)].clone();
    let protocol = def_runtime::tera::dynamic::Protocol::load_newest(&data, &Default::default())
        .expect("the newest protocol");
    let current: BTreeSet<(String, u32)> = protocol
        .messages()
        .iter()
        .map(|m| (m.definition.name().to_string(), m.definition.version()))
        .collect();
    let mut layouts = BTreeMap::new();
    for e in std::fs::read_dir(&defs).unwrap() {
        let path = e.unwrap().path();
        let file = path.file_name().unwrap().to_str().unwrap().to_string();
        if file.ends_with(".def") {
            layouts.insert(file, signature(&std::fs::read_to_string(&path).unwrap()));
        }
    }
    let env = Env {
        defs,
        previous_names: read_map(&previous).into_keys().collect(),
        previous,
        layouts,
        current,
    };

    let none = Priors {
        direction: false,
        names: false,
        current: false,
    };
    let direction = Priors {
        direction: true,
        ..none
    };
    let names = Priors {
        names: true,
        ..none
    };
    let both = Priors {
        direction: true,
        names: true,
        current: false,
    };
    // The full capture: every message of the newest map that has vectors.
    let all = capture(&vectors, &map, |_| true);
    let a = run_guess(&env, "all", &all, none);
    run_guess(&env, "all", &all, direction);
    run_guess(&env, "all", &all, names);
    let bc = run_guess(&env, "all", &all, both);
    assert!(bc.claimed >= a.claimed);
    // docs/tools.md says why most opcodes of this capture cannot be claimed: the ceiling above.
    // This floor guards what is reached.
    assert!(
        a.claimed * 100 >= a.eligible * 20,
        "claimed {} of {}",
        a.claimed,
        a.eligible
    );

    // With the current versions as a prior, the capture must hold current packets only (a real
    // capture does): the messages whose vectors were written with their current definition.
    let cur = capture(&vectors, &map, |file| {
        let mut parts = file.split('.');
        let name = parts.next().unwrap().to_string();
        let version = parts.next().unwrap().parse().unwrap();
        env.current.contains(&(name, version))
    });
    run_guess(&env, "current", &cur, none);
    run_guess(
        &env,
        "current",
        &cur,
        Priors {
            current: true,
            ..none
        },
    );
    run_guess(
        &env,
        "current",
        &cur,
        Priors {
            direction: true,
            names: true,
            current: true,
        },
    );
}

fn read_map_text(text: &str) -> BTreeMap<String, u16> {
    text.lines()
        .filter_map(|l| {
            let (n, op) = l.split_once(" = ")?;
            Some((n.to_string(), op.parse().ok()?))
        })
        .collect()
}

/// Hand-made: a header-only opcode is never claimed; packets that only one definition of a tiny
/// folder decodes are claimed for it; a bad capture line is an error with its line number.
#[test]
fn small_folder_and_bad_lines() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("defc-guess-small");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("defs")).unwrap();
    std::fs::write(dir.join("defs/S_NAME.1.def"), "string name\n").unwrap();
    std::fs::write(dir.join("defs/S_PAIR.1.def"), "int32 a\nint32 b\n").unwrap();
    std::fs::write(dir.join("defs/S_EMPTY.1.def"), "").unwrap();
    // S_NAME "hi" and "hey" at opcode 7: header, offset 6, the text (S_PAIR fits the first only).
    // S_PAIR at opcode 8: 12 bytes. Opcode 9: header only.
    let cap = "# a comment\n\
               0c0007000600680069000000\n\
               0e00070006006800650079000000\n\
               {\"hex\": \"0c000800010000000200000000\"}\n\
               0c00080005000000ffffffff\n\
               04000900\n";
    // The JSON line above has one byte too many: strict decoding refuses it for every definition.
    std::fs::write(dir.join("cap.txt"), cap).unwrap();
    let out = guess_in(
        &dir,
        &["--report", dir.join("r.json").to_str().unwrap()],
        "cap.txt",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "S_NAME = 7\n");
    let r: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("r.json")).unwrap()).unwrap();
    let status: Vec<&str> = r["opcodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["status"].as_str().unwrap())
        .collect();
    assert_eq!(status, ["claimed", "no-candidate", "header-only"]);

    // Direction: a client packet cannot be an `S_` message.
    std::fs::write(
        dir.join("dir.txt"),
        "{\"hex\":\"0c0007000600680069000000\",\"direction\":\"client\"}\n\
         {\"hex\":\"0e00070006006800650079000000\",\"direction\":\"client\"}\n",
    )
    .unwrap();
    let out = guess_in(&dir, &[], "dir.txt");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "");

    std::fs::write(dir.join("bad.txt"), "0c0007000600680069000000\nzz\n").unwrap();
    let out = guess_in(&dir, &[], "bad.txt");
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("line 2"), "{err}");

    std::fs::write(
        dir.join("bad2.txt"),
        "{\"hex\":\"04000900\",\"direction\":\"up\"}\n",
    )
    .unwrap();
    let out = guess_in(&dir, &[], "bad2.txt");
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("line 1") && err.contains("direction"), "{err}");
}

/// `defc guess --defs DIR/defs EXTRA.. DIR/CAPTURE` under the runner's hang guard.
fn guess_in(dir: &Path, extra: &[&str], capture: &str) -> Output {
    let defs = dir.join("defs");
    let cap = dir.join(capture);
    let mut args = vec!["guess", "--defs", defs.to_str().unwrap()];
    args.extend(extra);
    args.push(cap.to_str().unwrap());
    run::defc(&args)
}

/// Runs `defc guess` on a hand-made folder and capture; returns the map it prints.
fn guess_small(dir: &Path, capture: &str, extra: &[&str]) -> String {
    std::fs::write(dir.join("cap.txt"), capture).unwrap();
    let out = guess_in(dir, extra, "cap.txt");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Hand-made: an opcode is claimed when no other naming of the capture fits, even when no
/// opcode has a single candidate (two opcodes that can only be S_A or S_B use both up, so the
/// third is S_C); `--current` rules out versions that are not current, by the version rule of
/// `defc gen` (the highest version, unless `deprecated.json` retires it).
#[test]
fn matching_and_current_versions() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("defc-guess-matching");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("defs")).unwrap();
    std::fs::write(dir.join("defs/S_A.1.def"), "int32 a\n").unwrap();
    std::fs::write(dir.join("defs/S_B.1.def"), "uint32 b\n").unwrap();
    std::fs::write(dir.join("defs/S_C.1.def"), "bool a\nbyte b\nint16 c\n").unwrap();
    // Opcodes 7 and 8: a first byte of 5, which S_C reads as an implausible bool. Opcode 9: 1.
    let cap = "0800070005000000\n0800080005010000\n0800090001000000\n";
    assert_eq!(guess_small(&dir, cap, &[]), "S_C = 9\n");

    // S_A gets a version 2 that reads a string: the current one. Opcode 7 may be S_A (version
    // 1) or S_B; with --current only S_B.
    std::fs::write(dir.join("defs/S_A.2.def"), "string s\n").unwrap();
    let cap = "0800070005000000\n";
    assert_eq!(guess_small(&dir, cap, &[]), "");
    assert_eq!(guess_small(&dir, cap, &["--current"]), "S_B = 7\n");
    // Retired by deprecated.json: version 1 is current again, and the race is open.
    std::fs::write(
        dir.join("deprecated.json"),
        r#"{"S_A": {"2": {"max": 100, "readable": false}}}"#,
    )
    .unwrap();
    assert_eq!(guess_small(&dir, cap, &["--current"]), "");
    std::fs::remove_file(dir.join("deprecated.json")).unwrap();
    std::fs::write(
        dir.join("dep.json"),
        r#"{"S_A": {"2": {"max": 100, "readable": false}}}"#,
    )
    .unwrap();
    let dep = dir.join("dep.json");
    let dep = dep.to_str().unwrap();
    assert_eq!(
        guess_small(&dir, cap, &["--current", "--deprecated", dep]),
        ""
    );
    // At patch 100 version 2 is still current.
    assert_eq!(
        guess_small(
            &dir,
            cap,
            &["--current", "--deprecated", dep, "--patch", "100"]
        ),
        "S_B = 7\n"
    );
}
