/**
 * Random valid GPU schedules (random-gpu-schedule.ts), lowered for the T4 and simulated with GPU
 * semantics against the unscheduled function. A schedule may be rejected by the schedule
 * primitives (ScheduleError) or by lowering (LoweringError, GpuVerifyError, e.g. too much shared
 * memory); anything else that goes wrong — another exception, an out-of-bounds access, a barrier
 * in divergent code, a race, an uninitialised shared read, a wrong or unwritten (NaN-poisoned)
 * output — fails the property. At least half of the schedules must lower, so that it is not vacuous.
 *
 * TESSERA_GPU_PROPERTY_RUNS raises the number of schedules, TESSERA_PROPERTY_SEED picks the seed.
 */
import { type LoweredModule, LoweringError, lower } from "@tessera/codegen";
import { ScheduleError } from "@tessera/schedule";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { type ComparisonReport, compareWithReference, formatComparison, formatSimulationReport } from "../src/index.js";
import { type GpuRecipe, applyGpuRecipe, gpuRecipeArb, workloadFunc } from "./random-gpu-schedule.js";

const RUNS = Number(process.env.TESSERA_GPU_PROPERTY_RUNS ?? 300);
const SEED = Number(process.env.TESSERA_PROPERTY_SEED ?? 4);
/** Diagnostics print only with TESSERA_TEST_VERBOSE=1 (README, Testing). */
const VERBOSE = process.env.TESSERA_TEST_VERBOSE === "1";

type Outcome = "simulated" | "ScheduleError" | "LoweringError" | "GpuVerifyError";
const outcomes = new Map<Outcome, number>();
const rejections = new Map<string, number>();
const timing = { lowerMs: 0, simulateMs: 0 };
/** How many simulated schedules exercised each feature (so that a vacuous generator shows). */
const features = new Map<string, number>();

function countFeatures(scheduled: string, module: LoweredModule, report: ComparisonReport): void {
  const seen = {
    predicate: scheduled.includes("T.where"),
    shared: module.kernels.some((k) => k.sharedBytes > 0),
    barrier: report.simulation.kernels.some((k) => k.intervalsPerBlock > 1),
    local: scheduled.includes('scope="local"'),
    vectorized: scheduled.includes("T.vectorized"),
    unrolled: scheduled.includes("T.unroll"),
    unrollPragma: scheduled.includes("pragma_auto_unroll_max_step"),
    launchBounds: module.kernels.some((k) => k.launch.minBlocksPerSM !== undefined),
    multiKernel: module.kernels.length > 1,
    vthread: scheduled.includes('"vthread.'),
    vthreadOverSharedFetch: scheduled.includes('"vthread.') && module.kernels.some((k) => k.sharedBytes > 0),
  };
  for (const [name, yes] of Object.entries(seen)) if (yes) features.set(name, (features.get(name) ?? 0) + 1);
}

function count(outcome: Outcome, reason?: string): void {
  outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
  if (reason !== undefined) rejections.set(reason, (rejections.get(reason) ?? 0) + 1);
}

/** Rejections a valid-looking schedule may legitimately meet; every other exception is a bug. */
function expectedRejection(err: unknown): Outcome | undefined {
  if (err instanceof ScheduleError) return "ScheduleError";
  if (err instanceof LoweringError) return err.name === "GpuVerifyError" ? "GpuVerifyError" : "LoweringError";
  return undefined;
}

function checkRecipe(recipe: GpuRecipe): void {
  let module: LoweredModule;
  let scheduled: string;
  try {
    const sch = applyGpuRecipe(recipe);
    scheduled = sch.script();
    const t0 = performance.now();
    module = lower(sch, "nvidia/tesla-t4");
    timing.lowerMs += performance.now() - t0;
  } catch (err) {
    const outcome = expectedRejection(err);
    if (outcome === undefined) throw err;
    count(outcome, `${outcome}: ${(err instanceof ScheduleError ? err.detail : (err as Error).message).slice(0, 110)}`);
    return;
  }
  const t0 = performance.now();
  // Reduction order differs between schedules: float32 sums of ≤ 64 products of values in [-1, 1].
  const report = compareWithReference(module, workloadFunc(recipe.workload), { seed: 3, rtol: 1e-4, atol: 1e-4 });
  timing.simulateMs += performance.now() - t0;
  if (report.outputs.length === 0 || !report.passed || report.simulation.uninitializedReadCount > 0) {
    throw new Error(
      `simulation differs for ${JSON.stringify(recipe)}\n${formatSimulationReport(report.simulation)}${formatComparison(report)}\n--- scheduled ---\n${scheduled}`,
    );
  }
  count("simulated");
  countFeatures(scheduled, module, report);
}

describe("random GPU schedules lower and simulate like the unscheduled function", () => {
  it(`${RUNS} random schedules (seed ${SEED}) on matmul, gemm+ReLU+add, vector add, an elementwise chain`, () => {
    fc.assert(
      fc.property(gpuRecipeArb, (recipe) => checkRecipe(recipe)),
      { numRuns: RUNS, seed: SEED },
    );
    const total = [...outcomes.values()].reduce((a, b) => a + b, 0);
    expect(outcomes.get("simulated") ?? 0, "at least half of the schedules lower and simulate").toBeGreaterThanOrEqual(total / 2);
  }, 600_000);
});

afterAll(() => {
  if (!VERBOSE) return;
  const summary = [...outcomes].map(([k, v]) => `${k}=${v}`).join(" ");
  const reasons = [...rejections]
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `  ${v}× ${k}`)
    .join("\n");
  console.log(
    `\nrandom GPU schedules: ${summary}; features of the simulated ones: ${[...features].map(([k, v]) => `${k}=${v}`).join(" ")}; lowering ${(timing.lowerMs / 1000).toFixed(1)} s, simulation ${(timing.simulateMs / 1000).toFixed(1)} s\n${reasons}\n`,
  );
});
