/**
 * What the space generators share: checking the postprocessors and mutators they are given,
 * initialising them once per task, and describing a bad value in an error message.
 */
import { SpaceGenerationError } from "../errors.js";
import type { WeightedMutator } from "../interfaces/mutator.js";
import type { Postproc } from "../interfaces/postproc.js";
import type { TuneContext } from "../tune-context.js";
import type { SpaceGenerator } from "../interfaces/space-generator.js";

/** Calls `initialize` of a space's postprocessors and mutators (TVM does it from the space generator). */
export function initializeSpaceComponents(ctx: TuneContext, space: Pick<SpaceGenerator, "postprocs" | "mutators">): void {
  for (const p of space.postprocs) p.initialize?.(ctx);
  for (const m of space.mutators) m.mutator.initialize?.(ctx);
}

export function checkedPostprocs(postprocs: readonly Postproc[] | undefined, space: string): readonly Postproc[] {
  const list = postprocs ?? [];
  list.forEach((p, k) => {
    if (typeof p?.apply !== "function") throw new SpaceGenerationError(`space ${space}: postprocs[${k}] is ${describeValue(p)}, not a Postproc`);
  });
  return [...list];
}

export function checkedMutators(mutators: readonly WeightedMutator[] | undefined, space: string): readonly WeightedMutator[] {
  const list = mutators ?? [];
  list.forEach((m, k) => {
    if (typeof m?.mutator?.apply !== "function") throw new SpaceGenerationError(`space ${space}: mutators[${k}] is not a { mutator, probability } pair`);
    if (!(Number.isFinite(m.probability) && m.probability >= 0)) {
      throw new SpaceGenerationError(`space ${space}: mutator ${m.mutator.name} has probability ${m.probability}; probabilities are finite and ≥ 0`);
    }
  });
  return [...list];
}

export function describeValue(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "object") return `an object (${(v as object).constructor?.name ?? "no class"})`;
  return typeof v === "string" ? `the string ${JSON.stringify(v.slice(0, 40))}` : `${typeof v} ${String(v)}`;
}
