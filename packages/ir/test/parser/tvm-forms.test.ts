/**
 * The TVMScript forms that TVM's own schedule tests write and that the parser once rejected, each
 * with our own small program: what it parses to, how it prints back (as TVM spells it), and the
 * errors for its misuse.
 */
import { describe, expect, it } from "vitest";
import { TVMScriptSyntaxError, parsePrimFunc } from "../../src/parser/index.js";
import { printExpr, printTVMScript } from "../../src/printer/index.js";
import { structuralEqual } from "../../src/structural/index.js";
import { paramBuffers, type PrimFunc } from "../../src/func.js";
import type { Call, PrimExpr } from "../../src/expr.js";
import { forEachExpr, forEachStmt } from "../../src/functor.js";
import type { Block, Stmt } from "../../src/stmt.js";
import { blockNamed } from "./helpers.js";
import { STORAGE_SCOPE_SYNTAX, storageRankOf } from "../../src/buffer.js";

/** A one-block function over `A` (float32[16, 16]), `B` (int32[16]) and size var `n`. */
function program(...lines: string[]): string {
  return [
    "@T.prim_func",
    'def f(a: T.handle, B: T.Buffer((16,), "int32")):',
    "    n = T.int32()",
    "    A = T.match_buffer(a, (16, 16))",
    "    for i in range(16):",
    '        with T.sblock("b"):',
    '            vi = T.axis.remap("S", [i])',
    ...lines.map((l) => `            ${l}`),
  ].join("\n");
}

/** Parses, checks that print → parse gives the same function, and returns both. */
function roundTrip(text: string): { f: PrimFunc; printed: string } {
  const f = parsePrimFunc(text);
  const printed = printTVMScript(f);
  expect(structuralEqual(parsePrimFunc(printed), f), printed).toBe(true);
  return { f, printed };
}

function errorOf(text: string): { reason: string; line: number; column: number } {
  try {
    parsePrimFunc(text);
  } catch (e) {
    if (e instanceof TVMScriptSyntaxError) return { reason: e.reason, line: e.line, column: e.column };
    throw new Error(`expected a TVMScriptSyntaxError, got ${String(e)}`);
  }
  throw new Error("expected the parse to fail");
}

function firstCall(f: PrimFunc, op: string): Call {
  let found: Call | undefined;
  forEachStmt(f.body, (s) =>
    forEachExprOfStmt(s, (e) => {
      if (found === undefined && e.kind === "Call" && e.op === op) found = e;
    }),
  );
  if (found === undefined) throw new Error(`no call of ${op}`);
  return found;
}

function forEachExprOfStmt(s: Stmt, f: (e: PrimExpr) => void): void {
  const roots: PrimExpr[] = [];
  if (s.kind === "Evaluate") roots.push(s.value);
  if (s.kind === "BufferStore") roots.push(s.value, ...s.indices);
  if (s.kind === "LetStmt") roots.push(s.value);
  if (s.kind === "IfThenElse") roots.push(s.condition);
  for (const r of roots) forEachExpr(r, f);
}

const block = (f: PrimFunc, name = "b"): Block => blockNamed(f.body, name).block;

describe("T.axis.remap with one letter", () => {
  it("binds a plain name to the loop's domain, spatial or reduce", () => {
    const { f, printed } = roundTrip(program("B[vi] = 1"));
    const [iv] = block(f).iterVars;
    expect([iv!.var.name, iv!.iterType, printExpr(iv!.dom.extent)]).toEqual(["vi", "spatial", "16"]);
    expect(printed).toContain("vi = T.axis.spatial(16, i)");
    const r = parsePrimFunc(program("for k in range(4):", '    with T.sblock("r"):', '        vk = T.axis.remap("R", [k])', "        B[vi] = B[vi] + vk"));
    expect(block(r, "r").iterVars[0]!.iterType).toBe("reduce");
  });

  it("rejects a name count that differs from the letters", () => {
    const e = errorOf(program('vj = T.axis.remap("SS", [i, i])'));
    expect(e.reason).toBe("T.axis.remap binds 2 iterators but 1 name is assigned");
  });
});

