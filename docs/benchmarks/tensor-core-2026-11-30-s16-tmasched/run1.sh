#!/usr/bin/env bash
# Session 16 (s16-tmasched), run 1: the wgmma schedule with TMA loads from lowerTmaCopy —
# memcheck at 512³, bench:tc beside the cp.async schedule and the hand TMA kernel (cuBLAS HGEMM in
# the same run), then 64 trials of the search whose wgmma space samples TMA or cp.async.
B=.device-bundle-tmasched/run.sh
O=${OUT:-/tmp/out}; mkdir -p "$O"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$O/smi.txt" 2>&1
timeout 50 compute-sanitizer --target-processes all --kernel-name kns=wmma_gemm --tool memcheck $B bench-tc --kernels wgmma_sched_tma --sizes 512 > "$O/sanitizer.txt" 2>&1; echo "memcheck rc=$?" >> "$O/sanitizer.txt"
timeout 90 $B bench-tc --kernels wgmma,wgmma_sched_tma,wgmma_tma --sizes 2048,4096 --out "$O/tc-s16-tmasched.json" > "$O/tc-s16-tmasched.txt" 2>&1; echo "bench rc=$?" >> "$O/tc-s16-tmasched.txt"
timeout 140 $B bench-tune --only matmul_fp16_2048 --gemm-trials 64 --per-iter 32 --no-course --seeds 1 --workers 15 --overlap --out-dir "$O" --stem s16-tmasched-fp16-2048 > "$O/tune.log" 2>&1; echo "tune rc=$?" >> "$O/tune.log"
tar czf "$O/tune-db.tgz" -C "${TMPDIR:-/tmp}" tessera-bench-tune 2>/dev/null
tail -n 5 "$O/sanitizer.txt"; cat "$O/tc-s16-tmasched.txt"; tail -n 25 "$O/tune.log"
