/** Comparisons decided from ranges with a symbolic end (`v` in `[0, n)`). */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { type BinaryOp, add, binary, ge, lt, mul, sub, variable } from "../../src/expr.js";
import { range } from "../../src/stmt.js";
import { Analyzer } from "../../src/arith/index.js";
import { evalInt, show } from "./exprTestUtils.js";

const v = variable("v");
const w = variable("w");
const n = variable("n");

describe("symbolic ranges", () => {
  it("proves a variable below the end of its range", () => {
    const a = new Analyzer();
    a.bind(v, range(0, n));
    expect(show(a.simplify(lt(v, n)))).toBe("True");
    expect(show(a.simplify(ge(v, 0)))).toBe("True");
    expect(show(a.simplify(lt(v, sub(n, 1))))).toBe("v < n - 1");
  });

  it("handles a symbolic start, and compares the variable with its own range's ends only", () => {
    const a = new Analyzer();
    a.bind(v, range(n, 8));
    expect(show(a.simplify(lt(add(v, 3), add(n, 11))))).toBe("True");
    expect(show(a.simplify(ge(v, n)))).toBe("True");
    // True as well, but like TVM's transitive comparisons we do not scale ranges.
    expect(show(a.simplify(lt(mul(v, 2), add(mul(n, 2), 16))))).toBe("v * 2 < n * 2 + 16");
  });

  it("agrees with the original for every value in the ranges", () => {
    const ops: BinaryOp[] = ["lt", "le", "gt", "ge", "eq", "ne"];
    fc.assert(
      fc.property(
        fc.constantFrom(...ops),
        fc.integer({ min: -3, max: 3 }),
        fc.integer({ min: -3, max: 3 }),
        fc.integer({ min: -3, max: 3 }),
        fc.integer({ min: -6, max: 6 }),
        fc.integer({ min: 1, max: 12 }),
        fc.nat(1000),
        fc.nat(1000),
        (op, cv, cw, cn, k, nValue, vPick, wPick) => {
          const a = new Analyzer();
          a.bind(n, range(1, 12));
          a.bind(v, range(0, n));
          a.bind(w, range(n, 5));
          // cv*v + cw*w op cn*n + k
          const e = binary(op, add(mul(v, cv), mul(w, cw)), add(mul(n, cn), k));
          const env = new Map([
            [n, nValue],
            [v, vPick % nValue],
            [w, nValue + (wPick % 5)],
          ]);
          expect(evalInt(a.simplify(e), env)).toBe(evalInt(e, env));
        },
      ),
      { numRuns: 500 },
    );
  });
});
