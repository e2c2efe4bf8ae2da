#!/usr/bin/env bash
# Session 23: paired 64-trial runs of gemm+ReLU+add 2048³ on one H200, the latency model as it was
# (arm "base": global lines not charged to the shared-memory data path) against the variant
# (arm given by ARM_NAME with ARM_ENV), seed by seed, the order of the arms alternating; bench-tune
# --per-iter 32 --no-course --workers 15 --overlap through gpu-tune-seeds.sh, cuBLAS and torch
# relu(A@B)+C timed in each run. The arms are the same bundle with the model's switches set by
# environment (TMP_L1, TMP_ORDER), which only this experiment's build read: main has the switch as
# EstimateOptions.l1SharesDataPath, on by default.
#   OUT=… SEEDS="1000 1001 …" ARM_NAME=l1 ARM_ENV="TMP_L1=1" RUN_SECONDS=560 bash run-pairs.sh
set -u
O="$OUT"; mkdir -p "$O/runs"
export END_BY=$(( $(date +%s) + ${RUN_SECONDS:-560} )) BENCH_TUNE_ARGS="--workers 15 --overlap"
k=0
for seed in $SEEDS; do
  base() { env TMP_L1=0 STEM_SUFFIX=s23-base bash packages/meta-schedule/bench/gpu-tune-seeds.sh "$O/runs" 64 "$seed" > /dev/null 2>&1; }
  arm() { env $ARM_ENV STEM_SUFFIX=s23-$ARM_NAME bash packages/meta-schedule/bench/gpu-tune-seeds.sh "$O/runs" 64 "$seed" > /dev/null 2>&1; }
  if [ $((k % 2)) -eq 0 ]; then base; arm; else arm; base; fi
  k=$((k + 1))
done
bash packages/meta-schedule/bench/gpu-tune-seeds.sh "$O/runs" 64 "" > "$O/table.md" 2>&1 || true
tar czf "$O/runs.tgz" -C "$O" runs && rm -rf "$O/runs"
cat "$O/table.md"
