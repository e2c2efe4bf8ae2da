#!/usr/bin/env bash
# Session 19 lead call 2 (two H200s): issue 34's bonus workload gemm_relu_add_fp16_2048 in bench:tune,
# 64 trials, seed 1 on GPU 0 and seed 2 on GPU 1 (7 search workers each: the host's 32 cores shared).
set -u
B=.device-bundle/run.sh
O="$OUT"; mkdir -p "$O/runs"
T0=$(date +%s); END=$(( T0 + ${LEAD_SECONDS:-150} ))
for g in 0 1; do
  ( export CUDA_VISIBLE_DEVICES=$g; seed=$(( g + 1 )); stem=s19-lead-fp16-relu-add-2048-64-seed-$seed; d=$(mktemp -d)
    timeout $(( END - $(date +%s) )) $B bench-tune --only gemm_relu_add_fp16_2048 --trials 64 --seeds $seed --per-iter 32 --no-course --workers 7 --overlap --out-dir "$d" --stem $stem > "$d/$stem.log" 2>&1
    echo "$stem rc=$? at $(( $(date +%s) - T0 )) s" >> "$O/summary.txt"
    tar czf "$O/runs/$stem.tgz" -C "$d" . ) &
done
wait
tar czf "$O/runs.tgz" -C "$O" runs && rm -rf "$O/runs"
cat "$O/summary.txt"
