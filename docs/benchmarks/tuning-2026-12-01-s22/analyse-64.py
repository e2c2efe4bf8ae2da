#!/usr/bin/env python3
"""Section 2's comparison of the paired 64-trial runs (the s22 base and polish reports here).

Per seed: best @32 in both arms, base's best, the polish run's best of its first 60 trials and its
end, how many programs the arms have in common, and the programs only the polish run measured,
each with its ratio to cuBLAS and its distance (decisions changed) from the polish run's best of 60.

    python3 docs/benchmarks/tuning-2026-12-01-s22/analyse-64.py
"""
import glob, gzip, json, os

here = os.path.dirname(os.path.abspath(__file__))


def load(arm, seed):
    d = json.load(gzip.open(os.path.join(here, f"tuning-gemm-64-kernel-summary-s22-{arm}-seed-{seed}.json.gz")))
    return d["tuned"][0], d["torch"]["baselines"][0]["gemmOnly"]["medianMs"]


def family(d):
    """Block tile i×j / threads, threads on i × on j (decisions i_0, i_1, j_0, j_1 at 2, 3, 6, 7)."""
    ti, tj = d[3][0] * d[3][1], d[7][0] * d[7][1]
    return f"{2048 // d[2][0]}x{2048 // d[6][0]}/{ti * tj} {ti}x{tj}"


def distance(a, b):
    return sum(json.dumps(x) != json.dumps(y) for x, y in zip(a, b))


print("| seed | @32 base / polish | base @64 | polish @60 | polish @64 | in common | polish only: ratio (decisions from the best of 60) | best of 60 |")
print("|---:|---:|---:|---:|---:|---:|---|---|")
for seed in range(600, 606):
    base, cb = load("base", seed)
    polish, cp = load("polish", seed)
    measured = {json.dumps(p["decisions"]) for p in base["top"]}
    only = [p for p in polish["top"] if json.dumps(p["decisions"]) not in measured]
    best60 = polish["curveMs"][59]
    incumbent = min((p for p in polish["top"] if p["ms"] >= best60 - 1e-12), key=lambda p: p["ms"])
    extras = sorted((p["ms"] / cp, distance(p["decisions"], incumbent["decisions"])) for p in only)
    print(
        f"| {seed} | {base['curveMs'][31] / cb:.3f}× / {polish['curveMs'][31] / cp:.3f}× | {base['bestMs'] / cb:.3f}× | {best60 / cp:.3f}× "
        f"| {polish['bestMs'] / cp:.3f}× | {len(polish['top']) - len(only)} | {', '.join(f'{r:.3f}× ({n})' for r, n in extras)} | {family(incumbent['decisions'])} |"
    )