describe("tuple declarations", () => {
  it("n, m = T.int64(), T.int32() declares both size variables", () => {
    const { f } = roundTrip(
      ["@T.prim_func", "def g(a: T.handle):", "    n, m = T.int64(), T.int32()", "    A = T.match_buffer(a, (n, m))", "    A[0, 0] = T.float32(1)"].join("\n"),
    );
    expect(paramBuffers(f)[0]!.shape.map((s) => [printExpr(s), s.dtype])).toEqual([
      ["n", "int64"],
      ["m", "int32"],
    ]);
  });

  it("requires as many values as names", () => {
    const text = ["@T.prim_func", "def g():", "    n, m = T.int64(), T.int32(), T.int32()"].join("\n");
    expect(errorOf(text)).toMatchObject({ reason: "cannot assign 3 values to 2 names", line: 3, column: 5 });
    const single = ["@T.prim_func", "def g():", "    n, m = T.int64()"].join("\n");
    expect(errorOf(single).reason).toBe("a tuple of names can only be assigned T.axis.remap(...) or a tuple of values");
  });
});

describe("annotated lets", () => {
  it("x: T.let[T.float32] = v is a let of that dtype, printed as x: T.float32 = v", () => {
    const { f, printed } = roundTrip(program("x: T.let[T.float32] = A[vi, 0] * T.float32(2)", 'B[vi] = T.Cast("int32", x)'));
    let letType: string | undefined;
    forEachStmt(f.body, (s) => {
      if (s.kind === "LetStmt") letType = s.variable.dtype;
    });
    expect(letType).toBe("float32");
    expect(printed).toContain("x: T.float32 = A[vi, 0] * T.float32(2.0)");
  });

  it("the value is converted to the declared dtype", () => {
    const { f } = roundTrip(program("x: T.let[T.int64] = 3", 'B[vi] = T.Cast("int32", x)'));
    let value: PrimExpr | undefined;
    forEachStmt(f.body, (s) => {
      if (s.kind === "LetStmt") value = s.value;
    });
    expect([value?.kind, value?.dtype]).toEqual(["IntImm", "int64"]);
  });

  it("also inside T.init()", () => {
    const { f } = roundTrip(
      program(
        "for k in range(4):",
        '    with T.sblock("r"):',
        '        vk = T.axis.remap("R", [k])',
        "        with T.init():",
        "            zero: T.let[T.int32] = 0",
        "            B[vi] = zero",
        "        B[vi] = B[vi] + vk",
      ),
    );
    expect(block(f, "r").init?.kind).toBe("LetStmt");
  });

  it("rejects an annotation that is not a dtype", () => {
    expect(errorOf(program("x: T.let[T.Buffer] = 1")).reason).toBe("expected a dtype annotation such as T.int32 or T.let[T.int32]");
  });
});

describe("dtype= on intrinsics", () => {
  it("is accepted and dropped when it agrees (TVM's _op_wrapper)", () => {
    const { printed } = roundTrip(
      program('A[vi, 0] = T.if_then_else(vi < 8, T.exp(A[vi, 1], dtype="float32"), T.sqrt(A[vi, 2], dtype="float32"), dtype="float32")'),
    );
    expect(printed).toContain("A[vi, 0] = T.if_then_else(vi < 8, T.exp(A[vi, 1]), T.sqrt(A[vi, 2]))");
  });

  it("rejects a dtype the call does not have, and other keywords", () => {
    expect(errorOf(program('A[vi, 0] = T.exp(A[vi, 1], dtype="float16")')).reason).toBe(
      'T.exp(..., dtype="float16"): the call has dtype float32 (dtype= does not convert; use T.Cast)',
    );
    expect(errorOf(program("A[vi, 0] = T.exp(A[vi, 1], span=None)")).reason).toBe('T.exp takes no keyword argument "span" (only dtype=)');
  });

  it("stands for the leading dtype of call_extern; an empty dtype is void", () => {
    const { f, printed } = roundTrip(program('T.evaluate(T.call_extern("notify", A.data, vi, dtype=""))', 'B[vi] = T.call_pure_extern("int32", "hash", vi)'));
    expect(firstCall(f, "call_extern").dtype).toBe("void");
    expect(printed).toContain('T.call_extern("void", "notify", A.data, vi)');
    expect(printed).toContain('B[vi] = T.call_pure_extern("int32", "hash", vi)');
  });
});

describe("T.min_value / T.max_value", () => {
  it("are the dtype's limits as constants", () => {
    const { f, printed } = roundTrip(program('A[vi, 0] = T.min_value("float32")', 'B[vi] = T.max_value(dtype="int32")'));
    expect(printed).toContain("A[vi, 0] = T.float32(-3.4028234663852886e+38)");
    expect(printed).toContain("B[vi] = 2147483647");
    expect(block(f).body.kind).toBe("SeqStmt");
  });

  it("need exactly one known dtype", () => {
    expect(errorOf(program('A[vi, 0] = T.min_value("float33")')).reason).toBe('unknown dtype "float33"');
    expect(errorOf(program("A[vi, 0] = T.max_value()")).reason).toBe('T.max_value takes exactly one dtype, as in T.max_value("float32")');
  });
});

