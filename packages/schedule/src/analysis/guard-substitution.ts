/**
 * A guard on a fused loop index (`t * 512 + u < 1280`, left by splitting a fused copy loop by a
 * factor that does not divide it) bounds what a block touches only through the indices built from
 * that sum (`(t * 512 + u) // 10`). Naming the sum lets the guard narrow its range like a loop's.
 */
import { IRMutator, type PrimExpr, type Var, sameExprStructure, usesVar, variable } from "@tessera/ir";

class SumNamer extends IRMutator {
  constructor(
    private readonly sum: PrimExpr,
    private readonly name: Var,
  ) {
    super();
  }

  override visitExpr(e: PrimExpr): PrimExpr {
    return sameExprStructure(e, this.sum) ? this.name : super.visitExpr(e);
  }
}

/**
 * `indices` with every occurrence of `sum` replaced by a fresh variable, or undefined when one of
 * `sum`'s variables `isLoop` still appears outside it (then the guard does not bound them alone).
 */
export function nameGuardedSum(indices: readonly PrimExpr[], sum: PrimExpr, isLoop: (v: Var) => boolean): { name: Var; indices: PrimExpr[] } | undefined {
  const name = variable("fused_guard", sum.dtype);
  const namer = new SumNamer(sum, name);
  const renamed = indices.map((e) => namer.visitExpr(e));
  const inSum = (v: Var) => isLoop(v) && usesVar(sum, (w) => w === v);
  if (renamed.some((e) => usesVar(e, inSum))) return undefined;
  return { name, indices: renamed };
}
