#!/usr/bin/env bash
# Session 24, call 3: main's final search (the barrier stall of a block alone on its SM in the
# latency model, 100 cycles a barrier; four first-round islands evolving concurrently) from a bundle
# of the committed code (no experiment switches): 64-trial gemm+ReLU+add 2048³ on seeds nobody had
# tuned, then issue 33's other workloads at 64 trials (each vendor baseline timed in the run), then
# one 256-trial seed, as long as the call's time lasts.
#   OUT=… RUN_SECONDS=540 bash run-call3.sh
set -u
O="$OUT"; mkdir -p "$O/runs"
start=$(date +%s); end=$(( start + ${RUN_SECONDS:-540} ))
export BENCH_TUNE_ARGS="--workers 15 --overlap"
END_BY=$(( start + 250 )) STEM_SUFFIX=s24-final bash packages/meta-schedule/bench/gpu-tune-seeds.sh "$O/runs" 64 "1214 1215 1216 1217 1218 1219" > /dev/null 2>&1
left=$(( end - $(date +%s) - 95 ))
[ "$left" -gt 60 ] && timeout "$left" .device-bundle/run.sh bench-tune --only matmul_1024,matmul_4096,batch_matmul_16x512,matmul_1000,matmul_4096x1024x4096,conv2d_nchw_b1,conv2d_nchw_b32 \
  --trials 64 --per-iter 32 --no-course --seeds 1 --workers 15 --overlap --out-dir "$O/workloads" --stem s24-final-workloads > "$O/workloads.log" 2>&1
echo "workloads exit $?" >> "$O/workloads.log"
END_BY=$end STEM_SUFFIX=s24-final bash packages/meta-schedule/bench/gpu-tune-seeds.sh "$O/runs" 256 "1220" > /dev/null 2>&1
bash packages/meta-schedule/bench/gpu-tune-seeds.sh "$O/runs" 64 "" > "$O/table.md" 2>&1 || true
tar czf "$O/runs.tgz" -C "$O" runs workloads workloads.log 2>/dev/null; rm -rf "$O/runs" "$O/workloads"
cat "$O/table.md"; grep -E "^\| (matmul|batch|conv)" "$O/workloads.log" | head -20; tail -3 "$O/workloads.log"
