//! `defc guess --defs DIR CAPTURE`: which message each opcode of a capture carries.
//!
//! A capture is a text file of packets, header included: one hex packet per line, or JSON lines
//! with a `hex` field and optionally `direction` (`"client"` or `"server"`: who sent it); blank
//! lines and lines starting with `#` are skipped. Packets are grouped
//! by opcode (identical packets count once). For each opcode, every definition of the folder,
//! with and without the 8 bytes of padding, is tried on all its packets; a definition is a
//! *candidate* when it decodes every packet exactly: strict checks (header length, `here`
//! values, UTF-16), and the whole packet consumed. Before decoding, a definition is skipped when a
//! packet is shorter than its fixed part, or when it has no variable data and a packet's length
//! is not exactly its size: most of the corpus is ruled out without reading a byte.
//!
//! # Evidence and ranking
//!
//! Candidates are ranked by how many bits their reading of the packets costs under a simple
//! model of what packet values look like (fewest bits first: the most plausible reading), from
//! the byte ranges of [`def_runtime::tera::spans`]:
//! * integers: a mixture of boundary values (0, 1, -1, least, greatest: flags, "none", ids),
//!   small magnitudes (an Elias gamma code) and any value of the width;
//! * floats: a mixture of special values (0, ±1, ±max, the smallest normal and subnormal), short
//!   numbers of everyday size (2^-10 to 2^24, few mantissa bits: coordinates, 15.0) and any bits;
//!   NaN and infinities are implausible (48 bits more);
//! * `bool`: one bit for 0 or 1; any other byte is implausible;
//! * strings: a gamma-coded length, 7 bits per printable ASCII unit, 16 per other unit; bytes: a
//!   length and 8 bits per byte; counts: gamma-coded. Offsets and element links cost nothing:
//!   they follow from the data, so a definition that explains bytes by structure beats one that
//!   reads them as numbers;
//! * padding costs 16 bits once (most opcodes have none) and is implausible when not zero.
//!
//! Versions of one message compete only with other messages: the name is what is guessed.
//!
//! # Claims
//!
//! An opcode *may be* a message when one of the message's definitions decodes all its packets
//! reading no implausible value (a `bool` byte other than 0 and 1, a NaN or infinite float:
//! writers never put those there) and no prior rules the message out. The priors are facts a
//! maintainer has after a patch besides the packets; each is an assumption about the capture,
//! and each only narrows what may be claimed (the report lists candidates so ruled out, marked):
//! * the direction: when every packet of an opcode says which side sent it, messages named for
//!   the other side (`C_` client, `S_` server, also after a prefix such as `TTB_`) are out;
//! * `--names MAP`: only messages that map names (the previous patch's): assumes the patch
//!   added no message to the capture;
//! * `--current`: only each message's current definition, chosen by the rule `defc gen` and
//!   `Protocol::load` use ([`def_parser::protocol::choose`]) from the folder's versions, their
//!   patch ranges and `deprecated.json` (`--deprecated FILE`; by default the one beside the
//!   definitions folder, as tera-data lays it out, if present) for `--patch N` (default: the
//!   newest): assumes the folder is already updated for the patch of the capture.
//!
//! A message has one opcode and an opcode one message, so a naming consistent with the capture
//! is a matching of opcodes to the messages they may be, and the true naming is one of them (the
//! true message always decodes its own packets, if its definition is in the folder). An opcode
//! is *claimed* (written to the map) exactly when every maximum matching gives it the same
//! message ([`crate::forced`]): no naming that fits every packet and every prior makes it
//! another, so the claim is as certain as the candidates and priors are. Messages absent from
//! the capture stay free (they may own opcodes absent from it), so a twin outside the capture
//! blocks a claim as one inside does. This reaches the identifiability ceiling by construction;
//! `tests/guess.rs` checks it against a ceiling computed from the map's truth.
//!
//! The ranking is not used to claim: on the public vectors' capture, claiming the best-ranked
//! message when it led the next by a margin was right only about 90 % of the time (many messages
//! share a layout exactly, and random test values look alike under any layout), far from the
//! 99 % a map needs. It is in the `--report`, which lists the best-ranked candidates of each
//! opcode (20 unless `--report-candidates N`) and counts the rest, and is written as it is
//! serialized: its size and the memory of a run grow with the opcodes, not with every
//! definition that decodes a packet.
//!
//! An opcode whose packets are all header-only (4 bytes) is reported `header-only`, never
//! claimed: every definition without fields fits it.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use def_parser::Mode;
use def_parser::ast::Scalar;
use def_runtime::Options;
use def_runtime::tera::dynamic::Definition;
use def_runtime::tera::spans::{SpanKind, spans};
use serde_json::{Value, json};

