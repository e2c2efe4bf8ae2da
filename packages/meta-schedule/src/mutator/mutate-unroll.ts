/**
 * MutateUnroll (TVM's `Mutator::MutateUnroll`): re-draws the sampled maximum unroll step of a
 * block (a SampleCategorical feeding a `meta_schedule.unroll_explicit` / `unroll_implicit`
 * annotation), choosing another candidate in proportion to the probabilities.
 */
import { ExprRV, type Trace } from "@tessera/schedule";
import { UNROLL_EXPLICIT, UNROLL_IMPLICIT } from "../schedule-utils/annotations.js";
import type { Mutator } from "../interfaces/mutator.js";
import {
  type CategoricalCandidate,
  categoricalCandidate,
  categoricalResampler,
  categoricalSamplesByOutput,
  instructionsBeforePostproc,
} from "./trace-queries.js";

const UNROLL_KEYS: ReadonlySet<string> = new Set([UNROLL_EXPLICIT, UNROLL_IMPLICIT]);

export function mutateUnroll(): Mutator {
  return categoricalResampler("mutateUnroll", unrollCandidates);
}

function unrollCandidates(trace: Trace): CategoricalCandidate[] {
  const insts = instructionsBeforePostproc(trace);
  const samples = categoricalSamplesByOutput(insts);
  const out: CategoricalCandidate[] = [];
  for (const inst of insts) {
    if (inst.kind.name !== "Annotate" || !UNROLL_KEYS.has(String(inst.attrs[0]))) continue;
    const value = inst.inputs[1];
    const sample = value instanceof ExprRV ? samples.get(value) : undefined;
    const candidate = sample === undefined ? undefined : categoricalCandidate(trace, sample);
    if (candidate !== undefined) out.push(candidate);
  }
  return out;
}
