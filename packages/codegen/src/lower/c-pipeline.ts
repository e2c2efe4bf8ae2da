/**
 * The C lowering pipeline: the target-independent passes (lowerInitBlock through flattenBuffer,
 * simplify, unrollLoop) turn a scheduled function into flat, block-free TensorIR with the loop
 * kinds kept (parallel, vectorized, unrolled), which the C generator prints as OpenMP,
 * `#pragma omp simd` and `#pragma GCC unroll`. There is no host/device split: the whole function
 * is one C function running on the host.
 */
import type { PrimFunc } from "@tessera/ir";
import type { CLoweredFunc } from "../lowered.js";
import type { CTarget } from "../targets/c.js";
import { checkCSchedule } from "./c-schedule-check.js";
import type { LowerOptions } from "./lower-options.js";
import type { Pass } from "./pass.js";
import { PASSES_FRONT, simplifyPass } from "./passes/index.js";
import { functionSymbol } from "./passes/split-host-device.js";
import { cUnrollLoopPass } from "./passes/unroll-loop.js";
import { runPasses } from "./run-passes.js";

/** The passes for a C target, in order: none of them is GPU-only; unrollLoop caps the auto-unroll budget (`C_AUTO_UNROLL_MAX_STEP`). */
export const C_LOWERING_PASSES: readonly Pass[] = [...PASSES_FRONT, simplifyPass, cUnrollLoopPass, simplifyPass];

export function lowerForC(source: PrimFunc, target: CTarget, opts: LowerOptions): CLoweredFunc {
  const name = functionSymbol(source);
  checkCSchedule(source, name);
  const { func, stages } = runPasses(C_LOWERING_PASSES, source, { target }, opts.recordStages === true);
  return { name, target, source, func, stages };
}
