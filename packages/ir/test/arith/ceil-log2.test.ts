import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { Analyzer } from "../../src/arith/analyzer.js";
import { type PrimExpr, call, cast, floatImm, intImm, variable } from "../../src/expr.js";
import { compilePrimFunc, parsePrimFunc } from "../../src/index.js";

const ceilLog2 = (x: PrimExpr, to = "int32"): PrimExpr => cast(to, call(x.dtype, "ceil", [call(x.dtype, "log2", [x])]));

describe("ceil(log2(x)) (topi's ceil_log2) in the analyzer", () => {
  test("a constant argument folds to the integer, as the executor computes it", () => {
    const a = new Analyzer();
    expect(a.tvmSimplify(ceilLog2(floatImm(14, "float64")))).toEqual(intImm(4, "int32"));
    expect(a.tvmSimplify(ceilLog2(floatImm(16, "float64")))).toEqual(intImm(4, "int32"));
    expect(a.tvmSimplify(call("float64", "ceil", [floatImm(2.5, "float64")]))).toEqual(floatImm(3, "float64"));
    // Just past a power of two, float32's log2 rounds down to the power: 23, where float64 gives 24.
    expect(a.tvmSimplify(ceilLog2(floatImm(2 ** 23 + 1, "float32")))).toEqual(intImm(23, "int32"));
    expect(a.tvmSimplify(ceilLog2(floatImm(2 ** 23 + 1, "float64")))).toEqual(intImm(24, "int32"));
    // log2(0) is -inf: nothing an integer cast can hold, so the expression stays.
    expect(a.tvmSimplify(ceilLog2(floatImm(0, "float64"))).kind).toBe("Cast");
  });

  test("property (10^4 points): folding a constant gives the executor's value (float32 and float64, near powers of two too)", () => {
    const a = new Analyzer();
    const nearPowers = fc.tuple(fc.integer({ min: 0, max: 50 }), fc.integer({ min: -3, max: 3 })).map(([k, d]) => Math.max(1, 2 ** k + d));
    const value = fc.oneof(fc.integer({ min: 1, max: 1 << 30 }), nearPowers);
    // 100 points a run, executed together: one executor call per run.
    fc.assert(
      fc.property(fc.array(value, { minLength: POINTS, maxLength: POINTS }), fc.constantFrom("float32", "float64"), (vs, ft) => {
        const want = executedAt(vs, ft);
        vs.forEach((v, k) => {
          const folded = a.tvmSimplify(ceilLog2(cast(ft, intImm(v, "int64"))));
          expect(folded.kind === "IntImm" ? folded.value : undefined, `${ft} ${v}`).toBe(want[k]);
        });
      }),
      { numRuns: 100 },
    );
  });

  test("the bound of int(ceil(log2(float(i + c)))) follows the bound of i", () => {
    const a = new Analyzer();
    const i = variable("i", "int32");
    a.bind(i, { min: intImm(0), extent: intImm(16) });
    expect(a.constIntBound(ceilLog2(cast("float64", add(i, 1025))))).toEqual({ min: 11, max: 11 });
    // Past a power of two the bound widens; at or below zero it says nothing beyond the dtype.
    expect(a.constIntBound(ceilLog2(cast("float64", add(i, 1020))))).toEqual({ min: 10, max: 11 });
    expect(a.constIntBound(ceilLog2(cast("float64", add(i, -4))))).toEqual({ min: -(2 ** 31), max: 2 ** 31 - 1 });
  });

  test("property: the bound holds every value the executor computes", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1 << 24 }), fc.integer({ min: 1, max: 64 }), fc.constantFrom("float32", "float64"), (lo, n, ft) => {
        const a = new Analyzer();
        const i = variable("i", "int32");
        a.bind(i, { min: intImm(0), extent: intImm(n) });
        const b = a.constIntBound(ceilLog2(cast(ft, add(i, lo))));
        const points = Array.from({ length: POINTS }, (_, k) => lo + (k % n));
        for (const v of executedAt(points, ft)) {
          expect(v).toBeGreaterThanOrEqual(b.min);
          expect(v).toBeLessThanOrEqual(b.max);
        }
      }),
      { numRuns: 200 },
    );
  });
});

function add(i: PrimExpr, c: number): PrimExpr {
  return { kind: "Binary", op: "add", dtype: i.dtype, a: i, b: intImm(c, i.dtype) } as PrimExpr;
}

const POINTS = 100;
const programs = new Map<string, ReturnType<typeof compilePrimFunc>>();

/** What the executor computes for `int(ceil(log2(float(v))))` at each of POINTS values (float type `ft`). */
function executedAt(vs: readonly number[], ft: string): number[] {
  let program = programs.get(ft);
  if (program === undefined) {
    program = compilePrimFunc(
      parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((${POINTS},), "int32"), X: T.Buffer((${POINTS},), "int64")):
    for k in range(${POINTS}):
        A[k] = T.Cast("int32", T.ceil(T.log2(T.Cast("${ft}", X[k]))))
`),
    );
    programs.set(ft, program);
  }
  const out = new Int32Array(POINTS);
  program.run([out, Float64Array.from(vs)]);
  return [...out];
}