use crate::codec::decode_json;

/// One definition of the folder.
struct Def {
    file: String,
    name: String,
    def: Definition,
    /// Bytes of the root's fixed runs.
    min_body: usize,
    /// Whether the body is always `min_body` bytes.
    fixed: bool,
}

/// Reads and compiles every `.def` of `dir`; files that fail are counted and skipped.
fn load_defs(dir: &Path) -> Result<(Vec<Def>, usize), String> {
    let rd = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut files: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "def"))
        .collect();
    files.sort();
    let mut defs = Vec::with_capacity(files.len());
    let mut failed = 0;
    for f in files {
        match Definition::from_file(&f, Mode::Compatible) {
            Ok(def) => {
                let layout = def.layout();
                let Some(name) = layout.name.as_ref().map(|n| n.name.clone()) else {
                    failed += 1;
                    continue;
                };
                defs.push(Def {
                    file: f
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default(),
                    name,
                    min_body: layout.root.fixed_size,
                    fixed: layout.root.is_fixed_size(),
                    def,
                })
            }
            Err(_) => failed += 1,
        }
    }
    Ok((defs, failed))
}

/// Which side sent a packet: the first letter of the names of its messages (`C_`, `S_`).
fn direction(v: &Value, n: usize) -> Result<Option<char>, String> {
    match v.get("direction") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(d)) => match d.to_ascii_lowercase().as_str() {
            "c" | "c2s" | "client" => Ok(Some('C')),
            "s" | "s2c" | "server" => Ok(Some('S')),
            _ => Err(format!(
                "line {n}: `direction` is {d:?}; expected \"client\" or \"server\""
            )),
        },
        Some(d) => Err(format!("line {n}: `direction` is {d}, not a string")),
    }
}

/// One packet of a capture.
pub struct Captured {
    /// The packet, header included.
    pub bytes: Vec<u8>,
    /// `Some('C')` from the client, `Some('S')` from the server, `None` if the line does not say.
    pub direction: Option<char>,
}

/// Reads a capture: every packet line, in order.
pub fn read_capture(text: &str) -> Result<Vec<Captured>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (hex, dir): (String, _) = if line.starts_with('{') {
            let v: Value =
                serde_json::from_str(line).map_err(|e| format!("line {n}: invalid JSON: {e}"))?;
            let hex = v
                .get("hex")
                .and_then(Value::as_str)
                .ok_or_else(|| format!("line {n}: no string `hex`"))?
                .to_string();
            (hex, direction(&v, n)?)
        } else {
            (line.chars().filter(|c| !c.is_whitespace()).collect(), None)
        };
        let bytes = crate::tera::parse_hex(&hex, "packet").map_err(|e| format!("line {n}: {e}"))?;
        if bytes.len() < 4 {
            return Err(format!(
                "line {n}: {} bytes, shorter than a header",
                bytes.len()
            ));
        }
        out.push(Captured {
            bytes,
            direction: dir,
        });
    }
    Ok(out)
}

/// What the values of one candidate cost over all packets, in bits (see the module docs).
#[derive(Debug, Default, Clone, Copy)]
struct Evidence {
    /// Bits of the packets' data under the candidate's types.
    bits: f64,
    /// `bool` bytes other than 0 and 1.
    bad_bools: usize,
    /// NaN or infinite floats.
    bad_floats: usize,
    /// Values at a boundary of their type (0, 1, -1, min, max).
    boundary: usize,
    /// Bytes read as strings, bytes data, array elements and their links.
    structure_bytes: usize,
    /// Non-zero padding bytes.
    padding_bytes: usize,
}

