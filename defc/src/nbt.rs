//! `defc nbt`: dump NBT files as JSON or SNBT, and encode them back.
//!
//! A thin layer over `def_runtime::nbt`: compression, Bedrock's `level.dat` header and region
//! files (by their `.mca`/`.mcr` name) are detected; flags give the flavour, the root form and
//! whether to read several roots. The JSON is the sample set's dump form, so
//! `defc nbt dump f | defc nbt encode -` gives `f` back (decompressed unless `--compression`).

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;

use def_runtime::nbt::dump::{self, Json};
use def_runtime::nbt::{
    BedrockHeader, Compression, Edition, FileOptions, Nbt, NbtError, NbtFile, RootForm, region,
    snbt,
};

/// Binary flavour on the command line.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum EditionArg {
    /// Java Edition (big-endian, Modified UTF-8).
    Java,
    /// Bedrock disk format (little-endian); a `level.dat` header is detected.
    Bedrock,
    /// Bedrock network format (varints).
    BedrockNetwork,
}

impl From<EditionArg> for Edition {
    fn from(e: EditionArg) -> Edition {
        match e {
            EditionArg::Java => Edition::Java,
            EditionArg::Bedrock => Edition::Bedrock,
            EditionArg::BedrockNetwork => Edition::BedrockNetwork,
        }
    }
}

/// Compression on the command line.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum CompressionArg {
    /// Plain bytes.
    None,
    /// gzip.
    Gzip,
    /// zlib.
    Zlib,
}

/// Options shared by `dump` and `encode`.
#[derive(clap::Args, Debug)]
pub struct Flavour {
    /// Binary flavour.
    #[arg(long, value_enum, default_value = "java")]
    edition: EditionArg,
    /// Nameless root (Java network NBT, 1.20.2+).
    #[arg(long)]
    network: bool,
    /// SNBT language to print or read: Minecraft's classic one, or that of 1.21.5+.
    #[arg(long, value_enum, default_value = "classic")]
    snbt_dialect: DialectArg,
}

/// SNBT language on the command line.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum DialectArg {
    /// Before Minecraft 1.21.5.
    Classic,
    /// Minecraft 1.21.5 and later.
    Modern,
}

impl From<DialectArg> for snbt::Dialect {
    fn from(d: DialectArg) -> snbt::Dialect {
        match d {
            DialectArg::Classic => snbt::Dialect::Classic,
            DialectArg::Modern => snbt::Dialect::Modern,
        }
    }
}

/// `defc nbt` subcommands.
#[derive(clap::Subcommand, Debug)]
pub enum Cmd {
    /// Print an NBT file (or region file) as JSON (the sample dump form) or SNBT.
    Dump {
        /// Print JSON (the default).
        #[arg(long, conflicts_with = "snbt")]
        json: bool,
        /// Print SNBT instead.
        #[arg(long)]
        snbt: bool,
        /// Indent the SNBT, one compound entry a line (parses back to the same tree).
        #[arg(long, requires = "snbt")]
        pretty: bool,
        #[command(flatten)]
        flavour: Flavour,
        /// Read roots until the end of the data instead of one.
        #[arg(long)]
        all_roots: bool,
        /// Accept plain 4-byte UTF-8 in Java strings.
        #[arg(long)]
        lenient_utf8: bool,
        /// Add a `meta` object (compression, sizes) to the JSON.
        #[arg(long)]
        meta: bool,
        /// The file, or `-` for standard input.
        file: PathBuf,
    },
    /// Turn a JSON dump or SNBT text back into binary NBT (or a region file).
    Encode {
        /// Read SNBT (default: JSON if the text starts with `{"` and parses as a dump, else SNBT).
        #[arg(long)]
        snbt: bool,
        #[command(flatten)]
        flavour: Flavour,
        /// Compression of the output.
        #[arg(long, value_enum, default_value = "none")]
        compression: CompressionArg,
        /// Write a Bedrock `level.dat` header with this storage version (with `--edition bedrock`).
        #[arg(long)]
        level_dat_version: Option<i32>,
        /// Output file (default: standard output).
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// The JSON or SNBT file, or `-` for standard input.
        file: PathBuf,
    },
    /// Read every region file of a world folder (region/, entities/, poi/ of the world and of
    /// each dimension) in parallel and print a summary: chunks, compression schemes, data
    /// versions and every chunk or file that could not be read. Exits with 1 when there was one.
    World {
        /// Read only the region tables and chunk headers (no decompression; no data versions).
        #[arg(long)]
        headers_only: bool,
        /// Threads (default: one per core).
        #[arg(long, default_value_t = 0)]
        threads: usize,
        /// The world folder (the one holding level.dat).
        dir: PathBuf,
    },
}

