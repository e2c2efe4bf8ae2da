#!/usr/bin/env bash
# Session 19 (fp16), one call on two H200s (kind nvidia-h200-x2), bundle of branch s19-fp16 carried
# as .device-bundle-fp16. GPU 0: 256 trials of matmul_fp16_out_2048 (fp16 C, like HGEMM), then 64
# of matmul_fp16_out_4096 with what is left. GPU 1: 256 trials of matmul_fp16_2048 (fp32 C; its
# report also times torch.mm(out_dtype=float32), never run on a GPU before). Every ratio is to
# cuBLAS HGEMM timed in the same process (median, burst, timeEvaluator-sustained).
O=${OUT:-/tmp/out}; mkdir -p "$O"; B=.device-bundle-fp16/run.sh; T0=$(date +%s); END_BY=$(( T0 + 280 ))
nvidia-smi --query-gpu=index,name,clocks.max.sm,power.limit,driver_version --format=csv > "$O/smi.txt" 2>&1
ARGS="--per-iter 32 --no-course --workers 15 --overlap --out-dir $O/tune"
(
  export CUDA_VISIBLE_DEVICES=0
  timeout 200 $B bench-tune --only matmul_fp16_out_2048 --trials 256 --seeds 1 $ARGS --stem s19-fp16out-2048-256 > "$O/tune-out-2048.log" 2>&1; echo "rc=$?" >> "$O/tune-out-2048.log"
  LEFT=$(( END_BY - $(date +%s) ))
  if [ "$LEFT" -gt 60 ]; then
    timeout "$LEFT" $B bench-tune --only matmul_fp16_out_4096 --trials 64 --seeds 1 $ARGS --stem s19-fp16out-4096-64 > "$O/tune-out-4096.log" 2>&1; echo "rc=$?" >> "$O/tune-out-4096.log"
  fi
  echo "gpu0 done at $(( $(date +%s) - T0 )) s"
) > "$O/gpu0.log" 2>&1 &
( export CUDA_VISIBLE_DEVICES=1
  timeout $(( END_BY - $(date +%s) )) $B bench-tune --only matmul_fp16_2048 --trials 256 --seeds 3 $ARGS --stem s19-fp16-2048-256 > "$O/tune-2048.log" 2>&1; echo "rc=$?" >> "$O/tune-2048.log"
  echo "gpu1 done at $(( $(date +%s) - T0 )) s" )
wait
cd "$O" && gzip -f tune-*.log && tar czf tune.tgz tune && rm -rf tune
echo "total $(( $(date +%s) - T0 )) s"; cat gpu0.log
for f in tune-*.log.gz; do echo "== $f"; zcat "$f" | grep -E "best|HGEMM|torch|rc=|sustained" | tail -6; done
