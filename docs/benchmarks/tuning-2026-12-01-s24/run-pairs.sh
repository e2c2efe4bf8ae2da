#!/usr/bin/env bash
# Session 24: paired 64-trial runs of gemm+ReLU+add 2048³ on one H200, main's search (arm "base":
# the latency model without the barrier stall, TMP_BAR=0) against a variant (arm ARM_NAME: the
# stall of a block alone on its SM, 100 cycles a barrier, TMP_BAR=100, plus ARM_ARGS), seed by seed,
# the order of the arms alternating; bench-tune --per-iter 32 --no-course --workers 15 --overlap
# through gpu-tune-seeds.sh, cuBLAS and torch relu(A@B)+C timed in each run. The arms are the same
# bundle: this experiment's build read LONE_BLOCK_BARRIER_CYCLES from TMP_BAR (main has
# EstimateOptions.loneBlockBarrierCycles, 0 by default).
#   call 1: OUT=… SEEDS="1200 … 1206" ARM_NAME=bar RUN_SECONDS=560 bash run-pairs.sh
#   call 2: OUT=… SEEDS="1207 … 1213" ARM_NAME=bar-isl4 ARM_ARGS="--islands 4" RUN_SECONDS=565 bash run-pairs.sh
set -u
O="$OUT"; mkdir -p "$O/runs"
export END_BY=$(( $(date +%s) + ${RUN_SECONDS:-560} ))
k=0
for seed in $SEEDS; do
  base() { env TMP_BAR=0 BENCH_TUNE_ARGS="--workers 15 --overlap" STEM_SUFFIX=s24-base bash packages/meta-schedule/bench/gpu-tune-seeds.sh "$O/runs" 64 "$seed" > /dev/null 2>&1; }
  arm() { env TMP_BAR=100 BENCH_TUNE_ARGS="--workers 15 --overlap ${ARM_ARGS:-}" STEM_SUFFIX="s24-$ARM_NAME" bash packages/meta-schedule/bench/gpu-tune-seeds.sh "$O/runs" 64 "$seed" > /dev/null 2>&1; }
  if [ $((k % 2)) -eq 0 ]; then base; arm; else arm; base; fi
  k=$((k + 1))
done
bash packages/meta-schedule/bench/gpu-tune-seeds.sh "$O/runs" 64 "" > "$O/table.md" 2>&1 || true
tar czf "$O/runs.tgz" -C "$O" runs && rm -rf "$O/runs"
cat "$O/table.md"