/// Runs one `defc nbt` subcommand.
pub fn run(cmd: Cmd) -> ExitCode {
    let r = match cmd {
        Cmd::Dump {
            json: _,
            snbt,
            pretty,
            flavour,
            all_roots,
            lenient_utf8,
            meta,
            file,
        } => {
            let snbt = snbt.then_some(if pretty {
                SnbtForm::Pretty
            } else {
                SnbtForm::Compact
            });
            dump_cmd(&file, snbt, &flavour, all_roots, lenient_utf8, meta)
        }
        Cmd::Encode {
            snbt,
            flavour,
            compression,
            level_dat_version,
            output,
            file,
        } => {
            let out = Output {
                compression,
                header: level_dat_version.map(|version| BedrockHeader { version }),
            };
            encode_cmd(&file, snbt, &flavour, &out, output.as_deref())
        }
        Cmd::World {
            headers_only,
            threads,
            dir,
        } => match world_cmd(&dir, headers_only, threads) {
            Ok(true) => Ok(()),
            Ok(false) => return ExitCode::FAILURE,
            Err(e) => Err(e),
        },
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("defc nbt: {}", crate::out::message(&e));
            ExitCode::FAILURE
        }
    }
}

fn read_input(path: &Path) -> Result<Vec<u8>, String> {
    if path.as_os_str() == "-" {
        let mut v = Vec::new();
        std::io::stdin()
            .read_to_end(&mut v)
            .map_err(|e| format!("stdin: {e}"))?;
        return Ok(v);
    }
    std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))
}

fn is_region(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("mca" | "mcr")
    )
}

fn file_options(flavour: &Flavour, all_roots: bool, lenient: bool) -> FileOptions {
    let mut o = FileOptions::new(flavour.edition.into());
    o.read.root = if flavour.network {
        RootForm::Nameless
    } else {
        RootForm::Named
    };
    o.read.lenient_utf8 = lenient;
    o.all_roots = all_roots;
    o
}

fn emit(text: &str) -> Result<(), String> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|_| out.write_all(b"\n"))
        .map_err(|e| format!("stdout: {e}"))
}

/// How `dump` prints SNBT.
#[derive(Clone, Copy)]
enum SnbtForm {
    Compact,
    Pretty,
}

impl SnbtForm {
    fn print(
        self,
        tag: &def_runtime::nbt::Tag,
        dialect: snbt::Dialect,
    ) -> Result<String, NbtError> {
        match self {
            SnbtForm::Compact => snbt::to_snbt_in(tag, dialect),
            SnbtForm::Pretty => snbt::to_snbt_pretty(tag, dialect),
        }
    }
}

