/**
 * Conformance of the analyzer with TVM's: rewriteSimplify's forms, canonicalSimplify's order,
 * ModularSet, the bounds of shifts, masks, vectors and remainders, and constraint scopes.
 * Cases are our own, written from the rules' meaning.
 */
import { describe, expect, it } from "vitest";
import { Analyzer } from "../../src/arith/index.js";
import {
  type PrimExpr,
  add,
  and,
  binary,
  broadcast,
  cast,
  eq,
  floordiv,
  floormod,
  intImm,
  lt,
  max,
  min,
  mul,
  ne,
  not,
  ramp,
  sub,
  truncmod,
  variable,
} from "../../src/expr.js";
import { shiftLeft, shiftRight } from "../../src/intrinsics.js";
import { printExpr } from "../../src/printer/index.js";
import { range } from "../../src/stmt.js";

const a = variable("a");
const b = variable("b");
const c = variable("c");
const p = (e: PrimExpr): string => printExpr(e);

describe("rewriteSimplify (TVM's rewrite rules and forms)", () => {
  const an = new Analyzer();
  const cases: [PrimExpr, string][] = [
    [sub(a, 7), "a + -7"],
    [sub(0, b), "0 - b"],
    [sub(mul(a, b), a), "(b + -1) * a"],
    [sub(min(a, b), a), "T.min(0, b - a)"],
    [sub(a, max(a, b)), "T.min(0, a - b)"],
    [add(max(a, b), min(b, a)), "a + b"],
    [min(max(a, b), a), "a"],
    [max(min(a, 4), min(a, 9)), "T.min(9, a)"],
    [add(add(a, 3), 4), "a + 7"],
    [sub(a, mul(floordiv(a, 8), 8)), "a % 8"],
    [lt(add(a, 5), add(b, 5)), "a < b"],
    [lt(mul(a, 4), 10), "a < 3"],
    [and(lt(a, 3), lt(5, a)), "T.bool(False)"],
    [and(eq(a, b), ne(a, b)), "T.bool(False)"],
    [not(lt(a, b)), "b <= a"],
  ];
  for (const [e, want] of cases) {
    it(`${p(e)} → ${want}`, () => {
      expect(p(an.rewriteSimplify(e))).toBe(want);
    });
  }

  it("rewrites vectors: ramps and broadcasts combine lane-wise", () => {
    expect(p(an.rewriteSimplify(add(ramp(a, 1, 4), ramp(b, 2, 4))))).toBe("T.Ramp(a + b, 3, 4)");
    expect(p(an.rewriteSimplify(add(broadcast(a, 4), broadcast(b, 4))))).toBe("T.Broadcast(a + b, 4)");
  });

  it("decides comparisons from bounds and modular sets", () => {
    const scoped = new Analyzer();
    scoped.bind(a, range(0, 8));
    expect(p(scoped.rewriteSimplify(lt(a, 8)))).toBe("T.bool(True)");
    // 2a is even, 2b + 1 odd: never equal.
    expect(p(new Analyzer().rewriteSimplify(eq(mul(a, 2), add(mul(b, 2), 1))))).toBe("T.bool(False)");
  });

  it("uses the facts of a constraint scope, and forgets them on leaving", () => {
    const scoped = new Analyzer();
    const exit = scoped.enterConstraint(and(binary("ge", a, 0), lt(a, 10)));
    expect(p(scoped.rewriteSimplify(lt(a, 10)))).toBe("T.bool(True)");
    expect(scoped.constIntBound(a)).toEqual({ min: 0, max: 9 });
    exit();
    expect(scoped.constIntBound(a)).toEqual({ min: -(2 ** 31), max: 2 ** 31 - 1 });
  });
});

