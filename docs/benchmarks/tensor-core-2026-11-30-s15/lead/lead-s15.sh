#!/usr/bin/env bash
# Lead, session 15: the merged tree (s15-x3 + s15-tma) on one H200.
B=.device-bundle/run.sh
O=${OUT:-/tmp/out}; mkdir -p "$O"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$O/smi.txt" 2>&1
timeout 200 $B bench-tc --kernels wgmma,wgmma_tma,wgmma_tma_p,wgmma_tma_w,wgmma_tma_wp --sizes 2048,4096 --out "$O/tc-s15-lead-fp16.json" > "$O/fp16.txt" 2>&1; echo "fp16 rc=$?" >> "$O/fp16.txt"
timeout 120 $B bench-tc --kernels wgmma_tf32x3_relu_add --sizes 2048,4096,2048,2048 --out "$O/tc-s15-lead-x3.json" > "$O/x3.txt" 2>&1; echo "x3 rc=$?" >> "$O/x3.txt"
timeout 70 compute-sanitizer --target-processes all --kernel-name kns=wgmma_tma --tool memcheck $B bench-tc --kernels wgmma_tma_p,wgmma_tma_wp --tma-blocks 3 --sizes 512 > "$O/checks.txt" 2>&1; echo "memcheck rc=$?" >> "$O/checks.txt"
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
timeout 80 $NCU --target-processes all --csv --page details --section SpeedOfLight --section WarpStateStats --section Occupancy -k regex:wgmma_tma -c 1 $B bench-tc --kernels wgmma_tma_wp --sizes 4096 > "$O/ncu-wp-4096.csv" 2>> "$O/checks.txt"; echo "ncu rc=$?" >> "$O/checks.txt"
tail -n 3 "$O/checks.txt"; cat "$O/fp16.txt" "$O/x3.txt"
