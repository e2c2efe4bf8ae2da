/**
 * Rewrite rules whose conditions simplify (TVM's TryCompare), rules with symbolic divisors, the
 * TVM-faithful proofs (`tvmCanProve`, `tvmCanProveEqual`), float operands, which TVM's
 * cancellations would treat as if they had no NaN or infinity, and division by a constant zero.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Analyzer, DivisionByZeroError } from "../../src/arith/index.js";
import { type PrimExpr, type Var, add, binary, broadcast, eq, floatImm, floordiv, floormod, lt, mul, ramp, select, sub, variable } from "../../src/expr.js";
import { printExpr } from "../../src/printer/index.js";
import { range } from "../../src/stmt.js";
import { evalInt, show } from "./exprTestUtils.js";

const x = variable("x");
const y = variable("y");
const z = variable("z");
const p = (e: PrimExpr): string => printExpr(e);

const RUNS = { numRuns: Number(process.env["ARITH_RUNS"] ?? 400) };
const TIMEOUT = { timeout: Math.max(60_000, RUNS.numRuns * 100) };

describe("rule conditions that simplify", () => {
  it("proves `x + (-x) % y` a multiple of y by simplifying the sum first", () => {
    expect(p(new Analyzer().rewriteSimplify(floormod(add(x, floormod(mul(x, -1), y)), y)))).toBe("0");
  });

  it("keeps its own match when a condition's simplification matches other rules (regression)", () => {
    // The condition of `(x * z * c) // (z * c)` simplifies `z * 2`, which runs the rules of `*` again.
    const an = new Analyzer();
    const exit = an.enterConstraint(binary("ge", mul(z, 2), 0));
    expect(p(an.rewriteSimplify(floordiv(add(mul(mul(x, z), 2), y), mul(z, 2))))).toBe("x + y // (z * 2)");
    expect(p(an.rewriteSimplify(floormod(add(mul(mul(x, z), 2), y), mul(z, 2))))).toBe("y % (z * 2)");
    exit();
  });
});

/** Values of x, y, z drawn around zero, where sign changes show up. */
const point = fc.record({ x: fc.integer({ min: -40, max: 40 }), y: fc.integer({ min: -40, max: 40 }), z: fc.integer({ min: -6, max: 6 }) });
const env = (v: { x: number; y: number; z: number }): Map<Var, number> =>
  new Map([
    [x, v.x],
    [y, v.y],
    [z, v.z],
  ]);
const operand = fc.constantFrom<PrimExpr>(x, y, add(x, 3), mul(y, -2), floormod(x, 7), sub(y, x));
const scale = fc.integer({ min: -4, max: 4 }).filter((c) => c !== 0);

/** Dividends and divisors in the shapes of the symbolic-divisor and padded-remainder rules. */
const shaped = fc.oneof(
  fc
    .tuple(fc.constantFrom("floordiv", "floormod") as fc.Arbitrary<"floordiv" | "floormod">, operand, operand, scale)
    .map(([op, a, b, c]) => binary(op, add(mul(mul(a, z), c), b), mul(z, c))),
  fc.tuple(operand, operand).map(([a, b]) => floormod(add(a, floormod(b, z)), z)),
  fc.tuple(operand, operand).map(([a, b]) => floormod(sub(a, floormod(a, z)), b)),
);

describe("soundness of the rules with symbolic divisors", () => {
  for (const z0 of [undefined, [1, 6], [-6, -1]] as const) {
    it(`rewriteSimplify and canonicalSimplify keep every value (z ${z0 === undefined ? "unbound" : `in [${z0[0]}, ${z0[1]}]`})`, TIMEOUT, () => {
      const an = new Analyzer();
      if (z0 !== undefined) an.bind(z, range(z0[0], z0[1] - z0[0] + 1));
      fc.assert(
        fc.property(shaped, fc.array(point, { minLength: 6, maxLength: 6 }), (e, points) => {
          for (const s of [an.rewriteSimplify(e), an.canonicalSimplify(e), an.tvmSimplify(e)]) {
            for (const v of points) {
              if (z0 !== undefined && (v.z < z0[0] || v.z > z0[1])) continue;
              const before = evalInt(e, env(v));
              if (!Number.isFinite(before)) continue;
              expect(evalInt(s, env(v)), `${show(e)}  ~>  ${show(s)}`).toBe(before);
            }
          }
        }),
        RUNS,
      );
    });
  }
});

