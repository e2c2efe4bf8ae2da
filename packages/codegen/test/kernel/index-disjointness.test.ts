/**
 * The disjointness proof behind threadSync's conflict check: examples for each argument it
 * makes, and a fast-check property that it never claims two accesses disjoint when some values
 * of their variables make them equal (checked by enumeration).
 */
import { type IntBound, type PrimExpr, type Var, add, floordiv, floormod, intImm, mul, ramp, variable } from "@tessera/ir";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { DisjointnessCache, provablyDisjoint } from "../../src/lower/kernel/index-disjointness.js";

const k = variable("k");
const t = variable("threadIdx_x");
const r = variable("r");
const BOUNDS = new Map<Var, IntBound>([
  [k, { min: 0, max: 7 }],
  [t, { min: 0, max: 3 }],
  [r, { min: 0, max: 3 }],
]);
const facts = { boundOf: (v: Var) => BOUNDS.get(v) };
/** The thread index and the summarised iterator differ between the two accesses; `k` is shared. */
const independent = (v: Var): boolean => v === t || v === r;

function disjoint(a: PrimExpr, b: PrimExpr): boolean {
  return provablyDisjoint([a], [b], independent, facts);
}

describe("provablyDisjoint", () => {
  test("versions k+1 and k of a double buffer (the rest within the version stride)", () => {
    expect(disjoint(add(mul(floormod(add(k, 1), 2), 8), add(mul(r, 2), floordiv(t, 2))), add(mul(floormod(k, 2), 8), t))).toBe(true);
  });

  test("versions k+2 and k of a triple buffer, and k+3 of a quadruple one", () => {
    expect(disjoint(add(mul(floormod(add(k, 2), 3), 4), t), add(mul(floormod(k, 3), 4), t))).toBe(true);
    expect(disjoint(add(mul(floormod(add(k, 3), 4), 4), t), add(mul(floormod(k, 4), 4), r))).toBe(true);
  });

  test("the same version, or a version of another iteration, is not disjoint", () => {
    expect(disjoint(add(mul(floormod(k, 2), 4), t), add(mul(floormod(k, 2), 4), r))).toBe(false);
    expect(disjoint(add(mul(floormod(add(k, 2), 2), 4), t), add(mul(floormod(k, 2), 4), t))).toBe(false);
    expect(disjoint(add(mul(floormod(add(r, 1), 2), 4), t), add(mul(floormod(r, 2), 4), t))).toBe(false);
  });

  test("a remainder that reaches past the stride defeats the version argument", () => {
    expect(disjoint(add(mul(floormod(add(k, 1), 2), 4), add(t, r)), add(mul(floormod(k, 2), 4), t))).toBe(false);
  });

  test("constant versions: ranges that do not meet", () => {
    expect(disjoint(add(t, 4), t)).toBe(true);
    expect(disjoint(add(t, 3), t)).toBe(false);
  });

  test("vector indices stand for all their lanes", () => {
    expect(disjoint(ramp(mul(floormod(add(k, 1), 2), 4), 1, 4), ramp(mul(floormod(k, 2), 4), 1, 4))).toBe(true);
    expect(disjoint(ramp(mul(floormod(k, 2), 4), 1, 4), add(mul(floormod(k, 2), 4), 3))).toBe(false);
  });

  test("never disjoint when some values make the two elements equal (enumerated)", () => {
    /** An index and its value under (k, t, r). */
    type Index = { expr: PrimExpr; at: (k: number, t: number, r: number) => number };
    const mod = (a: number, n: number): number => ((a % n) + n) % n;
    const term = fc.oneof(
      fc
        .record({ n: fc.integer({ min: 2, max: 4 }), shift: fc.integer({ min: 0, max: 3 }), c: fc.constantFrom(1, 2, 4, 8, -4) })
        .map(({ n, shift, c }): Index => ({ expr: mul(floormod(add(k, shift), n), c), at: (kv) => mod(kv + shift, n) * c })),
      fc.constantFrom(1, 2, 3).map((c): Index => ({ expr: mul(t, c), at: (_k, tv) => tv * c })),
      fc.constantFrom(1, 2, 4).map((c): Index => ({ expr: mul(r, c), at: (_k, _t, rv) => rv * c })),
      fc.constantFrom(2, 4).map((c): Index => ({ expr: mul(floordiv(t, 2), c), at: (_k, tv) => Math.floor(tv / 2) * c })),
      fc.integer({ min: -8, max: 8 }).map((c): Index => ({ expr: intImm(c), at: () => c })),
    );
    const index = fc
      .array(term, { minLength: 1, maxLength: 4 })
      .map((ts): Index => ({ expr: ts.map((x) => x.expr).reduce((a, b) => add(a, b)), at: (kv, tv, rv) => ts.reduce((s, x) => s + x.at(kv, tv, rv), 0) }));
    let proven = 0;
    fc.assert(
      fc.property(index, index, (a, b) => {
        if (!disjoint(a.expr, b.expr)) return;
        proven++;
        // The first clash found, if any (one expect per pair: an expect per value costs more than the proof).
        let clash: string | undefined;
        for (let kv = 0; kv <= 7 && clash === undefined; kv++) {
          for (let ta = 0; ta <= 3; ta++) {
            for (let ra = 0; ra <= 3; ra++) {
              const ea = a.at(kv, ta, ra);
              for (let tb = 0; tb <= 3; tb++) {
                for (let rb = 0; rb <= 3; rb++) if (b.at(kv, tb, rb) === ea) clash ??= `k=${kv}: a(t=${ta}, r=${ra}) = b(t=${tb}, r=${rb}) = ${ea}`;
              }
            }
          }
        }
        expect(clash, "an element both indices reach").toBeUndefined();
      }),
      { numRuns: 400 },
    );
    // The property is only worth its name if the proof succeeds on a fair share of the pairs.
    expect(proven).toBeGreaterThan(40);
  });

  test("a cache shared by many checks, the domains changing in between, answers as fresh checks do", () => {
    const pairs = [
      [add(mul(floormod(add(k, 1), 2), 8), t), add(mul(floormod(k, 2), 8), t)],
      [ramp(mul(floormod(add(k, 1), 2), 4), 1, 4), ramp(mul(floormod(k, 2), 4), 1, 4)],
      // Compound on both sides, so that both have bounds in the cache.
      [add(t, 4), mul(t, 1)],
      [add(mul(floormod(k, 2), 4), t), add(mul(floormod(k, 2), 4), r)],
    ] as const;
    const bounds = new Map(BOUNDS);
    const versioned = { version: 0, boundOf: (v: Var) => bounds.get(v) };
    const cache = new DisjointnessCache();
    const answers = () =>
      pairs.map(([a, b]) => [provablyDisjoint([a], [b], independent, versioned, cache), provablyDisjoint([a], [b], independent, versioned)]);
    for (const [shared, fresh] of answers()) expect(shared).toBe(fresh);
    // t may now reach 4: `t + 4` and `t * 1` can meet. A new version must not reuse the old bounds.
    bounds.set(t, { min: 0, max: 7 });
    versioned.version++;
    const after = answers();
    for (const [shared, fresh] of after) expect(shared).toBe(fresh);
    expect(after[2]![0]).toBe(false);
  });
});
