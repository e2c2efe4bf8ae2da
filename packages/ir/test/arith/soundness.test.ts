/**
 * Property tests: simplification, constant bounds and interval sets agree with a reference
 * evaluator on random integer expressions and random assignments inside the declared ranges.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type PrimExpr, type Var, add, and, binary, eq, ge, intImm, lt, max, min, mul, ne, not, or, select, sub, variable, le } from "../../src/expr.js";
import { range } from "../../src/stmt.js";
import { Analyzer, type IntervalSet, evalSet } from "../../src/arith/index.js";
import { evalInt, show } from "./exprTestUtils.js";

const x = variable("x");
const y = variable("y");
const z = variable("z");
const w = variable("w");
/** Inclusive ranges; w is left unbound for the analyzer (any int32 value is allowed). */
const RANGES = new Map<Var, [number, number]>([
  [x, [-8, 8]],
  [y, [0, 15]],
  [z, [1, 5]],
  [w, [-50, 50]],
]);

function boundAnalyzer(): Analyzer {
  const an = new Analyzer();
  for (const v of [x, y, z]) {
    const [lo, hi] = RANGES.get(v)!;
    an.bind(v, range(lo, hi - lo + 1));
  }
  return an;
}

const nonZero = fc.integer({ min: -6, max: 6 }).filter((c) => c !== 0);
const DIV_OPS = ["div", "mod", "floordiv", "floormod"] as const;
const CMP_OPS = [eq, ne, lt, le, ge] as const;

const { intExpr, boolExpr } = fc.letrec<{ intExpr: PrimExpr; boolExpr: PrimExpr }>((tie) => ({
  intExpr: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom<PrimExpr>(x, y, z, w),
    fc.integer({ min: -10, max: 10 }).map((c) => intImm(c)),
    fc.tuple(tie("intExpr"), tie("intExpr")).map(([a, b]) => add(a, b)),
    fc.tuple(tie("intExpr"), tie("intExpr")).map(([a, b]) => sub(a, b)),
    fc.tuple(tie("intExpr"), fc.integer({ min: -4, max: 4 })).map(([a, c]) => mul(a, c)),
    fc.tuple(tie("intExpr"), tie("intExpr")).map(([a, b]) => mul(a, b)),
    fc.tuple(fc.constantFrom(...DIV_OPS), tie("intExpr"), nonZero).map(([op, a, c]) => binary(op, a, c)),
    fc.tuple(fc.constantFrom("floordiv", "floormod") as fc.Arbitrary<"floordiv" | "floormod">, tie("intExpr")).map(([op, a]) => binary(op, a, z)),
    fc.tuple(tie("intExpr"), tie("intExpr")).map(([a, b]) => min(a, b)),
    fc.tuple(tie("intExpr"), tie("intExpr")).map(([a, b]) => max(a, b)),
    fc.tuple(tie("boolExpr"), tie("intExpr"), tie("intExpr")).map(([c, a, b]) => select(c, a, b)),
  ),
  boolExpr: fc.oneof(
    { depthSize: "small" },
    fc.tuple(fc.constantFrom(...CMP_OPS), tie("intExpr"), tie("intExpr")).map(([f, a, b]) => f(a, b)),
    fc.tuple(tie("boolExpr"), tie("boolExpr")).map(([a, b]) => and(a, b)),
    fc.tuple(tie("boolExpr"), tie("boolExpr")).map(([a, b]) => or(a, b)),
    tie("boolExpr").map((a) => not(a)),
  ),
}));

const assignment = fc.record({
  x: fc.integer({ min: -8, max: 8 }),
  y: fc.integer({ min: 0, max: 15 }),
  z: fc.integer({ min: 1, max: 5 }),
  w: fc.integer({ min: -50, max: 50 }),
});
type Assignment = { x: number; y: number; z: number; w: number };

function env(a: Assignment): Map<Var, number> {
  return new Map([
    [x, a.x],
    [y, a.y],
    [z, a.z],
    [w, a.w],
  ]);
}

/** Evaluates, mapping division by zero (a generated-expression artefact) to undefined. */
function tryEval(e: PrimExpr, values: Map<Var, number>): number | undefined {
  const v = evalInt(e, values);
  return Number.isFinite(v) ? v : undefined;
}

/** ARITH_RUNS raises the count for a longer hunt; the default keeps the suite fast. */
const RUNS = { numRuns: Number(process.env["ARITH_RUNS"] ?? 600) };
/** Long hunts (ARITH_RUNS=10000) outlast vitest's default timeout on a loaded machine. */
const TIMEOUT = { timeout: Math.max(60_000, RUNS.numRuns * 100) };

