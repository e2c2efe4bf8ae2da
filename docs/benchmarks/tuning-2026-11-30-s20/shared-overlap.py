#!/usr/bin/env python3
"""Session 20's offline judge of the analytic prior's resource combination: the max of a warp's
issue time and shared wavefronts (the model's, SHARED_OVERLAP_ORDER = ∞) against their L^p norm
(p = 3, and p = 2 with the global lines in the norm too), on recorded GPU programs. Reads the
rows `pnpm bench:prior-profiles` writes and recomputes latency-model.ts's estimateKernel from
each kernel's profile (checked: order ∞ reproduces the model's seconds exactly). From the root:

    pnpm bench:prior-profiles --workload gemm_relu_add_2048 --out /tmp/gemm.json \
      --reports docs/benchmarks/tuning-2026-11-30-s17,docs/benchmarks/tuning-2026-11-30-s18,docs/benchmarks/tuning-2026-11-30-s18/lead,docs/benchmarks/tuning-2026-11-30-s19
    python3 docs/benchmarks/tuning-2026-11-30-s20/shared-overlap.py /tmp/gemm.json
    # per-run mode for the other workloads (ms only, no cuBLAS ratio needed):
    python3 docs/benchmarks/tuning-2026-11-30-s20/shared-overlap.py --per-run /tmp/other.json

Pooled mode (gemm+ReLU+add, ratios to cuBLAS of the same run, a program measured in several runs
at its median): Spearman with measured speed, where the programs ≤ 1.06× rank, and how many of
the model's 50 favourites are within 1.10×. Per-run mode: the mean over runs of ≥ 32 programs
of Spearman and top-8 regret (the model's top 8's fastest over the run's fastest).
"""
import json, math, statistics as st, sys
from collections import defaultdict

# latency-model.ts / gpu-spec.ts (Hopper; the recorded runs are rebuilt for nvidia/h100, 132 SMs).
SMS, CLOCK, LANES, SCHED, TENSOR = 132, 1.755e9, 128, 4, 4096
DRAM, LAUNCH, LOAD_LATENCY, SPILL, ROLLED = 3.35e12, 2e-6, 3000, 2, 0.08


def norm(xs, order):
    return max(xs) if order == math.inf else sum(x ** order for x in xs) ** (1 / order)


def kernel_seconds(k, order, with_global=False):
    p = k["profile"]
    warps = math.ceil(p["threadsPerBlock"] / 32)
    instructions = p["fpInstructions"] + p["tensorInstructions"] + p["memoryInstructions"]
    pipes = max(p["fpInstructions"] / (LANES / 32) + p["tensorFlops"] / TENSOR, instructions / SCHED)
    if with_global:
        per_warp = norm([pipes, p["sharedWavefronts"], p["globalLines"]], order)
    else:
        per_warp = max(norm([pipes, p["sharedWavefronts"]], order), p["globalLines"])
    busiest = math.ceil(p["blocks"] / SMS)
    resident = min(k["blocksPerSM"], busiest)
    waves = math.ceil(busiest / resident)
    rounds = max(1, p["fetchRounds"])
    work = resident * warps * per_warp / rounds
    alone = instructions / rounds + LOAD_LATENCY * (1 - p["prefetchedShare"])
    spill = 1 + SPILL * k["spilledRegisters"] / (16 + p["localElements"])
    rolled = 1 + ROLLED if p["straightLineFp"] < 0.5 * p["fpInstructions"] / rounds else 1
    sm = waves * rounds * max(work, alone) * spill * rolled / CLOCK
    return LAUNCH + max(sm, p["globalFootprintBytes"] / DRAM)


def seconds(row, order, with_global=False):
    return sum(kernel_seconds(k, order, with_global) for k in row["kernels"])


def ranks(xs):
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    out = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for t in range(i, j + 1):
            out[order[t]] = (i + j) / 2
        i = j + 1
    return out


def spearman(a, b):
    ra, rb = ranks(a), ranks(b)
    ma, mb = st.mean(ra), st.mean(rb)
    num = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    return num / math.sqrt(sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb))


VARIANTS = [("max (order ∞, the model)", math.inf, False), ("order 3 (issue ⊕ shared)", 3, False), ("order 2 (issue ⊕ shared ⊕ global)", 2, True)]


def pooled(rows):
    ratio, row_of = defaultdict(list), {}
    for r in rows:
        if r.get("cublasMs"):
            key = json.dumps(r["decisions"])
            ratio[key].append(r["ms"] / r["cublasMs"])
            row_of[key] = r
    keys = sorted(ratio)
    med = {k: st.median(ratio[k]) for k in keys}
    for k in keys:
        assert abs(seconds(row_of[k], math.inf) - row_of[k]["seconds"]) <= 1e-12 * row_of[k]["seconds"], "order ∞ must be the model"
    good = [k for k in keys if med[k] <= 1.06]
    print(f"{len(keys)} distinct programs, {len(good)} of them ≤ 1.06× cuBLAS")
    for label, order, with_global in VARIANTS:
        est = {k: seconds(row_of[k], order, with_global) for k in keys}
        rho = spearman([-est[k] for k in keys], [-med[k] for k in keys])
        ranked = sorted(keys, key=lambda k: (est[k], k))
        at = {k: i for i, k in enumerate(ranked)}
        good_ranks = sorted(at[k] for k in good)
        top = [med[k] for k in ranked[:50]]
        print(f"  {label}: Spearman {rho:.3f}; the ≤ 1.06× programs rank from {good_ranks[0] if good_ranks else '-'} "
              f"(median {good_ranks[len(good_ranks) // 2] if good_ranks else '-'}); top 50: median {st.median(top):.3f}×, "
              f"{sum(x <= 1.10 for x in top)} within 1.10×")


def per_run(rows):
    runs = defaultdict(list)
    for r in rows:
        runs[(r["workload"], r["dir"], r["run"])].append(r)
    table = defaultdict(lambda: defaultdict(list))
    for (workload, _, _), rs in runs.items():
        if len(rs) < 32:
            continue
        best = min(r["ms"] for r in rs)
        for label, order, with_global in VARIANTS:
            est = [seconds(r, order, with_global) for r in rs]
            rho = spearman([-x for x in est], [-r["ms"] for r in rs])
            top8 = sorted(range(len(rs)), key=lambda i: est[i])[:8]
            table[workload][label].append((rho, min(rs[i]["ms"] for i in top8) / best))
    for workload, by in table.items():
        cells = [f"{label.split(' (')[0]}: {st.mean(x[0] for x in v):.3f} / {st.mean(x[1] for x in v):.3f}" for label, v in by.items()]
        print(f"{workload} ({len(next(iter(by.values())))} runs; Spearman / top-8 regret): " + "; ".join(cells))


if __name__ == "__main__":
    args = sys.argv[1:]
    mode = per_run if args and args[0] == "--per-run" else pooled
    files = [a for a in args if a != "--per-run"]
    if not files:
        sys.exit(__doc__)
    rows = [row for f in files for row in json.load(open(f))]
    mode(rows)