/// Weights of the integer model: a boundary value, a small magnitude, any value.
const INT_MODEL: [f64; 3] = [0.25, 0.25, 0.5];
/// Weights of the float model: a special value, a short number of everyday size, any value.
const FLOAT_MODEL: [f64; 3] = [0.2, 0.4, 0.4];
/// Bits an implausible value costs on top of its width.
const IMPLAUSIBLE: f64 = 48.0;
/// Bits the choice of padding costs once: most opcodes have none.
const PADDING_PRIOR: f64 = 16.0;

/// Bits of the Elias gamma code of `n + 1`: small numbers are short.
fn gamma_bits(n: u64) -> f64 {
    let b = 64 - n.saturating_add(1).leading_zeros();
    (2 * b - 1) as f64
}

/// Bits of a count or length.
fn count_bits(n: usize) -> f64 {
    gamma_bits(n as u64)
}

/// Bits of an integer of `bits` bits under [`INT_MODEL`]; `hit` if a boundary value (of `n`).
fn int_bits(raw: u64, bits: u32, signed: bool, n: f64, hit: bool) -> f64 {
    let magnitude = if signed && bits < 64 && raw >> (bits - 1) & 1 == 1 {
        (1u64 << bits).wrapping_sub(raw)
    } else if signed && bits == 64 {
        (raw as i64).unsigned_abs()
    } else {
        raw
    };
    let small = (-(gamma_bits(magnitude) + signed as u32 as f64)).exp2();
    let p = INT_MODEL[0] * (hit as u32 as f64) / n
        + INT_MODEL[1] * small
        + INT_MODEL[2] * (-(bits as f64)).exp2();
    -p.log2()
}

/// Bits of a float (`mant` mantissa bits, `exp` exponent bits) under [`FLOAT_MODEL`].
fn float_bits(raw: u64, mant: u32, exp: u32, special: bool) -> f64 {
    let bits = 1 + mant + exp;
    let bias = (1i64 << (exp - 1)) - 1;
    let e = ((raw >> mant) & ((1 << exp) - 1)) as i64 - bias;
    let m = raw & ((1u64 << mant) - 1);
    // Everyday sizes: 2^-10 to 2^24, with as many mantissa bits as the value needs.
    let short = if (-10..24).contains(&e) {
        let used = mant.saturating_sub(m.trailing_zeros().min(mant));
        (-(1.0 + 34f64.log2() + (mant as f64 + 1.0).log2() + used as f64)).exp2()
    } else {
        0.0
    };
    let p = FLOAT_MODEL[0] * (special as u32 as f64) / 8.0
        + FLOAT_MODEL[1] * short
        + FLOAT_MODEL[2] * (-(bits as f64)).exp2();
    -p.log2()
}

impl Evidence {
    fn bad(&self) -> usize {
        self.bad_bools + self.bad_floats
    }
    fn why(&self) -> String {
        let mut parts = vec![format!("{:.0} bits", self.bits)];
        if self.bad_bools > 0 {
            parts.push(format!("{} bool bytes not 0/1", self.bad_bools));
        }
        if self.bad_floats > 0 {
            parts.push(format!("{} NaN or infinite floats", self.bad_floats));
        }
        parts.push(format!(
            "{} boundary values (0, 1, -1, min, max)",
            self.boundary
        ));
        if self.structure_bytes > 0 {
            parts.push(format!(
                "{} bytes in strings, bytes data and array elements",
                self.structure_bytes
            ));
        }
        if self.padding_bytes > 0 {
            parts.push(format!("{} non-zero padding bytes", self.padding_bytes));
        }
        parts.join("; ")
    }

    fn int(&mut self, raw: u64, size: usize, signed: bool) {
        let bits = (size * 8) as u32;
        let all = if bits == 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let raw = raw & all;
        let top = 1u64 << (bits - 1);
        let (hit, n) = if signed {
            (
                raw == 0 || raw == 1 || raw == all || raw == top || raw == top - 1,
                5.0,
            )
        } else {
            (raw == 0 || raw == 1 || raw == all, 3.0)
        };
        self.boundary += hit as usize;
        self.bits += int_bits(raw, bits, signed, n, hit);
    }

