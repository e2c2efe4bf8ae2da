/**
 * Cost of the full-size store coverage check of D (moduleStoreCoverage) for the course's 2048³
 * schedules: the corpus manualSchedule and fastSchedule, and the solution's tuned trace.
 * `pnpm exec tsx --conditions=@tessera/source apps/autograder/scripts/store-coverage-cost.ts [N]`
 */
import { lower } from "@tessera/codegen";
import { fastSchedule, manualSchedule } from "@tessera/corpus";
import { Schedule } from "@tessera/schedule";
import { moduleStoreCoverage } from "@tessera/simulator";
import * as solution from "@tessera/assignment-gemm-relu-add/solution";
import { SIMULATED_TARGET } from "../src/grade/simulator-numerics.js";

const n = Number(process.argv[2] ?? 2048);
const tuned = (): Schedule => {
  const sch = new Schedule(solution.workload(n));
  solution.applyTrace(sch);
  return sch;
};
const schedules: [string, () => Schedule][] = [
  ["corpus manualSchedule", () => manualSchedule(n)],
  ["corpus fastSchedule", () => fastSchedule(n)],
  ["solution tuned trace", tuned],
];
for (const [name, make] of schedules) {
  const module = lower(make(), SIMULATED_TARGET);
  const d = module.source.params.findIndex((p) => module.source.bufferMap.get(p)?.name === "D");
  const started = performance.now();
  const result = moduleStoreCoverage(module, d);
  const ms = performance.now() - started;
  if (!result.supported) {
    console.log(`${name}: unsupported (${result.why}), ${ms.toFixed(0)} ms`);
    continue;
  }
  const c = result.coverage;
  const threads = c.grid.reduce((a, b) => a * b, 1) * c.block.reduce((a, b) => a * b, 1);
  console.log(
    `${name}: grid ${c.grid.join("×")}, block ${c.block.join("×")} (${threads} threads): ${c.writtenCount} of ${c.elements} elements written, ${c.overlapCount} overlaps, ${ms.toFixed(0)} ms`,
  );
}
