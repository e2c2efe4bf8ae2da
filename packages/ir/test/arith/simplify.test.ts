import { describe, expect, it } from "vitest";
import {
  add,
  and,
  cast,
  floatImm,
  floordiv,
  floormod,
  ge,
  intImm,
  lt,
  max,
  min,
  mul,
  not,
  or,
  select,
  sub,
  div,
  truncmod,
  variable,
  eq,
  letExpr,
} from "../../src/expr.js";
import { ifThenElse } from "../../src/intrinsics.js";
import { range } from "../../src/stmt.js";
import { IRError } from "../../src/errors.js";
import { Analyzer, simplify } from "../../src/arith/index.js";
import fc from "fast-check";
import { evalInt, show } from "./exprTestUtils.js";

function withBounds(bounds: Array<[ReturnType<typeof variable>, number, number]>): Analyzer {
  const a = new Analyzer();
  for (const [v, lo, extent] of bounds) a.bind(v, range(lo, extent));
  return a;
}

describe("linear canonical form", () => {
  const x = variable("x");
  const y = variable("y");
  it("collects like terms in order of first appearance", () => {
    expect(show(simplify(add(add(mul(x, 2), 3), x)))).toBe("x * 3 + 3");
    expect(show(simplify(add(add(y, x), add(y, 1))))).toBe("y * 2 + x + 1");
  });
  it("cancels terms", () => {
    expect(show(simplify(sub(add(x, 1), x)))).toBe("1");
    expect(show(simplify(sub(mul(add(x, y), 2), mul(y, 2))))).toBe("x * 2");
  });
  it("puts positive terms first and the constant last", () => {
    expect(show(simplify(add(sub(3, mul(y, 2)), x)))).toBe("x - y * 2 + 3");
    expect(show(simplify(sub(5, x)))).toBe("5 - x");
    expect(show(simplify(sub(sub(0, x), 2)))).toBe("x * -1 - 2");
  });
  it("recombines floordiv and floormod pairs", () => {
    expect(show(simplify(add(mul(floordiv(x, 4), 4), floormod(x, 4))))).toBe("x");
    expect(show(simplify(add(mul(floordiv(x, 4), 8), mul(floormod(x, 4), 2))))).toBe("x * 2");
  });
});

describe("constant folding", () => {
  it("folds integer ops with floor and truncation semantics", () => {
    expect(show(simplify(floordiv(intImm(-7), 2)))).toBe("-4");
    expect(show(simplify(floormod(intImm(-7), 2)))).toBe("1");
    expect(show(simplify(div(intImm(-7), 2)))).toBe("-3");
    expect(show(simplify(truncmod(intImm(-7), 2)))).toBe("-1");
    expect(show(simplify(min(intImm(3), 9)))).toBe("3");
  });
  it("never folds a division by zero", () => {
    expect(simplify(floordiv(intImm(1), 0)).kind).toBe("Binary");
  });
  it("rounds float32 results to single precision", () => {
    const r = simplify(add(floatImm(0.1), floatImm(0.2)));
    expect(r.kind).toBe("FloatImm");
    expect(r.kind === "FloatImm" && r.value).toBe(Math.fround(Math.fround(0.1) + Math.fround(0.2)));
    const d = simplify(add(floatImm(0.1, "float64"), floatImm(0.2, "float64")));
    expect(d.kind === "FloatImm" && d.value).toBe(0.1 + 0.2);
  });
  it("does not fold float16 arithmetic", () => {
    expect(simplify(add(floatImm(0.1, "float16"), floatImm(0.2, "float16"))).kind).toBe("Binary");
  });
  it("folds casts only when exact", () => {
    expect(show(simplify(cast("int32", floatImm(2.7))))).toBe("2");
    expect(show(simplify(cast("float32", intImm(16777217))))).toBe(String(Math.fround(16777217)));
    expect(simplify(cast("int8", intImm(300))).kind).toBe("Cast");
  });
  it("keeps float expressions that are not exact identities", () => {
    const f = variable("f", "float32");
    expect(simplify(add(f, floatImm(0))).kind).toBe("Binary");
    expect(simplify(mul(f, floatImm(1)))).toBe(f);
  });
});

describe("floordiv / floormod", () => {
  const i = variable("i");
  const j = variable("j");
  const x = variable("x");
  const an = withBounds([
    [i, 0, 16],
    [j, 0, 4],
  ]);
  it("splits a linear dividend under bounds", () => {
    expect(show(an.simplify(floordiv(add(mul(i, 4), j), 4)))).toBe("i");
    expect(show(an.simplify(floormod(add(mul(i, 4), j), 4)))).toBe("j");
    expect(show(an.simplify(floordiv(add(mul(i, 8), add(j, 4)), 4)))).toBe("i * 2 + 1");
    expect(show(an.simplify(floormod(add(mul(i, 8), add(j, 4)), 4)))).toBe("j");
  });
  it("pulls multiples out even without bounds", () => {
    expect(show(simplify(floordiv(add(mul(x, 6), variable("y")), 3)))).toMatch(/^x \* 2 \+ y \/\/ 3$/);
    expect(show(simplify(floormod(add(mul(x, 6), 7), 3)))).toBe("1");
  });
  it("handles unit divisors and small dividends", () => {
    expect(simplify(floordiv(x, 1))).toBe(x);
    expect(show(simplify(floormod(x, 1)))).toBe("0");
    expect(show(an.simplify(floordiv(j, 4)))).toBe("0");
    expect(an.simplify(floormod(j, 4))).toBe(j);
  });
  it("merges nested divisions", () => {
    expect(show(simplify(floordiv(floordiv(x, 2), 3)))).toBe("x // 6");
    expect(show(simplify(floormod(floormod(x, 8), 4)))).toBe("x % 4");
    expect(show(simplify(floormod(floormod(x, 6), 4)))).toBe("x % 6 % 4");
  });
  it("turns truncating division of a non-negative dividend into floor division", () => {
    expect(show(an.simplify(div(add(mul(i, 4), j), 4)))).toBe("i");
    expect(show(an.simplify(truncmod(add(mul(i, 4), j), 4)))).toBe("j");
    expect(show(simplify(div(x, 4)))).toBe("T.truncdiv(x, 4)");
  });
});