    fn float(&mut self, raw: u64, double: bool) {
        let (finite, special, mant, exp) = if double {
            let v = f64::from_bits(raw);
            let s = v == 0.0
                || v.abs() == 1.0
                || v.abs() == f64::MAX
                || v.abs() == f64::MIN_POSITIVE
                || raw & !(1 << 63) == 1;
            (v.is_finite(), s, 52, 11)
        } else {
            let v = f32::from_bits(raw as u32);
            let s = v == 0.0
                || v.abs() == 1.0
                || v.abs() == f32::MAX
                || v.abs() == f32::MIN_POSITIVE
                || raw & 0x7fff_ffff == 1;
            (v.is_finite(), s, 23, 8)
        };
        if !finite {
            self.bad_floats += 1;
            self.bits += IMPLAUSIBLE;
        }
        self.boundary += special as usize;
        self.bits += float_bits(raw, mant, exp, special);
    }

    fn value(&mut self, ty: Scalar, b: &[u8]) {
        let int = |size: usize| -> u64 {
            let mut a = [0u8; 8];
            a[..size].copy_from_slice(&b[..size]);
            u64::from_le_bytes(a)
        };
        match ty {
            Scalar::Bool => {
                if b[0] > 1 {
                    self.bad_bools += 1;
                    self.bits += IMPLAUSIBLE + 8.0;
                } else {
                    self.bits += 1.0;
                }
            }
            Scalar::Float => self.float(le_u32(b) as u64, false),
            Scalar::Double => self.float(le_u64(b), true),
            Scalar::Vec3 | Scalar::Vec3fa => {
                for i in 0..3 {
                    self.float(le_u32(&b[4 * i..]) as u64, false)
                }
            }
            Scalar::Customize => {
                for &x in &b[..8] {
                    self.int(x as u64, 1, false)
                }
            }
            Scalar::Byte
            | Scalar::UInt16
            | Scalar::UInt32
            | Scalar::UInt64
            | Scalar::SkillId
            | Scalar::SkillId32 => self.int(int(ty.size()), ty.size(), false),
            Scalar::Int16 | Scalar::Int32 | Scalar::Int64 | Scalar::Angle => {
                self.int(int(ty.size()), ty.size(), true)
            }
        }
    }
}

/// The evidence of one packet decoded with `def`; `None` if the span walk refuses it.
fn evidence(def: &Definition, bytes: &[u8], opts: Options, e: &mut Evidence) -> Option<()> {
    let ss = spans(def.layout(), bytes, opts).ok()?;
    for s in &ss {
        let b = &bytes[s.start..s.end];
        let in_element = s
            .path
            .iter()
            .any(|step| matches!(step, def_runtime::PathSegment::Index(_)));
        match s.kind {
            SpanKind::Value(ty) => {
                e.value(ty, b);
                if in_element {
                    e.structure_bytes += b.len();
                }
            }
            SpanKind::Text => {
                e.structure_bytes += b.len();
                let units = b.len() / 2 - 1;
                e.bits += count_bits(units);
                for u in b.chunks_exact(2).take(units) {
                    let u = le_u16(u);
                    // Printable ASCII is the common case of game text.
                    e.bits += if (0x20..0x7f).contains(&u) { 7.0 } else { 16.0 };
                }
            }
            SpanKind::Bytes => {
                e.structure_bytes += b.len();
                e.bits += 8.0 * b.len() as f64;
            }
            SpanKind::Count => e.bits += count_bits(le_u16(b) as usize),
            SpanKind::Here | SpanKind::Next | SpanKind::TextOffset => e.structure_bytes += 2,
            SpanKind::Padding => {
                // Padding is expected to be zero; anything else makes padding unlikely.
                let n = b.iter().filter(|x| **x != 0).count();
                e.padding_bytes += n;
                if n > 0 {
                    e.bits += IMPLAUSIBLE + 64.0;
                }
            }
            // The header is the same for every candidate; offsets follow from the data.
            SpanKind::Length | SpanKind::Opcode | SpanKind::Offset => {}
        }
    }
    Some(())
}

