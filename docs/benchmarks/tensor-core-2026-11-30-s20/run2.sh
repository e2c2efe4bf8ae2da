#!/usr/bin/env bash
# Session 20 (tf32) call 2, two H200s: the tf32 and 3xTF32 spaces' programs against the CPU executor
# on the GPU (ms-gpu-space-check, 256³, with the fp16 GEMMs' as before), then 256-trial searches of
# gemm_relu_add_3xtf32_2048, seed 1 on GPU 0 and seed 2 on GPU 1.
set -u
B=.device-bundle-tf32/run.sh
O="$OUT"; mkdir -p "$O/runs"
T0=$(date +%s); END=$(( T0 + ${RUN_SECONDS:-260} ))
run() { # gpu workload trials stem
  local d; d=$(mktemp -d)
  CUDA_VISIBLE_DEVICES=$1 timeout $(( END - $(date +%s) )) $B bench-tune --only "$2" --trials "$3" --seeds $(( $1 + 1 )) --per-iter 32 --no-course --workers 7 --overlap --out-dir "$d" --stem "$4" > "$d/$4.log" 2>&1
  echo "$4 rc=$? at $(( $(date +%s) - T0 )) s" >> "$O/summary.txt"
  tar czf "$O/runs/$4.tgz" -C "$d" .
}
( CUDA_VISIBLE_DEVICES=0 timeout 120 $B ms-gpu-space-check --samples 3 > "$O/space-check.txt" 2>&1
  echo "space-check rc=$? at $(( $(date +%s) - T0 )) s" >> "$O/summary.txt"
  run 0 gemm_relu_add_3xtf32_2048 256 s20-x3-2048-256-seed-1 ) &
( run 1 gemm_relu_add_3xtf32_2048 256 s20-x3-2048-256-seed-2 ) &
wait
tar czf "$O/runs.tgz" -C "$O" runs && rm -rf "$O/runs"
cat "$O/summary.txt"; tail -4 "$O/space-check.txt"
for f in /tmp/tmp.*/s20-*.md; do echo "== $f"; grep -E "^\| gemm|torch A@B" "$f" | head -4; done
