import { describe, expect, it } from "vitest";
import { add, broadcast, intImm, mul, ramp, variable } from "../../src/expr.js";
import { Match, matchPattern, parsePattern } from "../../src/arith/tvm-rewrite/pattern.js";

describe("rewrite patterns: one Match reused across patterns, as the rewriter does", () => {
  const a = variable("a");
  const b = variable("b");

  it("clear() forgets the bindings of the last match, expressions and lanes alike", () => {
    const m = new Match();
    expect(matchPattern(parsePattern("x + 1"), add(a, intImm(1)), m)).toBe(true);
    expect(m.e("x")).toBe(a);
    m.clear();
    // A binding of x to `a` left over would make this match fail.
    expect(matchPattern(parsePattern("x * 2"), mul(b, intImm(2)), m)).toBe(true);
    expect(m.e("x")).toBe(b);

    m.clear();
    expect(matchPattern(parsePattern("ramp(x, 1, lanes)"), ramp(a, intImm(1), 4), m)).toBe(true);
    expect(m.lanes.get("lanes")).toBe(4);
    m.clear();
    expect([m.exprs.size, m.lanes.size]).toEqual([0, 0]);
    expect(matchPattern(parsePattern("bcast(x, lanes)"), broadcast(b, 8), m)).toBe(true);
    expect([m.e("x"), m.lanes.get("lanes")]).toEqual([b, 8]);
  });

  it("clear() of an empty Match leaves it usable, and a failed match's partial bindings are cleared too", () => {
    const m = new Match();
    m.clear();
    // `x + x` against `a + b` binds x to a, then fails on b.
    expect(matchPattern(parsePattern("x + x"), add(a, b), m)).toBe(false);
    m.clear();
    expect(matchPattern(parsePattern("x + x"), add(b, b), m)).toBe(true);
    expect(m.e("x")).toBe(b);
  });
});
