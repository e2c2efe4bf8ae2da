/**
 * The latency model's point evaluator (latency-model/expr-eval.ts, which places every sampled
 * access and branch of the analytic prior): on random integer index expressions and conditions,
 * its value at a point is the one the IR's simplifier folds the expression to once every variable
 * is replaced by that point's constant — C's truncating div/mod, floor div/mod, min/max, selects,
 * comparisons and lets included. `evaluatorOf`'s closures (what the model runs per lane) give
 * exactly `evaluate`'s values, the unknown ones included.
 */
import {
  type BinaryOp,
  type PrimExpr,
  type Var,
  add,
  binary,
  bufferLoad,
  cast,
  declBuffer,
  floordiv,
  intImm,
  letExpr,
  mul,
  not,
  select,
  simplify,
  substitute,
  variable,
} from "@tessera/ir";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { evaluate, evaluatorOf } from "../../src/latency-model/expr-eval.js";

const vars: readonly Var[] = [variable("i"), variable("j"), variable("k")];
const ARITH: readonly BinaryOp[] = ["add", "sub", "mul", "min", "max"];
/** By a constant divisor (either sign): the IR folds a division by zero to nothing. */
const DIVISION: readonly BinaryOp[] = ["div", "mod", "floordiv", "floormod"];
const COMPARE: readonly BinaryOp[] = ["eq", "ne", "lt", "le", "gt", "ge"];
const LOGIC: readonly BinaryOp[] = ["and", "or"];

const intArb: fc.Arbitrary<PrimExpr> = fc.letrec<{ int: PrimExpr; bool: PrimExpr }>((tie) => ({
  int: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom(...vars),
    fc.integer({ min: -9, max: 9 }).map((v) => intImm(v)),
    fc.tuple(fc.constantFrom(...ARITH), tie("int"), tie("int")).map(([op, a, b]) => binary(op, a, b)),
    fc.tuple(fc.constantFrom(...DIVISION), tie("int"), fc.integer({ min: 1, max: 7 }), fc.boolean()).map(([op, a, c, neg]) => binary(op, a, neg ? -c : c)),
    fc.tuple(tie("bool"), tie("int"), tie("int")).map(([c, a, b]) => select(c, a, b)),
    // A fresh variable per let: TensorIR binds each let variable once.
    fc.tuple(tie("int"), tie("int")).map(([v, body]) => {
      const t = variable("t");
      return letExpr(t, v, add(body, mul(t, 3)));
    }),
    tie("int").map((a) => cast("int32", cast("int64", a))),
  ),
  bool: fc.oneof(
    { depthSize: "small" },
    fc.tuple(fc.constantFrom(...COMPARE), tie("int"), tie("int")).map(([op, a, b]) => binary(op, a, b)),
    fc.tuple(fc.constantFrom(...LOGIC), tie("bool"), tie("bool")).map(([op, a, b]) => binary(op, a, b)),
    tie("bool").map((a) => not(a)),
  ),
})).int;

const pointArb = fc.tuple(...vars.map(() => fc.integer({ min: -40, max: 40 })));

function folded(e: PrimExpr, point: readonly number[]): number {
  const constants = new Map(vars.map((v, k) => [v, intImm(point[k]!)]));
  const value = simplify(substitute(e, constants));
  if (value.kind !== "IntImm") throw new Error(`the simplifier left ${value.kind}`);
  return value.value;
}

describe("latency-model point evaluation", () => {
  it("agrees with the simplifier's folding at several points of each expression", () => {
    fc.assert(
      fc.property(intArb, fc.array(pointArb, { minLength: 1, maxLength: 3 }), (e, points) => {
        for (const point of points) {
          const env = new Map(vars.map((v, k) => [v, point[k]!]));
          // `+ 0`: a product with zero may come out as -0, which is 0 as an index.
          expect((evaluate(e, env) ?? Number.NaN) + 0).toBe(folded(e, point));
        }
      }),
      { numRuns: 400 },
    );
  });

  it("evaluatorOf(e) gives evaluate(e)'s value at every point, -0 and unknowns included", () => {
    const [i] = vars as [Var];
    // Loads, unknown intrinsics, floats and unbound variables mixed in, so that undefined is sampled too.
    const load = bufferLoad(declBuffer("A", [8], "int32"), [i]);
    const withUnknowns = fc.oneof(
      intArb,
      intArb.map((e) => add(e, load)),
      intArb.map((e) => mul(e, variable("unbound"))),
      intArb.map((e) => select(binary("lt", e, 0), load, e)),
      intArb.map((e) => cast("float32", e)),
    );
    fc.assert(
      fc.property(withUnknowns, fc.array(pointArb, { minLength: 1, maxLength: 3 }), (e, points) => {
        const memo = new Map();
        const compiled = evaluatorOf(e, memo);
        expect(evaluatorOf(e, memo)).toBe(compiled);
        for (const point of points) {
          const env = new Map(vars.map((v, k) => [v, point[k]!]));
          const expected = evaluate(e, env);
          const value = compiled(env);
          expect(Object.is(value, expected), `${String(value)} against ${String(expected)}`).toBe(true);
        }
      }),
      { numRuns: 400 },
    );
  });

  it("knows nothing of an unbound variable, a load or a division by zero", () => {
    const [i, j] = vars as [Var, Var];
    const env = new Map([[i, 5]]);
    expect(evaluate(add(i, j), env)).toBeUndefined();
    expect(evaluate(add(i, bufferLoad(declBuffer("A", [8], "int32"), [i])), env)).toBeUndefined();
    expect(evaluate(floordiv(12, i), new Map([[i, 0]]))).toBeUndefined();
    expect(evaluate(floordiv(12, i), env)).toBe(2);
  });

  it("binds a let's variable inside its body only, over an outer value", () => {
    const [i] = vars as [Var];
    const bound = variable("t");
    const e = add(letExpr(bound, mul(i, 2), add(bound, 1)), bound);
    expect(
      evaluate(
        e,
        new Map([
          [i, 4],
          [bound, 100],
        ]),
      ),
    ).toBe(109);
    expect(
      evaluate(
        e,
        new Map([
          [i, 1],
          [bound, -1],
        ]),
      ),
    ).toBe(2);
  });
});
