#!/usr/bin/env bash
# Session 20 (tf32) call 1, two H200s: issue 34's bonus workload in 3xTF32 (gemm_relu_add_3xtf32_2048,
# 64 trials, seed 1 on GPU 0 and seed 2 on GPU 1), then the tf32 matmul at 4096³ (32 trials, same
# seeds), 7 search workers each (the host's 32 cores shared). Run from the repository root on the
# device machine with the bundle carried as .device-bundle-tf32.
set -u
B=.device-bundle-tf32/run.sh
O="$OUT"; mkdir -p "$O/runs"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > "$O/smi.txt" 2>&1
T0=$(date +%s); END=$(( T0 + ${RUN_SECONDS:-270} ))
run() { # gpu workload trials stem
  local d; d=$(mktemp -d)
  CUDA_VISIBLE_DEVICES=$1 timeout $(( END - $(date +%s) )) $B bench-tune --only "$2" --trials "$3" --seeds $(( $1 + 1 )) --per-iter 32 --no-course --workers 7 --overlap --out-dir "$d" --stem "$4" > "$d/$4.log" 2>&1
  echo "$4 rc=$? at $(( $(date +%s) - T0 )) s" >> "$O/summary.txt"
  tar czf "$O/runs/$4.tgz" -C "$d" .
}
for g in 0 1; do
  ( run $g gemm_relu_add_3xtf32_2048 64 s20-x3-2048-64-seed-$(( g + 1 ))
    run $g matmul_tf32_4096 32 s20-tf32-4096-32-seed-$(( g + 1 )) ) &
done
wait
tar czf "$O/runs.tgz" -C "$O" runs && rm -rf "$O/runs"
cat "$O/summary.txt"
for f in /tmp/tmp.*/s20-*.md; do echo "== $f"; grep -E "^\| (gemm|matmul)|best|torch" "$f" | head -12; done
