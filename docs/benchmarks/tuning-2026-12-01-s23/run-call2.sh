#!/usr/bin/env bash
# Session 23, call 2: four more paired 64-trial seeds (run-pairs.sh), then the model variant on the
# other workloads of issue 33 at 64 trials (one bench-tune run; each workload's vendor baseline timed in it).
set -u
O="$OUT"
( OUT="$O/pairs" SEEDS="1007 1008 1009 1010" ARM_NAME=l1 ARM_ENV="TMP_L1=1" RUN_SECONDS=300 bash docs/benchmarks/tuning-2026-12-01-s23/run-pairs.sh ) > "$O/pairs.md" 2>&1
TMP_L1=1 timeout 250 .device-bundle/run.sh bench-tune --only matmul_1024,matmul_4096,batch_matmul_16x512,matmul_1000,matmul_4096x1024x4096,conv2d_nchw_b1,conv2d_nchw_b32 \
  --trials 64 --per-iter 32 --no-course --seeds 1 --workers 15 --overlap --out-dir "$O/workloads" --stem s23-l1-workloads > "$O/workloads.log" 2>&1
echo "workloads exit $?" >> "$O/workloads.log"
tar czf "$O/workloads.tgz" -C "$O" workloads && rm -rf "$O/workloads"
cat "$O/pairs.md"; grep -E "^\| (matmul|batch|conv)" "$O/workloads.log" | head -20; tail -5 "$O/workloads.log"
