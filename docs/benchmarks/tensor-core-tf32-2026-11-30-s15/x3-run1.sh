#!/usr/bin/env bash
# Session 15 x3, run 1: A's loads per k step (.ak, the new default) against the stage's (.as), tilings, memcheck, ncu.
set -uo pipefail
B="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export PATH="$PATH:/usr/local/cuda/bin"
O="${OUT:-/tmp/x3out}"; mkdir -p "$O"
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv > "$O/run1-gpu.txt" 2>&1
"$B/run.sh" bench-tc --kernels wgmma_tf32x3_relu_add --wgmma-tilings 2x128.s3,2x128.s3.as,2x128.s4,1x128.s3 --sizes 2048,4096,2048,2048 --out "$O/run1-tc-x3-tilings.json" > "$O/run1-log.txt" 2>&1
echo "rc=$?" >> "$O/run1-log.txt"
"$B/run.sh" bench-tc --kernels wgmma_tf32 --wgmma-tilings 2x256.s3.ra,2x256.s3.ra.as --sizes 2048,4096 --out "$O/run1-tc-tf32-ra.json" >> "$O/run1-log.txt" 2>&1
echo "rc=$?" >> "$O/run1-log.txt"
node="${TMPDIR:-/tmp}/tessera-node-$(cat "$B/node.version")"
timeout 120 compute-sanitizer --tool memcheck "$node" "$B/bench-tc.mjs" --kernels wgmma_tf32x3_relu_add,wgmma_tf32 --wgmma-tilings 2x128.s3.ra --sizes 256 > "$O/run1-memcheck-256.txt" 2>&1
echo "rc=$?" >> "$O/run1-memcheck-256.txt"
timeout 90 ncu --clock-control none --kernel-name regex:^main_kernel_ --launch-count 6 --metrics gpu__time_duration.sum --csv "$node" "$B/bench-tc.mjs" --kernels wgmma_tf32x3_relu_add --sizes 2048 > "$O/run1-ncu-2048.csv" 2>&1
echo "rc=$?" >> "$O/run1-ncu-2048.csv"
timeout 90 ncu --clock-control none --kernel-name regex:^main_kernel_1 --launch-count 1 --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section Occupancy "$node" "$B/bench-tc.mjs" --kernels wgmma_tf32x3_relu_add --sizes 2048 > "$O/run1-ncu-sections-2048.txt" 2>&1
echo "rc=$?" >> "$O/run1-ncu-sections-2048.txt"
gzip -f "$O"/*.json
ls -la "$O"
