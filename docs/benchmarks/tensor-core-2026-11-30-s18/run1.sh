#!/usr/bin/env bash
# Session 18 (fp16), one call on two H200s (kind nvidia-h200-x2), bundle of branch s18-fp16 carried
# as .device-bundle-fp16. GPU 0: 256 trials of matmul_fp16_2048. GPU 1: 64 trials of matmul_fp16_4096
# (256 do not fit this helper's device share: ~1 s a measured candidate at 4096³ before the builds),
# then bench-tc of the hand kernels at 2048³ with what is left. Each search's report gives the best's
# ratio to cuBLAS HGEMM timed three ways (bench:tune's median, burst, timeEvaluator-sustained).
O=${OUT:-/tmp/out}; mkdir -p "$O"; B=.device-bundle-fp16/run.sh; T0=$(date +%s); END_BY=$(( T0 + 285 ))
nvidia-smi --query-gpu=index,name,clocks.max.sm,power.limit,driver_version --format=csv > "$O/smi.txt" 2>&1
(
  export CUDA_VISIBLE_DEVICES=1
  timeout 200 $B bench-tune --only matmul_fp16_4096 --trials 64 --per-iter 32 --no-course --seeds 1 --workers 15 --overlap --out-dir "$O/tune" --stem s18-fp16-4096-64 > "$O/tune-4096.log" 2>&1; echo "tune 4096 rc=$?" >> "$O/tune-4096.log"
  LEFT=$(( END_BY - $(date +%s) ))
  if [ "$LEFT" -gt 40 ]; then
    timeout "$LEFT" $B bench-tc --kernels wgmma_tma_p,wgmma --sizes 2048 --out "$O/tune/tc-s18.json" > "$O/tc-s18.txt" 2>&1; echo "tc rc=$?" >> "$O/tc-s18.txt"
  fi
  echo "gpu1 done at $(( $(date +%s) - T0 )) s"
) > "$O/gpu1.log" 2>&1 &
( export CUDA_VISIBLE_DEVICES=0
  timeout $(( END_BY - $(date +%s) )) $B bench-tune --only matmul_fp16_2048 --trials 256 --per-iter 32 --no-course --seeds 1 --workers 15 --overlap --out-dir "$O/tune" --stem s18-fp16-2048-256 > "$O/tune-2048.log" 2>&1; echo "tune 2048 rc=$?" >> "$O/tune-2048.log"
  echo "gpu0 done at $(( $(date +%s) - T0 )) s" )
wait
cd "$O" && gzip -f tune-2048.log tune-4096.log && tar czf tune.tgz tune && rm -rf tune
echo "total $(( $(date +%s) - T0 )) s"; cat gpu1.log; grep -h "best\|torch" tc-s18.txt 2>/dev/null | tail -6; zcat tune-2048.log.gz | grep -E "best|rc=" | tail -3; zcat tune-4096.log.gz | grep -E "best|rc=" | tail -3
