#!/usr/bin/env bash
# Session 16, run 3: the register-B TMA tf32 GEMM (no pre-pass) — memcheck at 512³, beside the
# pre-pass form in the same run at 4096/2048, and its GEMM kernel's time at 4096³ (ncu).
B=.device-bundle-tf32/run.sh
O=${OUT:-/tmp/out}; mkdir -p "$O"
T0=$SECONDS; stamp() { echo "[$((SECONDS - T0)) s] $*" >> "$O/steps.txt"; }
stamp memcheck
timeout 30 compute-sanitizer --target-processes all --kernel-name kns=wgmma_tma_tf32_rb --tool memcheck $B bench-tc --kernels wgmma_tma_tf32_rb --sizes 512 > "$O/sanitizer.txt" 2>&1; echo "memcheck rc=$?" >> "$O/sanitizer.txt"
stamp bench
timeout 60 $B bench-tc --kernels wgmma_tma_tf32_rg,wgmma_tma_tf32_rb,wgmma_tma_tf32_rbg --sizes 4096,2048 --out "$O/tc-tf32-run3.json" > "$O/run3.txt" 2>&1; echo "bench rc=$?" >> "$O/run3.txt"
stamp ncu
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
timeout 20 $NCU --target-processes all --clock-control none --metrics gpu__time_duration.sum,sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_elapsed --csv -k regex:wgmma_tma_tf32_rbg -c 2 $B bench-tc --kernels wgmma_tma_tf32_rbg --sizes 4096 > "$O/ncu-rbg.csv" 2> "$O/ncu.err"; echo "ncu rc=$?" >> "$O/ncu.err"
stamp done
tail -n 2 "$O/sanitizer.txt" "$O/ncu.err"; cat "$O/run3.txt" "$O/steps.txt"; grep -E 'gpu__time|pipe_shared' "$O/ncu-rbg.csv" | awk -F'","' '{print $5" "$(NF-2)" = "$NF}'
