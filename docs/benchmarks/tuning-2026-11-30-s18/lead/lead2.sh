#!/usr/bin/env bash
# Session 18 lead call 2 (one H200): 256 trials of the course gemm on an unseen seed (search share with
# guided replay chunks on the GPU host), then the fp16 4096³ search with the panel-contiguous B.
set -u
B=.device-bundle/run.sh
O="$OUT"
END=$(( $(date +%s) + ${LEAD_SECONDS:-230} ))
mkdir -p "$O/runs"
tune() { local stem=$1; shift; local left=$(( END - $(date +%s) )); if [ $left -le 15 ]; then echo "$stem: no time" >> "$O/summary.txt"; return; fi
  local d; d=$(mktemp -d)
  timeout $left $B bench-tune "$@" --per-iter 32 --no-course --workers 15 --overlap --out-dir "$d" --stem "$stem" > "$d/$stem.log" 2>&1
  echo "$stem rc=$? $(date +%s)" >> "$O/summary.txt"
  tar czf "$O/runs/$stem.tgz" -C "$d" . ; rm -rf "$d"; }
tune s18-gemm256-seed-180 --only gemm_relu_add_2048 --gemm-trials 256 --seeds 180
tune s18-t64-matmul_fp16_4096-seed-3 --only matmul_fp16_4096 --trials 64 --seeds 3
tar czf "$O/runs2.tgz" -C "$O" runs && rm -rf "$O/runs"
cat "$O/summary.txt"
