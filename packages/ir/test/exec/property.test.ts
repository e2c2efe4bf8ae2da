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

describe("integer division by a positive constant (computed in place) against the runtime helpers", () => {
  /** `op(x, c)` with `c` a literal (computed in place) and with `c` loaded from a buffer (the helper that checks for zero): the same bits. */
  it.each(["int32", "int64", "uint32", "int16"] as const)("agrees bit for bit for %s", (dt) => {
    const X = ir.declBuffer("X", [1], dt);
    const C = ir.declBuffer("C", [1], dt);
    const Out = ir.declBuffer("Out", [8], dt);
    const x = ir.bufferLoad(X, [0]);
    const ops = ["div", "mod", "floordiv", "floormod"] as const;
    const info = ir.dtypeInfo(dt);
    const lo = info.code === "uint" ? 0 : info.bits === 64 ? -(2 ** 53) : -(2 ** (info.bits - 1));
    const hi = info.code === "uint" ? 2 ** info.bits - 1 : info.bits === 64 ? 2 ** 53 : 2 ** (info.bits - 1) - 1;
    const value = fc.oneof(fc.integer({ min: -64, max: 64 }), fc.double({ min: lo, max: hi, noNaN: true }).map(Math.trunc));
    const divisor = fc.oneof(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: Math.min(hi, 2 ** 31 - 1) }));
    fc.assert(
      fc.property(value, divisor, fc.boolean(), (v, c, negativeZero) => {
        const body = ir.seq(
          ops.flatMap((op, k) => [
            ir.bufferStore(Out, ir.binary(op, x, ir.bufferLoad(C, [0])), [2 * k]),
            ir.bufferStore(Out, ir.binary(op, x, ir.intImm(c, dt)), [2 * k + 1]),
          ]),
        );
        const compiled = compilePrimFunc(funcOf([X, C, Out], body));
        // Each division by the literal is in place: the helpers are called with the loaded divisor only.
        expect(compiled.source.match(/\$(divTrunc|modTrunc|divFloor|modFloor)\(/g)).toHaveLength(ops.length);
        const arrays = [ir.typedArrayFor(dt, 1), ir.typedArrayFor(dt, 1), ir.typedArrayFor(dt, 8)];
        // An int64 zero may be -0 (a product 0 × negative is not wrapped); the helpers give +0 for it.
        arrays[0]![0] = v === 0 && negativeZero ? -0 : Math.max(lo, Math.min(hi, v));
        arrays[1]![0] = c;
        compiled.run(arrays);
        const bits = new Uint8Array(arrays[2]!.buffer);
        const width = arrays[2]!.BYTES_PER_ELEMENT;
        ops.forEach((op, k) => {
          const helper = Array.from(bits.slice(2 * k * width, (2 * k + 1) * width));
          const inPlace = Array.from(bits.slice((2 * k + 1) * width, (2 * k + 2) * width));
          expect(inPlace, `${op}(${v}, ${c})`).toEqual(helper);
        });
      }),
      { numRuns: 300 },
    );
  });
});
