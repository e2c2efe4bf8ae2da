/**
 * Canonical simplification of TVM-style reductions (`Analyzer.canonicalSimplifyReduction`):
 * cases of our own for each step (combiner simplified under known bounds, unused components
 * dropped with the value index moved, side effects kept, the no-axis step, sources simplified
 * under the axes' domains), constructor errors, and a soundness property that folds both sides
 * over their axes on random points (ARITH_RUNS runs; 10⁴ in the issue's measurement).
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { Analyzer, type Reduction, evalIntExpr, isReduction, reduction, sameReduction } from "../../src/arith/index.js";
import { IRError } from "../../src/errors.js";
import { type PrimExpr, type Var, add, call, constant, lt, max, min, mul, select, sub, variable } from "../../src/expr.js";
import { range } from "../../src/stmt.js";

const RUNS = { numRuns: Number(process.env["ARITH_RUNS"] ?? 600) };
const TIMEOUT = { timeout: Math.max(60_000, RUNS.numRuns * 20) };

const i32 = (v: number) => constant(v, "int32");
const vars = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => variable(`${prefix}${i}`, "int32"));

/** A reduction over k in [0, 4) of int32 components. */
function over(
  k: Var,
  parts: { result: PrimExpr[]; lhs: Var[]; rhs: Var[]; identity: number[]; source: PrimExpr[]; valueIndex: number; init?: number[] },
): Reduction {
  return reduction({
    combiner: { lhs: parts.lhs, rhs: parts.rhs, result: parts.result, identity: parts.identity.map(i32) },
    source: parts.source,
    axes: [{ var: k, dom: range(0, 4) }],
    valueIndex: parts.valueIndex,
    init: parts.init?.map(i32),
  });
}

