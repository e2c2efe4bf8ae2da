/**
 * The canonical simplifier (TVM's CanonicalSimplifier): conformance cases of our own, written
 * from the meaning of its forms (split terms merging, division modes, products, comparisons,
 * casts), and a soundness property on expressions rich in nested constant divisions and
 * remainders, evaluated exactly (BigInt) before and after.
 *
 * ARITH_RUNS sets the run count (10^4 for the recorded run; the default keeps the suite quick).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Analyzer } from "../../src/arith/index.js";
import {
  type BinaryOp,
  type PrimExpr,
  type Var,
  add,
  binary,
  cast,
  floatImm,
  floordiv,
  floormod,
  intImm,
  lt,
  mul,
  sub,
  truncmod,
  variable,
} from "../../src/expr.js";
import { range } from "../../src/stmt.js";
import { type ExactEnv, evalExact } from "./exactEval.js";
import { evalInt, show } from "./exprTestUtils.js";

const x = variable("x");
const y = variable("y");
const n = variable("n");
const tdiv = (a: PrimExpr, b: PrimExpr | number): PrimExpr => binary("div", a, b);
const p = (e: PrimExpr): string => show(e);

describe("canonicalSimplify: split terms", () => {
  it("merges a quotient and remainder chain of one index back into the index", () => {
    const an = new Analyzer();
    // x // 10 * 10 + x % 10 // 5 * 5 + x % 5 is x, whatever the sign of x (flooring)
    const floorChain = add(add(mul(floordiv(x, 10), 10), mul(floordiv(floormod(x, 10), 5), 5)), floormod(x, 5));
    expect(p(an.canonicalSimplify(floorChain))).toBe("x");
    const truncChain = add(add(mul(tdiv(x, 8), 8), mul(truncmod(tdiv(x, 2), 4), 2)), truncmod(x, 2));
    expect(p(an.canonicalSimplify(truncChain))).toBe("x");
  });

  it("keeps truncating and flooring splits apart unless the term is a plain index", () => {
    const an = new Analyzer();
    const mixed = add(mul(tdiv(x, 4), 4), floormod(x, 4));
    expect(p(an.canonicalSimplify(mixed))).toBe("T.truncdiv(x, 4) * 4 + x % 4");
  });

  it("narrows a remainder of a remainder and drops a quotient past the modulus", () => {
    const an = new Analyzer();
    expect(p(an.canonicalSimplify(floormod(floormod(mul(x, 6), 24), 12)))).toBe("x % 2 * 6");
    expect(p(an.canonicalSimplify(floordiv(floormod(x, 4), 4)))).toBe("0");
    expect(p(an.canonicalSimplify(floordiv(floordiv(floormod(x, 24), 3), 2)))).toBe("x % 24 // 6");
  });

  it("writes a negated remainder with a negative divisor, as TVM does", () => {
    const an = new Analyzer();
    expect(p(an.canonicalSimplify(floormod(mul(x, -1), 3)))).toBe("x % -3 * -1");
  });

  it("divides a sum termwise only when truncation cannot tell the difference", () => {
    const an = new Analyzer();
    expect(p(an.canonicalSimplify(tdiv(add(mul(x, 6), 5), 3)))).toBe("T.truncdiv(x * 6 + 5, 3)");
    expect(p(an.canonicalSimplify(floordiv(add(mul(x, 6), 5), 3)))).toBe("x * 2 + 1");
    an.bind(y, range(0, 100));
    expect(p(an.canonicalSimplify(tdiv(add(mul(y, 6), 5), 3)))).toBe("y * 2 + 1");
  });
});

describe("canonicalSimplify: products, comparisons and casts", () => {
  it("cancels factors common to a dividend and a symbolic divisor", () => {
    const an = new Analyzer();
    expect(p(an.canonicalSimplify(floordiv(mul(mul(x, y), 6), mul(y, 4))))).toBe("x * 3 // 2");
    expect(p(an.canonicalSimplify(floormod(mul(mul(x, y), 6), mul(y, 4))))).toBe("x * 3 % 2 * (y * 2)");
  });

  it("divides a comparison by the gcd of its scales when the rest is below it", () => {
    const an = new Analyzer();
    an.bind(y, range(0, 4));
    expect(p(an.canonicalSimplify(lt(add(mul(x, 4), y), 12)))).toBe("x < 3");
    // the rest is not below the gcd: kept
    expect(p(an.canonicalSimplify(lt(add(mul(x, 2), y), 12)))).toBe("x * 2 + y < 12");
  });

  it("turns the low digits of a flooring remainder into a quotient's digit", () => {
    const an = new Analyzer();
    expect(p(an.canonicalSimplify(lt(add(mul(x, 16), floormod(y, 64)), 40)))).toBe("x * 2 + y % 64 // 8 < 5");
  });

  it("keeps a truncating remainder in a comparison: for a negative index its digits differ", () => {
    const an = new Analyzer();
    const e = lt(add(mul(x, 16), truncmod(y, 64)), 40);
    const s = an.canonicalSimplify(e);
    expect(p(s)).toBe("x * 16 + T.truncmod(y, 64) < 40");
    const point: ExactEnv = new Map<Var, bigint>([
      [x, 3n],
      [y, -10n],
    ]);
    expect(evalExact(s, point, true)).toBe(evalExact(e, point, true));
  });

  it("pushes a widening cast into the terms of a sum, so equal terms cancel", () => {
    const an = new Analyzer();
    const i = variable("i");
    expect(p(an.canonicalSimplify(sub(cast("int64", add(add(i, n), 1)), cast("int64", i))))).toBe('T.Cast("int64", n) + 1');
  });

  it("leaves a narrowing cast alone unless every partial sum fits", () => {
    const an = new Analyzer();
    const k = variable("k", "int64");
    const e = cast("int32", add(k, intImm(1, "int64")));
    expect(p(an.canonicalSimplify(e))).toBe('T.Cast("int32", k + 1)');
    an.bind(k, range(intImm(0, "int64"), intImm(100, "int64")));
    expect(p(an.canonicalSimplify(e))).toBe('T.Cast("int32", k) + 1');
  });

  it("leaves an expression whose scales would pass 2^53 to the rewrite rules", () => {
    const an = new Analyzer();
    const k = variable("k", "int64");
    const big = intImm(2 ** 40, "int64");
    const e = mul(mul(k, big), big);
    expect(() => an.canonicalSimplify(e)).not.toThrow();
  });
});

describe("float zeros", () => {
  it("folds a float16 zero times or over a finite positive constant, but not times a variable", () => {
    const an = new Analyzer();
    const zero = floatImm(0, "float16");
    const half = floatImm(0.5, "float16");
    expect(an.canonicalSimplify(mul(zero, half))).toEqual(zero);
    expect(an.canonicalSimplify(binary("div", zero, half))).toEqual(zero);
    // 0 * NaN is NaN and 0 * -0.5 is -0: neither folds
    expect(an.canonicalSimplify(mul(zero, variable("f", "float16"))).kind).toBe("Binary");
    expect(an.canonicalSimplify(mul(zero, floatImm(-0.5, "float16"))).kind).toBe("Binary");
  });
});

describe("tvmSimplify and symbolic-bound proofs", () => {
  it("runs TVM's pipeline: canonical forms first, then the rewrite rules", () => {
    const an = new Analyzer();
    an.bind(x, range(0, 8));
    an.bind(y, range(0, 3));
    const flat = add(mul(x, 3), y);
    const e = add(add(mul(floordiv(flat, 12), 12), mul(floordiv(floormod(flat, 12), 4), 4)), floormod(flat, 4));
    expect(p(an.tvmSimplify(e))).toBe("x * 3 + y");
  });

  it("proves a comparison against a symbolic extent only at symbolicBound strength", () => {
    const an = new Analyzer();
    const [i0, i1] = [variable("i0"), variable("i1")];
    an.update(n, { min: 0, max: Infinity });
    const outer = floordiv(add(n, 15), 16);
    an.bind(i0, range(0, outer));
    an.bind(i1, range(0, 16));
    const cond = lt(add(mul(i0, 16), i1), mul(outer, 16));
    expect(an.canProve(cond)).toBe(false);
    expect(an.canProve(cond, "symbolicBound")).toBe(true);
    // one past the end is not provable
    expect(an.canProve(lt(add(mul(i0, 16), i1), sub(mul(outer, 16), 1)), "symbolicBound")).toBe(false);
  });
});

describe("canonicalSimplify soundness on nested divisions and remainders", () => {
  const RUNS = { numRuns: Number(process.env["ARITH_RUNS"] ?? 300) };
  const TIMEOUT = { timeout: Math.max(60_000, RUNS.numRuns * 100) };
  const i = variable("i");
  const j = variable("j");
  const u = variable("u");
  const k = variable("k", "int64");
  const DIV_MOD: readonly BinaryOp[] = ["div", "mod", "floordiv", "floormod"];
  const divisor = fc.constantFrom(-8, -4, -3, -2, 2, 3, 4, 6, 8, 12, 16, 24, 64);

  const int32 = fc.letrec<{ e: PrimExpr }>((tie) => ({
    e: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.constantFrom<PrimExpr>(i, j, u),
      fc.integer({ min: -30, max: 30 }).map((c) => intImm(c)),
      fc.tuple(tie("e"), tie("e")).map(([a, b]) => add(a, b)),
      fc.tuple(tie("e"), tie("e")).map(([a, b]) => sub(a, b)),
      fc.tuple(tie("e"), fc.integer({ min: -12, max: 12 })).map(([a, c]) => mul(a, c)),
      fc.tuple(tie("e"), tie("e")).map(([a, b]) => mul(a, b)),
      fc.tuple(fc.constantFrom(...DIV_MOD), tie("e"), divisor).map(([op, a, c]) => binary(op, a, c)),
      fc.tuple(fc.constantFrom(...DIV_MOD), tie("e"), fc.constantFrom<PrimExpr>(j, mul(j, 2))).map(([op, a, b]) => binary(op, a, b)),
      fc.tuple(fc.constantFrom<BinaryOp>("lt", "gt"), tie("e"), tie("e")).map(([op, a, b]) => cast("int32", binary(op, a, b))),
      fc.tuple(tie("e"), fc.integer({ min: -5, max: 5 })).map(([a, c]) => cast("int32", add(cast("int64", a), mul(k, c)))),
    ),
  })).e;

  const point = fc
    .tuple(
      fc.bigInt({ min: -40n, max: 40n }),
      fc.bigInt({ min: 1n, max: 50n }),
      fc.bigInt({ min: -(2n ** 20n), max: 2n ** 20n }),
      fc.bigInt({ min: 0n, max: 7n }),
    )
    .map(
      ([vi, vj, vu, vk]) =>
        new Map<Var, bigint>([
          [i, vi],
          [j, vj],
          [u, vu],
          [k, vk],
        ]) as ExactEnv,
    );

  it("keeps every value, with and without known ranges", TIMEOUT, () => {
    const bounded = new Analyzer();
    bounded.bind(i, range(-40, 81));
    bounded.bind(j, range(1, 50));
    bounded.bind(k, range(intImm(0, "int64"), intImm(8, "int64")));
    const free = new Analyzer();
    fc.assert(
      fc.property(int32, fc.array(point, { minLength: 6, maxLength: 6 }), (e, ps) => {
        for (const an of [bounded, free]) {
          const s = an.canonicalSimplify(e);
          for (const pt of ps) {
            const before = evalExact(e, pt, true);
            if (before === undefined) continue;
            expect(evalExact(s, pt, false), `${show(e)}  ~>  ${show(s)}`).toBe(before);
          }
        }
      }),
      RUNS,
    );
  });
});

describe("canonicalSimplify: negated quotients (regression)", () => {
  it("keeps `(i // 64 * -1) % 12`: `i % -768 // 64 * -1` is 12 at i = 1, where the remainder is 0", () => {
    const i = variable("i");
    const e = floormod(mul(floordiv(i, 64), -1), 12);
    const s = new Analyzer().canonicalSimplify(e);
    for (const v of [-769, -64, -1, 0, 1, 63, 64, 767, 768, 1000]) {
      const env = new Map([[i, v]]);
      expect(evalInt(s, env), `${p(s)} at i = ${v}`).toBe(evalInt(e, env));
    }
  });
});
