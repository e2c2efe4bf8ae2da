#!/usr/bin/env bash
# Lead, session 17: the merged tree. GPU 0: selftest, bench-tc (tf32 register-B plain/persistent, fp16 TMA persistent;
# both baseline timings), then ncu of the persistent forms. GPU 1: 256 trials on an unseen seed (search share).
O=${OUT:-/tmp/out}; mkdir -p "$O"; B=.device-bundle/run.sh; T0=$(date +%s)
(
  export CUDA_VISIBLE_DEVICES=0
  timeout 60 $B gpu-selftest > "$O/selftest.txt" 2>&1; echo "selftest rc=$?" >> "$O/selftest.txt"
  timeout 200 $B bench-tc --kernels wgmma_tma_tf32_rb,wgmma_tma_tf32_rbp,wgmma_tma_p,wgmma_tma --sizes 2048,4096 --out "$O/tc-s17-lead.json" > "$O/tc-s17-lead.txt" 2>&1; echo "tc rc=$?" >> "$O/tc-s17-lead.txt"
  timeout 110 ncu --target-processes all --clock-control none --csv --page details --section SpeedOfLight --section InstructionStats --metrics gpu__time_duration.sum,lts__t_bytes.sum -k regex:"wgmma_tma_rgp_gemm|wgmma_tma_tf32_rbgp_gemm" -c 2 $B bench-tc --kernels wgmma_tma_tf32_rbp,wgmma_tma_p --sizes 4096 > "$O/ncu-s17-lead.csv" 2>&1; echo "ncu rc=$?" >> "$O/ncu-s17-lead.csv"
  echo "gpu0 done at $(( $(date +%s) - T0 )) s"
) > "$O/gpu0.log" 2>&1 &
END_BY=$(( T0 + 300 )) TESSERA_BUNDLE=$PWD/.device-bundle BENCH_TUNE_ARGS="--workers 15 --overlap" STEM_SUFFIX=s17lead bash .device-bundle/gpu-tune-seeds.sh "$O/tune" 256 "" "140" > "$O/tune.txt" 2>&1
wait
cd "$O" && tar czf tune.tgz tune && rm -rf tune
echo "total $(( $(date +%s) - T0 )) s"; cat "$O/gpu0.log"; grep -E "passed|failed" "$O/selftest.txt" | tail -2; cat "$O/tc-s17-lead.txt" | tail -30; tail -5 "$O/tune.txt"
