//! `defc guess` on a capture built from the public vectors: each message's packets get the opcode
//! the newest map assigns it (messages the map lacks are left out); for a message that also has
//! vectors with padding, its padded packets are used (padding is a per-opcode property, so a real
//! capture has one form per opcode). The map is the independent expectation.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

#[path = "../../runtime/tests/support/mod.rs"]
mod support;

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

/// The three figures of one run: (claimed, right, eligible, true message missing).
fn run_guess(
    defs: &Path,
    label: &str,
    capture: &str,
    names: Option<&Path>,
    truth: &BTreeMap<u16, String>,
    header_only: &BTreeSet<u16>,
) -> (usize, usize, usize, Vec<String>) {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("defc-guess");
    std::fs::create_dir_all(&dir).unwrap();
    let cap = dir.join(format!("{label}.txt"));
    let report = dir.join(format!("{label}.json"));
    std::fs::write(&cap, capture).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_defc"));
    cmd.arg("guess")
        .arg("--defs")
        .arg(defs)
        .arg("--report")
        .arg(&report);
    if let Some(n) = names {
        cmd.arg("--names").arg(n);
    }
    let out = cmd.arg(&cap).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let claimed = read_map_text(&String::from_utf8(out.stdout).unwrap());
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let right = claimed
        .iter()
        .filter(|(n, op)| truth.get(op) == Some(n))
        .count();
    let mut missing = Vec::new();
    for o in report["opcodes"].as_array().unwrap() {
        let op = o["opcode"].as_u64().unwrap() as u16;
        let t = &truth[&op];
        if header_only.contains(&op) {
            assert_eq!(o["status"], "header-only", "opcode {op}");
            assert!(o["claim"].is_null());
            continue;
        }
        let names: BTreeSet<&str> = o["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        if !names.contains(t.as_str()) {
            missing.push(format!("{op} {t}"));
        }
    }
    let eligible = truth.len() - header_only.len();
    eprintln!(
        "guess ({label}): {} opcodes ({} header-only); claimed {} ({:.1} % of {eligible}), {right} right ({:.1} %); true message missing from {} candidate lists",
        truth.len(),
        header_only.len(),
        claimed.len(),
        100.0 * claimed.len() as f64 / eligible as f64,
        100.0 * right as f64 / claimed.len().max(1) as f64,
        missing.len()
    );
    (claimed.len(), right, eligible, missing)
}

#[test]
fn guess_on_the_public_vectors() {
    let (Some(vectors), Some(defs), Some(maps_dir)) = (
        support::shared("tera-vectors/public.jsonl"),
        support::tera_data("definitions"),
        support::tera_data("maps"),
    ) else {
        return;
    };
    let maps = maps(&maps_dir);
    let map = read_map(maps.last().expect("a map"));
    // name -> padding -> packets
    let mut by_name: BTreeMap<String, BTreeMap<bool, Vec<String>>> = BTreeMap::new();
    for line in std::fs::read_to_string(&vectors).unwrap().lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let name = v["def"]
            .as_str()
            .unwrap()
            .split('.')
            .next()
            .unwrap()
            .to_string();
        let padding = v["padding"].as_bool().unwrap();
        let hex = v["hex"].as_str().unwrap().to_string();
        by_name
            .entry(name)
            .or_default()
            .entry(padding)
            .or_default()
            .push(hex);
    }
    let mut plain = String::from("# built by defc/tests/guess.rs from tera-vectors\n");
    let mut with_direction = plain.clone();
    let mut truth: BTreeMap<u16, String> = BTreeMap::new();
    let mut header_only = BTreeSet::new();
    for (name, forms) in &by_name {
        let Some(&op) = map.get(name) else { continue };
        let packets = forms.get(&true).or(forms.get(&false)).unwrap();
        // A real capture knows which side sent each packet: here, from the name (`C_`, `S_`,
        // also after a prefix: `TTB_S_`); none for the others (`I_`).
        let parts: Vec<&str> = name.split('_').take(2).collect();
        let dir = if parts.contains(&"C") {
            ",\"direction\":\"client\""
        } else if parts.contains(&"S") {
            ",\"direction\":\"server\""
        } else {
            ""
        };
        for hex in packets {
            let [lo, hi] = op.to_le_bytes();
            let hex = format!("{}{lo:02x}{hi:02x}{}", &hex[..4], &hex[8..]);
            plain.push_str(&format!("{hex}\n"));
            with_direction.push_str(&format!("{{\"hex\":\"{hex}\"{dir}}}\n"));
        }
        if packets.iter().all(|h| h.len() == 8) {
            header_only.insert(op);
        }
        truth.insert(op, name.clone());
    }

    let (claimed, right, eligible, missing) =
        run_guess(&defs, "plain", &plain, None, &truth, &header_only);
    assert!(
        missing.is_empty(),
        "true message not a candidate: {missing:?}"
    );
    assert!(
        right * 100 >= claimed * 99,
        "{right} of {claimed} claims right"
    );
    // The issue asks for 90 %; the README ("Working out packets") says why packets alone cannot
    // get there (messages whose definitions have the same types in the same order). This floor
    // guards what is reached.
    assert!(
        claimed * 100 >= eligible * 20,
        "claimed {claimed} of {eligible}"
    );

    // With what a maintainer has besides: each packet's direction, and the previous patch's
    // map for the names (never its opcodes).
    let previous = &maps[maps.len().saturating_sub(2)];
    let (claimed2, right2, _, missing2) = run_guess(
        &defs,
        "direction-names",
        &with_direction,
        Some(previous),
        &truth,
        &header_only,
    );
    assert!(
        missing2.is_empty(),
        "true message not a candidate: {missing2:?}"
    );
    assert!(
        right2 * 100 >= claimed2 * 99,
        "{right2} of {claimed2} claims right"
    );
    assert!(claimed2 >= claimed, "{claimed2} < {claimed}");
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
    let out = Command::new(env!("CARGO_BIN_EXE_defc"))
        .args(["guess", "--defs"])
        .arg(dir.join("defs"))
        .arg("--report")
        .arg(dir.join("r.json"))
        .arg(dir.join("cap.txt"))
        .output()
        .unwrap();
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
    let out = Command::new(env!("CARGO_BIN_EXE_defc"))
        .args(["guess", "--defs"])
        .arg(dir.join("defs"))
        .arg(dir.join("dir.txt"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "");

    std::fs::write(dir.join("bad.txt"), "0c0007000600680069000000\nzz\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_defc"))
        .args(["guess", "--defs"])
        .arg(dir.join("defs"))
        .arg(dir.join("bad.txt"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("line 2"), "{err}");

    std::fs::write(
        dir.join("bad2.txt"),
        "{\"hex\":\"04000900\",\"direction\":\"up\"}\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_defc"))
        .args(["guess", "--defs"])
        .arg(dir.join("defs"))
        .arg(dir.join("bad2.txt"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("line 1") && err.contains("direction"), "{err}");
}