fn dump_cmd(
    path: &Path,
    as_snbt: Option<SnbtForm>,
    flavour: &Flavour,
    all_roots: bool,
    lenient: bool,
    meta: bool,
) -> Result<(), String> {
    let name = path.display();
    let opts = file_options(flavour, all_roots, lenient);
    let dialect: snbt::Dialect = flavour.snbt_dialect.into();
    if is_region(path) {
        // A region on disk is opened with its external chunks (`c.X.Z.mcc` beside it), all of
        // it within the region budget: the file is read once, by `open_with`, which refuses a
        // FIFO or device and checks each external file before reading it.
        let r = region::RegionFile::open_with(path, opts, region::DEFAULT_REGION_BUDGET)
            .map_err(|e| format!("{name}: {e}"))?;
        if let Some(form) = as_snbt {
            for ch in &r.chunks {
                match ch.nbt() {
                    Some(f) => emit(&format!(
                        "// chunk ({}, {})\n{}",
                        ch.x(),
                        ch.z(),
                        form.print(&f.roots[0].tag, dialect)
                            .map_err(|e| format!("{name}: {e}"))?
                    ))?,
                    None => eprintln!(
                        "{name}: chunk ({}, {}) unreadable: {}",
                        ch.x(),
                        ch.z(),
                        ch.status.name()
                    ),
                }
            }
            return Ok(());
        }
        // Streamed, as below.
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        return r
            .write_json(&mut out)
            .and_then(|()| out.write_all(b"\n"))
            .and_then(|()| out.flush())
            .map_err(|e| format!("stdout: {e}"));
    }
    let raw = read_input(path)?;
    let f = NbtFile::decode(&raw, opts).map_err(|e| format!("{name}: {e}"))?;
    if f.trailing > 0 {
        eprintln!(
            "{name}: {} trailing bytes after the root at offset {} (--all-roots reads them as more roots)",
            f.trailing, f.consumed
        );
    }
    if let Some(form) = as_snbt {
        for r in &f.roots {
            emit(
                &form
                    .print(&r.tag, dialect)
                    .map_err(|e| format!("{name}: {e}"))?,
            )?;
        }
        return Ok(());
    }
    // Streamed: the dump of a large array is 2–4 times its size in text. Strings and keys keep
    // their hidden characters as JSON escapes (`crate::out`).
    let mut out = crate::out::InertJson::new(std::io::BufWriter::new(std::io::stdout().lock()));
    dump::write_file_json(&f, meta, &mut out)
        .and_then(|()| out.finish())
        .and_then(|mut out| out.write_all(b"\n").and_then(|()| out.flush()))
        .map_err(|e| format!("stdout: {e}"))
}

/// How `encode` stores its result.
struct Output {
    compression: CompressionArg,
    header: Option<BedrockHeader>,
}

fn encode_cmd(
    path: &Path,
    force_snbt: bool,
    flavour: &Flavour,
    out: &Output,
    output: Option<&Path>,
) -> Result<(), String> {
    let raw = read_input(path)?;
    let name = path.display();
    let text = std::str::from_utf8(&raw).map_err(|e| format!("{name}: not UTF-8 text: {e}"))?;
    let edition: Edition = flavour.edition.into();
    let err = |e: NbtError| format!("{name}: {e}");
    let json = if force_snbt {
        None
    } else {
        match Json::parse(text) {
            Ok(j)
                if j.get("type").is_some()
                    || j.get("roots").is_some()
                    || j.get("chunks").is_some() =>
            {
                Some(j)
            }
            Ok(_) => {
                return Err(format!(
                    "{name}: JSON is not an NBT dump (no type/roots/chunks)"
                ));
            }
            Err(e) if text.trim_start().starts_with("{\"") => return Err(err(e)),
            Err(_) => None,
        }
    };
    let bytes = match json {
        Some(j) if j.get("chunks").is_some() => region::from_json(&j)
            .and_then(|r| r.encode())
            .map_err(err)?,
        Some(j) => {
            let roots = dump::roots_from_json(&j).map_err(err)?;
            encode_all(roots, flavour, edition, out).map_err(err)?
        }
        None => {
            let root = snbt::parse_in(text, flavour.snbt_dialect.into())
                .map(Nbt::nameless)
                .map_err(err)?;
            encode_all(vec![root], flavour, edition, out).map_err(err)?
        }
    };
    match output {
        Some(p) => std::fs::write(p, &bytes).map_err(|e| format!("{}: {e}", p.display())),
        None => std::io::stdout()
            .lock()
            .write_all(&bytes)
            .map_err(|e| format!("stdout: {e}")),
    }
}

