//! Every sample of the shared NBT sample set against its independent JSON dump, and read→write
//! byte identity for every valid binary sample.
#![cfg(feature = "nbt")]

use crate::{nbt_samples, support};

use std::path::PathBuf;

use def_runtime::nbt::borrow::BorrowedNbt;
use def_runtime::nbt::dump::{self, Json};
use def_runtime::nbt::{Compression, FileOptions, NbtErrorKind, NbtFile, compress, region, snbt};

/// The sample folder; `None` only when missing data may be skipped (`tests/support/mod.rs`).
fn samples_dir() -> Option<PathBuf> {
    support::shared("nbt-samples")
}

/// Runs `f` on a thread with a big stack: the deepest dumps nest JSON over 1000 levels.
fn big_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

struct Outcome {
    checked: usize,
    matched: Vec<String>,
    round_trips: Vec<String>,
    borrowed: usize,
    failures: Vec<String>,
}

fn check_all(dir: PathBuf) -> Outcome {
    let mut out = Outcome {
        checked: 0,
        matched: vec![],
        round_trips: vec![],
        borrowed: 0,
        failures: vec![],
    };
    let names = nbt_samples::dump_names(&dir);
    for json_name in names {
        let name = json_name.trim_end_matches(".json").to_string();
        let expected = Json::parse(&std::fs::read_to_string(dir.join(&json_name)).unwrap())
            .unwrap_or_else(|e| panic!("{json_name}: {e}"));
        let raw = std::fs::read(dir.join(&name)).unwrap();
        let meta = expected.get("meta").expect("meta");
        let kind = meta.get("kind").and_then(Json::as_str).unwrap();
        let want_ok = meta.get("result").and_then(Json::as_str).as_deref() == Some("ok");
        out.checked += 1;
        let mut fail = |m: String| out.failures.push(format!("{name}: {m}"));
        let got: Result<String, String> = match kind.as_str() {
            "region" => region::RegionFile::decode(&raw)
                .map(|r| r.to_json())
                .map_err(|e| e.to_string()),
            "snbt" => std::str::from_utf8(&raw)
                .map_err(|e| e.to_string())
                .and_then(|t| snbt::parse_root(t).map_err(|e| e.to_string()))
                .map(|nbt| dump::root_to_json(&nbt)),
            k => {
                let Some(opts) = nbt_samples::options_for(k) else {
                    fail(format!("unknown kind {k}"));
                    continue;
                };
                match NbtFile::decode(&raw, opts) {
                    Ok(f) => {
                        // Bytes consumed and trailing bytes must agree with the dump's meta.
                        for (key, ours) in
                            [("consumed", f.consumed), ("trailing_bytes", f.trailing)]
                        {
                            if let Some(Json::Number(n)) = meta.get(key)
                                && n.parse::<usize>().ok() != Some(ours)
                            {
                                fail(format!("{key}: ours {ours}, dump {n}"));
                            }
                        }
                        if want_ok {
                            // Round trip: re-encode and compare with the decompressed input.
                            let plain = match f.compression {
                                Compression::None => raw.clone(),
                                c => compress::decompress(&raw, c, usize::MAX).unwrap().data,
                            };
                            // The zero-copy reader must see the same tree.
                            let body = &plain[if f.header.is_some() { 8 } else { 0 }..];
                            let b = if opts.all_roots {
                                BorrowedNbt::decode_all(body, opts.read)
                            } else {
                                BorrowedNbt::decode(body, opts.read)
                            };
                            let lazy = if opts.all_roots {
                                BorrowedNbt::decode_all_lazy(body, opts.read)
                            } else {
                                BorrowedNbt::decode_lazy(body, opts.read)
                            };
                            // So must the owned reader that leaves strings unchecked.
                            let unchecked = FileOptions {
                                read: opts.read.check_strings(false),
                                ..opts
                            };
                            match NbtFile::decode(&raw, unchecked) {
                                Ok(u) if u.roots == f.roots => {}
                                Ok(_) => {
                                    fail("unchecked owned reader sees a different tree".into())
                                }
                                Err(e) => fail(format!("unchecked owned reader failed: {e}")),
                            }
                            match lazy.and_then(|l| l.try_to_owned_roots()) {
                                Ok(r) if r == f.roots => {}
                                Ok(_) => fail("lazy borrowed reader sees a different tree".into()),
                                Err(e) => fail(format!("lazy borrowed reader failed: {e}")),
                            }
                            match b {
                                Ok(b) if b.to_owned_roots() == f.roots => out.borrowed += 1,
                                Ok(_) => fail("borrowed reader sees a different tree".into()),
                                Err(e) => fail(format!("borrowed reader failed: {e}")),
                            }
                            match f.encode_uncompressed() {
                                Ok(w) if w == plain[..f.consumed] => {
                                    out.round_trips.push(name.clone())
                                }
                                Ok(_) => fail("re-encoded bytes differ".into()),
                                Err(e) => fail(format!("write failed: {e}")),
                            }
                        }
                        Ok(dump::file_to_json(&f, false))
                    }
                    Err(e) => {
                        // The zero-copy reader must reject it too.
                        let plain = compress::decompress(&raw, Compression::detect(&raw), 1 << 30)
                            .map(|d| d.data)
                            .unwrap_or_default();
                        if BorrowedNbt::decode(&plain, opts.read).is_ok() {
                            fail("borrowed reader accepts a file the owned reader rejects".into());
                        }
                        if BorrowedNbt::decode_lazy(&plain, opts.read)
                            .and_then(|l| l.validate_strings())
                            .is_ok()
                        {
                            fail("lazy read + validate_strings accepts a rejected file".into());
                        }
                        let unchecked = FileOptions {
                            read: opts.read.check_strings(false),
                            ..opts
                        };
                        if !matches!(e.kind(), NbtErrorKind::InvalidString)
                            && NbtFile::decode(&raw, unchecked).is_ok()
                        {
                            fail("unchecked owned reader accepts a malformed file".into());
                        }
                        Err(e.to_string())
                    }
                }
            }
        };
        match (want_ok, got) {
            (true, Ok(text)) => {
                let ours = Json::parse(&text).expect("our dump parses");
                if ours.same_as(&expected.without("meta")) {
                    out.matched.push(name);
                } else {
                    fail("dump differs from the expected JSON".into());
                }
            }
            (true, Err(e)) => fail(format!("expected ok, got error: {e}")),
            (false, Ok(_)) => fail("expected an error, read succeeded".into()),
            (false, Err(_)) => out.matched.push(name),
        }
    }
    out
}

#[test]
fn samples_match_their_dumps_and_round_trip() {
    let Some(dir) = samples_dir() else { return };
    let o = big_stack(move || check_all(dir));
    eprintln!(
        "{} samples: {} match their dumps (or fail as expected), {} round-trip byte-identical, \
         {} read identically by the zero-copy reader",
        o.checked,
        o.matched.len(),
        o.round_trips.len(),
        o.borrowed
    );
    assert!(o.round_trips.len() >= 58 && o.borrowed >= 58);
    assert!(
        o.failures.is_empty(),
        "failures:\n{}",
        o.failures.join("\n")
    );
    assert!(o.checked >= 64, "only {} samples found", o.checked);
}
