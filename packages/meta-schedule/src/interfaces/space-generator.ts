/**
 * A design-space generator (TVM's `SpaceGenerator`): the schedules whose traces, replayed with
 * fresh decisions, are the samples of the search space. It carries the postprocessors that make
 * a sample concrete and the mutators that move between samples, as TVM's does.
 */
import type { Schedule } from "@tessera/schedule";
import type { WeightedMutator } from "./mutator.js";
import type { Postproc } from "./postproc.js";
import type { TuneContext } from "../tune-context.js";

export interface SpaceGenerator {
  readonly name: string;
  initialize?(ctx: TuneContext): void;
  /**
   * The design spaces: schedules of `ctx.workload` (each a trace with sampling instructions).
   * Throws a SpaceGenerationError naming the cause when the space cannot be built (a space
   * function that throws, a workload the space does not apply to).
   */
  generateDesignSpace(ctx: TuneContext): Schedule[];
  readonly postprocs: readonly Postproc[];
  readonly mutators: readonly WeightedMutator[];
}
