import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { detectIterMap, iterMapSimplify } from "../../src/arith/iter-map/index.js";
import { type PrimExpr, type Var, add, floordiv, floormod, lt, mul, variable } from "../../src/expr.js";
import { rangeFromExtent } from "../../src/stmt.js";
import { assignments, evalExpr, evalSum } from "./evaluate.js";

/** One schedule-like step on the current list of iterators. */
type Step = { readonly op: "fuse"; readonly a: number; readonly b: number } | { readonly op: "split"; readonly a: number; readonly factor: number };

interface Iter {
  readonly expr: PrimExpr;
  readonly extent: number;
}

const divisors = (n: number): number[] => [...Array(n).keys()].map((k) => k + 1).filter((d) => n % d === 0);

/** Applies fuse/split steps to loop iterators; the resulting iterators are a bijective map of the loops. */
function applySteps(loops: readonly [Var, number][], steps: readonly Step[]): Iter[] {
  let iters: Iter[] = loops.map(([v, extent]) => ({ expr: v, extent }));
  for (const step of steps) {
    const a = step.a % iters.length;
    const outer = iters[a]!;
    if (step.op === "fuse") {
      if (iters.length < 2) continue;
      const b = (a + 1 + (step.b % (iters.length - 1))) % iters.length;
      const inner = iters[b]!;
      const fused = { expr: add(mul(outer.expr, inner.extent), inner.expr), extent: outer.extent * inner.extent };
      iters = [...iters.filter((_, k) => k !== a && k !== b), fused];
    } else {
      const ds = divisors(outer.extent);
      const f = ds[step.factor % ds.length]!;
      const parts = [
        { expr: floordiv(outer.expr, f), extent: outer.extent / f },
        { expr: floormod(outer.expr, f), extent: f },
      ];
      iters = [...iters.slice(0, a), ...parts, ...iters.slice(a + 1)];
    }
  }
  return iters;
}

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constant("fuse" as const), a: fc.nat(7), b: fc.nat(7) }),
  fc.record({ op: fc.constant("split" as const), a: fc.nat(7), factor: fc.nat(7) }),
);

describe("detectIterMap on random split/fuse chains", () => {
  it("detects a bijective map whose sums evaluate like the original indices", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 3 }), fc.array(stepArb, { maxLength: 6 }), (extents, steps) => {
        const loops = extents.map((e, k) => [variable(`l${k}`), e] as [Var, number]);
        const iters = applySteps(loops, steps);
        const indices = iters.map((it) => it.expr);
        const domains = new Map(loops.map(([v, e]) => [v, rangeFromExtent(e)]));
        const result = detectIterMap(indices, domains, undefined, { requireBijective: true });
        expect(result.errors).toEqual([]);
        const simplified = iterMapSimplify(indices, domains);
        for (const env of assignments(loops)) {
          indices.forEach((e, k) => {
            const expected = evalExpr(e, env);
            expect(evalSum(result.indices[k]!, env)).toBe(expected);
            expect(evalExpr(simplified[k]!, env)).toBe(expected);
          });
        }
      }),
      { numRuns: 150 },
    );
  });

  it("rejects the map when one index is duplicated", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 2, max: 6 }), { minLength: 1, maxLength: 3 }),
        fc.array(stepArb, { maxLength: 6 }),
        fc.nat(),
        (extents, steps, pick) => {
          const loops = extents.map((e, k) => [variable(`l${k}`), e] as [Var, number]);
          const iters = applySteps(loops, steps).filter((it) => it.extent > 1);
          fc.pre(iters.length > 0);
          const dup = iters[pick % iters.length]!;
          const indices = [...iters.map((it) => it.expr), dup.expr];
          const domains = new Map(loops.map(([v, e]) => [v, rangeFromExtent(e)]));
          expect(detectIterMap(indices, domains).errors.length).toBeGreaterThan(0);
        },
      ),
      { numRuns: 100 },
    );
  });

  it("handles a non-divisible split guarded by a predicate", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 6 }), fc.nat(), fc.nat(), (outerExtent, innerExtent, cut, factorPick) => {
        const [i0, i1] = [variable("i0"), variable("i1")];
        const total = outerExtent * innerExtent;
        const bound = total - (cut % innerExtent); // keeps the last outer iteration partly
        const fused = add(mul(i0, innerExtent), i1);
        const predicate = lt(fused, bound);
        const g = 1 + (factorPick % bound);
        const indices = [floordiv(fused, g), floormod(fused, g)];
        const domains = new Map([
          [i0, rangeFromExtent(outerExtent)],
          [i1, rangeFromExtent(innerExtent)],
        ]);
        const result = detectIterMap(indices, domains, predicate, { requireBijective: true });
        expect(result.errors).toEqual([]);
        const simplified = iterMapSimplify(indices, domains, predicate);
        for (const env of assignments([
          [i0, outerExtent],
          [i1, innerExtent],
        ])) {
          if (evalExpr(predicate, env) === 0) continue;
          indices.forEach((e, k) => {
            expect(evalSum(result.indices[k]!, env)).toBe(evalExpr(e, env));
            expect(evalExpr(simplified[k]!, env)).toBe(evalExpr(e, env));
          });
        }
      }),
      { numRuns: 150 },
    );
  });
});
