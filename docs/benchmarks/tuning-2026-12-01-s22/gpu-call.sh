#!/usr/bin/env bash
# One device call of session 22: paired 64-trial seeds (paired-seeds.sh), then each arm's table,
# the runs packed into $OUT. Run from the lead's checkout root with the bundle carried:
#   SECONDS_LEFT=270 FIRST_ARM=base bash .device-bundle-quality/gpu-call.sh "600 601 602 603" [TRIALS]
set -u
B=$PWD/.device-bundle-quality
export TESSERA_BUNDLE=$B END_BY=$(( $(date +%s) + ${SECONDS_LEFT:-270} ))
R=/tmp/runs
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > "$OUT/smi.txt"
bash "$B/paired-seeds.sh" "$R" "$1" "${2:-64}" "${FIRST_ARM:-base}"
for arm in base polish; do
  [ -d "$R/$arm" ] && bash "$B/gpu-tune-seeds.sh" "$R/$arm" "${2:-64}" "" > "$OUT/summary-$arm.md" 2>&1
done
tar czf "$OUT/runs.tgz" -C "$R" .
cat "$OUT"/summary-*.md
