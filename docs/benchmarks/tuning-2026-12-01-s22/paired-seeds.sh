#!/usr/bin/env bash
# Paired 64-trial runs of gemm+ReLU+add 2048³ on one GPU: for each seed, the base (main's
# behaviour) and the polish run (--polish-trials 4: the last 4 trials a batch of their own, the
# measured best's one-decision neighbours), the order alternating from seed to seed, through the
# bundle's gpu-tune-seeds.sh (bench-tune --per-iter 32 --no-course --workers 7 --overlap).
# Reports land in OUT/base and OUT/polish.
#
#   TESSERA_BUNDLE=… END_BY=… bash paired-seeds.sh OUT "SEED SEED …" [TRIALS] [FIRST_ARM]
set -uo pipefail
out="${1:?usage: paired-seeds.sh OUT \"SEEDS\" [TRIALS] [FIRST_ARM]}"
seeds="${2:?seeds}"
trials="${3:-64}"
first="${4:-base}"
script="${TESSERA_BUNDLE:?TESSERA_BUNDLE}/gpu-tune-seeds.sh"
k=0
for seed in $seeds; do
  arms="base polish"
  if [ "$first" = polish ]; then arms="polish base"; fi
  if [ $((k % 2)) -eq 1 ]; then arms="$(echo "$arms" | awk '{print $2, $1}')"; fi
  k=$((k + 1))
  for arm in $arms; do
    args="--workers 7 --overlap"
    if [ "$arm" = polish ]; then args="$args --polish-trials 4"; fi
    BENCH_TUNE_ARGS="$args" STEM_SUFFIX="s22-$arm" bash "$script" "$out/$arm" "$trials" "$seed" >/dev/null
  done
done
