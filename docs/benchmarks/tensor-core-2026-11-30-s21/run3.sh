#!/usr/bin/env bash
# Session 21 (tc) call 3, two H200s, after the fp16 relu-add store in __half2 pairs (bundle of
# 40a98dfc + b3118f4b): gemm_relu_add_fp16_2048, 64 trials, seed 5 on GPU 0 and seed 6 on GPU 1,
# HGEMM (torch fp16 A @ B) timed in each run.
set -u
B=.device-bundle-tc/run.sh
O="$OUT"; mkdir -p "$O/runs"
T0=$(date +%s); END=$(( T0 + ${RUN_SECONDS:-120} ))
run() { # gpu workload trials seed stem
  local d; d=$(mktemp -d)
  CUDA_VISIBLE_DEVICES=$1 timeout $(( END - $(date +%s) )) $B bench-tune --only "$2" --trials "$3" --seeds "$4" --per-iter 32 --no-course --workers 7 --overlap --out-dir "$d" --stem "$5" > "$d/$5.log" 2>&1
  echo "$5 rc=$? at $(( $(date +%s) - T0 )) s" >> "$O/summary.txt"
  cp "$d/$5.md" "$O/runs/" 2>/dev/null
  tar czf "$O/runs/$5.tgz" -C "$d" .
}
run 0 gemm_relu_add_fp16_2048 64 5 s21-fp16-relu-add-2048-64-seed-5 &
run 1 gemm_relu_add_fp16_2048 64 6 s21-fp16-relu-add-2048-64-seed-6 &
wait
tar czf "$O/runs.tgz" -C "$O" runs && rm -rf "$O/runs"
cat "$O/summary.txt"
mkdir -p /tmp/r3 && tar xzf "$O/runs.tgz" -C /tmp/r3 && for f in /tmp/r3/runs/s21-*.md; do echo "== $f"; grep -E "^\| gemm|torch" "$f" | head -4; done
