import { describe, expect, it } from "vitest";
import { detectIterMap, isAffineBinding, iterMapSimplify, normalizeIterMapToExpr } from "../../src/arith/iter-map/index.js";
import type { IterSum } from "../../src/arith/iter-map/index.js";
import { type PrimExpr, type Var, add, and, intImm, floordiv, floormod, lt, mul, sub, variable } from "../../src/expr.js";
import { type Range, range, rangeFromExtent } from "../../src/stmt.js";
import { structuralEqual } from "../../src/structural/index.js";
import { markExtent } from "../../src/arith/iter-map/types.js";
import fc from "fast-check";
import { assignments, evalExpr, evalSum } from "./evaluate.js";

const doms = (...pairs: [Var, number][]): Map<Var, Range> => new Map(pairs.map(([v, e]) => [v, rangeFromExtent(e)]));
const num = (e: PrimExpr): number => (e.kind === "IntImm" ? e.value : NaN);

function splitShape(sum: IterSum): { lower: number; extent: number; scale: number; markExtent: number }[] {
  return sum.args.map((s) => ({ lower: num(s.lowerFactor), extent: num(s.extent), scale: num(s.scale), markExtent: num(s.source.extent) }));
}

/** Checks that every detected sum evaluates like its index on every input (restricted by `pred`). */
function expectSameValues(indices: PrimExpr[], sums: IterSum[], iters: [Var, number][], pred?: PrimExpr): void {
  for (const env of assignments(iters)) {
    if (pred !== undefined && evalExpr(pred, env) === 0) continue;
    indices.forEach((e, k) => expect(evalSum(sums[k]!, env)).toBe(evalExpr(e, env)));
  }
}

