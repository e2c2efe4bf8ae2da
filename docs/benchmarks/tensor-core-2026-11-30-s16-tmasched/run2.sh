#!/usr/bin/env bash
# Session 16 (s16-tmasched), run 2: the launch fix (dynamic + static shared memory over 48 KiB) on
# the search's failing configuration (one warpgroup of 64×64, 3 stages, TMA: `wgmma@1x64.s3.tma`),
# and the TMA schedule with WGMMA_PARAMS at 4096³ (run 1's bench stopped before it); cuBLAS HGEMM in the same run.
B=.device-bundle-tmasched/run.sh
O=${OUT:-/tmp/out}; mkdir -p "$O"
timeout 36 $B bench-tc --kernels wgmma,wgmma_sched_tma --wgmma-tilings 1x64.s3.tma --sizes 4096 --out "$O/tc-run2.json" > "$O/tc-run2.txt" 2>&1; echo "bench rc=$?" >> "$O/tc-run2.txt"
cat "$O/tc-run2.txt"
