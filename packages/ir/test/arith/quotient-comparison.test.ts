/**
 * Comparisons of a quotient with a constant, and a bound next to a remainder test (TVM's
 * `floordiv(x, c1) < c2 → x < c1 * c2` and `x < c1 && floormod(x, c2) < c3` rules).
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { type BinaryOp, and, binary, floordiv, floormod, intImm, le, lt, variable } from "../../src/expr.js";
import { range } from "../../src/stmt.js";
import { Analyzer } from "../../src/arith/index.js";
import { evalInt, show } from "./exprTestUtils.js";

const x = variable("x");
const X_MIN = -40;
const X_EXTENT = 200;

function analyzer(): Analyzer {
  const a = new Analyzer();
  a.bind(x, range(X_MIN, X_EXTENT));
  return a;
}

describe("quotient compared with a constant", () => {
  it("compares the dividend with a bound instead", () => {
    const a = analyzer();
    expect(show(a.simplify(lt(floordiv(x, 8), 5)))).toBe("x < 40");
    expect(show(a.simplify(le(floordiv(x, 8), 5)))).toBe("x <= 47");
    expect(show(a.simplify(lt(5, floordiv(x, 8))))).toBe("47 < x");
  });

  it("agrees with the original on every operator, side and value", () => {
    const ops: BinaryOp[] = ["lt", "le", "gt", "ge"];
    fc.assert(
      fc.property(
        fc.constantFrom(...ops),
        fc.boolean(),
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: -8, max: 30 }),
        fc.integer({ min: X_MIN, max: X_MIN + X_EXTENT - 1 }),
        (op, quotientLeft, c, k, value) => {
          const q = floordiv(x, c);
          const e = quotientLeft ? binary(op, q, k) : binary(op, k, q);
          const env = new Map([[x, value]]);
          expect(evalInt(analyzer().simplify(e), env)).toBe(evalInt(e, env));
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe("bound next to a remainder test", () => {
  it("drops the top of the last period the remainder test rejects", () => {
    const a = analyzer();
    // x < 128 rejects nothing more than x % 32 < 31 does above 126.
    expect(show(a.simplify(and(lt(x, 128), lt(floormod(x, 32), 31))))).toBe("x < 127 && x % 32 < 31");
    // A partial last period (100 = 3*32 + 4) of 4 values, 2 of them rejected by x % 32 < 2.
    expect(show(a.simplify(and(lt(floormod(x, 32), 2), lt(x, 100))))).toBe("x % 32 < 2 && x < 98");
    // The last period's remainders all pass: nothing to tighten.
    expect(show(a.simplify(and(lt(x, 100), lt(floormod(x, 32), 7))))).toBe("x < 100 && x % 32 < 7");
  });

  it("agrees with the original on random bounds, divisors and values", () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.boolean(),
        fc.integer({ min: -20, max: 150 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: X_MIN, max: X_MIN + X_EXTENT - 1 }),
        (strict, swapped, c1, c2, c3, value) => {
          const bound = strict ? lt(x, c1) : le(x, c1);
          const rem = lt(floormod(x, c2), intImm(c3, "int32"));
          const e = swapped ? and(rem, bound) : and(bound, rem);
          const env = new Map([[x, value]]);
          expect(evalInt(analyzer().simplify(e), env)).toBe(evalInt(e, env));
        },
      ),
      { numRuns: 400 },
    );
  });
});
