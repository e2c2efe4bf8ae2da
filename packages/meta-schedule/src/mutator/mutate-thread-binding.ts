/**
 * MutateThreadBinding (TVM's `Mutator::MutateThreadBinding`): re-draws a sampled thread extent —
 * a SampleCategorical whose value is the inner factor of a `split(loop, [None, v])` whose inner
 * loop is bound to `threadIdx.x` (what AutoBind and CrossThreadReduction produce).
 */
import { ExprRV, type Instruction, LoopRV, type Trace } from "@tessera/schedule";
import type { Mutator } from "../interfaces/mutator.js";
import {
  type CategoricalCandidate,
  categoricalCandidate,
  categoricalResampler,
  categoricalSamplesByOutput,
  instructionsBeforePostproc,
} from "./trace-queries.js";

export function mutateThreadBinding(): Mutator {
  return categoricalResampler("mutateThreadBinding", threadBindingCandidates);
}

function threadBindingCandidates(trace: Trace): CategoricalCandidate[] {
  const insts = instructionsBeforePostproc(trace);
  const samples = categoricalSamplesByOutput(insts);
  // Inner loops of `split(loop, [None, v])` with a sampled v, to the sampling instruction.
  const sampledInner = new Map<LoopRV, Instruction>();
  const out: CategoricalCandidate[] = [];
  for (const inst of insts) {
    if (inst.kind.name === "Split" && inst.inputs.length === 3 && inst.inputs[1] === null && inst.inputs[2] instanceof ExprRV) {
      const sample = samples.get(inst.inputs[2]);
      const inner = inst.outputs[1];
      if (sample !== undefined && inner instanceof LoopRV) sampledInner.set(inner, sample);
    } else if (inst.kind.name === "Bind" && inst.attrs[0] === "threadIdx.x" && inst.inputs[0] instanceof LoopRV) {
      const sample = sampledInner.get(inst.inputs[0]);
      const candidate = sample === undefined ? undefined : categoricalCandidate(trace, sample);
      if (candidate !== undefined && !out.some((c) => c.inst === candidate.inst)) out.push(candidate);
    }
  }
  return out;
}
