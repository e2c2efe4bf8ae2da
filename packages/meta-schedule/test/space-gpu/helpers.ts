/** Test support for the GPU design space: contexts, forced decisions, comparisons with the executor. */
import { type CudaTarget, target } from "@tessera/codegen";
import { type PrimFunc, compute, createPrimFunc, mul, placeholder, reduceAxis, reduceSum } from "@tessera/ir";
import type { Schedule } from "@tessera/schedule";
import { compareWithReference, formatComparison } from "@tessera/simulator";
import { expect } from "vitest";
import { type CudaSpaceOptions, type ReplayOutcome, type TuneContext, defaultCudaSpaceGenerator, tuneContext, workloadOf } from "../../src/index.js";
import { loweredModuleFor } from "../../src/postproc/verify-gpu-code.js";

export const H100: CudaTarget = target("nvidia/h100");

export function spaceOf(func: PrimFunc, opts: CudaSpaceOptions = {}, t: CudaTarget = H100) {
  const ctx = tuneContext(workloadOf(func), t, { seed: 7 });
  const gen = defaultCudaSpaceGenerator(t, opts);
  gen.initialize(ctx);
  const spaces = gen.generateDesignSpace(ctx);
  return { ctx, gen, spaces };
}

export { withForcedDecisions } from "./forced-decisions.js";

export type Ctx = TuneContext;

/** Whether a design space is MultiLevelTiling's split-k variant (its trace factors the reduction out). */
export function isSplitK(sch: Schedule): boolean {
  return sch.trace.instructions.some((i) => i.kind.name === "RFactor");
}

/** `C[b, i, j] = Σ_k A[b, i, k] · B[b, k, j]` (the operator library has no batched matmul). */
export function batchMatmul(batch: number, n: number, m: number, l: number): PrimFunc {
  const A = placeholder([batch, n, l], "float32", "A");
  const B = placeholder([batch, l, m], "float32", "B");
  const k = reduceAxis([0, l], "k");
  const C = compute([batch, n, m], (b, i, j) => reduceSum(mul(A.at(b, i, k), B.at(b, k, j)), k), "C");
  return createPrimFunc([A, B, C], { name: "batch_matmul" });
}

/**
 * Checks a replayed sample: rejected with a reason, or lowered (VerifyGPUCode keeps the module) and
 * simulated, with the race detector on and the outputs poisoned, equal to the executor on `func`.
 */
export function checkSimulatedOrRejected(out: ReplayOutcome, func: PrimFunc, seed: number): "simulated" | "rejected" {
  if (!out.ok) {
    expect(out.reason.length).toBeGreaterThan(0);
    expect(out.detail.length).toBeGreaterThan(0);
    return "rejected";
  }
  const module = loweredModuleFor(out.sch.func);
  expect(module, "VerifyGPUCode keeps the lowered module").toBeDefined();
  const report = compareWithReference(module!, func, { seed, rtol: 1e-4, atol: 1e-4 });
  expect(report.passed, formatComparison(report)).toBe(true);
  expect(report.simulation.raceCount).toBe(0);
  expect(report.simulation.uninitializedReadCount).toBe(0);
  return "simulated";
}
