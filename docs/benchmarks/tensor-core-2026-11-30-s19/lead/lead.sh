#!/usr/bin/env bash
# Session 19 lead call (two H200s, kind nvidia-h200-x2), on the merged tree (both helpers' branches).
# GPU 0: a third seed of the fp16-output GEMM at 2048³ (256 trials; the helper's seeds 1 and 2 gave
#        1.147× and 1.141× HGEMM sustained), then the GPU self-test.
# GPU 1: the float32-C fp16 GEMM at 2048³ (64 trials, seed 3: 1.352× in session 18, 1.381× before the
#        float2 pair stores) to time those stores, then bench-tc's hand kernels at 2048³.
set -u
B=.device-bundle/run.sh
O="$OUT"; mkdir -p "$O/runs"
T0=$(date +%s); END=$(( T0 + ${LEAD_SECONDS:-250} ))
nvidia-smi --query-gpu=index,name,clocks.max.sm,power.limit,driver_version --format=csv > "$O/smi.txt" 2>&1
tune() { local stem=$1; shift; local left=$(( END - $(date +%s) )); if [ $left -le 15 ]; then echo "$stem: no time" >> "$O/summary-$CUDA_VISIBLE_DEVICES.txt"; return; fi
  local d; d=$(mktemp -d)
  timeout $left $B bench-tune "$@" --per-iter 32 --no-course --workers 15 --overlap --out-dir "$d" --stem "$stem" > "$d/$stem.log" 2>&1
  echo "$stem rc=$? at $(( $(date +%s) - T0 )) s" >> "$O/summary-$CUDA_VISIBLE_DEVICES.txt"
  tar czf "$O/runs/$stem.tgz" -C "$d" . ; rm -rf "$d"; }
( export CUDA_VISIBLE_DEVICES=1
  tune s19-lead-fp16-2048-64-seed-3 --only matmul_fp16_2048 --trials 64 --seeds 3
  left=$(( END - $(date +%s) )); [ $left -gt 20 ] && timeout $left $B bench-tc --kernels wgmma_tma_p,wgmma --sizes 2048 > "$O/runs/tc-2048.txt" 2>&1
  echo "bench-tc rc=$? at $(( $(date +%s) - T0 )) s" >> "$O/summary-1.txt" ) &
( export CUDA_VISIBLE_DEVICES=0
  tune s19-lead-fp16out-2048-256-seed-3 --only matmul_fp16_out_2048 --trials 256 --seeds 3
  left=$(( END - $(date +%s) )); [ $left -gt 20 ] && timeout $left $B gpu-selftest > "$O/runs/gpu-selftest.txt" 2>&1
  echo "gpu-selftest rc=$? at $(( $(date +%s) - T0 )) s" >> "$O/summary-0.txt" )
wait
tar czf "$O/runs.tgz" -C "$O" runs && rm -rf "$O/runs"
cat "$O"/summary-*.txt
