/**
 * Per-store feature extraction time per candidate: the corpus's 2048³ gemm+ReLU+add schedules
 * (naive, manual, fast) and samples of the course-style space, with the row count of each and,
 * with `--show`, the fast schedule's rows by name.
 *   pnpm exec tsx --conditions=@tessera/source packages/meta-schedule/bench/features.bench.ts [--show]
 */
import { fastSchedule, manualSchedule, naiveSchedule } from "@tessera/corpus";
import type { PrimFunc } from "@tessera/ir";
import { describeFeatureRow } from "../src/feature/feature-names.js";
import { perStoreFeatures } from "../src/feature/per-store-feature.js";
import { sampleGemmSchedule } from "../test/cost-model/gemm-space.js";

const N = 2048;

function msPerCall(funcs: readonly PrimFunc[], reps: number): number {
  for (let r = 0; r < 5; r++) for (const f of funcs) perStoreFeatures(f);
  const times: number[] = [];
  for (let r = 0; r < reps; r++) {
    const t = performance.now();
    for (const f of funcs) perStoreFeatures(f);
    times.push((performance.now() - t) / funcs.length);
  }
  times.sort((a, b) => a - b);
  return times[times.length >> 1]!;
}

for (const [name, sch] of [
  ["naive", naiveSchedule(N)],
  ["manual", manualSchedule(N)],
  ["fast", fastSchedule(N)],
] as const) {
  const func = sch.func;
  console.log(
    `${name.padEnd(7)} ${String(perStoreFeatures(func).length).padStart(2)} rows  ${msPerCall([func], 200).toFixed(3)} ms per candidate (median of 200)`,
  );
  if (name === "fast" && process.argv.includes("--show")) perStoreFeatures(func).forEach((row, k) => console.log(`--- row ${k}\n${describeFeatureRow(row)}`));
}
const sampled = Array.from({ length: 200 }, (_, k) => sampleGemmSchedule(N, k + 1).sch.func);
console.log(`sampled ${sampled.length} course-space candidates: ${msPerCall(sampled, 10).toFixed(3)} ms per candidate (median of 10 passes)`);