describe("canonicalSimplify (TVM's order of sums)", () => {
  it("writes positive terms by descending coefficient, then the constant, then subtractions", () => {
    const an = new Analyzer();
    expect(p(an.canonicalSimplify(add(sub(mul(b, 2), mul(a, 2)), 1)))).toBe("b * 2 + 1 - a * 2");
    expect(p(an.canonicalSimplify(add(a, mul(b, 3))))).toBe("b * 3 + a");
    expect(p(an.canonicalSimplify(sub(1, a)))).toBe("1 - a");
  });

  it("divides exactly whatever the sign, and recombines truncating quotient and remainder", () => {
    const an = new Analyzer();
    expect(p(an.canonicalSimplify(binary("div", add(mul(a, 4), mul(b, 6)), 2)))).toBe("b * 3 + a * 2");
    expect(p(an.canonicalSimplify(add(mul(binary("div", a, 5), 5), truncmod(a, 5))))).toBe("a");
  });
});

describe("ModularSet", () => {
  const an = new Analyzer();
  it("combines sums, products, divisions and remainders by gcd", () => {
    expect(an.modularSet(add(mul(a, 6), mul(b, 4)))).toEqual({ coeff: 2, base: 0 });
    expect(an.modularSet(mul(add(mul(a, 4), 2), add(mul(b, 6), 1)))).toEqual({ coeff: 4, base: 2 });
    expect(an.modularSet(floordiv(add(mul(a, 12), 8), 4))).toEqual({ coeff: 3, base: 2 });
    expect(an.modularSet(floormod(add(mul(a, 8), 3), 4))).toEqual({ coeff: 4, base: 3 });
    expect(an.modularSet(shiftLeft(add(mul(a, 2), 1), 3))).toEqual({ coeff: 16, base: 8 });
  });

  it("keeps only power-of-two congruences through unsigned wrap-around", () => {
    const u = variable("u", "uint32");
    expect(an.modularSet(mul(u, intImm(12, "uint32")))).toEqual({ coeff: 4, base: 0 });
    expect(an.modularSet(cast("uint32", mul(a, 3)))).toEqual({ coeff: 1, base: 0 });
  });
});

describe("ConstIntBound of every node kind", () => {
  const an = new Analyzer();
  an.bind(c, range(0, 11));
  it("bounds shifts, masks and int → float → int casts", () => {
    expect(an.constIntBound(shiftRight(c, 2))).toEqual({ min: 0, max: 2 });
    expect(an.constIntBound(binary("floormod", shiftLeft(c, 1), 64))).toEqual({ min: 0, max: 20 });
    expect(an.constIntBound(cast("int32", cast("float32", sub(c, 3))))).toEqual({ min: -3, max: 7 });
  });

  it("bounds ramps lane-wise", () => {
    expect(an.constIntBound(ramp(c, 2, 4))).toEqual({ min: 0, max: 16 });
  });

  it("narrows remainders by the modular set of the dividend", () => {
    const n = variable("n", "int64");
    expect(an.constIntBound(floormod(add(mul(n, 64), 3), 256))).toEqual({ min: 3, max: 195 });
  });

  it("excludes a zero divisor", () => {
    const scoped = new Analyzer();
    scoped.bind(a, range(-9, 14));
    scoped.bind(b, range(-2, 5));
    expect(scoped.constIntBound(floordiv(a, b))).toEqual({ min: -9, max: 9 });
  });
});

describe("constant folding of unsigned arithmetic (regressions)", () => {
  it("wraps a folded uint32 product instead of keeping 2^34", () => {
    const folded = new Analyzer().simplify(mul(intImm(8, "uint32"), intImm(2 ** 31, "uint32")));
    expect(folded).toMatchObject({ kind: "IntImm", value: 0 });
  });

  it("leaves a product whose exact value a double cannot hold", () => {
    const big = intImm(2 ** 32 - 1, "uint32");
    const e = new Analyzer().simplify(mul(big, big));
    expect(e.kind === "IntImm" ? Number.isSafeInteger(e.value) && e.value < 2 ** 32 : true).toBe(true);
  });
});
