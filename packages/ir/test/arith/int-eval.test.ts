/**
 * Direct integer evaluation gives what substituting the variables' values and simplifying the IR
 * gives, on random index expressions (arithmetic, comparisons, logic, select), and leaves to the
 * simplifier what is not integer arithmetic.
 */
import fc from "fast-check";
import {
  type BinaryOp,
  type PrimExpr,
  binary,
  bitwiseXor,
  call,
  cast,
  evalIntExpr,
  floatImm,
  intImm,
  not,
  select,
  simplify,
  substitute,
  variable,
} from "../../src/index.js";
import { describe, expect, it } from "vitest";

const VARS = [variable("i"), variable("j"), variable("k")];
const ARITH: BinaryOp[] = ["add", "sub", "mul", "div", "mod", "floordiv", "floormod", "min", "max"];
const COMPARE: BinaryOp[] = ["eq", "ne", "lt", "le", "gt", "ge"];

const leaf: fc.Arbitrary<PrimExpr> = fc.oneof(
  fc.integer({ min: -9, max: 9 }).map((v) => intImm(v)),
  fc.constantFrom(...VARS),
);
/** Well-typed index expressions: integer arithmetic and select, over conditions built of comparisons and logic. */
const { int: expr } = fc.letrec<{ int: PrimExpr; cond: PrimExpr }>((tie) => ({
  int: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc.tuple(fc.constantFrom(...ARITH), tie("int"), tie("int")).map(([op, a, b]) => binary(op, a, b)),
    fc.tuple(tie("cond"), tie("int"), tie("int")).map(([c, a, b]) => select(c, a, b)),
  ),
  cond: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.tuple(fc.constantFrom(...COMPARE), tie("int"), tie("int")).map(([op, a, b]) => binary(op, a, b)),
    fc.tuple(fc.constantFrom<BinaryOp>("and", "or"), tie("cond"), tie("cond")).map(([op, a, b]) => binary(op, a, b)),
    tie("cond").map((a) => not(a)),
  ),
}));

describe("evalIntExpr", () => {
  it("gives, wherever it gives a value, the value that substituting and simplifying gives", () => {
    fc.assert(
      fc.property(expr, fc.array(fc.integer({ min: 0, max: 63 }), { minLength: 3, maxLength: 3 }), (e, values) => {
        const env = new Map(VARS.map((v, k) => [v, values[k]!]));
        const folded = simplify(substitute(e, new Map(VARS.map((v, k) => [v, intImm(values[k]!)]))));
        const direct = evalIntExpr(e, env);
        // Where it gives a value, it is the simplifier's; where it gives none (a division by
        // zero that the simplifier folds away), the checks ask the simplifier.
        if (direct !== undefined) expect(folded).toMatchObject({ kind: "IntImm", value: direct });
      }),
      { numRuns: 2000 },
    );
  });

  it("computes the bitwise intrinsics (a swizzled layout's XOR of chunk indices) as JavaScript does", () => {
    const [i, j] = [VARS[0]!, VARS[1]!];
    // Each expression with its value for i = a, j = b; the 128-byte swizzle's chunk is (j // 8) ^ (i % 8).
    const cases: [PrimExpr, (a: number, b: number) => number][] = [
      [bitwiseXor(binary("floordiv", j, 8), binary("floormod", i, 8)), (a, b) => (b >> 3) ^ (a & 7)],
      [call("int32", "bitwise_and", [i, j]), (a, b) => a & b],
      [call("int32", "bitwise_or", [i, intImm(5)]), (a) => a | 5],
      [call("int32", "shift_left", [i, intImm(3)]), (a) => a * 8],
      [call("int32", "shift_right", [j, intImm(2)]), (_, b) => Math.floor(b / 4)],
    ];
    fc.assert(
      fc.property(fc.constantFrom(...cases), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), ([e, value], a, b) => {
        expect(
          evalIntExpr(
            e,
            new Map([
              [i, a],
              [j, b],
            ]),
          ),
        ).toBe(value(a, b));
      }),
    );
    expect(evalIntExpr(call("int32", "bitwise_not", [i]), new Map([[i, 1]]))).toBeUndefined();
  });

  it("leaves floats to the simplifier", () => {
    expect(evalIntExpr(binary("add", floatImm(1.5), floatImm(2)), new Map())).toBeUndefined();
    expect(evalIntExpr(cast("float32", intImm(3)), new Map())).toBeUndefined();
  });
});
