/**
 * Python values inside TVMScript that TVM's parser evaluates: `*dims` splicing a closure tuple or a
 * buffer's shape, dtypes held in closure names, buffers passed where a call takes an expression,
 * free pointer variables, and `T.Return`.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { type ClosureValue, TVMScriptSyntaxError, parsePrimFunc, parseTVMScript } from "../../src/parser/index.js";
import { printTVMScript } from "../../src/printer/index.js";
import { structuralEqual } from "../../src/structural/index.js";
import type { PrimFunc } from "../../src/func.js";
import type { Call, PrimExpr } from "../../src/expr.js";
import { forEachExpr, forEachStmt } from "../../src/functor.js";
import { compilePrimFunc } from "../../src/exec/index.js";

type Closure = Record<string, ClosureValue>;

/** Parses with `closure`, then checks print → parse (without it) gives the same function and text, in both dialects. */
function roundTrip(text: string, closure: Closure = {}): PrimFunc {
  const f = parsePrimFunc(text, { closure });
  for (const dialect of ["course", "tvm"] as const) {
    const printed = printTVMScript(f, { dialect });
    const again = parsePrimFunc(printed);
    expect(structuralEqual(again, f), printed).toBe(true);
    expect(printTVMScript(again, { dialect })).toBe(printed);
  }
  return f;
}

function errorOf(text: string, closure: Closure = {}): { reason: string; line: number; column: number } {
  try {
    parsePrimFunc(text, { closure });
  } catch (err) {
    if (err instanceof TVMScriptSyntaxError) return { reason: err.reason, line: err.line, column: err.column };
    throw err;
  }
  throw new Error("expected a syntax error");
}

function callsOf(f: PrimFunc, op: string): Call[] {
  const found: Call[] = [];
  const visit = (root: PrimExpr): void =>
    forEachExpr(root, (e: PrimExpr) => {
      if (e.kind === "Call" && e.op === op) found.push(e);
    });
  forEachStmt(f.body, (s) => {
    if (s.kind === "Evaluate" || s.kind === "BufferStore") visit(s.value);
  });
  return found;
}

describe("*splicing", () => {
  const dims = { expr: "(3, 4)" };

  it("splices a closure tuple into a shape and a buffer's shape into T.grid, and runs", () => {
    const f = roundTrip(
      [
        "@T.prim_func",
        "def f(a: T.handle):",
        '    A = T.match_buffer(a, [2, *dims], "int32")',
        "    for i, j, k in T.grid(*A.shape):",
        "        A[i, j, k] = i * 100 + j * 10 + k",
      ].join("\n"),
      { dims },
    );
    expect(f.bufferMap.get(f.params[0]!)!.shape.map((d) => (d.kind === "IntImm" ? d.value : -1))).toEqual([2, 3, 4]);
    const out = new Int32Array(24);
    compilePrimFunc(f).run([out]);
    expect(out[23]).toBe(123);
    expect(out[5]).toBe(11);
  });

  it("splices into the arguments of a T.* call, at any position", () => {
    fc.assert(
      fc.property(fc.integer({ min: -9, max: 9 }), fc.integer({ min: -9, max: 9 }), fc.integer({ min: -9, max: 9 }), (x, y, k) => {
        const text = ["@T.prim_func", 'def f(A: T.Buffer((2,), "int32")):', "    A[0] = T.max(*pair)", "    A[1] = T.min(k, *single)"].join("\n");
        const f = roundTrip(text, { pair: { expr: `(${x}, ${y})` }, single: { expr: `[${y}]` }, k });
        const out = new Int32Array(2);
        compilePrimFunc(f).run([out]);
        expect([...out]).toEqual([Math.max(x, y), Math.min(k, y)]);
      }),
      { numRuns: 20 },
    );
  });

  it("refuses to splice anything but a closure tuple or a buffer's shape, naming the place", () => {
    const text = ["@T.prim_func", "def f(a: T.handle):", '    A = T.match_buffer(a, [2, *n], "int32")'].join("\n");
    expect(errorOf(text, { n: 3 })).toEqual({
      reason: "only a buffer's shape, or a tuple or list given in the closure, can be spliced in with *",
      line: 3,
      column: 31,
    });
    expect(errorOf(["@T.prim_func", "def f(n: T.int32):", "    T.evaluate((1, *n))"].join("\n")).reason).toBe("expected an expression, found a tuple");
  });
});

