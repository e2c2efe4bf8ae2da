#!/usr/bin/env bash
# Session 19 (fp16), call 3 (one H200 of the two): the design spaces' programs of the fp16 GEMMs at
# 256³ (float32 C and float16 C) built and run on the GPU, each output checked against the CPU
# executor — the CUDA C of the float32→float16 store, which the simulator does not run.
O=${OUT:-/tmp/out}; mkdir -p "$O"
CUDA_VISIBLE_DEVICES=0 timeout 150 .device-bundle-fp16/run.sh ms-gpu-space-check --samples 4 2>&1 | tee "$O/space-check.txt"
echo "rc=${PIPESTATUS[0]}" | tee -a "$O/space-check.txt"
