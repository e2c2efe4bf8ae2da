/**
 * The union of design spaces (TVM's `SpaceGeneratorUnion`): the design spaces of every member,
 * in order. Its postprocessors and mutators are given explicitly, or else gathered from the
 * members (each named component once, in first-seen order; a mutator keeps the probability of
 * its first occurrence), so that every member's samples are made concrete the same way.
 */
import type { Schedule } from "@tessera/schedule";
import { SpaceGenerationError } from "../errors.js";
import type { WeightedMutator } from "../interfaces/mutator.js";
import type { Postproc } from "../interfaces/postproc.js";
import type { TuneContext } from "../tune-context.js";
import type { SpaceOptions } from "./schedule-fn.js";
import { checkedMutators, checkedPostprocs, initializeSpaceComponents } from "./space-components.js";
import type { SpaceGenerator } from "../interfaces/space-generator.js";

export class SpaceGeneratorUnion implements SpaceGenerator {
  readonly name: string;
  readonly postprocs: readonly Postproc[];
  readonly mutators: readonly WeightedMutator[];
  private readonly ownComponents: boolean;

  constructor(
    readonly spaces: readonly SpaceGenerator[],
    opts: SpaceOptions = {},
  ) {
    this.name = opts.name ?? "spaceGeneratorUnion";
    if (!Array.isArray(spaces) || spaces.length === 0) throw new SpaceGenerationError(`${this.name}: expected at least one space generator`);
    spaces.forEach((s, k) => {
      if (typeof s?.generateDesignSpace !== "function") throw new SpaceGenerationError(`${this.name}: member ${k} is not a space generator`);
    });
    this.ownComponents = opts.postprocs !== undefined || opts.mutators !== undefined;
    this.postprocs = checkedPostprocs(
      opts.postprocs ??
        firstByName(
          spaces.flatMap((s) => s.postprocs),
          (p) => p.name,
        ),
      this.name,
    );
    this.mutators = checkedMutators(
      opts.mutators ??
        firstByName(
          spaces.flatMap((s) => s.mutators),
          (m) => m.mutator.name,
        ),
      this.name,
    );
  }

  initialize(ctx: TuneContext): void {
    for (const s of this.spaces) s.initialize?.(ctx);
    if (this.ownComponents) initializeSpaceComponents(ctx, this);
  }

  generateDesignSpace(ctx: TuneContext): Schedule[] {
    return this.spaces.flatMap((s) => s.generateDesignSpace(ctx));
  }
}

function firstByName<T>(items: readonly T[], name: (t: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((t) => {
    const n = name(t);
    if (seen.has(n)) return false;
    seen.add(n);
    return true;
  });
}
