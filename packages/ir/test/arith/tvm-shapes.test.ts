/**
 * Shapes the simplifier gives undecided orderings and divisions, as TVM's rewrite simplifier
 * gives them (they reach printed predicates and bindings, compared structurally with TVM's).
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { type BinaryOp, add, binary, floordiv, floormod, intImm, mul, variable } from "../../src/expr.js";
import { range } from "../../src/stmt.js";
import { Analyzer } from "../../src/arith/index.js";
import { evalInt, show } from "./exprTestUtils.js";

function boundTo(bounds: Array<[ReturnType<typeof variable>, number, number]>): Analyzer {
  const a = new Analyzer();
  for (const [v, lo, extent] of bounds) a.bind(v, range(lo, extent));
  return a;
}

describe("undecided orderings", () => {
  const i = variable("i");
  const j = variable("j");
  const an = boundTo([
    [i, 0, 24],
    [j, 0, 10],
  ]);
  it("turn `>=` and `>` round into `<=` and `<`", () => {
    expect(show(an.simplify(binary("ge", i, 16)))).toBe("16 <= i");
    expect(show(an.simplify(binary("gt", i, 16)))).toBe("16 < i");
    expect(show(an.simplify(binary("ge", i, j)))).toBe("j <= i");
  });
  it("move a constant offset to the constant side", () => {
    expect(show(an.simplify(binary("ge", add(i, -16), 0)))).toBe("16 <= i");
    expect(show(an.simplify(binary("lt", add(add(mul(i, 8), j), -1), 150)))).toBe("i * 8 + j < 151");
    expect(show(an.simplify(binary("le", 3, add(i, 2))))).toBe("1 <= i");
  });
  it("keep offsets between two non-constant sides", () => {
    expect(show(an.simplify(binary("lt", add(i, 1), j)))).toBe("i + 1 < j");
  });
  it("agree with the original comparison on random sums and constants", () => {
    const ops: BinaryOp[] = ["lt", "le", "gt", "ge"];
    fc.assert(
      fc.property(
        fc.constantFrom(...ops),
        fc.integer({ min: -3, max: 3 }),
        fc.integer({ min: -3, max: 3 }),
        fc.integer({ min: -20, max: 20 }),
        fc.integer({ min: -30, max: 60 }),
        fc.boolean(),
        fc.integer({ min: 0, max: 23 }),
        fc.integer({ min: 0, max: 9 }),
        (op, ci, cj, offset, k, constantFirst, iv, jv) => {
          const sum = add(add(mul(i, ci), mul(j, cj)), offset);
          const e = constantFirst ? binary(op, k, sum) : binary(op, sum, k);
          const env = new Map([
            [i, iv],
            [j, jv],
          ]);
          expect(evalInt(an.simplify(e), env)).toBe(evalInt(e, env));
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe("division of a term whose coefficient is not a multiple of the divisor", () => {
  const c = variable("c");
  const v = variable("v");
  it("takes the multiple part out when the rest stays in one period", () => {
    // 360 = 22·16 + 8 and 8·c < 16 for c < 2: (c·360) // 16 = c·22.
    const an = boundTo([[c, 0, 2]]);
    expect(show(an.simplify(floordiv(mul(c, 360), 16)))).toBe("c * 22");
    expect(show(an.simplify(floormod(mul(c, 360), 16)))).toBe("c * 8");
  });
  it("keeps the division when the rest spans periods", () => {
    const an = boundTo([[c, 0, 4]]);
    expect(show(an.simplify(floordiv(mul(c, 360), 16)))).toBe("c * 45 // 2");
  });
  it("agrees with integer division on random coefficients, divisors and bounds", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -50, max: 400 }),
        fc.integer({ min: 0, max: 9 }),
        fc.integer({ min: 2, max: 32 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: -40, max: 40 }),
        fc.integer({ min: 0, max: 9 }),
        fc.integer({ min: 0, max: 3 }),
        (coef, vCoef, divisor, cExtent, offset, cv, vv) => {
          const an = boundTo([
            [c, 0, cExtent],
            [v, 0, 4],
          ]);
          const e = add(add(mul(c, coef), mul(v, vCoef)), intImm(offset));
          const env = new Map([
            [c, cv % cExtent],
            [v, vv],
          ]);
          const want = evalInt(e, env);
          expect(evalInt(an.simplify(floordiv(e, divisor)), env)).toBe(Math.floor(want / divisor));
          expect(evalInt(an.simplify(floormod(e, divisor)), env)).toBe(((want % divisor) + divisor) % divisor);
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe("min and max operands", () => {
  it("keep their written order when undecided (a constant may come first, as TVM leaves it)", () => {
    const n = variable("n");
    const an = boundTo([[n, 0, 100]]);
    expect(show(an.simplify(binary("min", 31, add(n, -4))))).toBe("T.min(31, n - 4)");
    expect(show(an.simplify(binary("max", n, 7)))).toBe("T.max(n, 7)");
  });
});
