/**
 * MutateGemmKnob: resamples one GEMM knob beyond TVM's, or moves the software pipeline together with the
 * fetch path (docs/architecture/meta-schedule-notes.md).
 */
import type { Instruction, RandomEngine, Trace } from "@tessera/schedule";
import {
  FETCH_THREAD_INNER,
  FETCH_VIA_REGISTERS,
  LAUNCH_BOUNDS,
  OPERAND_SLICES,
  SHARED_TRANSPOSE,
  SOFTWARE_PIPELINE,
  SOFTWARE_PIPELINE_TMA,
  SPLIT_K,
  UNROLL_EXPLICIT_FLAG,
} from "../schedule-utils/annotations.js";
import type { TuneContext } from "../tune-context.js";
import type { Mutator } from "../interfaces/mutator.js";
import { mutateCategorical } from "./mutate-tile-size.js";
import { categoricalsFeeding } from "./sampled-annotations.js";

/** The annotation keys whose sampled values this mutator moves (every extra knob of the rules). */
export const GEMM_KNOB_KEYS: ReadonlySet<string> = new Set([
  FETCH_VIA_REGISTERS,
  FETCH_THREAD_INNER,
  SHARED_TRANSPOSE,
  OPERAND_SLICES,
  SOFTWARE_PIPELINE,
  SOFTWARE_PIPELINE_TMA,
  LAUNCH_BOUNDS,
  UNROLL_EXPLICIT_FLAG,
  SPLIT_K,
]);

export class MutateGemmKnob implements Mutator {
  readonly name = "mutateGemmKnob";

  apply(trace: Trace, rng: RandomEngine, _ctx: TuneContext): Trace | undefined {
    const knobs = categoricalsFeeding(trace, GEMM_KNOB_KEYS);
    if (knobs.length === 0) return undefined;
    if (rng.int(0, 2) === 0) {
      const joint = movePipelineWithFetch(trace, rng);
      if (joint !== undefined) return joint;
    }
    return mutateCategorical(trace, knobs[rng.int(0, knobs.length)]!, rng);
  }
}

/**
 * The fetch path and the software pipeline moved as one: the pipeline on with every fetch staged
 * through registers (the register-prefetch pipeline), or the pipeline off with every fetch direct.
 * A trace in one of these two states goes to the other; a trace in neither (one operand staged, or
 * the pipeline with direct fetches) goes to one of them at random, `rng` deciding. Undefined when
 * the trace has no binary pipeline knob or no fetch knob.
 */
export function movePipelineWithFetch(trace: Trace, rng: RandomEngine): Trace | undefined {
  const pipelines = categoricalsFeeding(trace, new Set([SOFTWARE_PIPELINE])).filter(isBinary);
  const fetches = categoricalsFeeding(trace, new Set([FETCH_VIA_REGISTERS])).filter(isBinary);
  if (pipelines.length === 0 || fetches.length === 0) return undefined;
  const knobs = [...pipelines, ...fetches];
  const first = binaryValue(trace, knobs[0]!);
  const whole = knobs.every((inst) => binaryValue(trace, inst) === first) ? first : undefined;
  const next = whole === 1 ? 0 : whole === 0 ? 1 : rng.int(0, 2);
  let out: Trace = trace;
  for (const inst of knobs) out = out.withDecision(inst, candidatesOf(inst).indexOf(next), { removePostproc: true });
  return out;
}

function candidatesOf(inst: Instruction): number[] {
  const c = inst.attrs[0];
  return Array.isArray(c) ? c.map(Number) : [];
}

function isBinary(inst: Instruction): boolean {
  const c = candidatesOf(inst);
  return c.length === 2 && c.includes(0) && c.includes(1);
}

function binaryValue(trace: Trace, inst: Instruction): number | undefined {
  const d = trace.getDecision(inst);
  return typeof d === "number" ? candidatesOf(inst)[d] : undefined;
}
