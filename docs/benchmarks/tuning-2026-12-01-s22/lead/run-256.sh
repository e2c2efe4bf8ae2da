#!/usr/bin/env bash
# Session 22, the lead: issue 33's 256-trial target on main's defaults, four seeds nobody tuned for
# (800–803), one after the other on one H200 of a 16-core host (the target's own setting: "one GPU
# of a 16-core host"), bench-tune --per-iter 32 --no-course --workers 15 --overlap through
# gpu-tune-seeds.sh; cuBLAS and torch relu(A@B)+C timed in each run.
set -u
O="$OUT"
END_BY=$(( $(date +%s) + ${RUN_SECONDS:-480} )) BENCH_TUNE_ARGS="--workers 15 --overlap" STEM_SUFFIX=s22-lead \
  bash packages/meta-schedule/bench/gpu-tune-seeds.sh "$O/runs" 256 "800 801 802 803" > "$O/table.md" 2>&1
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > "$O/smi.txt"
nproc > "$O/nproc.txt"
tar czf "$O/runs.tgz" -C "$O" runs && rm -rf "$O/runs"
cat "$O/table.md"
