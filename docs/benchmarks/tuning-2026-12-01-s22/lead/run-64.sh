#!/usr/bin/env bash
# Session 22, the lead: issue 33's 64-trial target (≤ 1.10× cuBLAS in ≤ 30 s) on main's defaults,
# ten seeds nobody tuned for (900–909), one after the other on one H200 of a 16-core host,
# bench-tune --per-iter 32 --no-course --workers 15 --overlap through gpu-tune-seeds.sh; cuBLAS and
# torch relu(A@B)+C timed in each run.
set -u
O="$OUT"
END_BY=$(( $(date +%s) + ${RUN_SECONDS:-330} )) BENCH_TUNE_ARGS="--workers 15 --overlap" STEM_SUFFIX=s22-lead \
  bash packages/meta-schedule/bench/gpu-tune-seeds.sh "$O/runs" 64 "900 901 902 903 904 905 906 907 908 909" > "$O/table-64.md" 2>&1
tar czf "$O/runs-64.tgz" -C "$O" runs && rm -rf "$O/runs"
cat "$O/table-64.md"