fn encode_all(
    roots: Vec<Nbt>,
    flavour: &Flavour,
    edition: Edition,
    out: &Output,
) -> Result<Vec<u8>, NbtError> {
    // The root form follows --network: names are dropped or (as "") supplied.
    let roots = roots
        .into_iter()
        .map(|mut r| {
            if flavour.network {
                r.name = None;
            } else if r.name.is_none() {
                r.name = Some("".into());
            }
            r
        })
        .collect();
    let file = NbtFile {
        roots,
        compression: match out.compression {
            CompressionArg::None => Compression::None,
            CompressionArg::Gzip => Compression::Gzip,
            CompressionArg::Zlib => Compression::Zlib,
        },
        header: out.header,
        edition,
        decompressed_size: 0,
        consumed: 0,
        trailing: 0,
        stream_complete: true,
    };
    file.encode()
}

/// What `world` counts from the chunks, filled in by the scan's threads.
#[derive(Default)]
struct WorldTally {
    /// Chunks by compression scheme name.
    schemes: BTreeMap<String, usize>,
    /// Decoded chunks by `DataVersion` (`None`: a chunk without one, from before 1.9).
    versions: BTreeMap<Option<i32>, usize>,
}

/// `defc nbt world`: the summary on standard output; `Ok(false)` when a chunk or file could
/// not be read.
fn world_cmd(dir: &Path, headers_only: bool, threads: usize) -> Result<bool, String> {
    let mut opts = region::ScanOptions::default();
    opts.headers_only = headers_only;
    opts.threads = threads;
    let tally = Mutex::new(WorldTally::default());
    let scan = region::scan_world(dir, opts, |_, ch| {
        let scheme = match ch.compression() {
            Some(c) => c.name().to_string(),
            None if ch.length == 0 => "unread".to_string(),
            None => format!("unknown ({})", ch.compression_id & 0x7F),
        };
        let scheme = if ch.is_external() {
            format!("{scheme}, external")
        } else {
            scheme
        };
        let version = ch
            .nbt()
            .map(|f| f.roots[0].tag.get("DataVersion").and_then(|v| v.as_int()));
        let mut t = tally.lock().unwrap_or_else(|p| p.into_inner());
        *t.schemes.entry(scheme).or_default() += 1;
        if let Some(v) = version {
            *t.versions.entry(v).or_default() += 1;
        }
    })
    .map_err(|e| format!("{}: {e}", dir.display()))?;
    let t = tally.into_inner().unwrap_or_else(|p| p.into_inner());
    // File names come from the world: every line goes out under the messages' rule.
    let mut text = format!("world {}\n", dir.display());
    text += &format!("region files: {}\n", scan.files);
    let what = if headers_only { "headers read" } else { "read" };
    text += &format!(
        "chunks: {} ({} {what}, {} not)\n",
        scan.chunks,
        scan.ok,
        scan.chunks - scan.ok
    );
    let list = |m: &mut dyn Iterator<Item = (String, usize)>| {
        m.map(|(k, n)| format!("{k} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    text += &format!(
        "compression: {}\n",
        list(&mut t.schemes.iter().map(|(k, n)| (k.clone(), *n)))
    );
    if !headers_only {
        text += &format!(
            "data versions: {}\n",
            list(
                &mut t
                    .versions
                    .iter()
                    .map(|(v, n)| (v.map_or_else(|| "none".to_string(), |v| v.to_string()), *n))
            )
        );
    }
    text += &format!("errors: {}\n", scan.error_count);
    for (file, e) in &scan.errors {
        text += &format!("  {}: {e}\n", file.display());
    }
    if scan.errors.len() < scan.error_count {
        text += &format!("  … and {} more\n", scan.error_count - scan.errors.len());
    }
    emit(crate::out::message(text.trim_end()).as_str())?;
    Ok(scan.error_count == 0)
}
