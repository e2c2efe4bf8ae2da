import { describe, expect, it } from "vitest";
import { declBuffer } from "../../src/buffer.js";
import { IRError } from "../../src/errors.js";
import { add, bufferLoad, floatImm, intImm, letExpr, mul, variable } from "../../src/expr.js";
import { irModule, primFunc } from "../../src/func.js";
import { block, blockRealize, bufferStore, forLoop, seq } from "../../src/stmt.js";
import { assertStructuralEqual, structuralDiff, structuralEqual, structuralHash } from "../../src/structural/index.js";
import { matmulRelu } from "./fixtures.js";

describe("structuralEqual up to renaming", () => {
  it("treats two independently built functions with different names as equal", () => {
    const f = matmulRelu();
    const g = matmulRelu({ prefix: "other_" });
    expect(structuralEqual(f, g)).toBe(true);
    expect(structuralHash(f)).toBe(structuralHash(g));
    expect(structuralDiff(f, g)).toBeUndefined();
  });

  it("ignores block names by default, as TVM does", () => {
    const f = matmulRelu({ blockName: "C" });
    const g = matmulRelu({ blockName: "matmul" });
    expect(structuralEqual(f, g)).toBe(true);
    expect(structuralHash(f)).toBe(structuralHash(g));
  });

  it("compares var, buffer and block names with compareNames", () => {
    const f = matmulRelu();
    expect(structuralEqual(f, matmulRelu(), { compareNames: true })).toBe(true);
    expect(structuralHash(f, { compareNames: true })).toBe(structuralHash(matmulRelu(), { compareNames: true }));
    const renamed = structuralDiff(f, matmulRelu({ prefix: "x_" }), { compareNames: true });
    expect(renamed?.path).toBe("main.params[0]");
    expect(renamed?.description).toBe("parameter var name a vs x_a");
    const block = structuralDiff(f, matmulRelu({ blockName: "matmul" }), { compareNames: true });
    expect(block?.message).toBe('main.body.block("root").body[0].for(i).body.for(j).body.for(k).body.block("C"): block name "C" vs "matmul"');
    expect(structuralHash(f, { compareNames: true })).not.toBe(structuralHash(matmulRelu({ blockName: "D" }), { compareNames: true }));
  });

  it("maps free variables on first use but keeps the mapping consistent", () => {
    const [x, y, z] = [variable("x"), variable("y"), variable("z")];
    expect(structuralEqual(add(x, 1), add(y, 1))).toBe(true);
    expect(structuralEqual(add(x, y), add(z, x))).toBe(true);
    expect(structuralEqual(add(x, y), add(x, x))).toBe(false);
    expect(structuralEqual(add(x, x), add(x, y))).toBe(false);
    expect(structuralHash(add(x, y))).not.toBe(structuralHash(add(x, x)));
    const d = structuralDiff(add(x, y), add(x, x));
    expect(d?.path).toBe("expr.b");
    expect(d?.description).toBe("var y vs x: rhs x is already mapped to lhs x");
  });

  it("binds a definition point afresh, so a reused loop var equals two distinct ones", () => {
    const A = declBuffer("A", [4]);
    const i = variable("i");
    const [j, k] = [variable("j"), variable("k")];
    const reused = seq([forLoop(i, 4, bufferStore(A, 0, [i])), forLoop(i, 4, bufferStore(A, 1, [i]))]);
    const distinct = seq([forLoop(j, 4, bufferStore(A, 0, [j])), forLoop(k, 4, bufferStore(A, 1, [k]))]);
    expect(structuralEqual(reused, distinct)).toBe(true);
    expect(structuralHash(reused)).toBe(structuralHash(distinct));
  });

  it("compares let-bound variables as definitions", () => {
    const [x, y, a] = [variable("x"), variable("y"), variable("a")];
    expect(structuralEqual(letExpr(x, 1, add(x, a)), letExpr(y, 1, add(y, a)))).toBe(true);
    expect(structuralEqual(letExpr(x, 1, add(x, a)), letExpr(y, 1, add(a, y)))).toBe(false);
  });

  it("compares floats by value with NaN equal to NaN and 0 equal to -0", () => {
    expect(structuralEqual(floatImm(NaN), floatImm(NaN))).toBe(true);
    expect(structuralHash(floatImm(NaN))).toBe(structuralHash(floatImm(NaN)));
    expect(structuralEqual(floatImm(0), floatImm(-0))).toBe(true);
    expect(structuralHash(floatImm(0))).toBe(structuralHash(floatImm(-0)));
    expect(structuralEqual(floatImm(0.5), floatImm(0.25))).toBe(false);
    expect(structuralEqual(floatImm(1, "float32"), floatImm(1, "float16"))).toBe(false);
  });

  it("is reflexive on the very same object and rejects what is not IR", () => {
    const f = matmulRelu();
    expect(structuralEqual(f, f)).toBe(true);
    expect(() => structuralEqual(null as never, f)).toThrow(IRError);
    expect(() => structuralHash(42 as never)).toThrow(/expected a PrimExpr, Stmt, Block, Buffer, PrimFunc or IRModule, got number 42/);
    const broken = { kind: "Binary", op: "add", dtype: "int32", a: intImm(1), b: { name: "oops" } };
    expect(() => structuralHash(broken as never)).toThrow(/expected an expression at expr.b, got a plain object/);
    expect(() => structuralEqual({ kind: "Weird" } as never, intImm(1))).toThrow(IRError);
  });
});