describe("detectIterMap", () => {
  const [i0, i1, i2, f] = [variable("i0"), variable("i1"), variable("i2"), variable("f")];

  it("fuses a split pattern i0 * 8 + i1 into one iterator", () => {
    const idx = [add(mul(i0, 8), i1)];
    const r = detectIterMap(idx, doms([i0, 4], [i1, 8]), undefined, { requireBijective: true });
    expect(r.errors).toEqual([]);
    expect(splitShape(r.indices[0]!)).toEqual([{ lower: 1, extent: 32, scale: 1, markExtent: 32 }]);
    expect(num(r.indices[0]!.base)).toBe(0);
    expectSameValues(idx, r.indices, [
      [i0, 4],
      [i1, 8],
    ]);
  });

  it("splits a fused iterator: f // 16 and f % 16", () => {
    const idx = [floordiv(f, 16), floormod(f, 16)];
    const r = detectIterMap(idx, doms([f, 64]), undefined, { requireBijective: true });
    expect(r.errors).toEqual([]);
    expect(r.indices.map(splitShape)).toEqual([[{ lower: 16, extent: 4, scale: 1, markExtent: 64 }], [{ lower: 1, extent: 16, scale: 1, markExtent: 64 }]]);
    expect(r.indices[0]!.args[0]!.source).toBe(r.indices[1]!.args[0]!.source);
    expectSameValues(idx, r.indices, [[f, 64]]);
  });

  it("fuses nested splits (i0*4 + i1)*8 + i2", () => {
    const idx = [add(mul(add(mul(i0, 4), i1), 8), i2)];
    const iters: [Var, number][] = [
      [i0, 3],
      [i1, 4],
      [i2, 8],
    ];
    const r = detectIterMap(idx, doms(...iters), undefined, { requireBijective: true });
    expect(r.errors).toEqual([]);
    expect(splitShape(r.indices[0]!)).toEqual([{ lower: 1, extent: 96, scale: 1, markExtent: 96 }]);
    expectSameValues(idx, r.indices, iters);
  });

  it("keeps constant offsets and scales in the sum", () => {
    const idx = [add(mul(add(mul(i0, 4), i1), 2), 5)];
    const r = detectIterMap(idx, doms([i0, 3], [i1, 4]));
    expect(r.errors).toEqual([]);
    expect(splitShape(r.indices[0]!)).toEqual([{ lower: 1, extent: 12, scale: 2, markExtent: 12 }]);
    expect(num(r.indices[0]!.base)).toBe(5);
    expectSameValues(idx, r.indices, [
      [i0, 3],
      [i1, 4],
    ]);
  });

  it("shifts iterators that do not start at 0", () => {
    const idx = [i0];
    const r = detectIterMap(idx, new Map([[i0, range(3, 4)]]), undefined, { requireBijective: true });
    expect(r.errors).toEqual([]);
    expect(num(r.indices[0]!.base)).toBe(3);
    for (let v = 3; v < 7; v++) expect(evalSum(r.indices[0]!, new Map([[i0, v]]))).toBe(v);
  });

  it("rejects an iterator used twice: i + i and [i, i]", () => {
    const twice = detectIterMap([add(i0, i0)], doms([i0, 4]));
    expect(twice.indices).toEqual([]);
    expect(twice.errors).toEqual(["index 0 (i0 + i0): iterator i0 is used more than once"]);
    const split = detectIterMap([i0, i0], doms([i0, 4]));
    expect(split.errors).toEqual(["iterator i0 is used more than once (overlapping splits)"]);
    const overlapping = detectIterMap([floordiv(f, 4), floormod(f, 8)], doms([f, 32]));
    expect(overlapping.errors[0]).toMatch(/iterator f is used more than once/);
  });

  it("distinguishes injective from bijective maps", () => {
    const [i, j] = [variable("i"), variable("j")];
    expect(detectIterMap([i], doms([i, 4], [j, 3])).errors).toEqual([]);
    expect(detectIterMap([i], doms([i, 4], [j, 3]), undefined, { requireBijective: true }).errors).toEqual(["iterator j is not used by any index"]);
    expect(detectIterMap([floordiv(f, 4)], doms([f, 32]), undefined, { requireBijective: true }).errors).toEqual([
      "iterator f is not covered: values 1..4 apart are missing",
    ]);
    expect(detectIterMap([floormod(f, 4)], doms([f, 32]), undefined, { requireBijective: true }).errors).toEqual([
      "iterator f is not fully covered: 4 of 32 values are reached",
    ]);
  });

  it("uses a predicate to narrow a fused iterator (non-divisible split)", () => {
    const fused = add(mul(i0, 32), i1);
    const pred = lt(fused, 100);
    const iters: [Var, number][] = [
      [i0, 4],
      [i1, 32],
    ];
    const r = detectIterMap([fused], doms(...iters), pred, { requireBijective: true });
    expect(r.errors).toEqual([]);
    expect(splitShape(r.indices[0]!)).toEqual([{ lower: 1, extent: 100, scale: 1, markExtent: 100 }]);
    expectSameValues([fused], r.indices, iters, pred);

    const parts = [floordiv(fused, 8), floormod(fused, 8)];
    const p = detectIterMap(parts, doms(...iters), pred, { requireBijective: true });
    expect(p.errors).toEqual([]);
    expect(p.indices.map(splitShape)).toEqual([[{ lower: 8, extent: 13, scale: 1, markExtent: 100 }], [{ lower: 1, extent: 8, scale: 1, markExtent: 100 }]]);
    expectSameValues(parts, p.indices, iters, pred);

    const noPred = detectIterMap([fused], doms(...iters));
    expect(splitShape(noPred.indices[0]!)[0]!.extent).toBe(128);
  });

  it("accepts conjunctions and single-iterator bounds, rejects other predicates", () => {
    const pred = and(lt(i0, 3), lt(add(mul(i0, 32), i1), 100));
    expect(detectIterMap([i1], doms([i0, 4], [i1, 32]), pred).errors).toEqual([]);
    const bad = detectIterMap([i0], doms([i0, 4]), lt(i0, i1));
    expect(bad.errors).toEqual(['predicate i0 < i1 is not of the form "iterator expression < constant"']);
    expect(detectIterMap([i0], doms([i0, 4]), lt(floormod(i0, 2), 1)).errors[0]).toMatch(/bounds only part of an iterator/);
  });

  it("normalises unit-extent iterators to their minimum", () => {
    const [u, i] = [variable("u"), variable("i")];
    const r = detectIterMap([add(mul(i, 1), u), u], doms([i, 8], [u, 1]), undefined, { requireBijective: true });
    expect(r.errors).toEqual([]);
    expect(r.indices[1]!.args).toEqual([]);
    expect(num(r.indices[1]!.base)).toBe(0);
    expect(splitShape(r.indices[0]!)).toEqual([{ lower: 1, extent: 8, scale: 1, markExtent: 8 }]);
  });

  it("reports unsupported expressions and ranges with clear errors", () => {
    const [i, j, n] = [variable("i"), variable("j"), variable("n")];
    expect(detectIterMap([mul(i, j)], doms([i, 4], [j, 4])).errors).toEqual(["index 0 (i * j): i * j multiplies two iterator expressions"]);
    expect(detectIterMap([add(i, n)], doms([i, 4])).errors).toEqual(["index 0 (i + n): n is not an input iterator"]);
    expect(detectIterMap([sub(0, i)], doms([i, 4])).errors).toEqual(["index 0 (0 - i): iterator i has a negative coefficient"]);
    expect(detectIterMap([floordiv(i, j)], doms([i, 4], [j, 4])).errors[0]).toMatch(/divisor must be a positive constant/);
    expect(detectIterMap([i], new Map([[i, rangeFromExtent(n)]])).errors).toEqual(["iterator i: only constant ranges are supported, got [0, +n)"]);
    expect(detectIterMap([add(i, j)], doms([i, 4], [j, 4]), undefined, { requireBijective: true }).errors[0]).toMatch(/coefficient 1 where 4 is needed/);
  });

  it("fuses overlapping digits when the map need only be surjective (TVM's closest smaller scale)", () => {
    const [x, y, z] = [variable("x"), variable("y"), variable("z")];
    // y spans 8, x steps by 7: one value of each row overlaps the next, [0, 22) is reached.
    const two = detectIterMap([add(mul(x, 7), y)], doms([x, 3], [y, 8]));
    expect(two.errors).toEqual([]);
    expect(markExtent(two.indices[0]!.args[0]!.source)).toBe(22);
    const three = detectIterMap([add(add(mul(x, 18), mul(y, 7)), z)], doms([x, 2], [y, 3], [z, 8]));
    expect(markExtent(three.indices[0]!.args[0]!.source)).toBe(40);
    expect(detectIterMap([add(mul(x, 7), y)], doms([x, 3], [y, 8]), undefined, { requireBijective: true }).errors[0]).toMatch(
      /coefficient 7 where 8 is needed/,
    );
    // A gap (scale above the span) is never surjective.
    expect(detectIterMap([add(mul(x, 9), y)], doms([x, 3], [y, 8])).errors[0]).toMatch(/coefficient 9 where 8 is needed/);
  });
  it("an overlapping fusion is accepted exactly when its values cover the fused extent without a gap", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 2, max: 6 }), fc.integer({ min: 2, max: 5 }), (scale, yExtent, xExtent) => {
        const [x, y] = [variable("x"), variable("y")];
        const r = detectIterMap([add(mul(x, scale), y)], doms([x, xExtent], [y, yExtent]));
        const reached = new Set<number>();
        for (let xv = 0; xv < xExtent; xv++) for (let yv = 0; yv < yExtent; yv++) reached.add(xv * scale + yv);
        const span = (xExtent - 1) * scale + yExtent;
        expect(r.errors.length === 0).toBe(reached.size === span);
        if (r.errors.length === 0) expect(markExtent(r.indices[0]!.args[0]!.source)).toBe(span);
      }),
      { numRuns: 200 },
    );
  });
});