describe("canonicalSimplifyReduction", () => {
  test("the combiner's select folds under a known bound of its condition", () => {
    const k = variable("k", "int32");
    const d = variable("d", "int32");
    const [x] = vars("x", 1) as [Var];
    const [y] = vars("y", 1) as [Var];
    const an = new Analyzer();
    an.bind(d, range(3, 5));
    const r = over(k, { lhs: [x], rhs: [y], result: [select(lt(d, 0), add(x, y), mul(x, y))], identity: [1], source: [k], valueIndex: 0 });
    const out = an.canonicalSimplifyReduction(r);
    const want = over(k, { lhs: [x], rhs: [y], result: [mul(x, y)], identity: [1], source: [k], valueIndex: 0 });
    expect(isReduction(out) && sameReduction(out, want)).toBe(true);
  });

  test("components the value does not depend on are dropped, and the value index follows", () => {
    const k = variable("k", "int32");
    const x = vars("x", 3);
    const y = vars("y", 3);
    // Component 2 reads component 0; component 1 is independent.
    const result = [add(x[0]!, y[0]!), max(x[1]!, y[1]!), add(x[2]!, y[0]!)];
    const r = over(k, { lhs: x, rhs: y, result, identity: [0, -100, 0], source: [k, mul(k, 2), add(k, 1)], valueIndex: 2, init: [5, 6, 7] });
    const out = new Analyzer().canonicalSimplifyReduction(r);
    const want = reduction({
      combiner: { lhs: [x[0]!, x[2]!], rhs: [y[0]!, y[2]!], result: [result[0]!, result[2]!], identity: [i32(0), i32(0)] },
      source: [k, add(k, 1)],
      axes: r.axes,
      valueIndex: 1,
      init: [i32(5), i32(7)],
    });
    expect(isReduction(out) && sameReduction(out, want)).toBe(true);
  });

  test("a component whose source has a side effect is kept", () => {
    const k = variable("k", "int32");
    const x = vars("x", 2);
    const y = vars("y", 2);
    const effect = call("int32", "record_and_return", [k]);
    const r = over(k, { lhs: x, rhs: y, result: [add(x[0]!, y[0]!), add(x[1]!, y[1]!)], identity: [0, 0], source: [k, effect], valueIndex: 0 });
    const out = new Analyzer().canonicalSimplifyReduction(r);
    expect(isReduction(out) && out.source.length).toBe(2);
    const pure = over(k, { lhs: x, rhs: y, result: [add(x[0]!, y[0]!), add(x[1]!, y[1]!)], identity: [0, 0], source: [k, mul(k, 3)], valueIndex: 0 });
    const dropped = new Analyzer().canonicalSimplifyReduction(pure);
    expect(isReduction(dropped) && dropped.source.length).toBe(1);
  });

  test("sources are simplified under the axes' domains, which stay bound afterwards (as TVM's Bind)", () => {
    const k = variable("k", "int32");
    const [x] = vars("x", 1) as [Var];
    const [y] = vars("y", 1) as [Var];
    const an = new Analyzer();
    const r = over(k, { lhs: [x], rhs: [y], result: [add(x, y)], identity: [0], source: [select(lt(k, 9), k, i32(0))], valueIndex: 0 });
    const out = an.canonicalSimplifyReduction(r);
    expect(isReduction(out) && out.source[0]).toBe(k);
    expect(an.canProve(lt(k, 4))).toBe(true);
  });

  test("no axes: one step of the combiner from init where the condition holds, else init", () => {
    const k = variable("k", "int32");
    const a = variable("a", "int32");
    const [x] = vars("x", 1) as [Var];
    const [y] = vars("y", 1) as [Var];
    const an = new Analyzer();
    an.bind(k, range(0, 10));
    const step = (cond: PrimExpr) =>
      an.canonicalSimplifyReduction(
        reduction({
          combiner: { lhs: [x], rhs: [y], result: [add(x, y)], identity: [i32(0)] },
          source: [a],
          axes: [],
          condition: cond,
          valueIndex: 0,
          init: [i32(3)],
        }),
      );
    expect(step(lt(20, k))).toEqual(i32(3));
    const taken = step(lt(k, 20));
    expect(isReduction(taken)).toBe(false);
    expect(evalIntExpr(taken as PrimExpr, new Map([[a, 4]]))).toBe(7);
  });

  test("malformed reductions are refused with what is wrong", () => {
    const k = variable("k", "int32");
    const x = vars("x", 2);
    const y = vars("y", 2);
    const parts = { lhs: x, rhs: y, result: [add(x[0]!, y[0]!), add(x[1]!, y[1]!)], identity: [0, 0], source: [k, k] };
    expect(() => over(k, { ...parts, valueIndex: 2 })).toThrow(/Reduce: value index 2 is outside the 2 components/);
    expect(() => over(k, { ...parts, source: [k], valueIndex: 0 })).toThrow(/Reduce: the combiner has 2 results but 1 source entries/);
    expect(() => over(k, { ...parts, init: [1], valueIndex: 0 })).toThrow(IRError);
    const f = variable("f", "float32");
    expect(() => over(k, { ...parts, source: [k, f], valueIndex: 0 })).toThrow(/component 1 has source dtype float32 but lhs dtype int32/);
  });
});

// ---------------------------------------------------------------- soundness

/** Folds a reduction at a point of its free variables (TVM's semantics: init or identity, then one combine per element where the condition holds). */
function evalReduction(r: Reduction, env: ReadonlyMap<Var, number>): number | undefined {
  const start = r.init.length > 0 ? r.init : r.combiner.identity;
  let acc: (number | undefined)[] = start.map((e) => evalIntExpr(e, env));
  const points = (axis: number, at: Map<Var, number>): void => {
    if (axis === r.axes.length) {
      if (evalIntExpr(r.condition, at) === 0) return;
      const src = r.source.map((e) => evalIntExpr(e, at));
      const scope = new Map(at);
      r.combiner.lhs.forEach((v, i) => acc[i] !== undefined && scope.set(v, acc[i]!));
      r.combiner.rhs.forEach((v, i) => src[i] !== undefined && scope.set(v, src[i]!));
      acc = r.combiner.result.map((e) => evalIntExpr(e, scope));
      return;
    }
    const { var: v, dom } = r.axes[axis]!;
    const lo = evalIntExpr(dom.min, at)!;
    const n = evalIntExpr(dom.extent, at)!;
    for (let i = lo; i < lo + n; i++) points(axis + 1, new Map(at).set(v, i));
  };
  points(0, new Map(env));
  return acc[r.valueIndex];
}

