/**
 * Preconditions and errors shared by the loop transformations (split, fuse, reorder).
 */
import { Analyzer, type For, type Var, eq, usesVar } from "@tessera/ir";
import { ScheduleError } from "../../errors.js";

/** Split and fuse rewrite a loop's variable, so its annotations and thread binding would be lost. */
export class HasAnnotationOrThreadBindingError extends ScheduleError {
  override name = "HasAnnotationOrThreadBindingError";
  constructor(primitive: string, loop: For) {
    super(primitive, `The primitive can't be applied because the loop ${loop.loopVar.name} has annotation or thread binding`, [loop]);
  }
}

export class LoopNotStartWithZeroError extends ScheduleError {
  override name = "LoopNotStartWithZeroError";
  constructor(primitive: string, loop: For) {
    super(primitive, `The loop ${loop.loopVar.name} does not start with 0, which is not supported`, [loop]);
  }
}

/** A loop's domain uses a variable of a loop that would end up inside (or be fused with) it. */
export class DependentLoopError extends ScheduleError {
  override name = "DependentLoopError";
  constructor(primitive: "fuse" | "reorder", loop: For, innerVar: string) {
    super(
      primitive,
      primitive === "reorder"
        ? `Outer Loop ${loop.loopVar.name}'s \`min\` or \`extent\` is dependent on an inner loop ${innerVar} in the new order`
        : `A loop ${loop.loopVar.name}'s \`extent\` is dependent on another loop ${innerVar}`,
      [loop],
    );
  }
}

export function checkNoAnnotationOrThreadBinding(primitive: string, loop: For): void {
  if (Object.keys(loop.annotations).length > 0 || loop.forKind === "thread_binding" || loop.threadTag !== undefined) {
    throw new HasAnnotationOrThreadBindingError(primitive, loop);
  }
}

export function checkLoopStartsWithZero(primitive: string, loop: For): void {
  if (!new Analyzer().canProve(eq(loop.min, 0))) throw new LoopNotStartWithZeroError(primitive, loop);
}

/** The first variable of `vars` that `loop`'s min or extent uses, if any. */
export function dependentVar(loop: For, vars: ReadonlySet<Var>, includeMin: boolean): Var | undefined {
  let found: Var | undefined;
  const hit = (v: Var) => {
    if (vars.has(v)) found ??= v;
    return vars.has(v);
  };
  if (includeMin && usesVar(loop.min, hit)) return found;
  usesVar(loop.extent, hit);
  return found;
}
