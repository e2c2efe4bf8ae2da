# Session 17 run 3: a second machine's sample of the like-for-like ratio at 4096³, and ncu of the
# persistent tf32 and fp16 kernels (cycles against cuBLAS's, run 1).
set -x
D=.device-bundle-hopper; B=$D/run.sh
nvidia-smi > $OUT/smi3.txt 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv -lms 100 > $OUT/clocks3.csv 2>&1 &
SMI=$!
timeout 75 $B bench-tc --kernels wgmma_tma_tf32_rb,wgmma_tma_tf32_rbp,wgmma_tma_p --sizes 4096 --out $OUT/tc-s17-run3.json 2>&1 | while IFS= read -r line; do echo "$(date +%T.%N) $line"; done > $OUT/tc-s17-run3.txt
timeout 55 ncu --target-processes all --clock-control none --csv --page details --section SpeedOfLight --section LaunchStats --section InstructionStats --metrics gpu__time_duration.sum,lts__t_bytes.sum,dram__bytes_read.sum -k regex:"wgmma_tma_rgp_gemm|wgmma_tma_tf32_rbgp_gemm" -c 2 $B bench-tc --kernels wgmma_tma_tf32_rbp,wgmma_tma_p --sizes 4096 > $OUT/run3-ncu.csv 2>&1
kill $SMI
gzip -9 $OUT/clocks3.csv
