/** One lowering pass: a function from PrimFunc to PrimFunc, testable alone. */
import type { PrimFunc } from "@tessera/ir";
import type { CudaTarget } from "../targets/cuda.js";
import type { Target, TargetKind } from "../targets/target.js";
import { LoweringError } from "./errors.js";

export interface PassContext {
  /** The target the pass runs for. */
  readonly target: Target;
}

export interface Pass {
  /** camelCase, as in docs/architecture/lowering.md (`lowerInitBlock`, `flattenBuffer`, …). */
  readonly name: string;
  /** The target kinds the pass is meant for; undefined: every kind. */
  readonly targetKinds?: readonly TargetKind[];
  run(func: PrimFunc, ctx: PassContext): PrimFunc;
}

/** A pass context whose target is a CUDA target. */
export interface CudaPassContext extends PassContext {
  readonly target: CudaTarget;
}

/**
 * A pass that only makes sense for GPU targets (thread bindings, shared memory, PTX): it says so
 * in `targetKinds`, and running it for another kind is a LoweringError naming the pass.
 */
export function cudaPass(name: string, run: (func: PrimFunc, ctx: CudaPassContext) => PrimFunc): Pass {
  return {
    name,
    targetKinds: ["cuda"],
    run: (func, ctx) => run(func, { ...ctx, target: cudaTargetOf(ctx, name) }),
  };
}

/** Whether `pass` is meant for targets of `kind`. */
export function passRunsFor(pass: Pass, kind: TargetKind): boolean {
  return pass.targetKinds === undefined || pass.targetKinds.includes(kind);
}

function cudaTargetOf(ctx: PassContext, pass: string): CudaTarget {
  const t = ctx.target;
  if (t.kind !== "cuda") throw new LoweringError(pass, `runs only for CUDA targets, not for the ${t.kind} target "${t.name}"`);
  return t;
}
