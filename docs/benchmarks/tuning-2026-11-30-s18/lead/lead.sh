#!/usr/bin/env bash
# Session 18 lead call on the merged tree (one H200): selftest, then 64-trial tunings in priority order.
set -u
B=.device-bundle/run.sh
O="$OUT"
END=$(( $(date +%s) + ${LEAD_SECONDS:-430} ))
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > "$O/smi.txt" 2>&1
timeout 60 $B gpu-selftest > "$O/selftest.txt" 2>&1; echo "selftest rc=$?" >> "$O/summary.txt"
mkdir -p "$O/runs"
tune() { local stem=$1; shift; local left=$(( END - $(date +%s) )); if [ $left -le 15 ]; then echo "$stem: no time" >> "$O/summary.txt"; return; fi
  local d; d=$(mktemp -d)
  timeout $left $B bench-tune "$@" --per-iter 32 --no-course --workers 15 --overlap --out-dir "$d" --stem "$stem" > "$d/$stem.log" 2>&1
  echo "$stem rc=$? $(date +%s)" >> "$O/summary.txt"
  grep -h -E "^\|" "$d"/*.md 2>/dev/null | head -4 >> "$O/summary.txt"
  tar czf "$O/runs/$stem.tgz" -C "$d" . ; rm -rf "$d"; }
tune s18-gemm64-seed-170 --only gemm_relu_add_2048 --gemm-trials 64 --seeds 170
tune s18-gemm64-seed-171 --only gemm_relu_add_2048 --gemm-trials 64 --seeds 171
tune s18-t64-matmul_1024-seed-1 --only matmul_1024 --trials 64 --seeds 1
tune s18-t64-matmul_1024-seed-2 --only matmul_1024 --trials 64 --seeds 2
tune s18-t64-matmul_4096-seed-1 --only matmul_4096 --trials 64 --seeds 1
tune s18-t64-batch_matmul_16x512-seed-1 --only batch_matmul_16x512 --trials 64 --seeds 1
tune s18-t64-matmul_1000-seed-1 --only matmul_1000 --trials 64 --seeds 1
tune s18-t64-matmul_4096x1024x4096-seed-1 --only matmul_4096x1024x4096 --trials 64 --seeds 1
tune s18-t64-conv2d_b1-seed-1 --only conv2d_nchw_b1 --trials 64 --seeds 1
tune s18-t64-matmul_fp16_2048-seed-3 --only matmul_fp16_2048 --trials 64 --seeds 3
tar czf "$O/runs.tgz" -C "$O" runs && rm -rf "$O/runs"
cat "$O/summary.txt"
