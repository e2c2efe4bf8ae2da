/**
 * Bounds under constraint scopes, for compound expressions compared with constants (TVM's
 * ConstIntBound constraints), and remainder bounds by divisors whose range touches zero.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Analyzer } from "../../src/arith/index.js";
import { type PrimExpr, type Var, and, binary, floormod, intImm, le, lt, sub, truncmod, variable } from "../../src/expr.js";
import { type ExactEnv, evalExact } from "./exactEval.js";
import { show } from "./exprTestUtils.js";

const a = variable("a");
const b = variable("b");

describe("constant bounds under constraints on compound expressions", () => {
  it("bounds a remainder by the constraint that mentions it, and only inside the scope", () => {
    const an = new Analyzer();
    an.update(a, { min: 0, max: 128 });
    const r = floormod(a, 58);
    const exit = an.enterConstraint(and(le(1, r), lt(r, 57)));
    expect(an.constIntBound(sub(r, 1))).toEqual({ min: 0, max: 55 });
    exit();
    expect(an.constIntBound(sub(r, 1))).toEqual({ min: -1, max: 56 });
  });
});

describe("remainder bounds by a divisor range touching zero", () => {
  it("keeps a flooring remainder between 0 and the divisor, on the divisor's side", () => {
    const an = new Analyzer();
    an.update(a, { min: 0, max: 6 });
    an.update(b, { min: -5, max: 7 });
    expect(an.constIntBound(floormod(a, b))).toEqual({ min: -4, max: 6 });
  });

  it("reads a divisor range from 0 as from 1: division by zero is undefined", () => {
    const an = new Analyzer();
    an.update(a, { min: 0, max: 6 });
    an.update(b, { min: 0, max: Infinity });
    expect(an.constIntBound(truncmod(a, b))).toEqual({ min: 0, max: 6 });
    expect(an.constIntBound(floormod(a, b))).toEqual({ min: 0, max: 6 });
  });
});

describe("soundness of constraint bounds", () => {
  const RUNS = { numRuns: Number(process.env["ARITH_RUNS"] ?? 300) };
  const TIMEOUT = { timeout: Math.max(60_000, RUNS.numRuns * 100) };
  const vars: Var[] = [a, b];
  const leaf = fc.oneof(
    fc.constantFrom<PrimExpr>(...vars),
    fc.integer({ min: -9, max: 9 }).map((c) => intImm(c)),
  );
  const DIVISION = new Set(["floordiv", "floormod", "div", "mod"]);
  const compound = fc
    .tuple(fc.constantFrom("add", "sub", "mul", "floordiv", "floormod", "div", "mod" as const), leaf, leaf)
    .map(([op, x, y]) => binary(op, x, DIVISION.has(op) ? intImm(7) : y));
  const outer = fc.tuple(compound, fc.constantFrom("add", "sub", "mul", "floordiv", "floormod" as const), leaf).map(([c, op, y]) => ({
    inner: c,
    whole: op === "floordiv" || op === "floormod" ? binary(op, c, 3) : binary(op, c, y),
  }));

  it("every point satisfying the constraint lies inside the bound", TIMEOUT, () => {
    fc.assert(
      fc.property(
        outer,
        fc.integer({ min: -30, max: 30 }),
        fc.integer({ min: 0, max: 30 }),
        fc.array(fc.tuple(fc.bigInt({ min: -40n, max: 40n }), fc.bigInt({ min: -40n, max: 40n })), { minLength: 8, maxLength: 8 }),
        ({ inner, whole }, lo, width, points) => {
          const an = new Analyzer();
          const exit = an.enterConstraint(and(le(lo, inner), lt(inner, lo + width + 1)));
          const bound = an.constIntBound(whole);
          exit();
          for (const [va, vb] of points) {
            const env: ExactEnv = new Map<Var, bigint>([
              [a, va],
              [b, vb],
            ]);
            const c = evalExact(inner, env, true);
            const v = evalExact(whole, env, true);
            if (c === undefined || v === undefined || c < BigInt(lo) || c > BigInt(lo + width)) continue;
            expect(Number(v), `${show(whole)} in [${bound.min}, ${bound.max}]`).toBeGreaterThanOrEqual(bound.min);
            expect(Number(v), `${show(whole)} in [${bound.min}, ${bound.max}]`).toBeLessThanOrEqual(bound.max);
          }
        },
      ),
      RUNS,
    );
  });
});
