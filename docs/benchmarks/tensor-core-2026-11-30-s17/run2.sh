# Session 17 run 2: bench:tc with the baseline also timed under ours' protocol (sustained), SM clocks
# sampled all along; the persistent register-B form; memcheck of its cross-tile ring at 512³.
set -x
D=.device-bundle-hopper; B=$D/run.sh
nvidia-smi > $OUT/smi.txt 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv -lms 100 > $OUT/clocks.csv 2>&1 &
SMI=$!
timeout 50 compute-sanitizer --target-processes all --kernel-name kns=wgmma_tma_tf32_rbp --tool memcheck $B bench-tc --kernels wgmma_tma_tf32_rbp --tma-blocks 3 --sizes 512 > $OUT/run2-memcheck.txt 2>&1
echo "== bench $(date +%T.%N)" >> $OUT/marks.txt
timeout 270 $B bench-tc --kernels wgmma_tma_tf32_rb,wgmma_tma_tf32_rbg,wgmma_tma_tf32_rbp,wgmma_tma,wgmma_tma_p --sizes 4096,2048 --out $OUT/tc-s17-run2.json 2>&1 | while IFS= read -r line; do echo "$(date +%T.%N) $line"; done > $OUT/tc-s17-run2.txt
echo "== ncu $(date +%T.%N)" >> $OUT/marks.txt
timeout 75 ncu --target-processes all --clock-control none --csv --page details --section SpeedOfLight --section LaunchStats --metrics gpu__time_duration.sum -k regex:"wgmma_tma_p_gemm|wgmma_tma_tf32_rbp" -c 2 $B bench-tc --kernels wgmma_tma_tf32_rbp,wgmma_tma_p --sizes 4096 > $OUT/run2-ncu.csv 2>&1
kill $SMI
gzip -9 $OUT/clocks.csv
ls -la $OUT
