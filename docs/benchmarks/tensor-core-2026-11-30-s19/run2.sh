#!/usr/bin/env bash
# Session 19 (fp16), call 2 on two H200s (kind nvidia-h200-x2), the same bundle as run1.sh.
# GPU 0: 256 trials of matmul_fp16_out_2048 with seed 2 (run 1: seed 1). GPU 1: 64 trials of
# matmul_fp16_out_4096 (run 1's GPU 0 had no time left for it).
O=${OUT:-/tmp/out}; mkdir -p "$O"; B=.device-bundle-fp16/run.sh; T0=$(date +%s); END_BY=$(( T0 + 285 ))
nvidia-smi --query-gpu=index,name,clocks.max.sm,power.limit,driver_version --format=csv > "$O/smi.txt" 2>&1
ARGS="--per-iter 32 --no-course --workers 15 --overlap --out-dir $O/tune"
( export CUDA_VISIBLE_DEVICES=1
  timeout $(( END_BY - $(date +%s) )) $B bench-tune --only matmul_fp16_out_4096 --trials 64 --seeds 1 $ARGS --stem s19-fp16out-4096-64 > "$O/tune-out-4096.log" 2>&1; echo "rc=$?" >> "$O/tune-out-4096.log"
  echo "gpu1 done at $(( $(date +%s) - T0 )) s" ) > "$O/gpu1.log" 2>&1 &
( export CUDA_VISIBLE_DEVICES=0
  timeout $(( END_BY - $(date +%s) )) $B bench-tune --only matmul_fp16_out_2048 --trials 256 --seeds 2 $ARGS --stem s19-fp16out-2048-256-seed2 > "$O/tune-out-2048-seed2.log" 2>&1; echo "rc=$?" >> "$O/tune-out-2048-seed2.log"
  echo "gpu0 done at $(( $(date +%s) - T0 )) s" )
wait
cd "$O" && gzip -f tune-*.log && tar czf tune.tgz tune && rm -rf tune
echo "total $(( $(date +%s) - T0 )) s"; cat gpu1.log
for f in tune-*.log.gz; do echo "== $f"; zcat "$f" | grep -E "best|HGEMM|torch|rc=|sustained" | tail -6; done
