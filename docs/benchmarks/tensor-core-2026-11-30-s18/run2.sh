#!/usr/bin/env bash
# Session 18 (fp16), call 2 on the same warm two-H200 machine (kind nvidia-h200-x2), the bundle of call 1:
# GPU 1: 256 trials of matmul_fp16_2048 on a second seed; GPU 0: 256 trials of matmul_fp16_4096.
B=.device-bundle-fp16/run.sh; O=$OUT; T0=$(date +%s)
(CUDA_VISIBLE_DEVICES=1 timeout 250 $B bench-tune --only matmul_fp16_2048 --trials 256 --per-iter 32 --no-course --seeds 2 --workers 15 --overlap --out-dir $O/tune --stem s18-fp16-2048-256-seed2 > $O/tune-2048-seed2.log 2>&1; echo "rc=$? at $(( $(date +%s) - T0 )) s" >> $O/tune-2048-seed2.log) &
CUDA_VISIBLE_DEVICES=0 timeout 260 $B bench-tune --only matmul_fp16_4096 --trials 256 --per-iter 32 --no-course --seeds 1 --workers 15 --overlap --out-dir $O/tune --stem s18-fp16-4096-256 > $O/tune-4096-256.log 2>&1; echo "rc=$? at $(( $(date +%s) - T0 )) s" >> $O/tune-4096-256.log
wait; cd $O && gzip -f *.log && tar czf tune2.tgz tune && rm -rf tune; zcat *.log.gz | grep -E "rc=|best"