/// One definition that decodes every packet of an opcode.
#[derive(Debug, Clone)]
struct Candidate {
    def: usize,
    padding: bool,
    evidence: Evidence,
}

/// What was found for one opcode. Its size is bounded by the number of messages, not of
/// candidates: the candidates themselves are kept only as far as the report lists them.
struct Outcome {
    opcode: u16,
    packets: usize,
    lengths: (usize, usize),
    header_only: bool,
    /// `Some('C')` or `Some('S')` when every packet says it came from the client or the server.
    direction: Option<char>,
    /// How many candidates decode every packet.
    total: usize,
    /// How many messages they are definitions of.
    messages: usize,
    /// The best-ranked candidates, as many as the report lists (none without a report).
    candidates: Vec<Candidate>,
    /// The messages the opcode may be ([`allowed`]): the definition of each one's best
    /// candidate, best-ranked first, and the bits of the first two.
    allowed: Vec<u32>,
    allowed_bits: [f64; 2],
}

/// Candidates a report lists per opcode unless `--report-candidates` says otherwise; the rest
/// are counted (`more_candidates`).
pub const REPORT_CANDIDATES: usize = 20;

fn try_opcode(
    defs: &[Def],
    opcode: u16,
    packets: &[Vec<u8>],
    direction: Option<char>,
    priors: &Priors,
    keep: usize,
) -> Outcome {
    let min = packets.iter().map(Vec::len).min().unwrap_or(0);
    let max = packets.iter().map(Vec::len).max().unwrap_or(0);
    let header_only = max == 4;
    let mut candidates = Vec::new();
    if !header_only {
        for (i, d) in defs.iter().enumerate() {
            for padding in [false, true] {
                let opts = Options::new().padding(padding).strict(true);
                let least = opts.body_offset() + d.min_body;
                if min < least || (d.fixed && (min != least || max != least)) {
                    continue;
                }
                if !packets.iter().all(|p| decode_json(&d.def, p, opts).is_ok()) {
                    continue;
                }
                let mut evidence = Evidence {
                    bits: if padding { PADDING_PRIOR } else { 0.0 },
                    ..Evidence::default()
                };
                if packets
                    .iter()
                    .all(|p| self::evidence(&d.def, p, opts, &mut evidence).is_some())
                {
                    candidates.push(Candidate {
                        def: i,
                        padding,
                        evidence,
                    });
                }
            }
        }
    }
    candidates.sort_by(|a, b| {
        a.evidence
            .bits
            .total_cmp(&b.evidence.bits)
            .then(a.padding.cmp(&b.padding))
            .then(defs[a.def].file.cmp(&defs[b.def].file))
    });
    let (allowed, allowed_bits) = allowed(defs, &candidates, direction, priors);
    let messages = candidates
        .iter()
        .map(|c| defs[c.def].name.as_str())
        .collect::<HashSet<_>>()
        .len();
    let total = candidates.len();
    candidates.truncate(keep);
    candidates.shrink_to_fit();
    Outcome {
        opcode,
        packets: packets.len(),
        lengths: (min, max),
        header_only,
        direction,
        total,
        messages,
        candidates,
        allowed,
        allowed_bits,
    }
}

/// The side that sends a message, from its name: `C` (`C_X`, `TTB_C_X`) or `S` (`S_X`,
/// `TTB_S_X`): the first or second part of the name; `None` for others (`I_X`).
pub fn side(name: &str) -> Option<char> {
    name.split('_').take(2).find_map(|p| match p {
        "C" => Some('C'),
        "S" => Some('S'),
        _ => None,
    })
}

/// What a maintainer knows besides the packets: which messages may be claimed at all.
#[derive(Debug, Default)]
pub struct Priors {
    /// Only messages this set names (`--names MAP`).
    pub names: Option<BTreeSet<String>>,
    /// Only these definitions, by name and version: each message's current one (`--current`).
    pub current: Option<BTreeSet<(String, u32)>>,
}

