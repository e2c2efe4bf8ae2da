import { describe, expect, it } from "vitest";
import * as ir from "../../src/index.js";
import { ExecutionError, allocateArgs, compilePrimFunc, randomArgs, runPrimFunc, typedArrayFor } from "../../src/exec/index.js";
import { matmulFunc } from "../../bench/workloads.js";
import { funcOf } from "./helpers.js";

describe("typedArrayFor", () => {
  it("maps every dtype to its typed array", () => {
    const cases: [string, string][] = [
      ["float32", "Float32Array"],
      ["float64", "Float64Array"],
      ["float16", "Float32Array"],
      ["int8", "Int8Array"],
      ["int16", "Int16Array"],
      ["int32", "Int32Array"],
      ["int64", "Float64Array"],
      ["uint8", "Uint8Array"],
      ["uint16", "Uint16Array"],
      ["uint32", "Uint32Array"],
      ["uint64", "Float64Array"],
      ["bool", "Uint8Array"],
    ];
    for (const [dt, name] of cases) {
      const a = typedArrayFor(dt, 3);
      expect(a.constructor.name).toBe(name);
      expect(a.length).toBe(3);
    }
    expect(() => typedArrayFor("float32", Number.NaN)).toThrow(ExecutionError);
    expect(() => typedArrayFor("handle", 1)).toThrow(ExecutionError);
  });
});

describe("argument arrays", () => {
  it("allocates zeroed arrays in parameter order", () => {
    const args = allocateArgs(matmulFunc(4, 5, 6));
    expect(args.map((a) => a.length)).toEqual([24, 30, 20]);
    expect(args.every((a) => a instanceof Float32Array && a.every((x) => x === 0))).toBe(true);
  });

  it("fills random arrays deterministically within the bounds", () => {
    const f = matmulFunc(8);
    const a = randomArgs(f, 42);
    const b = randomArgs(f, 42);
    const c = randomArgs(f, 43);
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    expect(a[0]!.every((x) => x >= -1 && x < 1)).toBe(true);
    const ints = funcOf([ir.declBuffer("X", [100], "int32")], ir.evaluate(0));
    const [x] = randomArgs(ints, 1, { low: 3, high: 5 });
    expect(new Set(x)).toEqual(new Set([3, 4, 5]));
  });

  it("refuses symbolic shapes in allocateArgs", () => {
    const f = funcOf([ir.declBuffer("X", [ir.variable("n")], "int32")], ir.evaluate(0));
    expect(() => allocateArgs(f)).toThrow(/buffer X has the symbolic type int32\[n\]/);
  });
});

describe("argument validation", () => {
  const f = matmulFunc(4);
  const good = () => allocateArgs(f);

  it("checks the number of arguments", () => {
    expect(() => runPrimFunc(f, good().slice(0, 2))).toThrow("matmul takes 3 arguments (A, B, C), got 2");
  });

  it("checks array types and lengths", () => {
    const [A, B] = good();
    expect(() => runPrimFunc(f, [A!, B!, new Int32Array(16)])).toThrow(
      "matmul: argument 2 (C): expected a Float32Array for buffer float32[4, 4], got Int32Array",
    );
    expect(() => runPrimFunc(f, [A!, B!, new Float32Array(15)])).toThrow(
      "matmul: argument 2 (C): expected 16 elements for buffer float32[4, 4] (shape [4, 4]), got 15",
    );
    expect(() => runPrimFunc(f, [A!, B!, 3])).toThrow(/expected a Float32Array .* got number 3/);
    expect(() => runPrimFunc(f, [A!, B!, [1, 2] as unknown as Float32Array])).toThrow(/got a plain Array/);
  });

  it("checks scalar parameters and shape inference", () => {
    const n = ir.variable("n");
    const X = ir.declBuffer("X", [n, 3], "int32");
    const i = ir.variable("i");
    const scalar = ir.variable("s");
    const func = funcOf([X], ir.forLoop(i, n, ir.bufferStore(X, scalar, [i, 0])), [scalar]);
    const compiled = compilePrimFunc(func);
    expect(compiled.params.map((p) => [p.name, p.kind, p.dtype])).toEqual([
      ["X", "buffer", "int32"],
      ["s", "scalar", "int32"],
    ]);
    const x = new Int32Array(6);
    compiled.run([x, 7]);
    expect(Array.from(x)).toEqual([7, 0, 0, 7, 0, 0]);
    expect(() => compiled.run([x, 1.5])).toThrow("f: argument 1 (s): expected an integer (int32), got 1.5");
    expect(() => compiled.run([x, Number.NaN])).toThrow(/expected an integer \(int32\), got NaN/);
    expect(() => compiled.run([x, 2 ** 31])).toThrow(/outside the range of int32/);
    expect(() => compiled.run([new Int32Array(7), 1])).toThrow(/cannot infer n for buffer int32\[n, 3\] from an array of 7 elements/);
  });

  it("asks for shape variables it cannot infer", () => {
    const [n, m] = [ir.variable("n"), ir.variable("m")];
    const func = funcOf([ir.declBuffer("X", [n, m], "float32")], ir.evaluate(0));
    expect(() => runPrimFunc(func, [new Float32Array(6)])).toThrow(/cannot infer n, m .* pass it as a scalar parameter/);
  });

  it("reports unbound variables at compile time", () => {
    const X = ir.declBuffer("X", [2], "int32");
    const func = funcOf([X], ir.bufferStore(X, ir.variable("ghost"), [0]));
    expect(() => compilePrimFunc(func)).toThrow(/variable ghost \(int32\) is used but not bound/);
  });
});
