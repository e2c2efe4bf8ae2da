#!/usr/bin/env bash
# Session 21, the lead: issue 33's 256-trial target on the merged tree (main's defaults), four seeds
# nobody tuned for (500–503), two per GPU of two H200s, bench-tune --per-iter 32 --no-course
# --workers 7 --overlap through gpu-tune-seeds.sh; cuBLAS and torch relu(A@B)+C timed in each run.
set -u
O="$OUT"
END_BY=$(( $(date +%s) + ${RUN_SECONDS:-270} )) BENCH_TUNE_ARGS="--workers 7 --overlap" STEM_SUFFIX=s21-lead \
  bash packages/meta-schedule/bench/gpu-tune-seeds.sh "$O/runs" 256 "500 501" "502 503" > "$O/table.md" 2>&1
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > "$O/smi.txt"
tar czf "$O/runs.tgz" -C "$O" runs && rm -rf "$O/runs"
cat "$O/table.md"
