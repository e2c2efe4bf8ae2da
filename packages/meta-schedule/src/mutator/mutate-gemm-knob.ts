/**
 * Moves one of the GEMM knobs MultiLevelTiling and ParallelizeVectorizeUnroll sample beyond TVM
 * (register-staged fetch, transposed shared layout, operand slices in registers, software
 * pipeline, launch bounds, explicit unrolling): resamples one such SampleCategorical decision to
 * another candidate. TVM's own categoricals (unroll budget, fetch width) have their own mutators.
 */
import type { RandomEngine, Trace } from "@tessera/schedule";
import {
  FETCH_VIA_REGISTERS,
  LAUNCH_BOUNDS,
  OPERAND_SLICES,
  SHARED_TRANSPOSE,
  SOFTWARE_PIPELINE,
  UNROLL_EXPLICIT_FLAG,
} from "../rules/multi-level-tiling/annotations.js";
import type { TuneContext } from "../tune-context.js";
import type { Mutator } from "./mutator.js";
import { mutateCategorical } from "./mutate-tile-size.js";
import { categoricalsFeeding } from "./sampled-annotations.js";

export const GEMM_KNOB_KEYS: ReadonlySet<string> = new Set([
  FETCH_VIA_REGISTERS,
  SHARED_TRANSPOSE,
  OPERAND_SLICES,
  SOFTWARE_PIPELINE,
  LAUNCH_BOUNDS,
  UNROLL_EXPLICIT_FLAG,
]);

export class MutateGemmKnob implements Mutator {
  readonly name = "mutateGemmKnob";

  apply(trace: Trace, rng: RandomEngine, _ctx: TuneContext): Trace | undefined {
    const knobs = categoricalsFeeding(trace, GEMM_KNOB_KEYS);
    if (knobs.length === 0) return undefined;
    return mutateCategorical(trace, knobs[rng.int(0, knobs.length)]!, rng);
  }
}