describe("tvmCanProve and tvmCanProveEqual (TVM's Analyzer::CanProve)", () => {
  it("decides with TVM's pipeline where the linear forms do not", () => {
    const n = variable("n", "int64");
    const an = new Analyzer();
    const e = floormod(mul(add(n, 1), 64), mul(add(n, 1), 32));
    expect(an.canProveEqual(e, 0)).toBe(false);
    expect(an.tvmCanProveEqual(e, 0)).toBe(true);
    expect(an.tvmCanProve(eq(e, 0))).toBe(true);
  });

  it("compares constants by value and floats by their simplified expressions", () => {
    const f = variable("f", "float32");
    const an = new Analyzer();
    expect(an.tvmCanProveEqual(f, f)).toBe(true);
    expect(an.tvmCanProveEqual(f, add(f, 0))).toBe(true);
    expect(an.tvmCanProveEqual(f, variable("g", "float32"))).toBe(false);
    expect(an.tvmCanProve(lt(x, add(x, 1)))).toBe(true);
    expect(an.tvmCanProve(lt(x, y))).toBe(false);
  });
});

describe("float operands keep NaN and infinities (regressions)", () => {
  const f = variable("f", "float32");
  const g = variable("g", "float32");
  const an = new Analyzer();

  it("does not cancel `f - f` (it threw building an integer zero of dtype float32)", () => {
    for (const simplify of [(e: PrimExpr) => an.rewriteSimplify(e), (e: PrimExpr) => an.canonicalSimplify(e)]) {
      expect(p(simplify(sub(f, f)))).toBe("f - f");
      expect(p(simplify(sub(add(f, g), g)))).toBe("f + g - g");
    }
  });

  it("does not prove `f == f` (false for NaN)", () => {
    expect(p(an.rewriteSimplify(eq(f, f)))).toBe("f == f");
    expect(an.tvmCanProve(eq(f, f))).toBe(false);
  });

  it("does not zero `select(c, f, g) - g` (NaN for an infinite g)", () => {
    const e = sub(select(lt(x, 0), f, g), g);
    expect(p(an.rewriteSimplify(e))).toBe(p(e));
  });

  it("still cancels integers of every width, vectors included", () => {
    const i8 = variable("i8", "int8");
    const v = variable("v", "int32x2");
    expect(p(an.rewriteSimplify(sub(i8, i8)))).toBe("T.int8(0)");
    expect(an.rewriteSimplify(sub(v, v))).toEqual(broadcast(0, 2));
    expect(p(an.rewriteSimplify(sub(select(lt(x, 0), y, z), z)))).toBe("T.Select(x < 0, y - z, 0)");
  });
});

describe("division by a constant zero (TVM's Divide by zero)", () => {
  const an = new Analyzer();
  it("is refused by the TVM-side simplifiers, scalars and ramps alike", () => {
    for (const e of [floordiv(x, 0), binary("mod", ramp(1, 1, 2), broadcast(0, 2)), binary("div", add(x, 1), sub(y, y))]) {
      expect(() => an.rewriteSimplify(e)).toThrow(DivisionByZeroError);
      expect(() => an.canonicalSimplify(e)).toThrow(DivisionByZeroError);
      expect(() => an.tvmCanProve(eq(e, 0))).toThrow(DivisionByZeroError);
    }
  });

  it("leaves lowering's simplify and canProve as they were, and float division alone", () => {
    expect(p(an.simplify(floordiv(x, 0)))).toBe("x // 0");
    expect(an.canProve(eq(floordiv(x, 0), 0), "symbolicBound")).toBe(false);
    const f = variable("f", "float32");
    expect(p(an.rewriteSimplify(binary("div", f, floatImm(0))))).toBe("f / T.float32(0.0)");
  });
});