describe("T.ceildiv", () => {
  it("folds constants and otherwise builds (a + b - 1) // b, as TVM", () => {
    const { printed } = roundTrip(program("B[vi] = T.ceildiv(10, 4) + T.ceildiv(n, 4)"));
    expect(printed).toContain("B[vi] = 3 + (n + 4 - 1) // 4");
  });

  it("rejects floats", () => {
    expect(errorOf(program("A[vi, 0] = T.ceildiv(A[vi, 1], A[vi, 2])")).reason).toBe("T.ceildiv expects integer operands, got float32");
  });
});

describe("bit operators", () => {
  it("Python's operators build TVM's bitwise intrinsics", () => {
    const { printed } = roundTrip(program("B[vi] = (B[vi] >> 2 & 3 | B[0] << 1) ^ ~vi"));
    expect(printed).toContain("B[vi] = T.bitwise_xor(T.bitwise_or(T.bitwise_and(T.shift_right(B[vi], 2), 3), T.shift_left(B[0], 1)), T.bitwise_not(vi))");
  });

  it("reject float operands where the operator is", () => {
    expect(errorOf(program('B[vi] = T.Cast("int32", A[vi, 0] >> 1)'))).toMatchObject({
      reason: 'operator ">>" needs integer operands, got float32 and float32',
      line: 8,
      column: 46,
    });
    expect(errorOf(program('B[vi] = T.Cast("int32", ~A[vi, 0])')).reason).toBe('operator "~" needs an integer operand, got float32');
  });
});

describe("buffer members", () => {
  it("A.access_ptr builds TVM's tvm_access_ptr: dtype, data, offset, extent to the end, mask", () => {
    const { f, printed } = roundTrip(program('T.evaluate(A.access_ptr("rw", offset=vi * 16))', 'T.evaluate(B.access_ptr("r", extent=4))'));
    expect(printed).toContain('T.tvm_access_ptr(T.type_annotation("float32"), A.data, vi * 16, 256 - vi * 16, 3)');
    expect(printed).toContain('T.tvm_access_ptr(T.type_annotation("int32"), B.data, 0, 4, 1)');
    expect(firstCall(f, "tvm_access_ptr").dtype).toBe("handle");
  });

  it("content_lanes divides offset and extent, as TVM", () => {
    const { printed } = roundTrip(program('T.evaluate(A.access_ptr("w", content_lanes=4))'));
    expect(printed).toContain('T.tvm_access_ptr(T.type_annotation("float32x4"), A.data, 0, 64, 2)');
  });

  it("reads .data, .elem_offset, .shape[i] and .strides[i]", () => {
    const text = [
      "@T.prim_func",
      "def g(a: T.handle):",
      "    s, off = T.int32(), T.int32()",
      "    A = T.match_buffer(a, (8, 4), strides=(s, 1), elem_offset=off)",
      '    T.evaluate(T.tvm_access_ptr(T.type_annotation(dtype="float32"), A.data, A.elem_offset, A.strides[0] * A.shape[0], 1, dtype="handle"))',
    ].join("\n");
    const { printed } = roundTrip(text);
    expect(printed).toContain('T.tvm_access_ptr(T.type_annotation("float32"), A.data, off, s * 8, 1)');
  });

  it("name what is wrong", () => {
    expect(errorOf(program('T.evaluate(A.access_ptr("x"))')).reason).toBe('unknown access mask "x": use "r", "w" or "rw"');
    expect(errorOf(program('T.evaluate(A.access_ptr("r", ptr_type="float32"))')).reason).toBe('only ptr_type="handle" is supported: the pointer is a handle');
    expect(errorOf(program("B[vi] = A.shape[2]")).reason).toBe("A.shape[2] is out of range: the buffer has 2 dimensions");
    expect(errorOf(program("B[vi] = A.ndim")).reason).toBe('unsupported buffer attribute ".ndim" (expected .data or .elem_offset)');
    expect(errorOf(program("T.evaluate(A.vmap(0))")).reason).toBe('unsupported buffer method ".vmap(...)" (expected .access_ptr, .vload or .vstore)');
  });
});

