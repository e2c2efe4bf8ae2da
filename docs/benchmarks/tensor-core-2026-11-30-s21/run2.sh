#!/usr/bin/env bash
# Session 21 (tc) call 2, two H200s: 256-trial searches of both workloads on the same bundle as call 1
# tf32 wgmma spaces: GPU 0 ms-gpu-space-check (256³, every space of every workload, 2 samples each),
# then gemm_relu_add_3xtf32_2048 64 trials seed 5 and 256 trials seed 7; GPU 1 matmul_tf32_4096 64
# trials seed 6, gemm_relu_add_3xtf32_2048 64 trials seed 6, matmul_tf32_4096 128 trials seed 8.
# GPU 0 matmul_tf32_4096 256 trials seed 9; GPU 1 gemm_relu_add_3xtf32_2048 256 trials seed 8, then
# matmul_tf32_4096 64 trials seed 10 (stopped at 200 s). Each bench-tune times torch/cuBLAS on its own GPU in the same run; the 3xTF32 workload's best is
# checked against float64 (float64Check).
set -u
B=.device-bundle-tc/run.sh
O="$OUT"; mkdir -p "$O/runs"
T0=$(date +%s); END=$(( T0 + ${RUN_SECONDS:-200} ))
run() { # gpu workload trials seed stem
  local d; d=$(mktemp -d)
  CUDA_VISIBLE_DEVICES=$1 timeout $(( END - $(date +%s) )) $B bench-tune --only "$2" --trials "$3" --seeds "$4" --per-iter 32 --no-course --workers 7 --overlap --out-dir "$d" --stem "$5" > "$d/$5.log" 2>&1
  echo "$5 rc=$? at $(( $(date +%s) - T0 )) s" >> "$O/summary.txt"
  cp "$d/$5.md" "$O/runs/" 2>/dev/null
  tar czf "$O/runs/$5.tgz" -C "$d" .
}
( run 0 matmul_tf32_4096 256 9 s21-tf32-4096-256-seed-9 ) &
( run 1 gemm_relu_add_3xtf32_2048 256 8 s21-x3-2048-256-seed-8
  run 1 matmul_tf32_4096 64 10 s21-tf32-4096-64-seed-10 ) &
wait
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > "$O/smi.txt"
tar czf "$O/runs.tgz" -C "$O" runs && rm -rf "$O/runs"
cat "$O/summary.txt"
tar xzf "$O/runs.tgz" -C /tmp && for f in /tmp/runs/s21-*.md; do echo "== $f"; grep -E "^\| (gemm|matmul)|float64|max \|" "$f" | head -5; done
