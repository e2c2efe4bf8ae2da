#!/usr/bin/env bash
# Session 15 x3, run 2: the issue's command on the final defaults (2048 three times), the zero fills kept (.zf) beside, memcheck of the scale-d 0 kernel.
set -uo pipefail
B="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export PATH="$PATH:/usr/local/cuda/bin"
O="${OUT:-/tmp/x3out}"; mkdir -p "$O"
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv > "$O/run2-gpu.txt" 2>&1
"$B/run.sh" bench-tc --kernels wgmma_tf32x3_relu_add,wgmma_tf32 --sizes 2048,4096,2048,2048 --out "$O/run2-tc-default.json" > "$O/run2-log.txt" 2>&1
echo "rc=$?" >> "$O/run2-log.txt"
"$B/run.sh" bench-tc --kernels wgmma_tf32x3_relu_add --wgmma-tilings 2x128.s3.zf --sizes 2048,4096,2048 --out "$O/run2-tc-zero-fills.json" >> "$O/run2-log.txt" 2>&1
echo "rc=$?" >> "$O/run2-log.txt"
node="${TMPDIR:-/tmp}/tessera-node-$(cat "$B/node.version")"
timeout 60 compute-sanitizer --tool memcheck "$node" "$B/bench-tc.mjs" --kernels wgmma_tf32x3_relu_add --sizes 256 > "$O/run2-memcheck-256.txt" 2>&1
echo "rc=$?" >> "$O/run2-memcheck-256.txt"
gzip -f "$O"/*.json
