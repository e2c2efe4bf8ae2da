#!/usr/bin/env bash
# Session 21, the lead's check on the merged tree (both helpers' branches and the review's mends):
# GPU 0 ms-gpu-space-check (256³, every space, 2 samples each), then gemm_relu_add_3xtf32_2048
# 64 trials seed 11 and matmul_tf32_4096 128 trials seed 13; GPU 1 gemm_relu_add_fp16_2048 64
# trials seed 12, then gemm_relu_add_3xtf32_2048 256 trials seed 14. New seeds. Each bench-tune
# times torch/cuBLAS on its own GPU in the same run; the 3xTF32 best is checked against float64.
set -u
B=.device-bundle/run.sh
O="$OUT"; mkdir -p "$O/runs"
T0=$(date +%s); END=$(( T0 + ${RUN_SECONDS:-250} ))
run() { # gpu workload trials seed stem
  local d; d=$(mktemp -d)
  CUDA_VISIBLE_DEVICES=$1 timeout $(( END - $(date +%s) )) $B bench-tune --only "$2" --trials "$3" --seeds "$4" --per-iter 32 --no-course --workers 7 --overlap --out-dir "$d" --stem "$5" > "$d/$5.log" 2>&1
  echo "$5 rc=$? at $(( $(date +%s) - T0 )) s" >> "$O/summary.txt"
  cp "$d/$5.md" "$O/runs/" 2>/dev/null
  tar czf "$O/runs/$5.tgz" -C "$d" .
}
( CUDA_VISIBLE_DEVICES=0 timeout 80 $B ms-gpu-space-check --samples 2 > "$O/space-check.txt" 2>&1
  echo "space-check rc=$? at $(( $(date +%s) - T0 )) s" >> "$O/summary.txt"
  run 0 gemm_relu_add_3xtf32_2048 64 11 lead-x3-2048-64-seed-11
  run 0 matmul_tf32_4096 128 13 lead-tf32-4096-128-seed-13 ) &
( run 1 gemm_relu_add_fp16_2048 64 12 lead-fp16-relu-add-2048-64-seed-12
  run 1 gemm_relu_add_3xtf32_2048 256 14 lead-x3-2048-256-seed-14 ) &
wait
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > "$O/smi.txt"
tar czf "$O/runs.tgz" -C "$O" runs && rm -rf "$O/runs"
cat "$O/summary.txt"; grep -E "passed|failed|FAIL|Error" "$O/space-check.txt" | tail -8
tar xzf "$O/runs.tgz" -C /tmp && for f in /tmp/runs/lead-*.md; do echo "== $f"; grep -E "^\| (gemm|matmul)|float64|max \|" "$f" | head -5; done
