#!/usr/bin/env python3
"""Turns criterion's estimates from the peers bench into the markdown table of docs/nbt-bench.md.

Usage: table.py SAMPLES_DIR CRITERION_DIR [CRITERION_DIR ...]  (prints markdown on stdout).
With several directories (copies of target/criterion after separate runs) each cell of the MB/s
tables is the best run, the same rule for every library: the machine is shared, so a slower run
says more about the neighbours than about the code. The last table gives, for each goal column,
ours ÷ simdnbt within each run (criterion's median estimates), as the median and the range over
the runs."""
import json, os, statistics, sys, gzip, zlib

samples, crits = sys.argv[1], sys.argv[2:]
def size(name):
    raw = open(os.path.join(samples, name), "rb").read()
    if raw[:2] == b"\x1f\x8b":
        return len(gzip.decompress(raw))
    if raw[:1] == b"\x78":
        return len(zlib.decompress(raw))
    return len(raw)

def estimate(crit, group, fn, stat):
    """Criterion's `stat` estimate (ns) of one benchmark in one run, or None if it did not run."""
    # criterion sanitises '/' in group names to '_'
    p = os.path.join(crit, group.replace("/", "_"), fn, "new", "estimates.json")
    return json.load(open(p))[stat]["point_estimate"] if os.path.exists(p) else None

def mbps(group, fn, n):
    best = None
    for crit in crits:
        ns = estimate(crit, group, fn, "mean")
        if ns is not None:
            v = n / (ns / 1e9) / 1e6
            best = v if best is None else max(best, v)
    return best

peers = ["simdnbt_owned", "simdnbt_borrowed", "valence_nbt", "fastnbt"]
files = sorted({d.split("_", 1)[1] for d in os.listdir(crits[0]) if d.startswith(("parse_", "write_", "floor_"))})
for op, ours_list in [("parse", ["ours_owned", "ours_owned_unchecked", "ours_borrowed", "ours_borrowed_checked"]), ("write", ["ours_owned"])]:
    print(f"\n### {op} (MB/s; ratio = ours / peer, >1 means ours is faster)\n")
    head = ["file", "size"] + ours_list + peers
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for f in files:
        n = size(f)
        ours = {o: mbps(f"{op}/{f}", o, n) for o in ours_list}
        row = [f"`{f}`", f"{n/1e3:.0f} kB"] + [f"{ours[o]:.0f}" for o in ours_list]
        for p in peers:
            v = mbps(f"{op}/{f}", p, n)
            if v is None:
                row.append("–")
                continue
            # Compare like with like: the peers do not check string contents, so in parsing they
            # are compared with our readers that do not either (unchecked owned, lazy borrowed).
            if op == "parse":
                mine = ours["ours_borrowed" if p.endswith("borrowed") else "ours_owned_unchecked"]
            else:
                mine = ours["ours_owned"]
            row.append(f"{v:.0f} (×{mine / v:.2f})")
        print("| " + " | ".join(row) + " |")

# The copy floor: no owned reader or writer can beat one copy of the file's bytes, so
# memcpy ÷ peer is the largest ratio any code can reach against that peer in that column.
print("\n### copy floor (MB/s of one memcpy of the file; bound = memcpy / peer, the best ratio any owned reader or writer can reach)\n")
print("| file | size | memcpy | simdnbt_owned parse | bound | simdnbt_owned write | bound |")
print("|---|---|---|---|---|---|---|")
for f in files:
    n = size(f)
    m = mbps(f"floor/{f}", "memcpy", n)
    if m is None:
        continue
    p = mbps(f"parse/{f}", "simdnbt_owned", n)
    w = mbps(f"write/{f}", "simdnbt_owned", n)
    print(f"| `{f}` | {n/1e3:.0f} kB | {m:.0f} | {p:.0f} | ×{m / p:.2f} | {w:.0f} | ×{m / w:.2f} |")

# Ours ÷ simdnbt, each ratio taken within one run: the like-for-like columns against simdnbt's
# reader of the same kind, writing against the faster of its two writers in that run, and our
# writer against one memcpy of the file (the copy floor).
def median_ns(crit, group, fn):
    return estimate(crit, group, fn, "median")

cols = [("owned, unchecked", "parse", "ours_owned_unchecked", ["simdnbt_owned"]),
        ("owned, checked (default)", "parse", "ours_owned", ["simdnbt_owned"]),
        ("zero-copy (`decode_lazy`)", "parse", "ours_borrowed", ["simdnbt_borrowed"]),
        ("zero-copy, checked (`decode`)", "parse", "ours_borrowed_checked", ["simdnbt_borrowed"]),
        ("write", "write", "ours_owned", ["simdnbt_owned", "simdnbt_borrowed"]),
        ("write ÷ memcpy", "write", "ours_owned", None)]
print(f"\n### Ours ÷ simdnbt: median of the {len(crits)} runs (lowest–highest)\n")
print("| file | " + " | ".join(c[0] for c in cols) + " |")
print("|" + "---|" * (len(cols) + 1))
for f in files:
    row = [f"`{f}`"]
    for _, op, ours, against in cols:
        rs = []
        for crit in crits:
            o = median_ns(crit, f"{op}/{f}", ours)
            if against is None:
                peer = median_ns(crit, f"floor/{f}", "memcpy")
            else:
                ps = [median_ns(crit, f"{op}/{f}", q) for q in against]
                peer = min((x for x in ps if x is not None), default=None)
            if o is not None and peer is not None:
                rs.append(peer / o)
        rs.sort()
        row.append(f"{statistics.median(rs):.2f} ({rs[0]:.2f}–{rs[-1]:.2f})" if rs else "–")
    print("| " + " | ".join(row) + " |")
