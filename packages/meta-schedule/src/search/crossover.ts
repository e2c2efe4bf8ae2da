/**
 * Crossover of two traces of one design space (beyond TVM): the child keeps one parent's tile sizes and
 * compute locations and takes every other decision from the other (docs/architecture/meta-schedule-notes.md).
 */
import { type Decision, type Instruction, Trace } from "@tessera/schedule";
import { categoricalsSplitting } from "../mutator/sampled-annotations.js";
import { instructionsBeforePostproc } from "../mutator/trace-queries.js";

/** The child: `structure`'s trace (without postprocessing) with the other decisions of `knobs`; undefined when the traces do not correspond or the child equals `structure`. */
export function crossoverStructureAndKnobs(structure: Trace, knobs: Trace): Trace | undefined {
  const insts = instructionsBeforePostproc(structure);
  const donor = instructionsBeforePostproc(knobs);
  if (!sameShape(insts, donor)) return undefined;
  const structural = structuralSamplings(structure);
  const decisions = new Map<Instruction, Decision>();
  let changed = false;
  insts.forEach((inst, k) => {
    const own = structure.getDecision(inst);
    if (own === undefined) return;
    const given = structural.has(inst) ? undefined : knobs.getDecision(donor[k]!);
    if (given === undefined || sameDecision(own, given)) {
      decisions.set(inst, own);
      return;
    }
    decisions.set(inst, given);
    changed = true;
  });
  return changed ? new Trace(insts, decisions) : undefined;
}

/** The sampling instructions that decide the loop structure: perfect tiles, compute locations, categoricals used as split factors. */
function structuralSamplings(trace: Trace): Set<Instruction> {
  const out = new Set<Instruction>(categoricalsSplitting(trace));
  for (const inst of instructionsBeforePostproc(trace)) {
    if (inst.kind.name === "SamplePerfectTile" || inst.kind.name === "SampleComputeLocation") out.add(inst);
  }
  return out;
}

function sameShape(a: readonly Instruction[], b: readonly Instruction[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((inst, k) => {
    const other = b[k]!;
    if (inst.kind.name !== other.kind.name) return false;
    return !inst.kind.name.startsWith("Sample") || JSON.stringify(inst.attrs) === JSON.stringify(other.attrs);
  });
}

function sameDecision(a: Decision, b: Decision): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
