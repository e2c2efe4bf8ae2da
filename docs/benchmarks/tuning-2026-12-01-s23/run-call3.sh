#!/usr/bin/env bash
# Session 23, call 3: the model variant at 256 trials on four unseen seeds (1100–1103), then three
# more paired 64-trial seeds (run-pairs.sh).
set -u
O="$OUT"
TMP_L1=1 END_BY=$(( $(date +%s) + 345 )) BENCH_TUNE_ARGS="--workers 15 --overlap" STEM_SUFFIX=s23-l1 \
  bash packages/meta-schedule/bench/gpu-tune-seeds.sh "$O/runs-256" 256 "1100 1101 1102 1103" > "$O/table-256.md" 2>&1
tar czf "$O/runs-256.tgz" -C "$O" runs-256 && rm -rf "$O/runs-256"
( OUT="$O/pairs" SEEDS="1011 1012 1013" ARM_NAME=l1 ARM_ENV="TMP_L1=1" RUN_SECONDS=215 bash docs/benchmarks/tuning-2026-12-01-s23/run-pairs.sh ) > "$O/pairs.md" 2>&1
cat "$O/table-256.md" "$O/pairs.md"