describe("dtypes held in closure names", () => {
  it("a dtype-first intrinsic takes its dtype from a name", () => {
    const f = roundTrip(["@T.prim_func", 'def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "int32")):', "    B[0] = T.reinterpret(dt, A[0])"].join("\n"), {
      dt: "int32",
    });
    expect(callsOf(f, "reinterpret")[0]!.dtype).toBe("int32");
  });

  it("an unknown name where a dtype is expected is reported by name", () => {
    const text = ["@T.prim_func", "def f(A: T.Buffer((4,), dtype)):", "    A[0] = A[1]"].join("\n");
    expect(errorOf(text)).toEqual({
      reason: 'unknown name "dtype": a dtype must be a string literal or a name bound to one (ParseOptions.closure)',
      line: 2,
      column: 25,
    });
    expect(
      parsePrimFunc(text, { closure: { dtype: "float16" } })
        .bufferMap.values()
        .next().value!.dtype,
    ).toBe("float16");
  });
});

describe("buffers as call operands", () => {
  it("T.call_packed packs a buffer into T.tvm_stack_make_array, as TVM's helper does", () => {
    const f = roundTrip(
      ["@T.prim_func", 'def f(A: T.Buffer((4, 2), "float16"), B: T.Buffer((3,), "int8")):', '    T.evaluate(T.call_packed("ext", A, B, 1))'].join("\n"),
    );
    const [packed] = callsOf(f, "call_packed");
    const [a, b] = packed!.args.slice(1, 3) as Call[];
    expect(a!.op).toBe("tvm_stack_make_array");
    expect(a!.args[0]).toBe(f.bufferMap.get(f.params[0]!)!.data);
    expect((a!.args[1] as Call).args.map((d) => (d.kind === "IntImm" ? d.value : -1))).toEqual([4, 2]);
    expect(a!.args.slice(3).map((x) => [x.kind, x.dtype])).toEqual([
      ["IntImm", "int32"],
      ["FloatImm", "float16"],
      ["IntImm", "int32"],
    ]);
    expect(b!.args[4]!.dtype).toBe("int8");
  });

  it("T.address_of(A) is the address of A's first element", () => {
    const f = roundTrip(["@T.prim_func", 'def f(A: T.Buffer((4, 2), "float32")):', "    T.evaluate(T.address_of(A))"].join("\n"));
    const [addr] = callsOf(f, "address_of");
    expect(addr!.args[0]!.kind).toBe("BufferLoad");
  });

  it("elsewhere a buffer is still no value", () => {
    expect(errorOf(["@T.prim_func", 'def f(A: T.Buffer((4,), "float32")):', "    T.evaluate(T.exp(A))"].join("\n")).reason).toBe(
      'buffer "A" cannot be used as a value; index it, as in A[...]',
    );
  });
});

describe("pointer variables and lowered calls", () => {
  it("p = T.handle(dtype) declares a free pointer that a T.decl_buffer can view", () => {
    const f = roundTrip(
      [
        "@T.prim_func(check_well_formed=False)",
        "def f():",
        '    data_ptr = T.handle("float32", "global")',
        '    buf = T.decl_buffer(shape=[1], dtype="float32", data=data_ptr)',
        "    T.evaluate(buf[0])",
        '    T.evaluate(T.ptr_byte_offset(data_ptr, 4, "float16"))',
      ].join("\n"),
    );
    expect(printTVMScript(f)).toContain("data_ptr = T.handle()");
    expect(callsOf(f, "ptr_byte_offset")[0]!.args).toHaveLength(3);
  });

  it("T.Return(x) is return x", () => {
    const a = parsePrimFunc(["@T.prim_func", "def f(x: T.int32) -> T.int32:", "    T.Return(x + 1)"].join("\n"));
    const b = parsePrimFunc(["@T.prim_func", "def f(x: T.int32) -> T.int32:", "    return x + 1"].join("\n"));
    expect(structuralEqual(a, b)).toBe(true);
  });

  it("the lowered packed calls parse and print back", () => {
    const f = roundTrip(["@T.prim_func", "def f(p: T.handle):", '    T.evaluate(T.tvm_call_packed_lowered("g", p, 0, 1))'].join("\n"));
    expect(callsOf(f, "tvm_call_packed_lowered")[0]!.dtype).toBe("int32");
  });
});

