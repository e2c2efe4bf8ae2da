/**
 * Crossover of two traces of one design space (beyond TVM, whose evolutionary search only
 * mutates): the child keeps the *structure* of one parent — its tile sizes and compute locations,
 * i.e. the loop nest and launch shape — and takes every other sampled decision (fetch widths,
 * unroll budget, the GEMM knobs) from the other.
 *
 * Why: a fast kernel needs a good launch shape *and* a dozen knobs right at once. The knobs that
 * make one shape fast mostly make others fast too (128-bit staged fetches, the pipeline), so once
 * the search has found them on one shape, crossover carries them to every other shape in one step,
 * where a mutator moves one knob at a time through slower programs.
 *
 * Two traces cross only when their instructions before postprocessing have the same kinds in the
 * same order, and their sampling instructions the same attributes (the same candidates, the same
 * tile extents): then decisions correspond by position. Decisions that do not fit the structure
 * (a fetch width that does not divide the new tile) are rejected on replay like any mutation.
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
