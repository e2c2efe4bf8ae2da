/**
 * Python statements and expressions that today's TVMScript allows and that map onto TVM's calls:
 * `return` (T.ret), `assert`, `break`/`continue` (T.break_loop / T.continue_loop), `x = T.bind(v)`,
 * `a if c else b`, chained comparisons, `T.meta_var`, `T.target`, and the math intrinsics.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parsePrimFunc, parseTVMScript } from "../../src/parser/index.js";
import { errorOf } from "./helpers.js";
import { printTVMScript } from "../../src/printer/index.js";
import { structuralEqual } from "../../src/structural/index.js";
import { type PrimFunc, withBody } from "../../src/func.js";
import { evaluate } from "../../src/stmt.js";
import { checkIntrinsicCall } from "../../src/intrinsics.js";
import type { PrimExpr } from "../../src/expr.js";
import { forEachExpr, forEachStmt } from "../../src/functor.js";
import { compilePrimFunc } from "../../src/exec/index.js";

function roundTrip(text: string): { f: PrimFunc; printed: string } {
  const f = parsePrimFunc(text);
  const printed = printTVMScript(f);
  const again = parsePrimFunc(printed);
  expect(structuralEqual(again, f), printed).toBe(true);
  expect(printTVMScript(again)).toBe(printed);
  return { f, printed };
}

function fn(...body: string[]): string {
  return ["@T.prim_func", 'def f(A: T.Buffer((8,), "float32"), n: T.int32):', ...body.map((l) => `    ${l}`)].join("\n");
}

function calls(f: PrimFunc): string[] {
  const ops: string[] = [];
  const visit = (root: PrimExpr): void =>
    forEachExpr(root, (e: PrimExpr) => {
      if (e.kind === "Call") ops.push(e.op);
    });
  forEachStmt(f.body, (s) => {
    if (s.kind === "IfThenElse") visit(s.condition);
    if (s.kind === "Evaluate" || s.kind === "BufferStore" || s.kind === "LetStmt") visit(s.value);
  });
  return ops;
}

describe("control-flow statements", () => {
  it("return builds T.ret and prints back as return", () => {
    const { f, printed } = roundTrip(["@T.prim_func", "def f(x: T.int8, y: T.int8) -> T.int8:", "    return x * y"].join("\n"));
    expect(calls(f)).toEqual(["ret"]);
    expect(printed).toContain("return x * y");
  });

  it("assert with and without a message", () => {
    const { printed } = roundTrip(fn('assert n > 0, "n must be positive"', "assert n < 100", "A[0] = T.float32(1)"));
    expect(printed).toContain('assert n > 0, "n must be positive"');
    expect(printed).toMatch(/assert n < 100\n/);
    expect(errorOf(fn("assert n")).reason).toBe("an assert condition must be a boolean expression, got int32");
  });

  it("an assert with an error kind and message parts; a failing assert stops the executor", () => {
    const { f, printed } = roundTrip(fn('assert n > 0, ("ValueError", ["n is ", "not positive"])', "A[0] = T.float32(1)"));
    expect(printed).toContain('assert n > 0, ("ValueError", ["n is ", "not positive"])');
    expect(() => compilePrimFunc(f).run([new Float32Array(8), 0])).toThrow("assertion failed: ValueError: n is not positive");
    compilePrimFunc(f).run([new Float32Array(8), 1]);
  });

  it("break and continue inside loops; refused outside", () => {
    const { f, printed } = roundTrip(
      fn("for i in range(8):", "    if i == n:", "        break", "    if i < 2:", "        continue", "    A[i] = T.float32(0)"),
    );
    expect(calls(f)).toEqual(["break_loop", "continue_loop"]);
    expect(printed).toMatch(/\n {12}break\n/);
    expect(errorOf(fn("break"))).toEqual({ reason: '"break" outside a loop', line: 3, column: 5 });
  });

  it("range takes annotations= as T.serial does", () => {
    const a = parsePrimFunc(fn('for i in range(2, 8, annotations={"pragma": 1}):', "    A[i] = T.float32(0)"));
    const b = parsePrimFunc(fn('for i in T.serial(2, 8, annotations={"pragma": 1}):', "    A[i] = T.float32(0)"));
    expect(structuralEqual(a, b)).toBe(true);
  });

  it("a loop step (range(a, b, s), T.serial(a, b, step=s)) is kept on the loop and printed back", () => {
    const { f, printed } = roundTrip(
      fn("for i in range(1, 8, 3):", "    A[i] = T.float32(1)", "for j in T.unroll(0, 8, step=n):", "    A[j] = A[j] + T.float32(2)"),
    );
    expect(printed).toContain("for i in range(1, 8, 3):");
    expect(printed).toContain("for j in T.unroll(0, 8, step=n):");
    const steps: string[] = [];
    forEachStmt(f.body, (s) => void (s.kind === "For" && steps.push(s.step?.kind ?? "none")));
    expect(steps).toEqual(["IntImm", "Var"]);
    const unit = parsePrimFunc(fn("for i in range(1, 8):", "    A[i] = T.float32(1)", "for j in T.unroll(0, 8, step=n):", "    A[j] = A[j] + T.float32(2)"));
    expect(structuralEqual(f, unit)).toBe(false);
  });

  it("the executor runs a stepped loop over min, min + step, … below its stop", () => {
    const f = parsePrimFunc(fn("for i in T.serial(T.min(n, 7), 8, step=n // 8 + 1):", "    A[i] = A[i] + T.float32(1)"));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 40 }), (n) => {
        const a = new Float32Array(8);
        compilePrimFunc(f).run([a, n]);
        const expected = new Float32Array(8);
        for (let i = Math.min(n, 7); i < 8; i += Math.floor(n / 8) + 1) expected[i] = expected[i]! + 1;
        expect([...a]).toEqual([...expected]);
      }),
      { numRuns: 30 },
    );
    const g = parsePrimFunc(fn("for i in T.serial(0, 8, step=n):", "    A[i] = T.float32(1)"));
    expect(() => compilePrimFunc(g).run([new Float32Array(8), 0])).toThrow("loop i: its step must be positive");
  });

  it("a step needs both bounds, an integer of the loop's dtype, and no thread binding", () => {
    expect(errorOf(fn("for i in T.serial(8, step=2):", "    A[i] = T.float32(0)")).reason).toBe(
      "T.serial with a step needs a start and a stop, as in T.serial(0, n, step=2)",
    );
    expect(errorOf(fn("for i in range(0, 8, 0.5):", "    A[i] = T.float32(0)")).reason).toBe(
      "a loop step must be an integer of the loop's dtype int32, got float32",
    );
    expect(errorOf(fn('for i in T.thread_binding(0, 8, step=2, thread="threadIdx.x"):', "    A[i] = T.float32(0)")).reason).toBe(
      'T.thread_binding got an unexpected keyword argument "step"',
    );
  });

  it("an integer if condition is Python's truthiness (x != 0); other types are refused", () => {
    const { f, printed } = roundTrip(fn("for i in range(8):", "    if i % 3:", "        A[i] = T.float32(1)"));
    expect(printed).toContain("if i % 3 != 0:");
    const a = new Float32Array(8);
    compilePrimFunc(f).run([a, 0]);
    expect([...a]).toEqual([0, 1, 1, 0, 1, 1, 0, 1]);
    expect(errorOf(fn("if A[0]:", "    A[1] = T.float32(0)")).reason).toBe("an if condition must be a boolean or integer expression, got float32");
  });

  it("a while loop round-trips as a While node and runs while its condition holds", () => {
    const { f, printed } = roundTrip(
      fn('K = T.alloc_buffer((1,), "int32")', "K[0] = 0", "while K[0] < n:", '    A[K[0]] = T.Cast("float32", K[0])', "    K[0] = K[0] + 1"),
    );
    const kinds: string[] = [];
    forEachStmt(f.body, (s) => void kinds.push(s.kind));
    expect(kinds).toContain("While");
    expect(printed).toMatch(/\n {4}while K\[0\] < n:\n/);
    const a = new Float32Array(8);
    compilePrimFunc(f).run([a, 5]);
    expect([...a]).toEqual([0, 1, 2, 3, 4, 0, 0, 0]);
  });

  it("an integer while condition is Python's truthiness; a float one is refused where it stands", () => {
    const { printed } = roundTrip(fn('K = T.alloc_buffer((1,), "int32")', "K[0] = n", "while K[0]:", "    K[0] = K[0] - 1"));
    expect(printed).toContain("while K[0] != 0:");
    expect(errorOf(fn("while A[0]:", "    A[1] = T.float32(0)"))).toEqual({
      reason: "a while condition must be a boolean or integer expression, got float32",
      line: 3,
      column: 11,
    });
  });

  it("structural equality compares the condition and the body of a while loop", () => {
    const loop = (cond: string, value: string): PrimFunc => parsePrimFunc(fn('K = T.alloc_buffer((1,), "int32")', `while ${cond}:`, `    K[0] = ${value}`));
    expect(structuralEqual(loop("K[0] < n", "K[0] + 1"), loop("K[0] < n", "K[0] + 1"))).toBe(true);
    expect(structuralEqual(loop("K[0] < n", "K[0] + 1"), loop("K[0] <= n", "K[0] + 1"))).toBe(false);
    expect(structuralEqual(loop("K[0] < n", "K[0] + 1"), loop("K[0] < n", "K[0] + 2"))).toBe(false);
    const asIf = parsePrimFunc(fn('K = T.alloc_buffer((1,), "int32")', "if K[0] < n:", "    K[0] = K[0] + 1"));
    expect(structuralEqual(loop("K[0] < n", "K[0] + 1"), asIf)).toBe(false);
  });

  it("break and continue run in the executor as the innermost loop's break and continue", () => {
    const script = fn(
      'K = T.alloc_buffer((1,), "int32")',
      "for i in range(8):",
      "    if i == n:",
      "        break",
      "    if i % 2 == 0:",
      "        continue",
      "    A[i] = T.float32(1)",
      "K[0] = 0",
      "while K[0] < 8:",
      "    K[0] = K[0] + 1",
      "    if K[0] > n:",
      "        break",
      'A[0] = T.Cast("float32", K[0])',
    );
    const f = roundTrip(script).f;
    fc.assert(
      fc.property(fc.integer({ min: -2, max: 10 }), (n) => {
        const a = new Float32Array(8);
        compilePrimFunc(f).run([a, n]);
        const expected = new Float32Array(8);
        for (let i = 0; i < 8 && i !== n; i++) if (i % 2 !== 0) expected[i] = 1;
        let k = 0;
        while (k < 8) {
          k++;
          if (k > n) break;
        }
        expected[0] = k;
        expect([...a]).toEqual([...expected]);
      }),
      { numRuns: 30 },
    );
  });

  it("the executor refuses a break that no loop encloses (IR built without the parser)", () => {
    const f = parsePrimFunc(fn("A[0] = T.float32(1)"));
    const stray = withBody(f, evaluate(checkIntrinsicCall("break_loop", [])));
    expect(() => compilePrimFunc(stray)).toThrow("T.break_loop() is not inside a loop");
  });
});

describe("expressions", () => {
  it("let annotations: T.let without a dtype takes the value's, a typed pointer is a handle", () => {
    const { f } = roundTrip(fn("x: T.let = n * 2", 'p: T.let[T.handle("float32")] = A.data', "A[x] = T.float32(0)", "T.evaluate(p)"));
    const lets: string[] = [];
    forEachStmt(f.body, (s) => {
      if (s.kind === "LetStmt") lets.push(s.variable.dtype);
    });
    expect(lets).toEqual(["int32", "handle"]);
  });

  it("x = T.bind(v) is a let binding, like x = v", () => {
    const a = parsePrimFunc(fn("x = T.bind(n + 1)", "A[x] = T.float32(0)"));
    const b = parsePrimFunc(fn("x = n + 1", "A[x] = T.float32(0)"));
    expect(structuralEqual(a, b)).toBe(true);
  });

  it("a if c else b: a constant condition picks a branch, others build T.if_then_else", () => {
    const picked = parsePrimFunc(fn("A[0] = T.float32(1) if True else T.float32(2)"));
    expect(structuralEqual(picked, parsePrimFunc(fn("A[0] = T.float32(1)")))).toBe(true);
    const { f } = roundTrip(fn("A[0] = A[1] if n > 0 else A[2]"));
    expect(calls(f)).toEqual(["if_then_else"]);
  });

  it("chained comparisons read as Python's and", () => {
    const a = parsePrimFunc(fn("if 0 <= n < 8:", "    A[n] = T.float32(0)"));
    const b = parsePrimFunc(fn("if 0 <= n and n < 8:", "    A[n] = T.float32(0)"));
    expect(structuralEqual(a, b)).toBe(true);
  });

  it("T.meta_var substitutes its value", () => {
    const a = parsePrimFunc(fn("A[T.meta_var(n + 1)] = T.float32(0)"));
    const b = parsePrimFunc(fn("A[n + 1] = T.float32(0)"));
    expect(structuralEqual(a, b)).toBe(true);
  });

  it("T.target with a kind, a host or a config dict round-trips", () => {
    for (const target of [
      'T.target("cuda")',
      'T.target("cuda", host="llvm")',
      'T.target({"kind": "llvm", "opt-level": 0})',
      'T.target("nvptx", host={"kind": "llvm"})',
    ]) {
      const { printed } = roundTrip(fn(`T.func_attr({"target": ${target}})`, "A[0] = T.float32(0)"));
      expect(printed).toContain(target);
    }
  });

  it("tvm.target.Target(...) in a script is T.target(...)", () => {
    const a = parsePrimFunc(fn('T.func_attr({"target": tvm.target.Target("llvm")})', "A[0] = T.float32(0)"));
    const b = parsePrimFunc(fn('T.func_attr({"target": T.target("llvm")})', "A[0] = T.float32(0)"));
    expect(structuralEqual(a, b)).toBe(true);
  });

  it('dtype=T.handle("int64").ty is the handle type', () => {
    const { printed } = roundTrip(fn('p = T.call_extern("f", dtype=T.handle("int64").ty)', "T.evaluate(p)"));
    expect(printed).toContain('T.call_extern("handle", "f")');
  });

  it("a float literal in an intrinsic with dtype= is a constant of that dtype", () => {
    const { f } = roundTrip(fn('A[0] = T.if_then_else(n < 12, 1.0, 2.0, dtype="float32")'));
    const a = new Float32Array(8);
    compilePrimFunc(f).run([a, 3]);
    expect(a[0]).toBe(1);
    expect(errorOf(fn('A[0] = T.if_then_else(n < 12, 1, 2, dtype="float32")')).reason).toMatch(/the call has dtype int32/);
  });

  it("T.buffer and T.boolean are TVMScript's other spellings of T.Buffer and T.bool in parameters", () => {
    const a = parsePrimFunc('@T.prim_func\ndef f(A: T.buffer((4,), "float32"), c: T.boolean):\n    A[0] = T.Select(c, T.float32(1), T.float32(0))\n');
    const b = parsePrimFunc('@T.prim_func\ndef f(A: T.Buffer((4,), "float32"), c: T.bool):\n    A[0] = T.Select(c, T.float32(1), T.float32(0))\n');
    expect(structuralEqual(a, b)).toBe(true);
  });

  it("T.cast takes its dtype positionally or as dtype=", () => {
    const a = parsePrimFunc(fn('A[0] = T.cast(T.cast(n, "float64"), dtype="float32")'));
    const b = parsePrimFunc(fn('A[0] = T.Cast("float32", T.Cast("float64", n))'));
    expect(structuralEqual(a, b)).toBe(true);
    expect(errorOf(fn("A[0] = T.cast(n)")).reason).toBe('T.cast is missing the argument "dtype"');
  });

  it("lower-level intrinsics keep their dtype where TVMScript writes it", () => {
    const { printed } = roundTrip(
      fn(
        'h = T.tvm_struct_get(A.data, 0, 1, "handle")',
        'p = T.call_llvm_pure_intrin("float32", "llvm.fabs", T.uint32(1), A[0])',
        'A[1] = T.reinterpret("float32", T.int32(0)) + p',
        "T.evaluate(h)",
      ),
    );
    expect(printed).toContain('T.tvm_struct_get(A.data, 0, 1, "handle")');
    expect(printed).toContain('T.call_llvm_pure_intrin("float32", "llvm.fabs", T.uint32(1), A[0])');
  });
});

describe("host and LLVM builtins", () => {
  it("stack allocation, lane masks and loop-partition hints round-trip as opaque calls and are not executed", () => {
    const text = fn(
      's = T.tvm_stack_alloca("arg_value", 4)',
      "shape = T.tvm_stack_make_shape(8)",
      'arr = T.tvm_stack_make_array(A.data, shape, T.reinterpret("handle", T.uint64(0)), 1, T.float32(0), 0)',
      'm = T.get_active_lane_mask("boolx4", 0, n)',
      'i = T.llvm_lookup_intrinsic_id("llvm.ctpop.i32")',
      "if T.ignore_loop_partition(n < 4):",
      '    T.evaluate(T.call_packed("f", s, arr, m, i))',
    );
    const { f, printed } = roundTrip(text);
    expect(printed).toContain('T.get_active_lane_mask("boolx4", 0, n)');
    expect(calls(f)).toContain("ignore_loop_partition");
    expect(() => compilePrimFunc(f).run([new Float32Array(8), 1])).toThrow(/tvm_stack_alloca/);
  });
});

describe("math intrinsics", () => {
  const UNARY: Record<string, (x: number) => number> = {
    sin: Math.sin,
    cos: Math.cos,
    tan: Math.tan,
    atan: Math.atan,
    sinh: Math.sinh,
    cosh: Math.cosh,
    asinh: Math.asinh,
    log2: Math.log2,
    log10: Math.log10,
    log1p: Math.log1p,
    expm1: Math.expm1,
  };

  it("each parses, round-trips and computes as the float64 reference rounded to float32", () => {
    for (const [name, ref] of Object.entries(UNARY)) {
      const text = [
        "@T.prim_func",
        'def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):',
        "    for i in range(4):",
        `        B[i] = T.${name}(A[i])`,
      ].join("\n");
      const { f } = roundTrip(text);
      fc.assert(
        fc.property(fc.array(fc.float({ min: 0.125, max: 2, noNaN: true }), { minLength: 4, maxLength: 4 }), (xs) => {
          const a = Float32Array.from(xs);
          const b = new Float32Array(4);
          compilePrimFunc(f).run([a, b]);
          for (let i = 0; i < 4; i++) expect(b[i]).toBe(Math.fround(ref(a[i]!)));
        }),
        { numRuns: 20 },
      );
    }
  });

  it("binary math, predicates and bit counts have TVM's types", () => {
    const { f } = roundTrip(
      fn("A[0] = T.fmod(A[1], A[2]) + T.atan2(A[1], A[2])", "if T.isnan(A[3]) or T.isinf(A[3]):", '    A[4] = T.Cast("float32", T.popcount(n) + T.clz(n))'),
    );
    expect(calls(f)).toEqual(["fmod", "atan2", "isnan", "isinf", "popcount", "clz"]);
    expect(errorOf(fn("A[0] = T.sin(n)")).reason).toBe("T.sin expects a float operand, got int32");
    expect(errorOf(fn('A[0] = T.Cast("float32", T.popcount(A[1]))')).reason).toBe("T.popcount expects an integer operand, got float32");
  });

  it("fmod, isnan and popcount compute as in C", () => {
    const text = [
      "@T.prim_func",
      'def f(A: T.Buffer((3,), "float32"), N: T.Buffer((3,), "int32"), B: T.Buffer((3,), "float32"), C: T.Buffer((3,), "int32")):',
      "    for i in range(3):",
      "        B[i] = T.fmod(A[i], T.float32(1.5))",
      '        C[i] = T.popcount(N[i]) + T.Cast("int32", T.isnan(A[i]))',
    ].join("\n");
    const f = parsePrimFunc(text);
    const a = Float32Array.from([4, -4, Number.NaN]);
    const n = Int32Array.from([7, -1, 0]);
    const b = new Float32Array(3);
    const c = new Int32Array(3);
    compilePrimFunc(f).run([a, n, b, c]);
    expect([...b.slice(0, 2)]).toEqual([1, -1]);
    expect([...c]).toEqual([3, 32, 1]);
  });
});

describe("attribute subjects and reducers", () => {
  it("T.comm_reducer with one or two values round-trips as the subject of reduce_scope", () => {
    for (const reducer of [
      "T.comm_reducer(lambda x, y: x + y, [T.float32(0.0)])",
      "T.comm_reducer(lambda a0, a1, b0, b1: (T.max(a0, b0), a1 + b1), [T.float32(0.0), 0])",
    ]) {
      const { f, printed } = roundTrip(fn(`with T.attr(${reducer}, "reduce_scope", T.int32(0)):`, "    A[0] = T.float32(1)"));
      expect(printed).toContain(reducer);
      const attr = f.body;
      expect(attr.kind === "AttrStmt" && attr.node === undefined && attr.subject?.kind).toBe("Call");
    }
  });

  it("a combiner whose arity does not match the identities is refused", () => {
    expect(errorOf(fn('with T.attr(T.comm_reducer(lambda x: x, [T.float32(0)]), "reduce_scope", 0):', "    A[0] = T.float32(1)")).reason).toBe(
      "the combiner of T.comm_reducer takes 2 parameters for 1 identity, got 1",
    );
  });

  it("strings, targets and typed constants as T.attr subjects", () => {
    for (const subject of ['"default"', 'T.target("cuda")', "T.int32(1)"]) {
      const { printed } = roundTrip(fn(`with T.attr(${subject}, "pragma_scope", 1):`, "    A[0] = T.float32(1)", "A[1] = T.float32(2)"));
      expect(printed).toContain(`with T.attr(${subject}, "pragma_scope", 1):`);
    }
  });

  it("buffers used but declared nowhere print as T.Buffer declarations", () => {
    const text = ["@T.prim_func", "def f():", '    X = T.Buffer((4,), "int32", scope="local")', "    X[0] = 1"].join("\n");
    const { printed } = roundTrip(text);
    expect(printed).toContain('X = T.Buffer((4,), "int32", scope="local")');
  });
});

describe("calls between the functions of a module", () => {
  const MODULE = [
    "@I.ir_module",
    "class Mod:",
    "    @T.prim_func",
    '    def main(A: T.Buffer((4,), "int32")):',
    "        A[0] = Mod.add(A[1], A[2])",
    "        Mod.log(A.data)",
    "",
    "    @T.prim_func(private=True)",
    "    def add(a: T.int32, b: T.int32) -> T.int32:",
    "        return a + b",
    "",
    "    @T.prim_func(private=True)",
    "    def log(p: T.handle):",
    "        T.evaluate(0)",
  ].join("\n");

  it("Cls.f(...) calls a function of the module with its return dtype, and round-trips", () => {
    const mod = parseTVMScript(MODULE);
    const printed = printTVMScript(mod);
    expect(printed).toContain("A[0] = Module.add(A[1], A[2])");
    expect(printed).toContain("def add(a: T.int32, b: T.int32) -> T.int32:");
    const again = parseTVMScript(printed);
    for (const [name, f] of mod.functions) expect(structuralEqual(again.functions.get(name)!, f)).toBe(true);
    expect(() => compilePrimFunc(mod.functions.get("main")!).run([new Int32Array(4)])).toThrow('cannot execute the call of function "add"');
  });

  it("a name that is not a function of the module stays an error", () => {
    expect(() => parseTVMScript(MODULE.replace("Mod.log(A.data)", "Mod.missing(A.data)"))).toThrow('unknown function "Mod.missing"');
  });
});

describe("namespaced target intrinsics", () => {
  it("T.ptx_legacy.* / T.cuda.* calls are opaque, keep their dtype= and round-trip", () => {
    const { f, printed } = roundTrip(
      fn('T.ptx_legacy.mma("m8n8k4", "row", "col", A.data, 0, dtype="float16")', "T.cuda.mbarrier_wait(A.data, 0)", "T.ptx.cp.async_.commit_group()"),
    );
    expect(printed).toContain('T.ptx_legacy.mma("m8n8k4", "row", "col", A.data, 0, dtype="float16")');
    expect(printed).toContain("T.ptx.cp.async_.commit_group()");
    expect(() => compilePrimFunc(f).run([new Float32Array(8), 0])).toThrow("cannot execute opaque intrinsic T.ptx_legacy.mma");
  });

  it("other dotted names stay unknown", () => {
    expect(errorOf(fn("T.nothing.here(0)")).reason).toMatch(/^unknown function "T.nothing.here"/);
  });
});
