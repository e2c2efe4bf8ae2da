#!/usr/bin/env bash
# Session 18 (fp16), call 3 (fresh two-H200 machine): B stored panel-contiguous (four 64×64 TMA boxes a
# 64×256 stage), bundle of the branch with that change. GPU 0 at 2048³, GPU 1 at 4096³: the schedule's
# cp.async and TMA forms at 128×256 and TMA at 128×128 beside the hand-written warp-specialised kernel.
O=${OUT:-/tmp/out}; B=.device-bundle-fp16/run.sh
K="--kernels wgmma,wgmma_tma_p --wgmma-tilings 2x256.s3,2x256.s3.tma,2x128.s3.tma"
(CUDA_VISIBLE_DEVICES=1 timeout 88 $B bench-tc $K --sizes 4096 --out $O/tc-s18-panels-4096.json > $O/tc-s18-panels-4096.txt 2>&1; echo "rc=$?" >> $O/tc-s18-panels-4096.txt) &
CUDA_VISIBLE_DEVICES=0 timeout 88 $B bench-tc $K --sizes 2048 --out $O/tc-s18-panels-2048.json > $O/tc-s18-panels-2048.txt 2>&1; echo "rc=$?" >> $O/tc-s18-panels-2048.txt
wait; grep -hE "PASS|FAIL|rc=" $O/tc-s18-panels-*.txt
