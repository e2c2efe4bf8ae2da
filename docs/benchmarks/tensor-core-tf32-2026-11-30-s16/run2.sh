#!/usr/bin/env bash
# Session 16, run 2: ring depth (2, 3, 4 slots of 48 KiB) of the best forms of run 1 at 4096/2048, and one
# ncu report (clocks not locked) of the GEMM kernel of wgmma_tma_tf32_rg at 4096³.
B=.device-bundle-tf32/run.sh
O=${OUT:-/tmp/out}; mkdir -p "$O"
T0=$SECONDS; stamp() { echo "[$((SECONDS - T0)) s] $*" >> "$O/steps.txt"; }
stamp bench
timeout 200 $B bench-tc --kernels wgmma_tma_tf32_rg,wgmma_tma_tf32_p --ws-stages 2,3,4 --sizes 4096,2048 --out "$O/tc-tf32-run2.json" > "$O/run2.txt" 2>&1; echo "bench rc=$?" >> "$O/run2.txt"
stamp ncu
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
timeout 120 $NCU --target-processes all --clock-control none --csv --page details --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats --section LaunchStats -k regex:wgmma_tma_tf32_rg_gemm_kernel_1 -c 1 $B bench-tc --kernels wgmma_tma_tf32_rg --sizes 4096 > "$O/ncu-4096-rg.csv" 2> "$O/ncu.err"; echo "ncu rc=$?" >> "$O/ncu.err"
stamp done
tail -n 2 "$O/ncu.err"; cat "$O/run2.txt" "$O/steps.txt"
grep -E '"(Duration|SM Frequency|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|L2 Hit Rate|L1/TEX Hit Rate|Achieved Occupancy|Registers Per Thread|Executed Ipc Active|Issue Slots Busy|Warp Cycles Per Issued Instruction|Max Bandwidth|L2 Cache Throughput|Stall [^"]*)"' "$O/ncu-4096-rg.csv" | awk -F'","' '{print $(NF-2)" = "$NF" "$(NF-1)}' | head -40
