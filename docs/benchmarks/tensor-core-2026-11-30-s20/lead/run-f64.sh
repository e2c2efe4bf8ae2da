#!/usr/bin/env bash
# Session 20, lead: gemm_relu_add_3xtf32_2048 on two H200s (seed 3 on GPU 0, seed 4 on GPU 1), 64
# trials each, with bench:tune's float64 accuracy check of the best (float64Check).
set -u
B=.device-bundle/run.sh
O="$OUT"; mkdir -p "$O/runs"
T0=$(date +%s); END=$(( T0 + ${RUN_SECONDS:-240} ))
run() { # gpu seed stem
  local d; d=$(mktemp -d)
  CUDA_VISIBLE_DEVICES=$1 timeout $(( END - $(date +%s) )) $B bench-tune --only gemm_relu_add_3xtf32_2048 --trials 64 --seeds "$2" --per-iter 32 --no-course --workers 7 --overlap --out-dir "$d" --stem "$3" > "$d/$3.log" 2>&1
  echo "$3 rc=$? at $(( $(date +%s) - T0 )) s" >> "$O/summary.txt"
  cp "$d/$3.md" "$O/" 2>/dev/null
  tar czf "$O/runs/$3.tgz" -C "$d" .
}
run 0 3 s20-lead-fx3-2048-64-seed-3 &
run 1 4 s20-lead-fx3-2048-64-seed-4 &
wait
tar czf "$O/runs.tgz" -C "$O" runs && rm -rf "$O/runs"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > "$O/smi.txt"
cat "$O/summary.txt"
for f in "$O"/s20-lead-*.md; do echo "== $f"; grep -E "^\| gemm|float64|torch A@B|max \|error\|" "$f" | head -6; done
