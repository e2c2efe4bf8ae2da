/**
 * Dead-code elimination on traces (TVM's `Trace::Simplified`): walking backwards, a pure
 * instruction (lookup, sampling) none of whose outputs is used later is dropped; the inputs of
 * every kept instruction (including handles nested in lists, e.g. CacheRead's consumer blocks)
 * count as used.
 */
import { type RV, isRV } from "../handles.js";
import type { Decision, Instruction, InstructionInput } from "../instruction.js";
import { validInstructions } from "./kinds.js";
import type { TraceLike } from "./trace-like.js";

export function simplifyTrace(trace: TraceLike, removePostproc: boolean): { instructions: Instruction[]; decisions: Map<Instruction, Decision> } {
  const used = new Set<RV>();
  const kept: Instruction[] = [];
  const insts = validInstructions(trace.instructions, removePostproc);
  for (let i = insts.length - 1; i >= 0; i--) {
    const inst = insts[i]!;
    if (inst.kind.pure && !inst.outputs.some((o) => used.has(o))) continue;
    kept.push(inst);
    const markUsed = (x: InstructionInput): void => {
      if (isRV(x)) used.add(x);
      else if (Array.isArray(x)) x.forEach(markUsed);
    };
    inst.inputs.forEach(markUsed);
  }
  kept.reverse();
  const decisions = new Map<Instruction, Decision>();
  for (const inst of kept) {
    const d = trace.decisions.get(inst);
    if (d !== undefined) decisions.set(inst, d);
  }
  return { instructions: kept, decisions };
}