describe("TVM's constructors and module-level forms", () => {
  it("T.Call(op, [args], ret_ty=) builds the call of a registered operator, also spelled tvm.ir.Op.get(...)", () => {
    const text = (callee: string): string =>
      ["@T.prim_func", 'def f(A: T.Buffer((4,), "float32")):', `    T.evaluate(T.Call(${callee}, [T.address_of(A[0]), 0, 3, 1], ret_ty="void"))`].join("\n");
    const direct = parsePrimFunc(
      ["@T.prim_func", 'def f(A: T.Buffer((4,), "float32")):', "    T.evaluate(T.prefetch(T.address_of(A[0]), 0, 3, 1))"].join("\n"),
    );
    expect(structuralEqual(roundTrip(text('"tirx.prefetch"')), direct)).toBe(true);
    expect(structuralEqual(roundTrip(text('tvm.ir.Op.get("tirx.prefetch")')), direct)).toBe(true);
    expect(errorOf(text('"tirx.no_such_op"')).reason).toBe('T.Call: unknown operator "no_such_op"');
    const wrongType = ["@T.prim_func", "def f(n: T.int32):", '    T.evaluate(T.Call("tirx.likely", [n > 0], ret_ty="int32"))'].join("\n");
    expect(errorOf(wrongType)).toMatchObject({ reason: 'T.Call: "likely" has dtype bool, not int32', line: 3 });
  });

  it("T.iter_var as an attribute subject is its variable", () => {
    const withIterVar = parsePrimFunc(
      [
        "@T.prim_func",
        'def f(A: T.Buffer((256,), "float32")):',
        "    tx = T.int32()",
        '    T.attr(T.iter_var(tx, T.Range(0, 256), "ThreadIndex", "threadIdx.x"), "thread_extent", 256)',
        "    A[tx] = A[tx] + T.float32(1)",
      ].join("\n"),
    );
    const withVar = parsePrimFunc(
      [
        "@T.prim_func",
        'def f(A: T.Buffer((256,), "float32")):',
        "    tx = T.int32()",
        '    T.attr(tx, "thread_extent", 256)',
        "    A[tx] = A[tx] + T.float32(1)",
      ].join("\n"),
    );
    expect(structuralEqual(withIterVar, withVar)).toBe(true);
    expect(errorOf(["@T.prim_func", "def f():", '    T.attr(T.iter_var(1, T.Range(0, 4), "DataPar", ""), "k", 1)'].join("\n")).reason).toBe(
      "the first argument of T.iter_var must be a variable",
    );
  });

  it("a flat allocation's list annotations are T.tvm_tuple values and print back as lists", () => {
    const text = [
      "@T.prim_func(s_tir=True)",
      'def f(A: T.Buffer((4,), "float32")):',
      '    B = T.alloc_buffer((4,), annotations={"buffer_allocated_addr": [], "buffer_data_alignment": 64, "ids": [1, 2]})',
      "    B[0] = A[0]",
      "    A[1] = B[0]",
    ].join("\n");
    const f = roundTrip(text);
    expect(printTVMScript(f, { dialect: "tvm" })).toContain('annotations={"buffer_allocated_addr": [], "buffer_data_alignment": 64, "ids": [1, 2]}');
    const a = new Float32Array([5, 0, 0, 0]);
    compilePrimFunc(f).run([a]);
    expect(a[1]).toBe(5);
  });

  it("I.module_attrs and an empty module class", () => {
    const text = [
      "@I.ir_module",
      "class Module:",
      '    I.module_attrs({"system_lib_prefix": "modA_", "n": 10, "flags": [True, 2]})',
      "",
      "    @T.prim_func",
      '    def g(A: T.Buffer((1,), "int32")):',
      "        A[0] = 1",
    ].join("\n");
    const mod = parseTVMScript(text);
    expect(mod.attrs).toEqual({ system_lib_prefix: "modA_", n: 10, flags: [true, 2] });
    const printed = printTVMScript(mod);
    expect(parseTVMScript(printed).attrs).toEqual(mod.attrs);
    expect(printTVMScript(parseTVMScript(printed))).toBe(printed);
    expect(parseTVMScript(["@I.ir_module", "class Empty:", "    pass"].join("\n")).functions.size).toBe(0);
    expect(() => parseTVMScript(["@I.ir_module", "class M:", "    I.module_attrs({1: 2})"].join("\n"))).toThrow("the keys of I.module_attrs must be strings");
  });
});

describe("Python spellings of indices and buffer fields", () => {
  it("A[(i, j)] is A[i, j]; A.ty.shape / A.ty.elem_offset are A.shape / A.elem_offset; len() of shapes and closure tuples", () => {
    const f = roundTrip(
      [
        "@T.prim_func",
        'def f(A: T.Buffer((2, 3), "int32")):',
        "    A[(0, 1)] = A.ty.shape[1] + A.ty.elem_offset",
        "    A[1, 2] = len(A.shape) * 10 + len(dims)",
      ].join("\n"),
      { dims: { expr: "(4, 5, 6)" } },
    );
    const a = new Int32Array(6);
    compilePrimFunc(f).run([a]);
    expect([a[1], a[5]]).toEqual([3, 23]);
    expect(errorOf(["@T.prim_func", "def f(n: T.int32):", "    T.evaluate(len(n))"].join("\n")).reason).toBe(
      "len takes a buffer's shape or strides, or a tuple or list given in the closure",
    );
  });
});