describe("opaque tensor-core intrinsics", () => {
  it("keep their arguments and print without dtype=", () => {
    const { f, printed } = roundTrip(
      program(
        'T.evaluate(T.tvm_mma_sync(A.data, 0, A.data, 1, A.data, 2, A.data, vi, dtype="handle"))',
        "T.evaluate(T.tvm_fill_fragment(A.data, 16, 16, 16, vi, T.float32(0)))",
      ),
    );
    const data = paramBuffers(f)[0]!.data;
    const args = firstCall(f, "tvm_mma_sync").args;
    expect(args.filter((_, k) => k % 2 === 0).every((a) => a === data)).toBe(true);
    expect(args.filter((_, k) => k % 2 === 1).map((a) => printExpr(a))).toEqual(["0", "1", "2", "vi"]);
    expect(printed).toContain("T.tvm_mma_sync(A.data, 0, A.data, 1, A.data, 2, A.data, vi)");
    expect(printed).toContain("T.tvm_fill_fragment(A.data, 16, 16, 16, vi, T.float32(0.0))");
  });

  it("check their arity", () => {
    expect(errorOf(program("T.evaluate(T.tvm_mma_sync(A.data, 0))")).reason).toBe("T.tvm_mma_sync takes 8 arguments, got 2");
  });
});

describe("storage scopes", () => {
  it("an empty scope is global; wmma fragments are scopes of their own", () => {
    const text = [
      "@T.prim_func",
      "def g():",
      '    X = T.sblock_alloc_buffer((4,), scope="")',
      '    Y = T.sblock_alloc_buffer((16, 16), "float16", scope="wmma.matrix_b")',
      '    Z = T.sblock_alloc_buffer((16, 16), scope="wmma.accumulator")',
      "    for i in range(4):",
      '        with T.sblock("b"):',
      '            vi = T.axis.remap("S", [i])',
      '            X[vi] = Z[vi, 0] + T.Cast("float32", Y[0, vi])',
    ].join("\n");
    const { f, printed } = roundTrip(text);
    expect(f.body.kind === "BlockRealize" && f.body.block.allocBuffers.map((b) => b.scope)).toEqual(["global", "wmma.matrix_b", "wmma.accumulator"]);
    expect(printed).toContain("X = T.alloc_buffer((4,))");
    expect(printed).toContain('Y = T.alloc_buffer((16, 16), "float16", scope="wmma.matrix_b")');
  });

  it("a rank followed by a tag is a scope of that rank, as TVM's StorageScope::Create reads it", () => {
    const text = [
      "@T.prim_func",
      "def g():",
      '    X = T.sblock_alloc_buffer((4,), scope="global.texture")',
      '    Y = T.sblock_alloc_buffer((4,), scope="local.L0A2")',
      '    Z = T.sblock_alloc_buffer((4,), scope="m16n8k8.matrixA")',
      "    for i in range(4):",
      '        with T.sblock("b"):',
      '            vi = T.axis.remap("S", [i])',
      "            X[vi] = Y[vi] + Z[vi]",
    ].join("\n");
    const { f, printed } = roundTrip(text);
    expect(f.body.kind === "BlockRealize" && f.body.block.allocBuffers.map((b) => b.scope)).toEqual(["global.texture", "local.L0A2", "m16n8k8.matrixA"]);
    expect(printed).toContain('Y = T.alloc_buffer((4,), scope="local.L0A2")');
    expect(storageRankOf("shared.dyn")).toBe("shared");
    expect(storageRankOf("wmma.matrix_a.x")).toBe("wmma.matrix_a");
  });

  it("an unknown scope names the ranks; a rank glued to a suffix or an empty tag is not a scope", () => {
    for (const scope of ["texturex", "shared.", "constant"]) {
      const text = ["@T.prim_func", "def g():", `    X = T.sblock_alloc_buffer((4,), scope="${scope}")`].join("\n");
      expect(errorOf(text).reason).toBe(`unknown storage scope "${scope}" (expected ${STORAGE_SCOPE_SYNTAX})`);
    }
    expect(errorOf(["@T.prim_func", "def g():", '    X = T.sblock_alloc_buffer((4,), scope="shared.")'].join("\n")).column).toBeGreaterThan(1);
  });
});

describe("stores of another dtype", () => {
  it("are cast to the buffer's dtype, as TVM's builder does", () => {
    const { printed } = roundTrip(program("A[vi, 0] = vi + 1", "B[vi] = A[vi, 1]"));
    expect(printed).toContain('A[vi, 0] = T.Cast("float32", vi + 1)');
    expect(printed).toContain('B[vi] = T.Cast("int32", A[vi, 1])');
  });
});

