#!/usr/bin/env bash
# Session 24, call 2: paired 64-trial runs of gemm+ReLU+add 2048³ on one H200, main's search as it
# was (arm "base": no barrier stall, two first-round islands) against the candidate (arm "bar-isl4":
# the latency model's barrier stall of a block alone on its SM, 100 cycles a barrier, and four
# first-round islands), seed by seed, the order of the arms alternating; otherwise as run-pairs.sh.
# This experiment's build read LONE_BLOCK_BARRIER_CYCLES from TMP_BAR.
#   OUT=… SEEDS="1207 1208 …" RUN_SECONDS=560 bash run-pairs2.sh
set -u
O="$OUT"; mkdir -p "$O/runs"
export END_BY=$(( $(date +%s) + ${RUN_SECONDS:-560} ))
k=${FIRST_INDEX:-0}
for seed in $SEEDS; do
  base() { env TMP_BAR=0 BENCH_TUNE_ARGS="--workers 15 --overlap" STEM_SUFFIX=s24-base bash packages/meta-schedule/bench/gpu-tune-seeds.sh "$O/runs" 64 "$seed" > /dev/null 2>&1; }
  arm() { env TMP_BAR=100 BENCH_TUNE_ARGS="--workers 15 --overlap --islands 4" STEM_SUFFIX=s24-bar-isl4 bash packages/meta-schedule/bench/gpu-tune-seeds.sh "$O/runs" 64 "$seed" > /dev/null 2>&1; }
  if [ $((k % 2)) -eq 0 ]; then base; arm; else arm; base; fi
  k=$((k + 1))
done
bash packages/meta-schedule/bench/gpu-tune-seeds.sh "$O/runs" 64 "" > "$O/table.md" 2>&1 || true
tar czf "$O/runs.tgz" -C "$O" runs && rm -rf "$O/runs"
cat "$O/table.md"