describe("simplifier soundness", () => {
  it("preserves integer expression values", TIMEOUT, () => {
    const an = boundAnalyzer();
    fc.assert(
      fc.property(intExpr, fc.array(assignment, { minLength: 4, maxLength: 4 }), (e, points) => {
        const s = an.simplify(e);
        for (const p of points) {
          const before = tryEval(e, env(p));
          if (before === undefined) continue;
          expect(evalInt(s, env(p)), `${show(e)}  ~>  ${show(s)}`).toBe(before);
        }
      }),
      RUNS,
    );
  });

  it("rewriteSimplify (TVM's rules) preserves integer and boolean values", TIMEOUT, () => {
    const an = boundAnalyzer();
    fc.assert(
      fc.property(fc.oneof(intExpr, boolExpr), fc.array(assignment, { minLength: 4, maxLength: 4 }), (e, points) => {
        const s = an.rewriteSimplify(e);
        for (const p of points) {
          const before = tryEval(e, env(p));
          if (before === undefined) continue;
          expect(evalInt(s, env(p)), `${show(e)}  ~>  ${show(s)}`).toBe(before);
        }
      }),
      RUNS,
    );
  });

  it("canonicalSimplify (TVM's canonical forms) preserves integer and boolean values", TIMEOUT, () => {
    const an = boundAnalyzer();
    fc.assert(
      fc.property(fc.oneof(intExpr, boolExpr), fc.array(assignment, { minLength: 4, maxLength: 4 }), (e, points) => {
        const s = an.canonicalSimplify(e);
        for (const p of points) {
          const before = tryEval(e, env(p));
          if (before === undefined) continue;
          expect(evalInt(s, env(p)), `${show(e)}  ~>  ${show(s)}`).toBe(before);
        }
      }),
      RUNS,
    );
  });

  it("preserves boolean expression values", TIMEOUT, () => {
    const an = boundAnalyzer();
    fc.assert(
      fc.property(boolExpr, fc.array(assignment, { minLength: 4, maxLength: 4 }), (e, points) => {
        const s = an.simplify(e);
        for (const p of points) {
          const before = tryEval(e, env(p));
          if (before === undefined) continue;
          expect(evalInt(s, env(p)), `${show(e)}  ~>  ${show(s)}`).toBe(before);
        }
      }),
      RUNS,
    );
  });

  it("canProve never proves a condition that fails somewhere, at either strength", TIMEOUT, () => {
    const an = boundAnalyzer();
    fc.assert(
      fc.property(
        boolExpr,
        fc.array(assignment, { minLength: 4, maxLength: 4 }),
        fc.constantFrom("default", "symbolicBound" as const),
        (e, points, strength) => {
          if (!an.canProve(e, strength)) return;
          for (const p of points) {
            const v = tryEval(e, env(p));
            if (v !== undefined) expect(v, show(e)).toBe(1);
          }
        },
      ),
      RUNS,
    );
  });
});

describe("constIntBound soundness", () => {
  it("contains every value", TIMEOUT, () => {
    const an = boundAnalyzer();
    fc.assert(
      fc.property(intExpr, fc.array(assignment, { minLength: 4, maxLength: 4 }), (e, points) => {
        const b = an.constIntBound(e);
        for (const p of points) {
          const v = tryEval(e, env(p));
          if (v === undefined) continue;
          expect(v, `${show(e)} in [${b.min}, ${b.max}]`).toBeGreaterThanOrEqual(b.min);
          expect(v, `${show(e)} in [${b.min}, ${b.max}]`).toBeLessThanOrEqual(b.max);
        }
      }),
      RUNS,
    );
  });
});

describe("evalSet soundness", () => {
  it("contains every value when x and y range over their domains and z, w stay symbolic", TIMEOUT, () => {
    const dom = new Map<Var, IntervalSet>([
      [x, { min: intImm(-8), max: intImm(8) }],
      [y, { min: intImm(0), max: intImm(15) }],
    ]);
    const an = new Analyzer();
    an.bind(z, range(1, 5));
    fc.assert(
      fc.property(intExpr, fc.array(assignment, { minLength: 4, maxLength: 4 }), (e, points) => {
        const set = evalSet(e, dom, an);
        for (const p of points) {
          const values = env(p);
          const v = tryEval(e, values);
          if (v === undefined) continue;
          // The ends may only mention the symbolic variables z and w.
          if (set.min.kind !== "NegInf") {
            const lo = tryEval(set.min, values);
            if (lo !== undefined) expect(v, `${show(e)} >= ${show(set.min)}`).toBeGreaterThanOrEqual(lo);
          }
          if (set.max.kind !== "PosInf") {
            const hi = tryEval(set.max, values);
            if (hi !== undefined) expect(v, `${show(e)} <= ${show(set.max)}`).toBeLessThanOrEqual(hi);
          }
        }
      }),
      RUNS,
    );
  });
});
