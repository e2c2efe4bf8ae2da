import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as ir from "../../src/index.js";
import { compilePrimFunc } from "../../src/exec/index.js";
import { funcOf } from "./helpers.js";

/** A random int32 expression over inputs x, y plus the direct JS evaluation of it. */
type Tree =
  | { tag: "x" }
  | { tag: "y" }
  | { tag: "const"; value: number }
  | { tag: "bin"; op: "add" | "sub" | "mul" | "min" | "max" | "floordiv" | "floormod" | "div" | "mod"; a: Tree; b: Tree }
  | { tag: "select"; a: Tree; b: Tree; c: Tree };

const treeArb = fc.letrec<{ tree: Tree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constant<Tree>({ tag: "x" }),
    fc.constant<Tree>({ tag: "y" }),
    fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }).map<Tree>((value) => ({ tag: "const", value })),
    fc
      .record({
        op: fc.constantFrom("add", "sub", "mul", "min", "max", "floordiv", "floormod", "div", "mod" as const),
        a: tie("tree"),
        b: tie("tree"),
      })
      .map<Tree>((r) => ({ tag: "bin", ...r })),
    fc.record({ a: tie("tree"), b: tie("tree"), c: tie("tree") }).map<Tree>((r) => ({ tag: "select", ...r })),
  ),
})).tree;

function toIR(t: Tree, x: ir.PrimExpr, y: ir.PrimExpr): ir.PrimExpr {
  switch (t.tag) {
    case "x":
      return x;
    case "y":
      return y;
    case "const":
      return ir.intImm(t.value, "int32");
    case "bin": {
      const a = toIR(t.a, x, y);
      // Divisors are made odd (non-zero) so no run hits a division by zero.
      const b = ["floordiv", "floormod", "div", "mod"].includes(t.op) ? orOne(toIR(t.b, x, y)) : toIR(t.b, x, y);
      return ir.binary(t.op, a, b);
    }
    case "select":
      return ir.select(ir.lt(toIR(t.a, x, y), 0), toIR(t.b, x, y), toIR(t.c, x, y));
  }
}

/** `b - floormod(b, 2) + 1`: an odd (hence non-zero) value, built from executor-supported nodes. */
function orOne(b: ir.PrimExpr): ir.PrimExpr {
  return ir.add(ir.sub(b, ir.floormod(b, 2)), 1);
}

function reference(t: Tree, x: number, y: number): number {
  switch (t.tag) {
    case "x":
      return x;
    case "y":
      return y;
    case "const":
      return t.value;
    case "bin": {
      const a = reference(t.a, x, y);
      let b = reference(t.b, x, y);
      const divides = ["floordiv", "floormod", "div", "mod"].includes(t.op);
      if (divides) b = (b - (((b % 2) + 2) % 2) + 1) | 0;
      switch (t.op) {
        case "add":
          return (a + b) | 0;
        case "sub":
          return (a - b) | 0;
        case "mul":
          return Math.imul(a, b);
        case "min":
          return Math.min(a, b);
        case "max":
          return Math.max(a, b);
        case "div":
          return Math.trunc(a / b) | 0;
        case "mod":
          return (a % b) | 0;
        case "floordiv":
          return Math.floor(a / b) | 0;
        case "floormod":
          return (a - Math.floor(a / b) * b) | 0;
      }
      throw new Error(`unknown operator ${t.op}`);
    }
    case "select":
      return reference(t.a, x, y) < 0 ? reference(t.b, x, y) : reference(t.c, x, y);
  }
}

describe("executor vs direct JS evaluation", () => {
  it("agrees on random int32 elementwise expressions", () => {
    const X = ir.declBuffer("X", [8], "int32");
    const Y = ir.declBuffer("Y", [8], "int32");
    const Out = ir.declBuffer("Out", [8], "int32");
    const i = ir.variable("i");
    const int32 = fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
    fc.assert(
      fc.property(treeArb, fc.array(int32, { minLength: 8, maxLength: 8 }), fc.array(int32, { minLength: 8, maxLength: 8 }), (tree, xs, ys) => {
        const e = toIR(tree, ir.bufferLoad(X, [i]), ir.bufferLoad(Y, [i]));
        const func = funcOf([X, Y, Out], ir.forLoop(i, 8, ir.bufferStore(Out, e, [i])));
        const out = new Int32Array(8);
        compilePrimFunc(func).run([Int32Array.from(xs), Int32Array.from(ys), out]);
        expect(Array.from(out)).toEqual(xs.map((x, k) => reference(tree, x, ys[k]!)));
      }),
      { numRuns: 200 },
    );
  });
});
