#!/usr/bin/env bash
# Session 15, run 1: TMA wgmma kernels — sanitizers at 256³, the bench at 2048/4096, one ncu pass.
B=.device-bundle-tma/run.sh
O=${OUT:-/tmp/out}; mkdir -p "$O"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$O/smi.txt" 2>&1
timeout 100 compute-sanitizer --target-processes all --kernel-name kns=wgmma_tma --tool memcheck $B bench-tc --kernels wgmma_tma,wgmma_tma_rg --sizes 256 > "$O/sanitizer.txt" 2>&1; echo "memcheck rc=$?" >> "$O/sanitizer.txt"
timeout 100 compute-sanitizer --target-processes all --kernel-name kns=wgmma_tma --tool synccheck $B bench-tc --kernels wgmma_tma_rg --sizes 256 >> "$O/sanitizer.txt" 2>&1; echo "synccheck rc=$?" >> "$O/sanitizer.txt"
timeout 260 $B bench-tc --kernels wgmma,wgmma_ws,wgmma_tma,wgmma_tma_r,wgmma_tma_rg --sizes 2048,4096 --out "$O/tc-s15.json" > "$O/tc-s15.txt" 2>&1; echo "bench rc=$?" >> "$O/tc-s15.txt"
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
timeout 150 $NCU --target-processes all --csv --page details --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section MemoryWorkloadAnalysis -k regex:"wmma_gemm|wgmma_tma_rg" -c 2 $B bench-tc --kernels wgmma,wgmma_tma_rg --sizes 4096 > "$O/ncu-4096.csv" 2> "$O/ncu.err"; echo "ncu rc=$?" >> "$O/ncu.err"
tail -n 4 "$O/sanitizer.txt" "$O/ncu.err"; cat "$O/tc-s15.txt"
