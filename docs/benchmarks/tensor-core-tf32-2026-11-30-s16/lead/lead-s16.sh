#!/usr/bin/env bash
# Lead, session 16: the merged tree (s16-tf32 + s16-tmasched) on one H200.
B=.device-bundle/run.sh
O=${OUT:-/tmp/out}; mkdir -p "$O"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$O/smi.txt" 2>&1
timeout 60 $B gpu-selftest > "$O/selftest.txt" 2>&1; echo "selftest rc=$?" >> "$O/selftest.txt"
timeout 130 $B bench-tc --kernels wgmma_tma_tf32_rg,wgmma_tma_tf32_rb,wgmma_tma_tf32_rbg --ws-stages 4 --sizes 2048,4096 --out "$O/tc-s16-lead-tf32.json" > "$O/tf32.txt" 2>&1; echo "tf32 rc=$?" >> "$O/tf32.txt"
timeout 50 compute-sanitizer --target-processes all --kernel-name kns=wgmma_tma_tf32_rb --tool memcheck $B bench-tc --kernels wgmma_tma_tf32_rb --sizes 512 > "$O/memcheck.txt" 2>&1; echo "memcheck rc=$?" >> "$O/memcheck.txt"
timeout 80 $B bench-tc --kernels wgmma,wgmma_tma --wgmma-tilings 2x256.s3,2x128.s3.tma,1x64.s3.tma --sizes 2048 --out "$O/tc-s16-lead-fp16.json" > "$O/fp16.txt" 2>&1; echo "fp16 rc=$?" >> "$O/fp16.txt"
tail -n 4 "$O/selftest.txt" "$O/memcheck.txt"; cat "$O/tf32.txt" "$O/fp16.txt"