describe("T.Shuffle, T.device_entry, T.handle_add_byte_offset", () => {
  it("T.Shuffle picks lanes of its concatenated vectors and prints back as lists", () => {
    const f = roundTrip(
      ["@T.prim_func", 'def f(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):', "    B[0:2] = T.Shuffle([A[0:4], A[4:8]], [0, 7])"].join("\n"),
    );
    const [s] = callsOf(f, "Shuffle");
    expect(s!.dtype).toBe("float32x2");
    expect(s!.args).toHaveLength(4);
    const bad = ["@T.prim_func", 'def f(A: T.Buffer((8,), "float32")):', "    A[0] = T.Shuffle([A[0:4]], [4])"].join("\n");
    expect(errorOf(bad)).toEqual({ reason: "T.Shuffle index 4 is out of range: the vectors have 4 lanes", line: 3, column: 33 });
  });

  it("T.device_entry() marks the rest of the body, and reads back in both dialects", () => {
    const f = roundTrip(
      [
        "@T.prim_func",
        'def f(A: T.Buffer((8,), "float32"), p: T.handle):',
        "    A[1] = A[0]",
        "    T.device_entry()",
        "    T.evaluate(T.handle_add_byte_offset(p, 4))",
      ].join("\n"),
    );
    const marker = f.body.kind === "SeqStmt" ? f.body.seq[1] : undefined;
    expect(marker?.kind === "AttrStmt" && marker.key).toBe("tirx.device_entry");
    expect(errorOf(["@T.prim_func", "def f():", "    T.device_entry(1)"].join("\n")).reason).toBe("T.device_entry takes no arguments");
  });
});

describe("Python evaluation of literals and expression methods", () => {
  it("1 / 4 of two number literals is Python's float division; x.astype(dtype) casts; tvm.tirx.div is T.Div", () => {
    const f = roundTrip(
      [
        "@T.prim_func",
        'def f(A: T.Buffer((4,), "float32"), B: T.Buffer((1,), "int32")):',
        "    A[0] = T.float32(1 / 4)",
        "    B[0] = A[1].astype(dt)",
        "    A[2] = tvm.tirx.div(A[3], A[1])",
      ].join("\n"),
      { dt: "int32" },
    );
    const a = new Float32Array([0, 7.5, 0, 3]);
    const b = new Int32Array(1);
    compilePrimFunc(f).run([a, b]);
    expect([a[0], b[0], a[2]]).toEqual([0.25, 7, 0.4000000059604645]);
    expect(errorOf(["@T.prim_func", "def f(n: T.int32):", "    T.evaluate(n / 2)"].join("\n")).reason).toBe(
      '"/" on integers is ambiguous in TVMScript: use "//" (floor division) or T.truncdiv',
    );
  });
});

describe("@T.inline macros from the closure", () => {
  const closure: Closure = {
    x_value: 3,
    capture: { macro: "def capture(A, B):\n    B[()] = A[x_value]\n" },
    bump: { macro: 'def bump(A, idx):\n    """doc"""\n    A[idx] = A[idx] * T.float32(2)\n' },
    broken: { macro: "def broken(*args):\n    T.evaluate(0)\n" },
  };

  it("inlines the body with its parameters bound to the arguments, hygienically, and runs", () => {
    const f = roundTrip(
      [
        "@T.prim_func",
        'def f(A: T.Buffer((8,), "float32"), B: T.Buffer((), "float32")):',
        "    for x_value in range(4):",
        "        capture(A, B)",
        "        bump(A, idx=x_value)",
      ].join("\n"),
      closure,
    );
    const a = Float32Array.from([1, 2, 3, 4, 5, 6, 7, 8]);
    const b = new Float32Array(1);
    compilePrimFunc(f).run([a, b]);
    // capture reads A[3] (the closure's x_value, not the loop's) each time, after bump doubled it once.
    expect([...a.slice(0, 5)]).toEqual([2, 4, 6, 8, 5]);
    expect(b[0]).toBe(4);
  });

  it("a macro that does not parse is an error only where it is called, and a macro is no value", () => {
    const call = ["@T.prim_func", "def f():", "    broken()"].join("\n");
    expect(errorOf(call, closure)).toEqual({
      reason: "closure macro broken: variadic parameters are not supported in TVMScript (line 1 of its text)",
      line: 3,
      column: 5,
    });
    expect(errorOf(["@T.prim_func", "def f(n: T.int32):", "    T.evaluate(bump + n)"].join("\n"), closure).reason).toBe(
      'macro "bump" is no value; call it as a statement, as in bump(...)',
    );
    expect(errorOf(["@T.prim_func", 'def f(A: T.Buffer((8,), "float32")):', "    bump(A)"].join("\n"), closure).reason).toBe(
      'bump is missing the argument "idx"',
    );
  });
});

