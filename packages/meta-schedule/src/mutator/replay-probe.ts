/**
 * Replaying a trace on the workload while looking at the schedule before each instruction (TVM's
 * decision provider of `ApplyToSchedule`): the mutators that need the program as it was when a
 * decision was taken use it.
 */
import { type PrimFunc, TesseraError } from "@tessera/ir";
import { type Instruction, type InstructionInput, type RV, Schedule, type Trace, isRV } from "@tessera/schedule";
import { instructionsBeforePostproc } from "./trace-queries.js";

/**
 * Replays the trace's instructions before postprocessing on a fresh schedule of `func`, calling
 * `visit` before each one with its inputs mapped to the new schedule's handles. Stops quietly at
 * an instruction that fails (the mutated trace would be rejected on replay anyway).
 */
export function replayVisiting(trace: Trace, func: PrimFunc, visit: (sch: Schedule, inst: Instruction, inputs: readonly InstructionInput[]) => void): Schedule {
  const sch = new Schedule(func, { seed: 1 });
  const rvMap = new Map<RV, RV>();
  const translate = (x: InstructionInput): InstructionInput => {
    // Location marks (root, inline) map to themselves.
    if (isRV(x)) return rvMap.get(x) ?? x;
    return Array.isArray(x) ? x.map(translate) : x;
  };
  for (const inst of instructionsBeforePostproc(trace)) {
    const inputs = inst.inputs.map(translate);
    visit(sch, inst, inputs);
    let outputs: RV[];
    try {
      outputs = sch.invokeKind(inst.kind, inputs, inst.attrs, trace.getDecision(inst));
    } catch (err) {
      if (err instanceof TesseraError) return sch;
      throw err;
    }
    inst.outputs.forEach((old, k) => {
      const now = outputs[k];
      if (now !== undefined) rvMap.set(old, now);
    });
  }
  return sch;
}
