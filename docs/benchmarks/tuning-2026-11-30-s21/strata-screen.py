#!/usr/bin/env python3
"""Offline screen of the stratified first batch (section 4 of README.md), on what it picks.

A 64-trial `--overlap` run picks both batches before anything is measured, so
`bench:tune --dry-run … --first-batch-strata` gives the programs the H200 would measure. This
compares those picks (strata-dry-run-picks.json.gz) with the base runs' measured picks (the
s21 base reports here), per seed: tile families, picks in the families that reach 1.10× in at least
a quarter of their recorded programs, the expected number of picks ≤ 1.10× (each pick counted at its
family's recorded share ≤ 1.10×), and whether the base's best program is still picked.

Family shares come from sessions 17–19's recorded programs (out of sample for these seeds):
    pnpm bench:prior-profiles --workload gemm_relu_add_2048 \\
      --reports docs/benchmarks/tuning-2026-11-30-s17,docs/benchmarks/tuning-2026-11-30-s18,docs/benchmarks/tuning-2026-11-30-s18/lead,docs/benchmarks/tuning-2026-11-30-s19 \\
      --out /tmp/pp-gemm.json
    python3 docs/benchmarks/tuning-2026-11-30-s21/strata-screen.py /tmp/pp-gemm.json
"""
import collections, glob, gzip, json, os, sys

here = os.path.dirname(os.path.abspath(__file__))


def family(d):
    """Block tile i×j / threads, threads on i × on j, from a program's decisions (i_0, i_1, j_0, j_1 at 2, 3, 6, 7)."""
    ti, tj = d[3][0] * d[3][1], d[7][0] * d[7][1]
    return f"{2048 // d[2][0]}x{2048 // d[6][0]}/{ti * tj} {ti}x{tj}"


recorded = collections.defaultdict(list)
for r in json.load(open(sys.argv[1])):
    if r.get("cublasMs"):
        recorded[family(r["decisions"])].append(r["ms"] / r["cublasMs"])
share = {f: sum(x <= 1.10 for x in v) / len(v) for f, v in recorded.items() if len(v) >= 10}

base = {}
for f in glob.glob(os.path.join(here, "*-s21-base-seed-*.json.gz")):
    d = json.load(gzip.open(f))
    cublas = d["torch"]["baselines"][0]["gemmOnly"]["medianMs"]
    for t in d["tuned"]:
        base[t["seed"]] = ([p["decisions"] for p in t["top"]], min(t["top"], key=lambda p: p["ms"])["decisions"], t["bestMs"] / cublas)
strata = {int(k): v for k, v in json.load(gzip.open(os.path.join(here, "strata-dry-run-picks.json.gz"))).items()}


def row(picks):
    fams = collections.Counter(family(d) for d in picks)
    good = sum(n for f, n in fams.items() if share.get(f, 0) >= 0.25)
    return len(fams), good, sum(share.get(family(d), 0.0) for d in picks)


print("| seed | base: families | good-family picks | expected ≤ 1.10× | GPU best | strata: families | good-family picks | expected ≤ 1.10× | base's best picked | programs in common |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|")
total = collections.Counter()
for seed in sorted(strata):
    picks, best, ratio = base[seed]
    b, s = row(picks), row(strata[seed])
    keys = {json.dumps(d) for d in strata[seed]}
    common = sum(json.dumps(d) in keys for d in picks)
    print(f"| {seed} | {b[0]} | {b[1]} | {b[2]:.1f} | {ratio:.3f}× | {s[0]} | {s[1]} | {s[2]:.1f} | {'yes' if json.dumps(best) in keys else 'no'} | {common} |")
    for k, v in zip(("bf", "bg", "be", "sf", "sg", "se"), b + s):
        total[k] += v
print(f"| all | {total['bf']} | {total['bg']} | {total['be']:.1f} | | {total['sf']} | {total['sg']} | {total['se']:.1f} | | |")
