/**
 * Definitions and their identity: parse-time checks for duplicate definitions (as TVM's parser
 * makes them), the buffer map keyed by parameter, regions completed through match_buffers, and
 * thread variables launched more than once keeping one identity through print → parse.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parsePrimFunc } from "../../src/parser/index.js";
import { errorOf } from "./helpers.js";
import { printTVMScript } from "../../src/printer/index.js";
import { structuralEqual } from "../../src/structural/index.js";
import { forEachStmt } from "../../src/functor.js";
import type { Var } from "../../src/expr.js";
import type { Stmt } from "../../src/stmt.js";
import { blockNamed } from "../parser/helpers.js";
import { compilePrimFunc } from "../../src/exec/index.js";

function inBlock(...lines: string[]): string {
  return [
    "@T.prim_func",
    'def f(A: T.Buffer((16, 16), "float32")):',
    "    for i, j in T.grid(16, 16):",
    '        with T.block("b"):',
    ...lines.map((l) => `            ${l}`),
  ].join("\n");
}

describe("duplicate definitions are refused where the second one is", () => {
  it("block iterators", () => {
    expect(errorOf(inBlock("vi = T.axis.spatial(16, i)", "vi = T.axis.spatial(16, j)", "A[vi, 0] = T.float32(0)"))).toEqual({
      reason: 'block "b" already has an iterator named "vi"',
      line: 6,
      column: 18,
    });
    expect(errorOf(inBlock('vi, vi = T.axis.remap("SS", [i, j])', "A[vi, 0] = T.float32(0)"))).toEqual({
      reason: 'block "b" already has an iterator named "vi"',
      line: 5,
      column: 17,
    });
  });

  it("buffers allocated twice under one name in one scope", () => {
    const text = ["@T.prim_func", "def f():", "    X = T.alloc_buffer((4,))", "    X = T.alloc_buffer((4,))", "    X[0] = T.float32(0)"].join("\n");
    expect(errorOf(text)).toEqual({ reason: 'buffer "X" is already defined in this scope', line: 4, column: 9 });
  });

  it("two values for one block attribute key, and a second T.where", () => {
    const attrs = inBlock('vi, vj = T.axis.remap("SS", [i, j])', 'T.block_attr({"k": "a"})', 'T.block_attr({"k": "b"})', "A[vi, vj] = T.float32(0)");
    expect(errorOf(attrs)).toEqual({ reason: 'block "b" already has a different value for the annotation "k"', line: 7, column: 13 });
    const same = inBlock('vi, vj = T.axis.remap("SS", [i, j])', 'T.block_attr({"k": "a"})', 'T.block_attr({"k": "a", "m": 1})', "A[vi, vj] = T.float32(0)");
    expect(blockNamed(parsePrimFunc(same).body, "b").block.annotations).toEqual({ k: "a", m: 1 });
    const nested = inBlock('vi, vj = T.axis.remap("SS", [i, j])', 'T.block_attr({"k": {"a": 1}})', 'T.block_attr({"k": {"b": 2}})', "A[vi, vj] = T.float32(0)");
    expect(blockNamed(parsePrimFunc(nested).body, "b").block.annotations).toEqual({ k: { a: 1, b: 2 } });
    const where = inBlock('vi, vj = T.axis.remap("SS", [i, j])', "T.where(vi < 8)", "T.where(vj < 8)", "A[vi, vj] = T.float32(0)");
    expect(errorOf(where)).toEqual({ reason: 'block "b" already has T.where', line: 7, column: 13 });
  });
});

describe("the buffer map is keyed by parameter", () => {
  it("match_buffer declarations in any order give equal functions", () => {
    const decls = ["A = T.match_buffer(a, (n, 4))", "B = T.match_buffer(b, (n * 2, 4))", 'C = T.match_buffer(c, (m,), "int32")'];
    const text = (order: readonly number[]): string =>
      [
        "@T.prim_func",
        "def f(a: T.handle, b: T.handle, c: T.handle):",
        "    n = T.int32()",
        "    m = T.int32()",
        ...order.map((i) => `    ${decls[i]!}`),
        "    for i in range(n):",
        '        B[i, 0] = A[i, 0] + T.Cast("float32", C[i])',
      ].join("\n");
    const reference = parsePrimFunc(text([0, 1, 2]));
    fc.assert(
      fc.property(fc.shuffledSubarray([0, 1, 2], { minLength: 3, maxLength: 3 }), (order) => {
        expect(structuralEqual(parsePrimFunc(text(order)), reference)).toBe(true);
      }),
    );
    // Keyed by parameter, not by position among the declarations: giving b A's shape is a change.
    const swappedShapes = text([0, 1, 2])
      .replace("A = T.match_buffer(a, (n, 4))", "A = T.match_buffer(a, (n * 2, 4))")
      .replace("B = T.match_buffer(b, (n * 2, 4))", "B = T.match_buffer(b, (n, 4))");
    expect(structuralEqual(parsePrimFunc(swappedShapes), reference)).toBe(false);
  });
});

describe("regions completed through match_buffers", () => {
  it("an outer block's regions name the source buffer, not the inner block's match target", () => {
    const text = [
      "@T.prim_func",
      'def f(A: T.Buffer((16, 16), "float32")):',
      "    for i in range(16):",
      '        with T.block("outer"):',
      "            R = T.match_buffer(A[i, 0:16], (16,))",
      '            with T.block("mid"):',
      "                for j in range(16):",
      '                    with T.block("inner"):',
      "                        E = T.match_buffer(R[j], ())",
      "                        E[()] = T.float32(1)",
    ].join("\n");
    const f = parsePrimFunc(text);
    const outer = blockNamed(f.body, "outer").block;
    expect(outer.writes.map((w) => w.buffer.name)).toEqual(["A"]);
    expect(blockNamed(f.body, "mid").block.writes.map((w) => w.buffer.name)).toEqual(["R"]);
    const printed = printTVMScript(f);
    expect(printed).toContain("T.writes(A[i, 0:16])");
    expect(structuralEqual(parsePrimFunc(printed), f)).toBe(true);
  });
});

describe("launch-thread variables", () => {
  function threadVars(body: Stmt): Var[] {
    const vars: Var[] = [];
    forEachStmt(body, (s) => {
      if (s.kind === "AttrStmt" && s.key === "thread_extent" && s.node !== undefined) vars.push(s.node);
    });
    return vars;
  }

  it("one variable launched twice stays one variable through print → parse in today's dialect", () => {
    const text = [
      "@T.prim_func",
      'def f(A: T.Buffer((64,), "float32")):',
      '    tx = T.env_thread("threadIdx.x")',
      "    with T.launch_thread(tx, 32):",
      "        A[tx] = A[tx] + T.float32(1)",
      "    with T.launch_thread(tx, 32):",
      "        A[tx + 32] = A[tx + 32] * T.float32(2)",
    ].join("\n");
    const f = parsePrimFunc(text);
    const [a, b] = threadVars(f.body);
    expect(a).toBe(b);
    const printed = printTVMScript(f, { dialect: "tvm" });
    expect(printed).toContain('threadIdx_x = T.env_thread("threadIdx.x")');
    const again = parsePrimFunc(printed);
    const [c, d] = threadVars(again.body);
    expect(c).toBe(d);
    expect(structuralEqual(again, f)).toBe(true);
    // The course's dialect prints each launch as it always has (a documented deviation).
    expect(printTVMScript(f)).not.toContain("T.env_thread");
  });

  it("two distinct launches of one tag stay distinct", () => {
    const text = [
      "@T.prim_func",
      'def f(A: T.Buffer((64,), "float32")):',
      '    with T.launch_thread("threadIdx.x", 32) as tx:',
      "        A[tx] = T.float32(1)",
      '    with T.launch_thread("threadIdx.x", 32) as tx:',
      "        A[tx + 32] = T.float32(2)",
    ].join("\n");
    const f = parsePrimFunc(text);
    const again = parsePrimFunc(printTVMScript(f));
    const [c, d] = threadVars(again.body);
    expect(c).not.toBe(d);
    expect(structuralEqual(again, f)).toBe(true);
  });
});

describe("shape dimensions written as strings", () => {
  const shapeOf = (f: ReturnType<typeof parsePrimFunc>, i: number) => f.bufferMap.get(f.params[i]!)!.shape;

  it('spell an expression of the parameters: "n" is the parameter n, "n + 1" an expression of it', () => {
    const text = [
      "@T.prim_func",
      'def f(n: T.int32, A: T.Buffer(("n",), "float32"), B: T.Buffer(("n + 1",), "float32")):',
      "    for i in range(n):",
      "        B[i + 1] = A[i]",
    ].join("\n");
    const f = parsePrimFunc(text);
    expect(shapeOf(f, 1)[0]).toBe(f.params[0]);
    const b = shapeOf(f, 2)[0]!;
    expect(b.kind === "Binary" && b.op === "add" && b.a).toBe(f.params[0]);
    const printed = printTVMScript(f);
    expect(printed).toContain("(n + 1,)");
    expect(structuralEqual(parsePrimFunc(printed), f)).toBe(true);
    const out = new Float32Array(4);
    compilePrimFunc(f).run([3, Float32Array.from([5, 6, 7]), out]);
    expect([...out]).toEqual([0, 5, 6, 7]);
  });

  it("may name a parameter declared later, which keeps its own dtype", () => {
    const f = parsePrimFunc(["@T.prim_func", 'def f(A: T.Buffer(("n",), "float32"), n: T.int64):', "    T.evaluate(n)"].join("\n"));
    expect(shapeOf(f, 0)[0]).toBe(f.params[1]);
    expect(f.params[1]!.dtype).toBe("int64");
    expect(structuralEqual(parsePrimFunc(printTVMScript(f)), f)).toBe(true);
  });

  it("a string that is not one expression is an error at the string", () => {
    expect(errorOf(["@T.prim_func", 'def f(A: T.Buffer(("n +",), "float32")):', "    T.evaluate(0)"].join("\n"))).toMatchObject({
      line: 2,
      column: 20,
    });
    expect(errorOf(["@T.prim_func", 'def f(A: T.Buffer(("n = 1",), "float32")):', "    T.evaluate(0)"].join("\n")).reason).toBe(
      'shape dimension "n = 1" is not one expression',
    );
  });
});

describe("free variables", () => {
  it("T.Var(name, ty) declares one, as T.int32() does", () => {
    const text = (decl: string) =>
      ["@T.prim_func", 'def f(A: T.Buffer((25,), "int32")):', `    n = ${decl}`, "    for j in T.vectorized(n):", "        A[j] = 3"].join("\n");
    const declared = parsePrimFunc(text('T.Var("n", ty="int32")'));
    expect(structuralEqual(declared, parsePrimFunc(text("T.int32()")))).toBe(true);
    expect(structuralEqual(declared, parsePrimFunc(text('T.Var("n", "int64")')))).toBe(false);
    expect(structuralEqual(parsePrimFunc(printTVMScript(declared)), declared)).toBe(true);
    expect(errorOf(text('T.Var("n")')).reason).toBe('T.Var is missing the argument "ty"');
  });
});
