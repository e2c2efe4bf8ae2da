#!/usr/bin/env bash
# Runs `bench-tune` (gemm+ReLU+add 2048³, automatic space) for several seeds on a GPU host from the
# device bundle, one queue of runs per GPU in parallel (each run sees one GPU through
# CUDA_VISIBLE_DEVICES; its torch/cuBLAS baselines are timed on that GPU in the same run), then
# prints one line per run. Each finished run's report, curves and log are packed into
# OUT_DIR/<stem>.tgz at once, so that a call cut short keeps the runs that finished.
#
#   bash packages/meta-schedule/bench/gpu-tune-seeds.sh OUT_DIR TRIALS "RUN RUN …" ["RUN …" …]
#
# One quoted list of runs per GPU (GPU 0 runs the first list, GPU 1 the second, …). A run is
# SEED[/TRIALS[/FEATURES[/SHARE[/POPULATION[/ISLANDS]]]]]: TRIALS defaults to the second argument,
# FEATURES (bench:tune's --learned-features) to kernel-summary, SHARE (--neighbour-share),
# POPULATION (--population) and ISLANDS (--islands, the first round's) to the search's defaults.
# With END_BY (epoch seconds) set, a run that has not
# finished by then is stopped, and none starts after it. BENCH_TUNE_ARGS adds options to every run
# (e.g. "--workers 15 --overlap": search worker threads, search while measuring); STEM_SUFFIX is
# added to the name of each run's report.
set -uo pipefail
out="${1:?usage: gpu-tune-seeds.sh OUT_DIR TRIALS \"RUNS OF GPU 0\" [\"RUNS OF GPU 1\" …]}"
default_trials="${2:?trials}"
shift 2
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
bundle="${TESSERA_BUNDLE:-$here/.device-bundle}"
end_by="${END_BY:-0}"
mkdir -p "$out"
nvidia-smi --query-gpu=index,name,memory.used --format=csv,noheader || true

queue() {
  local gpu="$1" runs="$2" run seed trials features share population islands stem dir limit
  for run in $runs; do
    IFS=/ read -r seed trials features share population islands <<<"$run"
    trials="${trials:-$default_trials}"
    features="${features:-kernel-summary}"
    stem="tuning-gemm-$trials-$features${share:+-neighbours-$share}${population:+-population-$population}${islands:+-islands-$islands}${STEM_SUFFIX:+-$STEM_SUFFIX}-seed-$seed"
    limit=86400
    if [ "$end_by" -gt 0 ]; then limit=$((end_by - $(date +%s))); fi
    if [ "$limit" -le 10 ]; then echo "gpu $gpu: no time left for $stem"; continue; fi
    dir="$(mktemp -d)"
    CUDA_VISIBLE_DEVICES="$gpu" timeout "$limit" "$bundle/run.sh" bench-tune --only gemm_relu_add_2048 --gemm-trials "$trials" \
      --per-iter 32 --no-course --seeds "$seed" --learned-features "$features" ${share:+--neighbour-share "$share"} ${population:+--population "$population"} ${islands:+--islands "$islands"} \
      ${BENCH_TUNE_ARGS:-} --out-dir "$dir" --stem "$stem" >"$dir/$stem.log" 2>&1
    echo "gpu $gpu $stem: exit $?" | tee -a "$dir/$stem.log"
    tar czf "$out/$stem.tgz" -C "$dir" .
    rm -rf "$dir"
  done
}

gpu=0
for runs in "$@"; do
  queue "$gpu" "$runs" &
  gpu=$((gpu + 1))
done
wait

python3 - "$out" <<'PY'
import json, re, sys, tarfile, pathlib
print("| run | device | seed | trials | best ms | cuBLAS ms | vs cuBLAS | vs torch relu(A@B)+C | found at | wall s | phases | search share (no batch in flight) |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|")
for tgz in sorted(pathlib.Path(sys.argv[1]).glob("*.tgz")):
    with tarfile.open(tgz) as t:
        for m in t.getmembers():
            if not m.name.endswith(".json"):
                continue
            d = json.load(t.extractfile(m))
            base = d["torch"]["baselines"][0] if d.get("torch", {}).get("ok") else None
            for r in d["tuned"]:
                if r.get("bestMs") is None:
                    print(f"| {tgz.stem} | {d['device']} | {r['seed']} | {r['trials']} | failed | | | | | | | |")
                    continue
                cublas = base["gemmOnly"]["medianMs"] if base else float("nan")
                op = base["op"]["medianMs"] if base else float("nan")
                m = re.match(r"search ([\d.]+) s \(its thread busy [\d.]+ s(?:, no batch in flight ([\d.]+) s)?\)", r["phases"])
                share = "" if m is None else f"{100 * float(m[1]) / r['wallSeconds']:.0f}%" + ("" if m[2] is None else f" ({100 * float(m[2]) / r['wallSeconds']:.0f}%)")
                print(f"| {tgz.stem} | {d['device']} | {r['seed']} | {r['trials']} | {r['bestMs']:.4f} | {cublas:.4f} | {r['bestMs'] / cublas:.3f}× | {r['bestMs'] / op:.3f}× | {r['bestTrial']} | {r['wallSeconds']:.1f} | {r['phases']} | {share} |")
PY