describe("T.bind with a type annotation or var=", () => {
  it("binds an existing variable as a statement, or a new one of the annotated dtype, and runs", () => {
    const f = roundTrip(
      [
        "@T.prim_func",
        'def f(i: T.int32, A: T.Buffer((2,), "int64")):',
        "    j = T.int32()",
        "    T.bind(i + 1, var=j)",
        '    k = T.bind(T.Cast("int64", j * 2), T.int64)',
        "    A[0] = k",
      ].join("\n"),
    );
    const a = new Float64Array(2);
    compilePrimFunc(f).run([4, a]);
    expect(a[0]).toBe(10);
    const bad = ["@T.prim_func", "def f(i: T.int32):", "    T.bind(i)"].join("\n");
    expect(errorOf(bad).reason).toBe("T.bind as a statement needs var=, as in T.bind(value, var=x)");
    expect(errorOf(["@T.prim_func", "def f(i: T.int32):", "    k = T.bind(i, T.int64)", "    T.evaluate(k)"].join("\n"))).toEqual({
      reason: "T.bind: the value has dtype int32, the annotation says int64",
      line: 3,
      column: 16,
    });
  });
});

describe("T.decl_buffer(data=<pointer expression>)", () => {
  it("let-binds the pointer to <name>_data and declares the buffer over it", () => {
    const f = roundTrip(
      [
        "@T.prim_func",
        'def f(A: T.Buffer((32,), "float32")):',
        '    B = T.decl_buffer((4,), "float32", data=T.address_of(A[4]))',
        "    B[0] = T.float32(1)",
      ].join("\n"),
    );
    expect(f.body.kind).toBe("LetStmt");
    const let_ = f.body.kind === "LetStmt" ? f.body : undefined;
    expect(let_!.variable.name).toBe("B_data");
    expect(let_!.body.kind === "DeclBuffer" && let_!.body.buffer.data).toBe(let_!.variable);
    const notPointer = [
      "@T.prim_func",
      'def f(A: T.Buffer((32,), "float32")):',
      '    B = T.decl_buffer((4,), "float32", data=A[0])',
      "    B[0] = T.float32(1)",
    ].join("\n");
    expect(errorOf(notPointer).reason).toBe("data= must be a handle variable, such as B.data");
  });
});

describe("TIR variables from the closure", () => {
  it("names given one { var, dtype } object are one variable, in every function of the module", () => {
    const n = { var: "n", dtype: "int32" };
    const mod = parseTVMScript(
      [
        "@T.prim_func",
        'def f(A: T.Buffer((N,), "float32")):',
        "    A[M - 1] = T.float32(1)",
        "",
        "@T.prim_func",
        'def g(B: T.Buffer((N,), "float32")):',
        "    B[0] = T.float32(2)",
      ].join("\n"),
      { closure: { N: n, M: n } },
    );
    const [f, g] = [...mod.functions.values()];
    const shapeOf = (fn: PrimFunc): PrimExpr => fn.bufferMap.get(fn.params[0]!)!.shape[0]!;
    expect(shapeOf(f!)).toBe(shapeOf(g!));
    const printed = printTVMScript(f!);
    expect(printed).toContain("n = T.int32()");
    expect(printed).toContain("[n - 1] = T.float32(1.0)");
    expect(() => parseTVMScript("@T.prim_func\ndef f():\n    T.evaluate(x)\n", { closure: { x: { var: "x", dtype: "int33" } } })).toThrow(
      'closure variable x: unknown dtype "int33"',
    );
  });
});

describe("T.StringImm", () => {
  it("is the string literal it holds", () => {
    const viaNode = roundTrip(["@T.prim_func", "def f():", '    T.evaluate(T.call_extern("int32", T.StringImm("g")))'].join("\n"));
    const literal = parsePrimFunc(["@T.prim_func", "def f():", '    T.evaluate(T.call_extern("int32", "g"))'].join("\n"));
    expect(structuralEqual(viaNode, literal)).toBe(true);
    expect(errorOf(["@T.prim_func", "def f(n: T.int32):", "    T.evaluate(T.StringImm(n))"].join("\n")).reason).toBe(
      "the text of T.StringImm must be a string literal",
    );
  });
});
