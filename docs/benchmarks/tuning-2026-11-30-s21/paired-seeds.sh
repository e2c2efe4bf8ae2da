#!/usr/bin/env bash
# Paired 64-trial runs of gemm+ReLU+add 2048³ on one GPU: for each seed, the base (main's
# behaviour) and the two-phase run (--last-batch-sees-first), the order alternating from seed to
# seed, through the bundle's gpu-tune-seeds.sh (bench-tune --per-iter 32 --no-course --workers 7
# --overlap). Reports land in OUT/base and OUT/two-phase.
#
#   TESSERA_BUNDLE=… END_BY=… bash paired-seeds.sh OUT GPU "SEED SEED …" [TRIALS]
set -uo pipefail
out="${1:?usage: paired-seeds.sh OUT GPU \"SEEDS\" [TRIALS]}"
gpu="${2:?gpu}"
seeds="${3:?seeds}"
trials="${4:-64}"
script="${TESSERA_BUNDLE:?TESSERA_BUNDLE}/gpu-tune-seeds.sh"
k=0
for seed in $seeds; do
  arms="base two-phase"
  if [ $((k % 2)) -eq 1 ]; then arms="two-phase base"; fi
  k=$((k + 1))
  for arm in $arms; do
    args="--workers 7 --overlap"
    if [ "$arm" = two-phase ]; then args="$args --last-batch-sees-first"; fi
    # gpu-tune-seeds.sh runs its n-th list of runs on GPU n-1: empty lists before this GPU's.
    lists=()
    for ((g = 0; g < gpu; g++)); do lists+=(""); done
    BENCH_TUNE_ARGS="$args" STEM_SUFFIX="s21-$arm" bash "$script" "$out/$arm" "$trials" "${lists[@]}" "$seed" >/dev/null
  done
done
