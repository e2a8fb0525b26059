#!/usr/bin/env bash
# Seeds fuzz/corpus/<target>/ from the shared data (never committed: fuzz/corpus is gitignored).
#   TERA_DATA_DIR     default ../../shared/tera-data   (definitions/*.def)
#   TERA_VECTORS      default ../../shared/tera-vectors/public.jsonl
#   GODOT_DATA_DIR    default ../../shared/godot       (*.json with "hex" fields)
#   NBT_SAMPLES_DIR   default ../../shared/nbt-samples
# Input layouts match fuzz/src/lib.rs: TERA = [definition index, flags] + packet; Godot, NBT and
# NBT files = [flags] + bytes; .def and SNBT = text. Missing data only means fewer seeds.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
shared="$here/../../shared"
export TERA_DATA_DIR="${TERA_DATA_DIR:-$shared/tera-data}"
export TERA_VECTORS="${TERA_VECTORS:-$shared/tera-vectors/public.jsonl}"
export GODOT_DATA_DIR="${GODOT_DATA_DIR:-$shared/godot}"
export NBT_SAMPLES_DIR="${NBT_SAMPLES_DIR:-$shared/nbt-samples}"
export FUZZ_DIR="$here"
python3 - <<'PY'
import glob, gzip, hashlib, json, os, re, zlib

fuzz = os.environ["FUZZ_DIR"]
counts = {}

def put(target, data):
    d = os.path.join(fuzz, "corpus", target)
    os.makedirs(d, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)
    counts[target] = counts.get(target, 0) + 1

# .def parser: every corpus definition and the project's own.
defs_dir = os.path.join(os.environ["TERA_DATA_DIR"], "definitions")
for p in sorted(glob.glob(os.path.join(defs_dir, "*.def"))) + sorted(
        glob.glob(os.path.join(fuzz, "..", "def-tests", "defs", "*.def"))):
    put("def_parser", open(p, "rb").read())

# TERA: the vectors of the embedded definitions (index = position in defs.list), 24 per def,
# as recorded and in strict mode.
names = [l.strip() for l in open(os.path.join(fuzz, "defs.list"))
         if l.strip() and not l.startswith("#")]
names = [n for n in names if os.path.isfile(os.path.join(defs_dir, n))]
index = {n: i for i, n in enumerate(names)}
taken = {}
if os.path.isfile(os.environ["TERA_VECTORS"]):
    for line in open(os.environ["TERA_VECTORS"]):
        v = json.loads(line)
        i = index.get(v["def"])
        if i is None or taken.get(i, 0) >= 24:
            continue
        taken[i] = taken.get(i, 0) + 1
        packet = bytes.fromhex(v["hex"])
        for flags in (int(bool(v["padding"])), int(bool(v["padding"])) | 2):
            for t in ("tera_dynamic", "tera_generated", "tera_views"):
                put(t, bytes([i, flags]) + packet)
# The project's own definitions have no vectors: a header-only packet of each.
for k in range(3):
    for t in ("tera_dynamic", "tera_generated", "tera_views"):
        put(t, bytes([len(names) + k, 0, 4, 0, 0x21, 0x43]))

# Godot: every vector, for its version, with and without objects.
for p in sorted(glob.glob(os.path.join(os.environ["GODOT_DATA_DIR"], "*.json"))):
    try:
        items = json.load(open(p))
    except ValueError:
        continue
    for it in items if isinstance(items, list) else []:
        g4 = 1 if str(it.get("godot", "")).startswith("4") else 0
        for key in ("hex", "hex_full_objects"):
            h = it.get(key)
            if isinstance(h, str) and re.fullmatch(r"(?:[0-9a-fA-F]{2})+", h):
                for allow in (0, 2):
                    put("godot_decode", bytes([g4 | allow]) + bytes.fromhex(h))

# NBT: samples decompressed, with the flavour of their sidecar (files up to 64 KiB).
def kind_of(path):
    try:
        head = open(path + ".json", "rb").read(2000).decode("utf-8", "replace")
    except OSError:
        return ""
    m = re.search(r'"kind":\s*"([^"]*)"', head)
    return m.group(1) if m else ""

def inflate(raw):
    try:
        if raw[:2] == b"\x1f\x8b":
            return gzip.decompress(raw)
        if raw[:1] == b"\x78":
            return zlib.decompress(raw)
    except Exception:
        return None
    return raw

