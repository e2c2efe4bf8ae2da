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

/** Inclusive upper bounds of loop variables. */
export interface LoopBound {
  readonly loop: Var;
  readonly upper: number;
}

/**
 * A guard `a * c + b <= last` on two loops with b in [0, c): the same as bounds of a and b alone
 * when it cuts whole rows (`last + 1` a multiple of c: a < (last + 1) / c) or lies in the first
 * row (last < c: a = 0 and b <= last); undefined when it cuts a row in the middle (no box).
 */
export function rowGuardBounds(sum: PrimExpr, last: number, rangeOf: (v: Var) => { min: number; max: number } | undefined): LoopBound[] | undefined {
  if (sum.kind !== "Binary" || sum.op !== "add" || sum.b.kind !== "Var") return undefined;
  const row = sum.a;
  if (row.kind !== "Binary" || row.op !== "mul" || row.a.kind !== "Var" || row.b.kind !== "IntImm") return undefined;
  const [a, b, c] = [row.a, sum.b, row.b.value];
  const ra = rangeOf(a);
  const rb = rangeOf(b);
  if (ra === undefined || rb === undefined || ra.min !== 0 || rb.min !== 0 || rb.max >= c || c <= 0) return undefined;
  if ((last + 1) % c === 0) return [{ loop: a, upper: (last + 1) / c - 1 }];
  if (last < c)
    return [
      { loop: a, upper: 0 },
      { loop: b, upper: last },
    ];
  return undefined;
}
