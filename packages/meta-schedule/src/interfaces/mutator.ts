/**
 * A mutator (TVM's `Mutator`): derives a new trace from a measured or predicted-good one by
 * changing one sampling decision; undefined when it finds nothing to change. The new trace is
 * replayed (with the postprocessors) by the search, which drops it when the replay fails.
 */
import type { RandomEngine, Trace } from "@tessera/schedule";
import type { TuneContext } from "../tune-context.js";

export interface Mutator {
  readonly name: string;
  initialize?(ctx: TuneContext): void;
  apply(trace: Trace, rng: RandomEngine, ctx: TuneContext): Trace | undefined;
}

/** A mutator with its probability of being chosen (renormalised over those that apply). */
export interface WeightedMutator {
  readonly mutator: Mutator;
  readonly probability: number;
}
