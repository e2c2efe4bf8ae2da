/**
 * The interval evaluator behind the footprint, stride and warp features: on random index
 * expressions (sums, products, floordiv and floormod by constants, as fused and split loops
 * produce), the bounds contain the value at every point of the loop ranges, are exact at a point,
 * and the compiled form agrees with the interpreted one.
 */
import { type PrimExpr, type Var, add, floordiv, floormod, intImm, mul, sub, variable } from "@tessera/ir";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type LoopEnv, compileBounds, evalInterval, lastUpperBound } from "../../src/store-analysis/index-eval.js";

const vars: readonly Var[] = [variable("i"), variable("j"), variable("k")];
const extents = [4, 6, 3];

const exprArb: fc.Arbitrary<PrimExpr> = fc.letrec<{ e: PrimExpr }>((tie) => ({
  e: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom(...vars),
    fc.integer({ min: -5, max: 9 }).map((v) => intImm(v)),
    fc.tuple(tie("e"), tie("e")).map(([a, b]) => add(a, b)),
    fc.tuple(tie("e"), tie("e")).map(([a, b]) => sub(a, b)),
    fc.tuple(tie("e"), fc.integer({ min: -3, max: 5 })).map(([a, c]) => mul(a, c)),
    fc.tuple(tie("e"), tie("e")).map(([a, b]) => mul(a, b)),
    fc.tuple(tie("e"), fc.integer({ min: 1, max: 8 })).map(([a, c]) => floordiv(a, c)),
    fc.tuple(tie("e"), fc.integer({ min: 1, max: 8 })).map(([a, c]) => floormod(a, c)),
  ),
})).e;

function valueAt(e: PrimExpr, point: ReadonlyMap<Var, number>): number {
  switch (e.kind) {
    case "IntImm":
      return e.value;
    case "Var":
      return point.get(e) ?? 0;
    case "Binary": {
      const a = valueAt(e.a, point);
      const b = valueAt(e.b, point);
      if (e.op === "add") return a + b;
      if (e.op === "sub") return a - b;
      if (e.op === "mul") return a * b;
      if (e.op === "floordiv") return Math.floor(a / b);
      if (e.op === "floormod") return a - Math.floor(a / b) * b;
      throw new Error(e.op);
    }
    default:
      throw new Error(e.kind);
  }
}

describe("index bounds", () => {
  it("contain every point value, are exact at points, and compiled = interpreted", () => {
    fc.assert(
      fc.property(exprArb, fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }), (e, relaxed) => {
        const env: LoopEnv = new Map(vars.map((v, k) => [v, { lo: 0, hi: relaxed[k] ? extents[k]! - 1 : 0 }]));
        const bounds = evalInterval(e, env);
        const compiled = compileBounds(e, env);
        expect([compiled(), lastUpperBound()]).toEqual([bounds.lo, bounds.hi]);
        const ranges = vars.map((v) => env.get(v)!);
        for (let i = ranges[0]!.lo; i <= ranges[0]!.hi; i++) {
          for (let j = ranges[1]!.lo; j <= ranges[1]!.hi; j++) {
            for (let k = ranges[2]!.lo; k <= ranges[2]!.hi; k++) {
              const point = new Map([
                [vars[0]!, i],
                [vars[1]!, j],
                [vars[2]!, k],
              ]);
              const v = valueAt(e, point);
              expect(v).toBeGreaterThanOrEqual(bounds.lo);
              expect(v).toBeLessThanOrEqual(bounds.hi);
              const pointEnv: LoopEnv = new Map([...point].map(([x, n]) => [x, { lo: n, hi: n }]));
              expect(evalInterval(e, pointEnv)).toEqual({ lo: v, hi: v });
            }
          }
        }
      }),
      { numRuns: 300, seed: 5 },
    );
  });
});