describe("iterMapSimplify", () => {
  const [i, j, i_0, i_1, f] = [variable("i"), variable("j"), variable("i_0"), variable("i_1"), variable("f")];
  const simplifiesTo = (e: PrimExpr, expected: PrimExpr, d: Map<Var, Range>): void => {
    const [out] = iterMapSimplify([e], d);
    expect(structuralEqual(out!, expected, { compareNames: true })).toBe(true);
  };

  it("simplifies divisions of split patterns", () => {
    simplifiesTo(floordiv(add(mul(i, 4), j), 4), i, doms([i, 8], [j, 4]));
    simplifiesTo(floormod(add(mul(i_0, 32), i_1), 32), i_1, doms([i_0, 8], [i_1, 32]));
    simplifiesTo(floordiv(add(mul(i_0, 32), i_1), 1024), floordiv(add(mul(i_0, 32), i_1), 1024), doms([i_0, 64], [i_1, 32]));
    simplifiesTo(floordiv(add(mul(i_0, 32), i_1), 32), i_0, doms([i_0, 64], [i_1, 32]));
    simplifiesTo(add(mul(floordiv(f, 4), 4), floormod(f, 4)), f, doms([f, 64]));
    simplifiesTo(floormod(floordiv(f, 4), 16), floordiv(f, 4), doms([f, 64]));
    simplifiesTo(floordiv(f, 64), intImm(0), doms([f, 64]));
  });

  it("drops unit-extent iterators", () => {
    const u = variable("u");
    simplifiesTo(add(mul(i, 1), u), i, doms([i, 8], [u, 1]));
  });

  it("returns the original expressions when detection fails", () => {
    const e = mul(i, j);
    expect(iterMapSimplify([e], doms([i, 4], [j, 4]))[0]).toBe(e);
    const twice = [i, add(i, 1)];
    expect(iterMapSimplify(twice, doms([i, 4]))).toEqual(twice);
  });

  it("round-trips detected sums through normalizeIterMapToExpr", () => {
    const idx = [floordiv(f, 16), floormod(f, 16)];
    const r = detectIterMap(idx, doms([f, 64]));
    expect(r.indices.map(normalizeIterMapToExpr).every((e, k) => structuralEqual(e, idx[k]!, { compareNames: true }))).toBe(true);
  });
});

describe("isAffineBinding", () => {
  it("accepts split/fuse bindings and rejects non-affine ones", () => {
    const [i0, i1, f] = [variable("i0"), variable("i1"), variable("f")];
    expect(isAffineBinding([add(mul(i0, 32), i1)], doms([i0, 4], [i1, 32]))).toBe(true);
    expect(isAffineBinding([floordiv(f, 16), floormod(f, 16)], doms([f, 64]))).toBe(true);
    expect(isAffineBinding([mul(i0, i1)], doms([i0, 4], [i1, 32]))).toBe(false);
    expect(isAffineBinding([i0, i0], doms([i0, 4]))).toBe(false);
  });
});
