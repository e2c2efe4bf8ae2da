/**
 * The rewrite simplifier's branches, intrinsic calls and products (TVM's constraint scopes around
 * select/if_then_else branches, nested if_then_else merging, folds of clz and shifts, comparison
 * of a product with a sum). Cases are our own, written from the rules' meaning.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Analyzer } from "../../src/arith/index.js";
import { type PrimExpr, add, and, boolImm, call, ge, gt, intImm, le, lt, mul, select, sub, truncmod, variable } from "../../src/expr.js";
import { show } from "./exprTestUtils.js";

const x = variable("x");
const y = variable("y");
const ite = (c: PrimExpr, a: PrimExpr | number, b: PrimExpr | number): PrimExpr => call("int32", "if_then_else", [c, a, b]);

describe("rewriteSimplify: branches see their condition", () => {
  it("decides a select's inner condition from the outer one, on either branch", () => {
    const an = new Analyzer();
    expect(show(an.rewriteSimplify(select(gt(x, 7), select(gt(x, 3), y, 0), 1)))).toBe("T.Select(7 < x, y, 1)");
    expect(show(an.rewriteSimplify(select(lt(x, 2), 0, select(lt(x, 1), y, 5))))).toBe("T.Select(x < 2, 0, 5)");
  });

  it("uses the condition's bound in canonical remainders: a non-negative dividend's offset shrinks", () => {
    const an = new Analyzer();
    const e = ite(ge(x, 20), truncmod(sub(x, 19), 8), 0);
    expect(show(an.canonicalSimplify(e))).toBe("T.if_then_else(20 <= x, T.truncmod(x - 3, 8), 0)");
    // without the condition the dividend may be negative: kept
    expect(show(an.canonicalSimplify(truncmod(sub(x, 19), 8)))).toBe("T.truncmod(x - 19, 8)");
  });

  it("merges nested if_then_else with the same constant else value, and only then", () => {
    const an = new Analyzer();
    expect(show(an.rewriteSimplify(ite(lt(x, 9), ite(lt(y, 4), x, 0), 0)))).toBe("T.if_then_else(x < 9 && y < 4, x, 0)");
    expect(show(an.rewriteSimplify(ite(lt(x, 9), ite(lt(y, 4), x, 0), 1)))).toBe("T.if_then_else(x < 9, T.if_then_else(y < 4, x, 0), 1)");
  });

  it("restores the facts after a branch", () => {
    const an = new Analyzer();
    an.rewriteSimplify(select(gt(x, 7), x, 0));
    expect(an.canProve(gt(x, 7))).toBe(false);
  });
});

describe("rewriteSimplify: constant intrinsic calls", () => {
  it("counts leading zeros in the argument's width", () => {
    const an = new Analyzer();
    expect(an.rewriteSimplify(call("int32", "clz", [intImm(0)]))).toEqual(intImm(32));
    expect(an.rewriteSimplify(call("int32", "clz", [intImm(-1)]))).toEqual(intImm(0));
    expect(an.rewriteSimplify(call("int32", "clz", [intImm(256, "int64")]))).toEqual(intImm(55));
  });

  it("folds shifts of constants inside the width, and leaves an overflowing signed shift", () => {
    const an = new Analyzer();
    expect(an.rewriteSimplify(call("int32", "shift_left", [intImm(3), intImm(4)]))).toEqual(intImm(48));
    expect(an.rewriteSimplify(call("int32", "shift_right", [intImm(-16), intImm(2)]))).toEqual(intImm(-4));
    expect(an.rewriteSimplify(call("int32", "shift_left", [intImm(1), intImm(31)])).kind).toBe("Call");
    expect(an.rewriteSimplify(call("int32", "shift_left", [intImm(1), intImm(40)])).kind).toBe("Call");
  });
});

describe("rewriteSimplify: a product against a scaled sum", () => {
  it("decides a * b < (a + b) * c when one factor stays below c", () => {
    const an = new Analyzer();
    const exit = an.enterConstraint(and(and(gt(x, 0), gt(y, 0)), lt(x, 100)));
    expect(an.rewriteSimplify(lt(mul(x, y), mul(add(x, y), 100)))).toEqual(boolImm(true));
    // a factor reaching c: 100 * 1 < (100 + 1) * 100 holds, but nothing bounds the ratio in general
    expect(an.rewriteSimplify(lt(mul(x, y), mul(add(x, y), 50))).kind).toBe("Binary");
    exit();
  });

  it("says nothing without positive factors", () => {
    const an = new Analyzer();
    expect(an.rewriteSimplify(lt(mul(x, y), mul(add(x, y), 100))).kind).toBe("Binary");
  });
});

describe("rewriteSimplify: product against sum, soundness", () => {
  const RUNS = { numRuns: Number(process.env["ARITH_RUNS"] ?? 300) };
  it("decides only comparisons that hold at every point of the ranges", { timeout: Math.max(60_000, RUNS.numRuns * 100) }, () => {
    const ranged = fc.tuple(fc.integer({ min: -60, max: 60 }), fc.integer({ min: 0, max: 80 }));
    fc.assert(
      fc.property(ranged, ranged, fc.integer({ min: -300, max: 300 }), fc.integer({ min: -4, max: 4 }), fc.boolean(), ([xl, xw], [yl, yw], c, k, swap) => {
        const an = new Analyzer();
        const exit = an.enterConstraint(and(and(ge(x, xl), le(x, xl + xw)), and(ge(y, yl), le(y, yl + yw))));
        const product = k === 1 ? mul(x, y) : mul(mul(x, y), k);
        const e = swap ? lt(mul(add(y, x), c), product) : lt(product, mul(add(x, y), c));
        const r = an.rewriteSimplify(e);
        exit();
        if (r.kind !== "IntImm") return;
        for (const vx of [xl, xl + xw, xl + (xw >> 1)])
          for (const vy of [yl, yl + yw, yl + (yw >> 1)]) {
            const [p, q] = [vx * vy * k, (vx + vy) * c];
            expect(swap ? q < p : p < q, `${show(e)} at x=${vx}, y=${vy}`).toBe(r.value !== 0);
          }
      }),
      RUNS,
    );
  });
});
