import { describe, expect, it } from "vitest";
import { parsePrimFunc, parseTVMScript } from "../../src/parser/index.js";
import type { PrimExpr } from "../../src/expr.js";
import type { Stmt } from "../../src/stmt.js";
import { blockNamed } from "./helpers.js";

/** A one-block function over float32 A/B (16,), int32 I (16,), int64 L (16,), float16 H (16,). */
function blockBody(...lines: string[]): Stmt {
  const text = [
    "@T.prim_func",
    'def f(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32"), I: T.Buffer((16,), "int32"), L: T.Buffer((16,), "int64"), H: T.Buffer((16,), "float16")):',
    "    for i in range(16):",
    '        with T.block("b"):',
    "            vi = T.axis.spatial(16, i)",
    "            T.reads()",
    "            T.writes()",
    ...lines.map((l) => `            ${l}`),
  ].join("\n");
  return blockNamed(parsePrimFunc(text).body, "b").block.body;
}

function storedValue(line: string): PrimExpr {
  const s = blockBody(line);
  if (s.kind !== "BufferStore") throw new Error(`expected a store, got ${s.kind}`);
  return s.value;
}

describe("TVMScript expression semantics", () => {
  it("untyped literals take the dtype of what they meet", () => {
    expect(storedValue("H[vi] = 0.5")).toEqual({ kind: "FloatImm", dtype: "float16", value: 0.5 });
    expect(storedValue("L[vi] = 7")).toEqual({ kind: "IntImm", dtype: "int64", value: 7 });
    const m = storedValue("B[vi] = T.max(A[vi], 0.0)");
    expect(m.kind === "Binary" && [m.op, m.dtype, m.b]).toEqual(["max", "float32", { kind: "FloatImm", dtype: "float32", value: 0 }]);
    const h = storedValue("H[vi] = H[vi] * 2");
    expect(h.kind === "Binary" && h.b).toEqual({ kind: "FloatImm", dtype: "float16", value: 2 });
    const idx = storedValue("I[vi] = vi + 1");
    expect(idx.kind === "Binary" && idx.b).toEqual({ kind: "IntImm", dtype: "int32", value: 1 });
  });

  it("typed constructors, casts and negation", () => {
    expect(storedValue("L[vi] = T.int64(5)")).toEqual({ kind: "IntImm", dtype: "int64", value: 5 });
    expect(storedValue("B[vi] = T.float32(-1.5)")).toEqual({ kind: "FloatImm", dtype: "float32", value: -1.5 });
    expect(storedValue('B[vi] = T.float32("inf")')).toEqual({ kind: "FloatImm", dtype: "float32", value: Infinity });
    const c = storedValue("B[vi] = T.float32(vi)");
    expect(c.kind === "Cast" && c.dtype).toBe("float32");
    const n = storedValue("B[vi] = -A[vi]");
    expect(n.kind === "Binary" && [n.op, n.b]).toEqual(["mul", { kind: "FloatImm", dtype: "float32", value: -1 }]);
  });

  it("division operators map to the right binary ops", () => {
    const ops = (line: string): string => {
      const e = storedValue(line);
      return e.kind === "Binary" ? e.op : e.kind;
    };
    expect(ops("I[vi] = vi // 3")).toBe("floordiv");
    expect(ops("I[vi] = vi % 3")).toBe("floormod");
    expect(ops("I[vi] = T.truncdiv(vi, 3)")).toBe("div");
    expect(ops("I[vi] = T.truncmod(vi, 3)")).toBe("mod");
    expect(ops("B[vi] = A[vi] / 3.0")).toBe("div");
  });

  it("intrinsics come from the registry and reject bad operands", () => {
    const e = storedValue("B[vi] = T.exp(A[vi])");
    expect(e.kind === "Call" && [e.op, e.dtype]).toEqual(["exp", "float32"]);
    expect(() => blockBody("B[vi] = T.exp(vi)")).toThrow(/T.exp expects a float operand, got int32/);
    expect(() => blockBody("B[vi] = T.exp(A[vi], A[vi])")).toThrow(/T.exp takes 1 argument, got 2/);
  });

  it("vector slices, T.Ramp and T.Broadcast", () => {
    const text = [
      "@T.prim_func",
      'def f(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):',
      "    for i in T.vectorized(1):",
      "        B[0:4] = A[4:8] + T.Broadcast(T.float32(1), 4)",
      "        B[T.Ramp(8, 2, 4)] = A[0:8:2]",
    ].join("\n");
    const body = parsePrimFunc(text).body;
    if (body.kind !== "For" || body.body.kind !== "SeqStmt") throw new Error("unexpected shape");
    const [s1, s2] = body.body.seq;
    expect(s1!.kind === "BufferStore" && [s1!.indices[0]!.kind, s1!.value.dtype]).toEqual(["Ramp", "float32x4"]);
    expect(s2!.kind === "BufferStore" && s2!.value.kind === "BufferLoad" && s2!.value.indices[0]).toMatchObject({
      kind: "Ramp",
      lanes: 4,
      stride: { value: 2 },
    });
  });

  it("let statements, T.Let expressions and module constants", () => {
    const text = [
      "SIZE = 16",
      "@T.prim_func",
      'def f(A: T.Buffer((SIZE,), "float32")):',
      "    x = T.int32()",
      "    for i in range(SIZE):",
      "        t = i * 2",
      '        A[i] = T.Cast("float32", T.Let(x + t, where={x: 3}))',
    ].join("\n");
    const body = parsePrimFunc(text).body;
    if (body.kind !== "For" || body.body.kind !== "LetStmt") throw new Error("expected a let inside the loop");
    expect(body.extent).toEqual({ kind: "IntImm", dtype: "int32", value: 16 });
    const store = body.body.body;
    expect(store.kind === "BufferStore" && store.value.kind === "Cast" && store.value.value.kind).toBe("Let");
  });

  it("with-forms of lowered statements", () => {
    const text = [
      "@T.prim_func",
      'def f(A: T.Buffer((16,), "float32")):',
      "    with T.LetStmt(4) as n:",
      '        with T.allocate([16], "float32", "local") as p:',
      '            P = T.Buffer((16,), data=p, scope="local")',
      "            P[0] = A[n]",
      '        with T.decl_buffer((4,), "int32", scope="shared") as S:',
      "            S[0] = 1",
      "        A[0] = T.float32(0)",
    ].join("\n");
    const body = parsePrimFunc(text).body;
    if (body.kind !== "LetStmt" || body.body.kind !== "SeqStmt") throw new Error("unexpected shape");
    const [alloc, decl] = body.body.seq;
    expect(alloc!.kind === "Allocate" && alloc!.body.kind === "BufferStore" && alloc!.body.buffer === alloc!.buffer).toBe(true);
    expect(decl!.kind === "Allocate" && decl!.body.kind).toBe("DeclBuffer");
  });

  it("zero-dimensional buffers, unnamed blocks and explicit empty regions", () => {
    const text = [
      "@T.prim_func",
      'def f(S: T.Buffer((), "float32")):',
      "    with T.block():",
      "        T.reads()",
      "        T.writes(S[()])",
      "        S[()] = T.float32(1)",
    ].join("\n");
    const f = parsePrimFunc(text);
    const blk = blockNamed(f.body, "");
    expect(blk.block.reads).toEqual([]);
    expect(blk.block.writes[0]!.region).toEqual([]);
    expect(blk.block.body.kind === "BufferStore" && blk.block.body.indices).toEqual([]);
  });

  it("a bare @T.prim_func becomes a module keyed by the def name", () => {
    const mod = parseTVMScript("@T.prim_func\ndef my_kernel():\n    T.evaluate(0)\n");
    expect([...mod.functions.keys()]).toEqual(["my_kernel"]);
    expect(mod.functions.get("my_kernel")!.body).toEqual({ kind: "Evaluate", value: { kind: "IntImm", dtype: "int32", value: 0 } });
  });
});