describe("void", () => {
  it("is only a call's dtype, never a buffer's", () => {
    const text = ["@T.prim_func", "def g():", '    X = T.sblock_alloc_buffer((4,), "void")'].join("\n");
    expect(errorOf(text).reason).toBe("buffer X cannot hold elements of dtype void");
  });
});

describe("elem_offset", () => {
  it("of another dtype than the shape's is printed (regression: an int64 zero offset was lost)", () => {
    const text = [
      "@T.prim_func",
      'def g(B: T.Buffer((), "float32")):',
      "    X = T.sblock_alloc_buffer((8,), elem_offset=T.int64(0))",
      "    for i in range(8):",
      '        with T.sblock("b"):',
      '            vi = T.axis.remap("R", [i])',
      "            with T.init():",
      "                B[()] = T.float32(0)",
      "            B[()] = B[()] + X[vi]",
    ].join("\n");
    const { printed } = roundTrip(text);
    expect(printed).toContain("X = T.alloc_buffer((8,), elem_offset=T.int64(0))");
  });
});

describe("access regions of opaque uses (TVM's GetSBlockReadWriteRegion)", () => {
  const regions = (f: PrimFunc, name: string) => {
    const b = block(f, name);
    const text = (rs: Block["reads"]) => rs.map((r) => `${r.buffer.name}[${r.region.map((g) => `${printExpr(g.min)}:${printExpr(g.extent)}`).join(", ")}]`);
    return { reads: text(b.reads), writes: text(b.writes) };
  };
  const fragmentProgram = (...lines: string[]) =>
    [
      "@T.prim_func",
      'def g(A: T.Buffer((16, 16), "float16"), C: T.Buffer((16, 16), "float32")):',
      '    F = T.sblock_alloc_buffer((16, 16), "float16", scope="wmma.matrix_a")',
      '    with T.sblock("b"):',
      ...lines.map((l) => `        ${l}`),
    ].join("\n");

  it("access_ptr's mask decides read or write; the whole buffer is accessed", () => {
    const f = parsePrimFunc(
      fragmentProgram(
        'T.tvm_load_matrix_sync(F.data, 16, 16, 16, 0, A.access_ptr("r"), 16, "row_major")',
        'T.evaluate(C.access_ptr("w"))',
        "C[0, 0] = T.float32(1)",
      ),
    );
    // F (root-allocated) is used through its pointer: read and written, after the ordinary accesses.
    expect(regions(f, "b")).toEqual({ reads: ["A[0:16, 0:16]", "F[0:16, 0:16]"], writes: ["C[0:16, 0:16]", "F[0:16, 0:16]"] });
  });

  it("a read-write pointer or a bare .data is opaque: it replaces the ordinary regions of that buffer", () => {
    const f = parsePrimFunc(fragmentProgram('T.evaluate(T.call_extern("void", "touch", C.access_ptr("rw"), A.data))', "C[1, 2] = T.float32(0)"));
    expect(regions(f, "b")).toEqual({ reads: ["C[0:16, 0:16]", "A[0:16, 0:16]"], writes: ["C[0:16, 0:16]", "A[0:16, 0:16]"] });
  });

  it("declared regions are kept", () => {
    const f = parsePrimFunc(fragmentProgram("T.reads(A[0:4, 0:4])", "T.writes()", 'T.evaluate(T.call_extern("void", "touch", A.data))'));
    expect(regions(f, "b")).toEqual({ reads: ["A[0:4, 0:4]"], writes: [] });
  });
});

describe("TVM's node constructors as functions", () => {
  it("T.Add, T.Mul, T.Max, T.LT, T.EQ, T.And, T.Not, T.ramp build the same nodes as the operators", () => {
    const { f } = roundTrip(program("B[vi] = T.Select(T.And(T.LT(vi, 4), T.Not(T.EQ(vi, 2))), T.Add(T.Mul(vi, 2), T.Max(vi, 3)), T.Sub(vi, 1))"));
    const g = parsePrimFunc(program("B[vi] = T.Select(vi < 4 and not vi == 2, vi * 2 + T.max(vi, 3), vi - 1)"));
    expect(structuralEqual(f, g)).toBe(true);
    expect(structuralEqual(parsePrimFunc(program("B[0:4] = T.ramp(vi, 1, 4)")), parsePrimFunc(program("B[0:4] = T.Ramp(vi, 1, 4)")))).toBe(true);
  });
});
