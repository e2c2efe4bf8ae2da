#!/usr/bin/env bash
# Session 20 (tf32) call 5, two H200s, after the fused ReLU+add store and the one-kernel A split:
# ms-gpu-space-check (256³: fp16 GEMMs, fp16 gemm+ReLU+add, tf32 and 3xTF32 gemm+ReLU+add, every
# space) on GPU 0, then 256-trial searches of gemm_relu_add_3xtf32_2048 (seed 1 on GPU 0, seed 2 on
# GPU 1); GPU 1 then gemm_relu_add_fp16_2048, 64 trials, seed 1.
set -u
B=.device-bundle-tf32/run.sh
O="$OUT"; mkdir -p "$O/runs"
T0=$(date +%s); END=$(( T0 + ${RUN_SECONDS:-230} ))
run() { # gpu workload trials seed stem
  local d; d=$(mktemp -d)
  CUDA_VISIBLE_DEVICES=$1 timeout $(( END - $(date +%s) )) $B bench-tune --only "$2" --trials "$3" --seeds "$4" --per-iter 32 --no-course --workers 7 --overlap --out-dir "$d" --stem "$5" > "$d/$5.log" 2>&1
  echo "$5 rc=$? at $(( $(date +%s) - T0 )) s" >> "$O/summary.txt"
  tar czf "$O/runs/$5.tgz" -C "$d" .
}
( CUDA_VISIBLE_DEVICES=0 timeout 100 $B ms-gpu-space-check --samples 3 > "$O/space-check.txt" 2>&1
  echo "space-check rc=$? at $(( $(date +%s) - T0 )) s" >> "$O/summary.txt"
  run 0 gemm_relu_add_3xtf32_2048 256 1 s20-fx3-2048-256-seed-1 ) &
( run 1 gemm_relu_add_3xtf32_2048 256 2 s20-fx3-2048-256-seed-2
  run 1 gemm_relu_add_fp16_2048 64 1 s20-fp16-relu-add-2048-64-seed-1 ) &
wait
tar czf "$O/runs.tgz" -C "$O" runs && rm -rf "$O/runs"
cat "$O/summary.txt"; tail -4 "$O/space-check.txt"
for f in /tmp/tmp.*/s20-*.md; do echo "== $f"; grep -E "^\| gemm|torch A@B" "$f" | head -4; done
