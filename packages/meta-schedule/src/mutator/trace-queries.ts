/**
 * What the mutators look for in a trace: the instructions before postprocessing, the sampling
 * instruction that produced a value, and a categorical re-draw that avoids the current choice.
 */
import { type Decision, ExprRV, type Instruction, type RandomEngine, Trace } from "@tessera/schedule";
import type { Mutator } from "../interfaces/mutator.js";

/** The instructions before the first EnterPostproc (what a mutated trace keeps). */
export function instructionsBeforePostproc(trace: Trace): Instruction[] {
  const cut = trace.instructions.findIndex((i) => i.kind.name === "EnterPostproc");
  return cut < 0 ? [...trace.instructions] : trace.instructions.slice(0, cut);
}

/**
 * Whether a SamplePerfectTile decision may move `factor` into tile `to`: the innermost tile must
 * stay within the instruction's max_innermost_factor (attribute 1; none when it is not positive).
 */
export function tileMayGrow(inst: Instruction, tiles: readonly number[], to: number, factor: number): boolean {
  const maxInnermost = typeof inst.attrs[1] === "number" ? inst.attrs[1] : -1;
  return to !== tiles.length - 1 || maxInnermost <= 0 || tiles[to]! * factor <= maxInnermost;
}

/** SampleCategorical instructions by the value they produced. */
export function categoricalSamplesByOutput(insts: readonly Instruction[]): Map<ExprRV, Instruction> {
  const out = new Map<ExprRV, Instruction>();
  for (const inst of insts) {
    const rv = inst.outputs[0];
    if (inst.kind.name === "SampleCategorical" && rv instanceof ExprRV) out.set(rv, inst);
  }
  return out;
}

/** A categorical decision that can change: its instruction, current index and probabilities. */
export interface CategoricalCandidate {
  readonly inst: Instruction;
  readonly decision: number;
  readonly probs: readonly number[];
}

export function categoricalCandidate(trace: Trace, inst: Instruction): CategoricalCandidate | undefined {
  const probs = inst.attrs[1];
  const decision = trace.getDecision(inst);
  if (!Array.isArray(probs) || typeof decision !== "number") return undefined;
  const weights = probs.map(Number);
  // Another index must be possible.
  if (!weights.some((w, k) => k !== decision && w > 0)) return undefined;
  return { inst, decision, probs: weights };
}

/** An index other than the current one, drawn in proportion to the probabilities (TVM's mutators renormalise without it). */
export function redrawCategorical(c: CategoricalCandidate, rng: RandomEngine): number {
  const weights = c.probs.map((w, k) => (k === c.decision ? 0 : Math.max(0, w)));
  const total = weights.reduce((a, b) => a + b, 0);
  let x = rng.uniform() * total;
  let last = -1;
  for (let k = 0; k < weights.length; k++) {
    if (weights[k] === 0) continue;
    last = k;
    x -= weights[k]!;
    if (x < 0) return k;
  }
  return last; // rounding left x at 0
}

/**
 * A mutator that re-draws one categorical decision: one of `candidates(trace)` uniformly, its
 * value redrawn by `redrawCategorical` (no change when there is none to redraw).
 */
export function categoricalResampler(name: string, candidates: (trace: Trace) => CategoricalCandidate[]): Mutator {
  return {
    name,
    apply(trace: Trace, rng: RandomEngine): Trace | undefined {
      const found = candidates(trace);
      if (found.length === 0) return undefined;
      const chosen = pick(found, rng);
      return withNewDecision(trace, chosen.inst, redrawCategorical(chosen, rng));
    },
  };
}

/** One of `xs`, uniformly. */
export function pick<T>(xs: readonly T[], rng: RandomEngine): T {
  return xs[rng.int(0, xs.length)]!;
}

/** The trace without postprocessing, with one decision changed (TVM's `WithDecision(…, remove_postproc=True)`). */
export function withNewDecision(trace: Trace, inst: Instruction, decision: Decision): Trace {
  return trace.withDecision(inst, decision, { removePostproc: true });
}

/** The trace without postprocessing, with one instruction replaced (its decisions kept). */
export function withReplacedInstruction(trace: Trace, old: Instruction, replacement: Instruction): Trace {
  const insts = instructionsBeforePostproc(trace);
  const decisions = new Map<Instruction, Decision>();
  for (const inst of insts) {
    const d = trace.getDecision(inst);
    if (d !== undefined) decisions.set(inst === old ? replacement : inst, d);
  }
  return new Trace(
    insts.map((i) => (i === old ? replacement : i)),
    decisions,
  );
}