/// Why a candidate may not be claimed whatever the packets say, if it may not (`direction`: the
/// opcode's, when all its packets give one).
fn excluded(d: &Def, direction: Option<char>, priors: &Priors) -> Option<&'static str> {
    if let (Some(dir), Some(s)) = (direction, side(&d.name))
        && dir != s
    {
        return Some("sent the other way");
    }
    if priors.names.as_ref().is_some_and(|k| !k.contains(&d.name)) {
        return Some("not in --names");
    }
    if priors
        .current
        .as_ref()
        .is_some_and(|c| !c.contains(&(d.name.clone(), d.def.version())))
    {
        return Some("not the current version");
    }
    None
}

/// The messages an opcode may be, best-ranked first, by the definition of their best candidate
/// (from `ranked`, the opcode's candidates best first): candidates no prior excludes and that
/// read no implausible value. Also the bits of the first two.
fn allowed(
    defs: &[Def],
    ranked: &[Candidate],
    direction: Option<char>,
    priors: &Priors,
) -> (Vec<u32>, [f64; 2]) {
    let mut seen = HashSet::new();
    let mut best = Vec::new();
    let mut bits = [0.0; 2];
    for c in ranked {
        let d = &defs[c.def];
        if c.evidence.bad() > 0 || excluded(d, direction, priors).is_some() {
            continue;
        }
        if seen.insert(d.name.as_str()) {
            if let Some(b) = bits.get_mut(best.len()) {
                *b = c.evidence.bits;
            }
            best.push(c.def as u32);
        }
    }
    (best, bits)
}

/// Claims the opcodes whose message is certain; returns opcode → message, and why the rest are
/// not claimed.
///
/// Each opcode (not header-only) may be any of its [`allowed`] messages, and a message has one
/// opcode, so a naming consistent with the capture is a matching of opcodes to messages. The
/// true naming is one of them (the true message always decodes its own packets); an opcode is
/// claimed when every maximum matching gives it the same message ([`crate::forced`]): nothing
/// the packets and priors say can make it another. Messages absent from the capture stay free
/// to be any opcode's: they may own opcodes the capture lacks.
fn claims<'d>(
    defs: &'d [Def],
    outcomes: &[Outcome],
) -> (BTreeMap<u16, &'d str>, BTreeMap<u16, String>) {
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut names: Vec<&str> = Vec::new();
    let mut adj: Vec<Vec<usize>> = Vec::with_capacity(outcomes.len());
    for o in outcomes {
        let list: &[u32] = if o.header_only { &[] } else { &o.allowed };
        adj.push(
            list.iter()
                .map(|&d| {
                    let n = defs[d as usize].name.as_str();
                    *index.entry(n).or_insert_with(|| {
                        names.push(n);
                        names.len() - 1
                    })
                })
                .collect(),
        );
    }
    let forced = crate::forced::forced(&adj, names.len());
    drop(adj);
    let mut claimed = BTreeMap::new();
    let mut why = BTreeMap::new();
    for (o, f) in outcomes.iter().zip(forced) {
        if let Some(n) = f {
            claimed.insert(o.opcode, names[n]);
            continue;
        }
        let name = |i: usize| defs[o.allowed[i] as usize].name.as_str();
        let reason = if o.header_only {
            "every packet is header-only: any definition without fields fits".to_string()
        } else if o.total == 0 {
            "no definition decodes every packet".to_string()
        } else {
            let [s1, s2] = o.allowed_bits;
            match o.allowed.len() {
                0 => "every candidate message is sent the other way, not in --names, not \
                       current, or reads implausible values"
                    .to_string(),
                1 => format!(
                    "{} is the only message left, but other opcodes need it too: \
                     a consistent naming gives this opcode none",
                    name(0)
                ),
                n => format!(
                    "{n} messages fit (best {}, {s1:.0} bits, then {}, {s2:.0} bits) and \
                     another naming of the opcodes is consistent with every packet",
                    name(0),
                    name(1)
                ),
            }
        };
        why.insert(o.opcode, reason);
    }
    (claimed, why)
}

