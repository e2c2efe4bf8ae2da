#!/usr/bin/env python3
"""Session 19's diagnosis of the gemm+ReLU+add 2048³ seeds that miss their targets, from the recorded
bench:tune reports alone (no replay, no GPU). Run from the repository root:

    python3 docs/benchmarks/tuning-2026-11-30-s19/diagnose.py

Decisions are in trace order of the default CUDA space (bench/decision-names.ts): 0 i threads
(8/16/32), 1 i register tile (2/4/8), 2 i_0 [blocks, virtual threads], 3 i_1 (threads' two levels),
4-7 the same for j, 8 k chunk, then the knobs. A "family" is decisions 0-7 (the tiling); a block
tile is 2048/blocks on i × 2048/blocks on j. Ratios are to cuBLAS timed in the same run.
"""
import glob, gzip, json, statistics as st
from collections import Counter, defaultdict

FOLDERS = ["docs/benchmarks/tuning-2026-11-30-s17", "docs/benchmarks/tuning-2026-11-30-s18", "docs/benchmarks/tuning-2026-11-30-s18/lead"]
MISSES = {90, 131, 151, 180}

runs, table = [], defaultdict(list)
for folder in FOLDERS:
    for f in sorted(glob.glob(f"{folder}/*.json.gz")):
        d = json.load(gzip.open(f))
        gemm = d.get("torch", {}).get("baselines", [{}])[0].get("gemmOnly") if d.get("torch", {}).get("ok") else None
        if not gemm:
            continue
        for t in d["tuned"]:
            if t["workload"] != "gemm_relu_add_2048":
                continue
            progs = sorted((p["ms"] / gemm["medianMs"], p["decisions"], p["knobs"]) for p in t["top"] if "decisions" in p)
            runs.append((f.split("/")[-1], t["seed"], t["trials"], progs))
            for r, dec, _ in progs:
                table[json.dumps(dec)].append(r)
family = defaultdict(list)
for k, rs in table.items():
    family[json.dumps(json.loads(k)[:8])].append(st.median(rs))
family_best = {f: min(v) for f, v in family.items()}

def block_tile(dec, knobs):
    return f"{2048 // dec[2][0]}×{2048 // dec[6][0]}/{knobs['block'].split('×')[0]}"

def exchanges(dec):
    """The tile exchanges of a program (tileExchangeTraces: i_0↔j_0, i_1↔j_1; 2048 is a power of two)."""
    out = []
    for a, b in [(2, 6), (3, 7)]:
        for p, q in [(0, 1), (1, 0)]:
            ta, tb = dec[a], dec[b]
            if ta[q] % 2 or tb[p] % 2:
                continue
            na, nb = list(ta), list(tb)
            na[p] *= 2; na[q] //= 2; nb[p] //= 2; nb[q] *= 2
            if na[1] > (4 if a == 2 else 32) or nb[1] > (4 if a == 2 else 32):
                continue
            d = [list(x) if isinstance(x, list) else x for x in dec]
            d[a], d[b] = na, nb
            out.append(d)
    return out

print(f"{len(table)} distinct programs, {len(family)} tile families; {sum(1 for v in family_best.values() if v <= 1.06)} families reached ≤ 1.06× in some run")
by_tile = defaultdict(list)
for _, _, _, progs in runs:
    for r, dec, knobs in progs:
        by_tile[block_tile(dec, knobs)].append(r)
print("\nblock tile/threads: best, measurements, of them ≤ 1.06×")
for k, v in sorted(by_tile.items(), key=lambda kv: min(kv[1]))[:6]:
    print(f"  {k}: {min(v):.3f}, {len(v)}, {sum(1 for x in v if x <= 1.06)}")
print("\nper run (session 18's defaults): best, its block tile, good families touched, the best's exchanges (family best elsewhere)")
for name, seed, trials, progs in runs:
    if "islands-1" in name or "s17" in name:
        continue
    r, dec, knobs = progs[0]
    fams = {json.dumps(d[:8]) for _, d, _ in progs}
    good = sum(1 for f in fams if family_best[f] <= 1.06)
    ex = []
    for x in exchanges(dec):
        fb = family.get(json.dumps(x[:8]))
        ex.append(f"{x[2]}{x[6]}|{x[3]}{x[7]} " + (f"{min(fb):.3f}" if fb else "never measured"))
    mark = " (miss)" if seed in MISSES else ""
    print(f"  seed {seed}{mark}, {trials} trials: {r:.3f}× on {block_tile(dec, knobs)}; good families measured {good}; exchanges: {'; '.join(ex) or 'none'}")