const d = variable("d", "int32");
const k0 = variable("k0", "int32");
const k1 = variable("k1", "int32");

/** An int32 expression over `leaves`, small enough not to overflow over 16 combines. */
function exprOver(leaves: fc.Arbitrary<PrimExpr>): fc.Arbitrary<PrimExpr> {
  const { e } = fc.letrec<{ e: PrimExpr }>((tie) => ({
    e: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      leaves,
      fc.tuple(tie("e"), tie("e")).map(([a, b]) => add(a, b)),
      fc.tuple(tie("e"), tie("e")).map(([a, b]) => sub(a, b)),
      fc.tuple(tie("e"), tie("e")).map(([a, b]) => min(a, b)),
      fc.tuple(tie("e"), tie("e")).map(([a, b]) => max(a, b)),
      tie("e").map((a) => mul(a, 2)),
      fc.tuple(fc.integer({ min: -3, max: 12 }), tie("e"), tie("e")).map(([c, a, b]) => select(lt(d, c), a, b)),
    ),
  }));
  return e;
}

const AXIS_CHOICES = [
  [{ var: k0, dom: range(0, 4) }],
  [
    { var: k0, dom: range(-2, 3) },
    { var: k1, dom: range(1, 2) },
  ],
];

/** Reductions of 1–3 components; sources read the reduction's own axes and d only. */
const reductions: fc.Arbitrary<Reduction> = fc.tuple(fc.integer({ min: 1, max: 3 }), fc.constantFrom(...AXIS_CHOICES)).chain(([n, axes]) => {
  const x = vars("x", n);
  const y = vars("y", n);
  const small = fc.integer({ min: -4, max: 4 }).map(i32);
  const combinerLeaf = fc.oneof(fc.constantFrom<PrimExpr>(...x, ...y, d), small);
  const sourceLeaf = fc.oneof(fc.constantFrom<PrimExpr>(...axes.map((a) => a.var), d), small);
  const list = (a: fc.Arbitrary<PrimExpr>) => fc.array(a, { minLength: n, maxLength: n });
  return fc
    .record({
      result: list(exprOver(combinerLeaf)),
      identity: list(small),
      source: list(exprOver(sourceLeaf)),
      init: fc.option(list(small), { nil: undefined }),
      condition: fc.option(
        fc.integer({ min: -2, max: 4 }).map((c) => lt(k0, c)),
        { nil: undefined },
      ),
      valueIndex: fc.integer({ min: 0, max: n - 1 }),
    })
    .map((p) =>
      reduction({
        combiner: { lhs: x, rhs: y, result: p.result, identity: p.identity },
        source: p.source,
        axes,
        condition: p.condition,
        valueIndex: p.valueIndex,
        init: p.init,
      }),
    );
});

test("simplified reductions fold to the same value as the originals (d bound to [-2, 5])", TIMEOUT, () => {
  fc.assert(
    fc.property(reductions, fc.integer({ min: -2, max: 5 }), (r, dv) => {
      const an = new Analyzer();
      an.bind(d, range(-2, 8));
      const out = an.canonicalSimplifyReduction(r);
      const env = new Map([[d, dv]]);
      const want = evalReduction(r, env);
      const got = isReduction(out) ? evalReduction(out, env) : evalIntExpr(out, env);
      expect(got).toBe(want);
    }),
    RUNS,
  );
});