describe("min / max / comparisons / logic", () => {
  const i = variable("i");
  const n = variable("n");
  const an = withBounds([[i, 0, 32]]);
  it("decides min and max from bounds", () => {
    expect(an.simplify(min(i, 40))).toBe(i);
    expect(show(an.simplify(max(i, 40)))).toBe("40");
    expect(an.simplify(max(i, 0))).toBe(i);
    expect(show(an.simplify(min(i, n)))).toBe("T.min(i, n)");
    expect(an.simplify(min(n, add(n, 1)))).toBe(n);
  });
  it("decides comparisons from bounds", () => {
    expect(show(an.simplify(lt(i, 32)))).toBe("True");
    expect(show(an.simplify(ge(i, 32)))).toBe("False");
    expect(show(an.simplify(lt(i, 31)))).toBe("i < 31");
  });
  it("simplifies and / or / not", () => {
    expect(show(an.simplify(and(lt(i, 32), lt(n, 4))))).toBe("n < 4");
    expect(show(an.simplify(or(lt(i, 32), lt(n, 4))))).toBe("True");
    expect(show(simplify(not(lt(n, 4))))).toBe("n >= 4");
    expect(show(simplify(not(not(eq(n, 4)))))).toBe("n == 4");
  });
  it("reduces selects and if_then_else with known conditions", () => {
    expect(an.simplify(select(lt(i, 32), i, n))).toBe(i);
    expect(show(simplify(select(lt(n, 3), n, n)))).toBe("n");
    expect(an.simplify(ifThenElse(ge(i, 32), n, i))).toBe(i);
  });
  it("inlines lets of constants", () => {
    const t = variable("t");
    expect(show(simplify(letExpr(t, 3, add(t, n))))).toBe("n + 3");
  });
});

describe("Analyzer", () => {
  const i = variable("i");
  const j = variable("j");
  it("computes constant bounds", () => {
    const an = withBounds([
      [i, 0, 8],
      [j, 2, 3],
    ]);
    expect(an.constIntBound(add(mul(i, 4), j))).toEqual({ min: 2, max: 32 });
    expect(an.constIntBound(floordiv(i, 3))).toEqual({ min: 0, max: 2 });
    expect(an.constIntBound(sub(j, i))).toEqual({ min: -5, max: 4 });
    expect(an.constIntBound(variable("k", "int64"))).toEqual({ min: -Infinity, max: Infinity });
  });
  it("substitutes bound expressions", () => {
    const an = withBounds([[j, 0, 4]]);
    an.bind(i, add(j, 1));
    expect(show(an.simplify(sub(i, j)))).toBe("1");
    expect(an.constIntBound(i)).toEqual({ min: 1, max: 4 });
  });
  it("proves only what holds", () => {
    const an = withBounds([[i, 0, 8]]);
    expect(an.canProve(lt(i, 8))).toBe(true);
    expect(an.canProve(lt(i, 7))).toBe(false);
    expect(an.canProveEqual(floordiv(add(mul(i, 4), 3), 4), i)).toBe(true);
    expect(an.canProveLess(i, 9)).toBe(true);
    expect(an.canProveGreaterEqual(i, 1)).toBe(false);
  });
  it("rejects inconsistent or self-referential bindings", () => {
    const an = withBounds([[i, 0, 8]]);
    expect(() => an.bind(i, range(0, 4))).toThrow(IRError);
    an.bind(i, range(0, 4), true);
    expect(an.constIntBound(i)).toEqual({ min: 0, max: 3 });
    expect(() => an.bind(j, add(j, 1))).toThrow(/uses j/);
    expect(() => an.bind(j, range(0, 0))).toThrow(/empty/);
  });
});

describe("division of a scaled term plus a small remainder", () => {
  const t = variable("t");
  const v = variable("v");
  it("(t*4 + v) // 8 and % 8 with 0 <= v < 4 drop v from the quotient (a fused, vectorized copy loop)", () => {
    const a = withBounds([
      [t, 0, 256],
      [v, 0, 4],
    ]);
    expect(show(a.simplify(floordiv(add(mul(t, 4), v), 8)))).toBe("t // 2");
    expect(show(a.simplify(floormod(add(mul(t, 4), v), 8)))).toBe("t % 2 * 4 + v");
  });
  it("keeps the division when the small part can reach the next multiple", () => {
    const a = withBounds([
      [t, 0, 256],
      [v, 0, 5],
    ]);
    expect(show(a.simplify(floordiv(add(mul(t, 4), v), 8)))).toBe("(t * 4 + v) // 8");
  });
  it("agrees with integer division on random scales, divisors and bounds", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 0, max: 11 }),
        (d, m, vExtent, tValue, vValue) => {
          const c = d * m;
          const a = withBounds([
            [t, 0, 64],
            [v, 0, vExtent],
          ]);
          const e = add(mul(t, d), v);
          const vv = vValue % vExtent;
          const env = new Map([
            [t, tValue],
            [v, vv],
          ]);
          const want = d * tValue + vv;
          expect(evalInt(a.simplify(floordiv(e, c)), env)).toBe(Math.floor(want / c));
          expect(evalInt(a.simplify(floormod(e, c)), env)).toBe(((want % c) + c) % c);
        },
      ),
      { numRuns: 300 },
    );
  });
});