/// The current definition of each message (name, version) for `patch`, by the version rule of
/// `defc gen` and `Protocol::load` ([`def_parser::protocol::choose`]) with the deprecations of
/// `deprecated` (`None`: `deprecated.json` beside the definitions folder, if there is one).
fn current_versions(
    dir: &Path,
    defs: &[Def],
    deprecated: Option<&Path>,
    patch: Option<u32>,
) -> Result<BTreeSet<(String, u32)>, String> {
    let files = def_parser::protocol::scan_definitions(dir, def_parser::ast::Platform::Pc)
        .map_err(|e| e.to_string())?;
    let beside = dir.parent().map(|p| p.join("deprecated.json"));
    let path = match deprecated {
        Some(p) => Some(p.to_path_buf()),
        None => beside.filter(|p| p.is_file()),
    };
    let dep = match &path {
        Some(p) => {
            let text =
                def_parser::text::read_file(p).map_err(|e| format!("{}: {e}", p.display()))?;
            def_parser::protocol::parse_deprecated(&text, &files.known)
                .map_err(|e| format!("{}:{e}", p.display()))?
        }
        None => BTreeMap::new(),
    };
    let mut by_name: BTreeMap<&str, Vec<(u32, Option<def_parser::ast::PatchRange>)>> =
        BTreeMap::new();
    for d in defs {
        by_name
            .entry(&d.name)
            .or_default()
            .push((d.def.version(), d.def.layout().patch_range));
    }
    let mut out = BTreeSet::new();
    for (name, versions) in by_name {
        if let (Some(v), _) = def_parser::protocol::choose(name, &versions, &dep, patch) {
            out.insert((name.to_string(), v));
        }
    }
    Ok(out)
}

/// `defc guess --defs DIR [--report FILE] CAPTURE`.
/// The names of a map file (`NAME = OPCODE` lines, `#` comments).
fn read_names(path: &Path) -> Result<BTreeSet<String>, String> {
    let text = def_parser::text::read_file(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut names = BTreeSet::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let (name, _) = line
            .split_once('=')
            .ok_or_else(|| format!("{}:{}: not a `NAME = OPCODE` line", path.display(), i + 1))?;
        names.insert(name.trim().trim_start_matches('\u{feff}').to_string());
    }
    Ok(names)
}

/// What `defc guess` is asked.
pub struct Args<'a> {
    /// The definitions folder.
    pub defs: &'a Path,
    /// The capture file, or `-`.
    pub capture: &'a str,
    /// `--names MAP`.
    pub names: Option<&'a Path>,
    /// `--current`: only each message's current version may be claimed.
    pub current: bool,
    /// `--deprecated FILE` (with `--current`).
    pub deprecated: Option<&'a Path>,
    /// `--patch N` (with `--current`).
    pub patch: Option<u32>,
    /// `--report FILE`.
    pub report: Option<&'a Path>,
    /// `--report-candidates N`: candidates the report lists per opcode.
    pub report_candidates: usize,
}

