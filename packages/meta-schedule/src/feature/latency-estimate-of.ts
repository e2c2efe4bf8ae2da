/**
 * The analytic latency estimate of a candidate, computed once: the analytic cost model (the
 * hybrid model's prior) and the kernel-summary features read the same estimate of the same
 * lowered module, so it is kept per module, and a module lowered here (a candidate VerifyGPUCode
 * did not lower) per scheduled function. A candidate replayed in a search worker carries the
 * worker's estimate (`MeasureCandidate.estimate`).
 */
import { type LoweredModule, LoweringError, type CudaTarget, lower } from "@tessera/codegen";
import type { PrimFunc } from "@tessera/ir";
import { loweredModuleFor } from "../postproc/verify-gpu-code.js";
import { type LatencyEstimate, estimateLatency } from "../latency-model/latency-model.js";
import type { MeasureCandidate } from "../interfaces/candidate.js";
import type { TuneContext } from "../tune-context.js";

/** Modules lowered here, per function and target; null for a function that does not lower for that target. */
const LOWERED_HERE = new WeakMap<PrimFunc, Map<CudaTarget, LoweredModule | null>>();
const ESTIMATES = new WeakMap<LoweredModule, LatencyEstimate>();

/** The candidate's lowered module: VerifyGPUCode's, else lowered for the context's target; undefined off a GPU target or when it does not lower. */
export function loweredModuleOfCandidate(candidate: MeasureCandidate, ctx: TuneContext): LoweredModule | undefined {
  if (ctx.target.kind !== "cuda") return undefined;
  const func = candidate.sch.func;
  const target = ctx.target;
  const verified = loweredModuleFor(func);
  if (verified !== undefined && verified.target === target) return verified;
  let byTarget = LOWERED_HERE.get(func);
  if (byTarget === undefined) LOWERED_HERE.set(func, (byTarget = new Map()));
  let module = byTarget.get(target);
  if (module === undefined) {
    try {
      module = lower(func, target);
    } catch (err) {
      if (!(err instanceof LoweringError)) throw err;
      module = null;
    }
    byTarget.set(target, module);
  }
  return module ?? undefined;
}

/** The analytic model's estimate of the candidate on the context's GPU (latency-model.ts); undefined when there is none. */
export function latencyEstimateOf(candidate: MeasureCandidate, ctx: TuneContext): LatencyEstimate | undefined {
  if (candidate.estimate !== undefined && ctx.target.kind === "cuda") return candidate.estimate;
  const module = loweredModuleOfCandidate(candidate, ctx);
  if (module === undefined || ctx.target.kind !== "cuda") return undefined;
  return estimateOfModule(module);
}

/** The analytic estimate of `module` on its own target, computed once per module (VerifyGPUCode gives structurally equal programs one module). */
export function estimateOfModule(module: LoweredModule): LatencyEstimate {
  let estimate = ESTIMATES.get(module);
  if (estimate === undefined) {
    estimate = estimateLatency(module, module.target);
    ESTIMATES.set(module, estimate);
  }
  return estimate;
}
