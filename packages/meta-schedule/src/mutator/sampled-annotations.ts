/**
 * Which sampling instructions of a trace feed which annotation keys: a SampleCategorical whose
 * output an Annotate uses as its value. The mutators find the decisions they own this way, as
 * TVM's MutateTileSize finds the vector widths of cooperative fetches.
 */
import type { Instruction, Trace } from "@tessera/schedule";
import { instructionsBeforePostproc } from "./trace-queries.js";

/** The annotation key each value of `insts` is annotated under (by the value: an instruction's output). */
export function annotationKeysOf(insts: readonly Instruction[]): Map<unknown, string> {
  const keyOfOutput = new Map<unknown, string>();
  for (const inst of insts) {
    if (inst.kind.name === "Annotate" && typeof inst.attrs[0] === "string") keyOfOutput.set(inst.inputs[1], inst.attrs[0]);
  }
  return keyOfOutput;
}

/** The SampleCategorical instructions (before EnterPostproc) whose value is annotated under one of `keys`. */
export function categoricalsFeeding(trace: Trace, keys: ReadonlySet<string>): Instruction[] {
  const insts = instructionsBeforePostproc(trace);
  const keyOfOutput = annotationKeysOf(insts);
  return insts.filter((inst) => {
    if (inst.kind.name !== "SampleCategorical") return false;
    const key = keyOfOutput.get(inst.outputs[0]);
    return key !== undefined && keys.has(key);
  });
}

/** The SampleCategorical instructions (before EnterPostproc) whose value is a split factor. */
export function categoricalsSplitting(trace: Trace): Instruction[] {
  const insts = instructionsBeforePostproc(trace);
  const factors = new Set<unknown>();
  for (const inst of insts) if (inst.kind.name === "Split") for (const x of inst.inputs.slice(1)) factors.add(x);
  return insts.filter((inst) => inst.kind.name === "SampleCategorical" && factors.has(inst.outputs[0]));
}
