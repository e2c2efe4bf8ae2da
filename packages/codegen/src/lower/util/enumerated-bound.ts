/**
 * Proofs by exhaustion over loop variables: every value of the loop variables some expressions
 * use, within their constant ranges, where the given conditions that use only those variables
 * hold. The fallback where the analyzer cannot use a condition on a compound expression (a
 * cooperative fetch's `f * 96 + t < 224` bounding its row `(f * 96 + t) // 32`, or making
 * `(f * 136 + t) % 160 // 5` equal to `(f * 136 + t) // 5`).
 */
import { type For, type PrimExpr, type Var, evalIntExpr, forEachExpr } from "@tessera/ir";

/** Most combinations enumerated; beyond them nothing is proven. */
const MAX_CASES = 1 << 16;

function varsOf(exprs: readonly PrimExpr[]): Set<Var> {
  const vars = new Set<Var>();
  for (const e of exprs) {
    forEachExpr(e, (x) => {
      if (x.kind === "Var") vars.add(x);
    });
  }
  return vars;
}

/** Whether `test` accepts the values of `exprs` in every case (false when a case cannot be evaluated or there are too many). */
function everyCase(exprs: readonly PrimExpr[], loops: readonly For[], conditions: readonly PrimExpr[], test: (values: readonly number[]) => boolean): boolean {
  const vars = [...varsOf(exprs)];
  const ranges: { v: Var; min: number; extent: number }[] = [];
  let cases = 1;
  for (const v of vars) {
    const loop = loops.find((l) => l.loopVar === v);
    if (loop === undefined || loop.min.kind !== "IntImm" || loop.extent.kind !== "IntImm") return false;
    ranges.push({ v, min: loop.min.value, extent: loop.extent.value });
    cases *= loop.extent.value;
    if (cases > MAX_CASES) return false;
  }
  const known = new Set(vars);
  const applicable = conditions.filter((c) => [...varsOf([c])].every((v) => known.has(v)));
  const env = new Map<Var, number>();
  const visit = (k: number): boolean => {
    if (k === ranges.length) {
      for (const c of applicable) {
        const holds = evalIntExpr(c, env);
        if (holds === undefined) return false;
        if (holds === 0) return true;
      }
      const values = exprs.map((e) => evalIntExpr(e, env));
      return values.every((x): x is number => x !== undefined) && test(values);
    }
    const r = ranges[k]!;
    for (let x = r.min; x < r.min + r.extent; x++) {
      env.set(r.v, x);
      if (!visit(k + 1)) return false;
    }
    return true;
  };
  return visit(0);
}

export function indexInBoundsByEnumeration(index: PrimExpr, extent: number, loops: readonly For[], conditions: readonly PrimExpr[]): boolean {
  return everyCase([index], loops, conditions, ([value]) => value! >= 0 && value! < extent);
}

export function equalByEnumeration(a: PrimExpr, b: PrimExpr, loops: readonly For[], conditions: readonly PrimExpr[]): boolean {
  return everyCase([a, b], loops, conditions, ([x, y]) => x === y);
}
