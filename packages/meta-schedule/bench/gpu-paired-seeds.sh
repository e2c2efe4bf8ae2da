#!/usr/bin/env bash
# Paired bench-tune runs of gemm+ReLU+add 2048³ on one GPU: for each seed, a base arm and a variant
# arm one after the other, the order alternating from seed to seed (so that neither arm always
# runs on the warmer GPU), each through gpu-tune-seeds.sh with its own bench-tune options; then
# one table of every run and a tarball of the reports.
#
#   OUT=DIR SEEDS="1 2 3" ARM_NAME=name ARM_ARGS="--climb-steps 4" [BASE_ARGS=…] [COMMON_ARGS=…] \
#     [RUN_SECONDS=560] [STEM=s25] bash packages/meta-schedule/bench/gpu-paired-seeds.sh TRIALS
#
# COMMON_ARGS (default "--workers 15 --overlap") goes to both arms; BASE_ARGS to the base alone.
# Runs not finished RUN_SECONDS after the start are stopped and none starts after it (END_BY).
set -u
trials="${1:?usage: gpu-paired-seeds.sh TRIALS (OUT, SEEDS, ARM_NAME and ARM_ARGS in the environment)}"
out="${OUT:?OUT: the folder for the runs}"
seeds="${SEEDS:?SEEDS: the seeds, space-separated}"
arm_name="${ARM_NAME:?ARM_NAME: the name of the variant in its reports}"
stem="${STEM:-paired}"
common="${COMMON_ARGS:---workers 15 --overlap}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$out/runs"
export END_BY=$(($(date +%s) + ${RUN_SECONDS:-560}))

run_arm() { # NAME ARGS SEED
  env BENCH_TUNE_ARGS="$common $2" STEM_SUFFIX="$stem-$1" bash "$here/gpu-tune-seeds.sh" "$out/runs" "$trials" "$3" >/dev/null 2>&1
}

k=0
for seed in $seeds; do
  if [ $((k % 2)) -eq 0 ]; then
    run_arm base "${BASE_ARGS:-}" "$seed"; run_arm "$arm_name" "${ARM_ARGS:-}" "$seed"
  else
    run_arm "$arm_name" "${ARM_ARGS:-}" "$seed"; run_arm base "${BASE_ARGS:-}" "$seed"
  fi
  k=$((k + 1))
done
bash "$here/gpu-tune-seeds.sh" "$out/runs" "$trials" "" >"$out/table.md" 2>&1 || true
tar czf "$out/runs.tgz" -C "$out" runs && rm -rf "$out/runs"
cat "$out/table.md"
