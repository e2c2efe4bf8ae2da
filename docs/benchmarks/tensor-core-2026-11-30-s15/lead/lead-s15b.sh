#!/usr/bin/env bash
# Lead, session 15, call 2: the TMA kernel's persistent and 128-row forms at 4096³ (call 1 ran out of its window before them).
B=.device-bundle/run.sh
O=${OUT:-/tmp/out}; mkdir -p "$O"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$O/smi.txt" 2>&1
timeout 225 $B bench-tc --kernels wgmma_tma,wgmma_tma_p,wgmma_tma_w,wgmma_tma_wp --sizes 4096 --out "$O/tc-s15-lead-fp16-4096.json" > "$O/fp16-4096.txt" 2>&1; echo "rc=$?" >> "$O/fp16-4096.txt"
cat "$O/fp16-4096.txt"