for p in sorted(glob.glob(os.path.join(os.environ["NBT_SAMPLES_DIR"], "*"))):
    if p.endswith((".json", ".md")) or not os.path.isfile(p):
        continue
    raw = open(p, "rb").read()
    if p.endswith(".snbt"):
        put("snbt_parse", raw)
        continue
    kind = kind_of(p)
    flavour = 2 if "network" in kind else (1 if "bedrock" in kind or "le" in kind.split("-") else 0)
    if len(raw) <= 64 << 10:
        put("nbt_file", bytes([flavour]) + raw)
    data = inflate(raw)
    if data is not None and len(data) <= 64 << 10:
        put("nbt_decode", bytes([flavour]) + data)
        if flavour == 1 and len(data) > 8 and data[8] == 10:
            put("nbt_decode", bytes([flavour]) + data[8:])  # level.dat without its header

# Regions with external chunks (flags bit 7): [u16 BE n][n bytes served as every c.X.Z.mcc]
# [region]. Slots 0 and 1 are external stubs (zlib, gzip), slot 2 an inline zlib chunk, and in
# the second seed slot 3 shares slot 2's sector; the external bytes are a small zlib chunk.
def region(slots):
    out = bytearray(8192)
    sectors = {}
    for i, (sector, body) in enumerate(slots):
        out[4 * i:4 * i + 4] = ((sector << 8) | 1).to_bytes(4, "big")
        sectors[sector] = body
    for sector in sorted(sectors):
        out += bytes(sector * 4096 - len(out))
        out += sectors[sector] + bytes(4096 - len(sectors[sector]))
    return bytes(out)
nbt = b"\x0a\x00\x00\x08\x00\x06Status\x00\x04full\x00"
inline = zlib.compress(nbt)
ext = zlib.compress(nbt)
slots = [(2, b"\0\0\0\x01\x82"), (3, b"\0\0\0\x01\x81"),
         (4, (len(inline) + 1).to_bytes(4, "big") + b"\x02" + inline)]
for reg in (region(slots), region(slots + [slots[2]])):
    put("nbt_file", bytes([0x80]) + len(ext).to_bytes(2, "big") + ext + reg)

# SNBT: a few hand-written texts covering every tag type.
for t in ['{a:1b,b:2s,c:3,d:4L,e:5.0f,f:6.0d,g:"x",h:[1,2],i:[B;1b,2b],j:[I;1,2],k:[L;1L],l:{}}',
          '[{},{x:[[]]}]', "'single \\' quoted'", '{"quoted key":-1.5e10d,nan:NaNf}', '[]']:
    put("snbt_parse", t.encode())

# Text output (fuzz_targets/text_output.rs): names and strings with terminal sequences, C1
# controls, bidirectional and zero-width characters, markup; and the project's definitions.
for t in ["a\x1b[2J\x1b]0;title\x07b", "x\u202ey\u009b\ufeffz\u200b", "<a href='&amp;'>\"</a>",
          "s.t[0]", "\u2028\u2066rtl\u2069\x00\x7f", "int32 a\x01b\nstring s\u202e\narray q\n- int16 z\n"]:
    put("text_output", t.encode())
for p in sorted(glob.glob(os.path.join(fuzz, "..", "def-tests", "defs", "*.def"))):
    put("text_output", open(p, "rb").read())

# Generator (fuzz/src/codegen.rs): structured cases (byte 0 even) from fixed pseudo-random
# bytes, and free-form ones (byte 0 odd): the corpus map, 0xFF, then FILE\nTEXT per definition.
for k in range(16):
    put("codegen", bytes([2 * k]) + b"".join(hashlib.sha256(bytes([k, r])).digest() for r in range(4)))
maps_dir = os.path.join(os.environ["TERA_DATA_DIR"], "maps")
map_text = b""
for m in sorted(glob.glob(os.path.join(maps_dir, "*.map")))[:1]:
    map_text = open(m, "rb").read()
for p in sorted(glob.glob(os.path.join(defs_dir, "*.def")))[:40:4]:
    stem = os.path.basename(p)[:-len(".def")].encode()
    put("codegen", b"\x01" + map_text[:2000] + b"\xff" + stem + b"\n" + open(p, "rb").read())

for t, n in sorted(counts.items()):
    print(f"{t}: {n} seeds")
PY