describe("IRModule", () => {
  it("compares functions by name", () => {
    const m1 = irModule({ main: matmulRelu(), helper: matmulRelu({ n: 16 }) });
    const m2 = irModule({ helper: matmulRelu({ n: 16, prefix: "h_" }), main: matmulRelu({ prefix: "m_" }) });
    expect(structuralEqual(m1, m2)).toBe(true);
    expect(structuralHash(m1)).toBe(structuralHash(m2));

    const swapped = irModule({ main: matmulRelu({ n: 16 }), helper: matmulRelu() });
    const d = structuralDiff(m1, swapped);
    expect(d?.path).toBe("helper.params[0].buffer.shape[0]");
    expect(d?.description).toBe("buffer shape 16 vs 128");

    const renamed = irModule({ main: matmulRelu(), other: matmulRelu({ n: 16 }) });
    expect(structuralDiff(m1, renamed)?.description).toBe("module functions [helper, main] vs [main, other]");
  });
});

describe("assertStructuralEqual", () => {
  it("passes silently when equal and throws an IRError with the diff otherwise", () => {
    expect(() => assertStructuralEqual(matmulRelu(), matmulRelu({ prefix: "p" }))).not.toThrow();
    expect(() => assertStructuralEqual(matmulRelu(), matmulRelu({ reluZero: 1 }))).toThrow(IRError);
    expect(() => assertStructuralEqual(matmulRelu(), matmulRelu({ reluZero: 1 }))).toThrow(
      'structural mismatch at main.body.block("root").body[1].for(i).body.for(j).body.block("relu").body.value.b: lhs: T.float32(0.0) vs rhs: T.float32(1.0)',
    );
  });

  it("works on blocks and buffers directly", () => {
    const A = declBuffer("A", [4]);
    const B = declBuffer("B", [4], "float16");
    expect(structuralEqual(A, declBuffer("Z", [4]))).toBe(true);
    expect(structuralDiff(A, B)?.message).toBe("buffer(A): buffer dtype float32 vs float16");
    const i = variable("i");
    const b1 = block({ name: "x", body: bufferStore(A, bufferLoad(A, [i]), [i]) });
    const b2 = block({ name: "y", body: bufferStore(A, mul(bufferLoad(A, [i]), 2), [i]) });
    expect(structuralDiff(b1, b2)?.message).toBe('block("x").body.value: stored value A[i] vs A[i] * T.float32(2.0)');
    expect(structuralEqual(blockRealize([], true, b1), blockRealize([], true, block({ name: "z", body: b1.body })))).toBe(true);
    const f = primFunc([], new Map(), blockRealize([], true, b1));
    expect(structuralEqual(f, primFunc([], new Map(), blockRealize([], true, b1), { global_symbol: "x" }))).toBe(false);
  });
});
