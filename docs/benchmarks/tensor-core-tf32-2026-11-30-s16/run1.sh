#!/usr/bin/env bash
# Session 16, run 1: the TMA tf32 GEMM — memcheck at 512³, every form at 2048/4096 beside the cp.async
# tf32 kernel and cuBLAS TF32, and the pre-pass / GEMM split at 4096³ (ncu, kernel times only).
B=.device-bundle-tf32/run.sh
O=${OUT:-/tmp/out}; mkdir -p "$O"
T0=$SECONDS; stamp() { echo "[$((SECONDS - T0)) s] $*" >> "$O/steps.txt"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$O/smi.txt" 2>&1
stamp memcheck
timeout 80 compute-sanitizer --target-processes all --kernel-name kns=wgmma_tma_tf32 --tool memcheck $B bench-tc --kernels wgmma_tma_tf32,wgmma_tma_tf32_wp --tma-blocks 3 --sizes 512 > "$O/sanitizer.txt" 2>&1; echo "memcheck rc=$?" >> "$O/sanitizer.txt"
stamp bench
timeout 230 $B bench-tc --kernels wgmma_tf32,wgmma_tma_tf32,wgmma_tma_tf32_r,wgmma_tma_tf32_rg,wgmma_tma_tf32_p,wgmma_tma_tf32_w,wgmma_tma_tf32_wp --sizes 2048,4096 --out "$O/tc-tf32-run1.json" > "$O/run1.txt" 2>&1; echo "bench rc=$?" >> "$O/run1.txt"
stamp ncu
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
timeout 60 $NCU --target-processes all --clock-control none --metrics gpu__time_duration.sum --csv -k regex:wgmma_tma_tf32 -c 4 $B bench-tc --kernels wgmma_tma_tf32_p --sizes 4096 > "$O/ncu-split.csv" 2> "$O/ncu.err"; echo "ncu rc=$?" >> "$O/ncu.err"
stamp done
tail -n 3 "$O/sanitizer.txt" "$O/ncu.err"; cat "$O/run1.txt" "$O/steps.txt"; grep -o '"wgmma_tma_tf32[^"]*","[^"]*","[^"]*","[0-9.]*"' "$O/ncu-split.csv" | head; grep gpu__time "$O/ncu-split.csv" | cut -c1-400 | head -8