/// `defc guess --defs DIR [--names MAP] [--current [--deprecated FILE] [--patch N]]
/// [--report FILE] CAPTURE`.
pub fn run(args: &Args<'_>) -> ExitCode {
    let Args {
        defs: dir,
        capture,
        names,
        report,
        ..
    } = *args;
    let start = std::time::Instant::now();
    let text = if capture == "-" {
        crate::tera::arg_or_stdin("-")
    } else {
        def_parser::text::read_file(Path::new(capture)).map_err(|e| format!("{capture}: {e}"))
    };
    let result = text.and_then(|text| {
        let packets = read_capture(&text).map_err(|e| format!("{capture}: {e}"))?;
        let (defs, failed) = load_defs(dir)?;
        let priors = Priors {
            names: names.map(read_names).transpose()?,
            current: if args.current {
                Some(current_versions(dir, &defs, args.deprecated, args.patch)?)
            } else {
                None
            },
        };
        if failed > 0 {
            eprintln!("note: {failed} definitions could not be compiled and are not tried");
        }
        let mut by_opcode: BTreeMap<u16, Vec<Vec<u8>>> = BTreeMap::new();
        // Per opcode: the one direction all its packets give, else `None`.
        let mut directions: BTreeMap<u16, Option<char>> = BTreeMap::new();
        let mut seen: HashSet<&[u8]> = HashSet::new();
        for Captured {
            bytes: p,
            direction: dir,
        } in packets.iter()
        {
            let op = def_runtime::tera::opcode(p).expect("4 bytes or more");
            directions
                .entry(op)
                .and_modify(|d| {
                    if *d != *dir {
                        *d = None
                    }
                })
                .or_insert(*dir);
            if seen.insert(p) {
                by_opcode.entry(op).or_default().push(p.clone());
            }
        }
        // Only the candidates the report lists are kept: memory grows with the opcodes and the
        // messages each may be, not with every definition that decodes a packet.
        let keep = if report.is_some() {
            args.report_candidates
        } else {
            0
        };
        let outcomes: Vec<Outcome> = by_opcode
            .iter()
            .map(|(op, ps)| try_opcode(&defs, *op, ps, directions[op], &priors, keep))
            .collect();
        drop(by_opcode);
        let (claimed, why) = claims(&defs, &outcomes);
        let map: String = claimed
            .iter()
            .map(|(op, name)| format!("{name} = {op}\n"))
            .collect();
        crate::annotate::print_out(&map);
        let header_only = outcomes.iter().filter(|o| o.header_only).count();
        eprintln!(
            "{} packets, {} opcodes: {} claimed, {} header-only, {} ambiguous ({} definitions, {:.2} s)",
            packets.len(),
            outcomes.len(),
            claimed.len(),
            header_only,
            outcomes.len() - claimed.len() - header_only,
            defs.len(),
            start.elapsed().as_secs_f64()
        );
        if let Some(path) = report {
            write_report(path, &defs, &outcomes, &claimed, &why, &priors)
                .map_err(|e| format!("{}: {e}", path.display()))?;
        }
        Ok(())
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => crate::tera::fail(e),
    }
}

/// Writes the report as it is serialized, one opcode a line: the text is never held whole,
/// and each opcode's part is bounded by the candidates listed (`more_candidates` counts the
/// rest).
fn write_report(
    path: &Path,
    defs: &[Def],
    outcomes: &[Outcome],
    claimed: &BTreeMap<u16, &str>,
    why: &BTreeMap<u16, String>,
    priors: &Priors,
) -> std::io::Result<()> {
    use std::io::Write;

    let one = |o: &Outcome| -> Value {
        let status = if o.header_only {
            "header-only"
        } else if claimed.contains_key(&o.opcode) {
            "claimed"
        } else if o.total == 0 {
            "no-candidate"
        } else {
            "ambiguous"
        };
        json!({
            "opcode": o.opcode,
            "status": status,
            "claim": claimed.get(&o.opcode),
            "why": why.get(&o.opcode),
            "packets": o.packets,
            "direction": o.direction.map(|d| if d == 'C' { "client" } else { "server" }),
            "lengths": [o.lengths.0, o.lengths.1],
            "messages": o.messages,
            "candidates": o.candidates.iter().map(|c| json!({
                "def": defs[c.def].file,
                "name": defs[c.def].name,
                "padding": c.padding,
                "bits": c.evidence.bits.round(),
                "why": c.evidence.why(),
                "implausible": c.evidence.bad(),
                "excluded": excluded(&defs[c.def], o.direction, priors),
            })).collect::<Vec<_>>(),
            "more_candidates": o.total - o.candidates.len(),
        })
    };
    let file = std::fs::File::create(path)?;
    let mut w = crate::out::InertJson::new(std::io::BufWriter::new(file));
    w.write_all(b"{\"opcodes\": [\n")?;
    for (i, o) in outcomes.iter().enumerate() {
        if i > 0 {
            w.write_all(b",\n")?;
        }
        // One line an opcode, without indentation: a quarter smaller than pretty JSON (20
        // candidates of 7 members each), and still one opcode per line for `grep`; `jq .`
        // pretties it.
        serde_json::to_writer(&mut w, &one(o))?;
    }
    w.write_all(b"\n]}\n")?;
    w.finish()?.flush()
}

/// The little-endian numbers at the start of `b` (a span the layout sized for them).
fn le_u16(b: &[u8]) -> u16 {
    u16::from_le_bytes([b[0], b[1]])
}

fn le_u32(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

fn le_u64(b: &[u8]) -> u64 {
    u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
}
