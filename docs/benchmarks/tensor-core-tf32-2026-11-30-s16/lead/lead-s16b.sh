#!/usr/bin/env bash
# Lead, session 16, call 2: the addon rebuilt from the merged native sources (bundle:gpu now brings it up to date).
B=.device-bundle/run.sh
O=${OUT:-/tmp/out}; mkdir -p "$O"
timeout 60 $B gpu-selftest > "$O/selftest.txt" 2>&1; echo "selftest rc=$?" >> "$O/selftest.txt"
timeout 60 $B bench-tc --kernels wgmma --wgmma-tilings 1x64.s3.tma,1x64.s3 --sizes 2048 --out "$O/tc-s16-lead-fp16b.json" > "$O/fp16b.txt" 2>&1; echo "fp16 rc=$?" >> "$O/fp16b.txt"
timeout 80 $B bench-tc --kernels wgmma_tma_tf32_rb --ws-stages 3 --sizes 2048,4096 --out "$O/tc-s16-lead-tf32b.json" > "$O/tf32b.txt" 2>&1; echo "tf32 rc=$?" >> "$O/tf32b.txt"
grep -E "PASS|FAIL|passed" "$O/selftest.txt"; cat "$O/fp16b.txt" "$O/tf32b.txt"
