import { describe, expect, it } from "vitest";
import { extractCases, messageKey } from "../../scripts/tvm-corpus-extract.js";
import { parseTVMScript } from "../../src/parser/index.js";
import { printTVMScript } from "../../src/printer/index.js";

// A made-up Python test file in the shape of TVM's: module-level functions, functions nested in a
// test function, an ir_module class, multi-line headers, comments and blank lines in bodies.
const PY = `
import tvm
from tvm.script import tir as T


@T.prim_func(s_tir=True)
def first(
    A: T.Buffer((4,), "float32"),
) -> None:
    # a comment at the body's indentation
    for i in range(4):

        A[i] = T.float32(0)


def helper():
    return 1


def test_nested():
    @T.prim_func
    def inner(B: T.Buffer((2,), "int32")):
        B[0] = 1
    # back in the test
    assert inner is not None

    @I.ir_module(s_tir=True)
    class Mod:
        @T.prim_func
        def a(C: T.Buffer((1,), "int32")):
            C[0] = 2

        @T.prim_func(private=True)
        def b(C: T.Buffer((1,), "int32")):
            C[0] = 3
    x = Mod
`;

describe("extractCases", () => {
  const cases = extractCases("tests/test_x.py", PY);

  it("finds each function and module once, named by file, line and Python name", () => {
    expect(cases.map((c) => c.where)).toEqual(["test_x.py:6 first", "test_x.py:21 inner", "test_x.py:27 Mod"]);
  });

  it("cuts each at the end of its body and dedents it so that it parses", () => {
    expect(cases[1]!.text).toBe('@T.prim_func\ndef inner(B: T.Buffer((2,), "int32")):\n    B[0] = 1\n');
    expect(cases[0]!.text).not.toContain("helper");
    expect([...parseTVMScript(cases[0]!.text).functions.keys()]).toEqual(["first"]);
    expect([...parseTVMScript(cases[2]!.text).functions.keys()]).toEqual(["a", "b"]);
    expect(cases[2]!.text).not.toContain("x = Mod");
  });
});

describe("messageKey", () => {
  it("groups messages that differ in names, positions and numbers, but keeps T.* names", () => {
    const a = messageKey('test_x.py:6 first:3:5: error: unknown TVMScript function "T.foo" near "A" (2 args)');
    const b = messageKey('test_y.py:9 other:7:1: error: unknown TVMScript function "T.foo" near "B" (3 args)');
    expect(a).toBe(b);
    expect(a).toBe('unknown TVMScript function "T.foo" near "…" (N args)');
  });
});

describe("scripts TVM rejects", () => {
  const REJECTED = `
def test_rejected():
    with pytest.raises(RuntimeError):

        @T.prim_func
        def bad():
            T.evaluate(0)

    @T.prim_func
    def good():
        T.evaluate(0)
`;

  it("marks a script inside with pytest.raises(...) as expected to fail, and only that one", () => {
    const cases = extractCases("tests/test_y.py", REJECTED);
    expect(cases.map((c) => [c.where, c.expectError])).toEqual([
      ["test_y.py:5 bad", true],
      ["test_y.py:9 good", false],
    ]);
  });
});

describe("the Python closure of a script", () => {
  const CLOSURE = `
N = 16
dtype = tvm.testing.parameter("float16", "float32")


@pytest.mark.parametrize("extent, target", [(4, "llvm"), (8, "cuda")])
def test_closure(extent, target):
    lanes = 2
    other = make_it()

    @T.prim_func
    def f(A: T.Buffer((N,), dtype)):
        T.evaluate(0)
`;

  it("collects module literals, parameters, the first parametrize case and earlier literal assignments", () => {
    const [c] = extractCases("tests/test_z.py", CLOSURE);
    expect(c!.closure).toEqual({ N: 16, dtype: "float16", extent: 4, target: "llvm", lanes: 2 });
  });

  it("the parser takes closure values for names the script does not define", () => {
    const [c] = extractCases("tests/test_z.py", CLOSURE);
    const f = [...parseTVMScript(c!.text, { closure: c!.closure }).functions.values()][0]!;
    expect([...f.bufferMap.values()][0]!.dtype).toBe("float16");
    expect(() => parseTVMScript(c!.text)).toThrow("a dtype must be a string literal");
  });
});

describe("closure values computed in the enclosing Python", () => {
  const COMPUTED = `
@pytest.mark.parametrize(
    "dtype",
    ["float", "float16"],
)
def test_outer(dtype):
    def check(n, lanes, scale=2):
        vec_dtype = f"{dtype}x{lanes}"
        blocks = (n + 7) // 8 * scale
        unknown = compute(n)

        @T.prim_func
        def f(A: T.Buffer((n,), vec_dtype)):
            T.evaluate(blocks)

    check(x, 1)
    check(64, 4)
`;

  it("multi-line parametrize, the first call with constant arguments, defaults, f-strings and arithmetic", () => {
    const [c] = extractCases("tests/test_y.py", COMPUTED);
    expect(c!.closure).toEqual({ dtype: "float", n: 64, lanes: 4, scale: 2, vec_dtype: "floatx4", blocks: 16 });
  });
});

describe("TIR values built in the enclosing Python", () => {
  const TIR = `
def test_tir_values():
    lanes = 4
    one = tvm.tirx.const(1, dtype="float16")
    index = tvm.tirx.Ramp(0, 1, lanes)
    extent = T.vscale() * lanes
    opaque = tvm.tirx.Var("n", "int32").astype("int64")

    @T.prim_func
    def f(A: T.Buffer((16,), "float16")):
        A[index] = T.Broadcast(one, lanes)
`;

  it("are handed on as TVMScript text, and the parser evaluates them where they are used", () => {
    const [c] = extractCases("tests/test_x.py", TIR);
    expect(c!.closure).toEqual({
      lanes: 4,
      one: { expr: "T.float16(1)" },
      index: { expr: "T.Ramp(0, 1, lanes)" },
      extent: { expr: "(T.vscale()) * (lanes)" },
    });
    const f = [...parseTVMScript(c!.text, { closure: c!.closure }).functions.values()][0]!;
    expect(printTVMScript(f)).toContain("A[0:4] = T.Broadcast(T.float16(1.0), 4)");
  });

  it("an expression that does not parse or refers to itself is a clear error", () => {
    const script = '@T.prim_func\ndef f(A: T.Buffer((4,), "int32")):\n    A[0] = x\n';
    expect(() => parseTVMScript(script, { closure: { x: { expr: "T.int32(" } } })).toThrow(/closure value x = T.int32\(:/);
    expect(() => parseTVMScript(script, { closure: { x: { expr: "x + 1" } } })).toThrow("closure value x = x + 1 refers to itself");
    expect(() => parseTVMScript(script, { closure: { x: { expr: "T.nope(1)" } } })).toThrow(
      /3:12: error: closure value x = T.nope\(1\): unknown TVMScript function "T.nope"/,
    );
  });
});

describe("Python helpers and T.* functions in the closure", () => {
  const HELPERS = `
def intrin(data, offset):
    return 0


def twice(x):
    y = x * 2
    return y


@pytest.mark.parametrize("op", (T.Max, T.Min))
def test_helpers(op):
    @T.prim_func
    def f(A: T.Buffer((4,), "int32")):
        A[0] = op(A[1], A[2])
        T.evaluate(intrin(A.data, 1))
        A[3] = twice(A[0])
`;

  it("a helper becomes a lambda (its local assignments substituted), a T.* function value is called as that function", () => {
    const [c] = extractCases("tests/test_w.py", HELPERS);
    expect(c!.closure).toEqual({ intrin: { expr: "lambda data, offset: 0" }, twice: { expr: "lambda x: ((x) * (2))" }, op: { expr: "T.Max" } });
    const f = [...parseTVMScript(c!.text, { closure: c!.closure }).functions.values()][0]!;
    const printed = printTVMScript(f);
    expect(printed).toContain("A[0] = T.max(A[1], A[2])");
    expect(printed).toContain("T.evaluate(0)");
    expect(printed).toContain("A[3] = A[0] * 2");
  });

  it("a lambda called with the wrong number of arguments is a positioned error", () => {
    const script = '@T.prim_func\ndef f(A: T.Buffer((4,), "int32")):\n    A[0] = g(1)\n';
    expect(() => parseTVMScript(script, { closure: { g: { expr: "lambda a, b: a + b" } } })).toThrow(
      "3:12: error: closure function g = lambda a, b: a + b takes 2 positional arguments, got 1",
    );
    const f = [...parseTVMScript(script.replace("g(1)", "g(1, A[1])"), { closure: { g: { expr: "lambda a, b: a + b" } } }).functions.values()][0]!;
    expect(printTVMScript(f)).toContain("A[0] = 1 + A[1]");
  });
});

describe("tuples and special floats in the closure", () => {
  const TUPLES = `
def test_tuples():
    dshape = (32, 64)
    value = -float("inf")

    @T.prim_func
    def f(A: T.Buffer((4,), "float32")):
        A[0] = T.float32(dshape[1])
        A[1] = T.Cast("float32", value)
`;

  it("a tuple of constants is indexed by the script; float('inf') is a number", () => {
    const [c] = extractCases("tests/test_v.py", TUPLES);
    expect(c!.closure).toEqual({ dshape: { expr: "(32, 64)" }, value: -Infinity });
    const f = [...parseTVMScript(c!.text, { closure: c!.closure }).functions.values()][0]!;
    expect(printTVMScript(f)).toContain("A[0] = T.float32(64.0)");
    expect(() => parseTVMScript(c!.text.replace("dshape[1]", "dshape[2]"), { closure: c!.closure })).toThrow(
      "dshape[2] is out of range: dshape = (32, 64) has 2 items",
    );
  });
});

describe("the call that binds a nested function's parameters", () => {
  const SCOPES = `
def test_one():
    def f(n):
        return n

    f(16)


def test_two():
    def f(dtype="float32"):
        @T.prim_func
        def g(A: T.Buffer((4,), dtype)):
            T.evaluate(0)

        return g

    other = 1
`;

  it("is looked for only in the scope that defines it (else the defaults hold)", () => {
    const [c] = extractCases("tests/test_u.py", SCOPES);
    expect(c!.closure).toEqual({ dtype: "float32" });
  });
});

describe("values the caller binds before the call", () => {
  const CALLER = `
CASES = [("float16", 8), ("float32", 4)]


def make(dtype, vector_size, flag, m):
    size_expr = tvm.runtime.convert(vector_size)

    @T.prim_func
    def f(A: T.Buffer((m,), dtype)):
        if flag:
            A[0] = T.Cast(dtype, size_expr)


def test_loop():
    for dtype, vec in [("float16", 8), ("float32", 4)]:
        make(dtype, vec, True, const(32, "int32"))


@pytest.mark.parametrize("pair", CASES)
def test_unpack(pair):
    dt, n = pair

    @T.prim_func
    def g(A: T.Buffer((n,), dt)):
        A[0] = A[1]
`;

  it("binds a loop's first item, unpacks tuples, and reads tvm.runtime.convert, const and a parametrize list named elsewhere", () => {
    const [make, unpack] = extractCases("tests/test_w.py", CALLER);
    expect(make!.closure).toEqual({
      CASES: { expr: '[("float16", 8), ("float32", 4)]' },
      dtype: "float16",
      vector_size: 8,
      flag: { expr: "True" },
      m: { expr: "T.int32(32)" },
      size_expr: 8,
    });
    expect(unpack!.closure).toMatchObject({ pair: { expr: '("float16", 8)' }, dt: "float16", n: 8 });
    for (const c of [make!, unpack!]) expect(parseTVMScript(c.text, { closure: c.closure }).functions.size).toBe(1);
  });
});

describe("loops around a script", () => {
  const LOOPED = `
def test_intrinsics(dtype):
    funcs = [
        (T.clz, lambda x, bits: bits - x.bit_length()),
        (T.popcount, lambda x, bits: bin(x).count("1")),
    ]
    for intrin, reference in funcs:
        n = 16
        if n > 8:
            skipped = 1

        @T.prim_func
        def f(A: T.Buffer((n,), "int32")):
            A[0] = intrin(A[1])
`;

  it("bind their targets to the first item of a list assigned before, and the lines in the loop are seen", () => {
    const [f] = extractCases("tests/test_l.py", LOOPED);
    expect(f!.closure).toMatchObject({ intrin: { expr: "T.clz" }, n: 16 });
    expect(f!.closure).not.toHaveProperty("skipped");
    expect(f!.closure).not.toHaveProperty("reference");
    expect(printTVMScript(parseTVMScript(f!.text, { closure: f!.closure }))).toContain("A[0] = T.clz(A[1])");
  });
});

describe("a call inside a sibling function", () => {
  const SIBLING = `
def test_reduction():
    def sched(nthd):
        @T.prim_func
        def f(A: T.Buffer((nthd,), "float32")):
            A[0] = A[1]

    def verify(nthd):
        func = sched(nthd)

    verify(16)
    verify(32)

def test_dtypes():
    def make(dtypes, n):
        @T.prim_func
        def g(A: T.Buffer((n,), dtypes[1])):
            A[0] = A[1]

    def check(dtypes, n):
        mod = make(dtypes, n)

    n = 8
    dtypes = ["float16", "int8"]
    check(dtypes, n)
`;

  it("binds the nested function's parameters from the sibling's own first call, names handed on as bound", () => {
    const [f, g] = extractCases("tests/test_s.py", SIBLING);
    expect(f!.closure).toMatchObject({ nthd: 16 });
    expect(g!.closure).toMatchObject({ dtypes: { expr: '["float16", "int8"]' }, n: 8 });
    const buffer = parseTVMScript(g!.text, { closure: g!.closure }).functions.get("g")!.bufferMap.values().next().value;
    expect(buffer?.dtype).toBe("int8");
  });
});

describe("macros in the closure", () => {
  const MACRO = `
def test_macro():
    @T.inline
    def twice(A, i):
        # a comment
        A[i] = A[i] * 2

    @T.prim_func
    def f(A: T.Buffer((4,), "int32")):
        twice(A, 1)
`;

  it("a @T.inline function is handed on as its dedented text, which the parser inlines", () => {
    const [c] = extractCases("tests/test_m.py", MACRO);
    expect(c!.closure).toEqual({ twice: { macro: "def twice(A, i):\n    # a comment\n    A[i] = A[i] * 2\n" } });
    expect(printTVMScript(parseTVMScript(c!.text, { closure: c!.closure }))).toContain("A[1] = A[1] * 2");
  });
});

describe("dicts and folded arithmetic in the closure", () => {
  const DICT = `
def test_attrs():
    func_attr = {"target": tvm.target.Target("llvm", host="llvm")}
    m = const(2**10, "int32")

    @T.prim_func
    def f(A: T.Buffer((m,), "int32")):
        T.func_attr(func_attr)
        A[0] = 1
`;

  it("a dict of TIR values is handed on as text and T.func_attr reads it; 2**10 is folded", () => {
    const [c] = extractCases("tests/test_d.py", DICT);
    expect(c!.closure).toEqual({ func_attr: { expr: '{"target": T.target("llvm", host="llvm")}' }, m: { expr: "T.int32(1024)" } });
    const printed = printTVMScript(parseTVMScript(c!.text, { closure: c!.closure }));
    expect(printed).toContain('T.func_attr({"target": T.target("llvm", host="llvm")})');
    expect(printed).toContain('A: T.Buffer((1024,), "int32")');
  });
});

describe("TIR variables in the closure", () => {
  const VARS = `
def test_vars():
    tx = tvm.tirx.Var("threadIdx.x", "int32")
    tx_iter = tvm.tirx.IterVar(tvm.ir.Range(0, 32), tx, tvm.tirx.IterVar.ThreadIndex, "threadIdx.x")
    n = T.Var("n", ty="int64")

    @T.prim_func
    def f(A: T.Buffer((32,), "float32")):
        T.attr(tx_iter, "thread_extent", 32)
        A[tx] = T.float32(n)
`;

  it("tvm.tirx.Var is a closure variable and an IterVar over it is the same object", () => {
    const [c] = extractCases("tests/test_v2.py", VARS);
    expect(c!.closure).toEqual({
      tx: { var: "threadIdx.x", dtype: "int32" },
      tx_iter: { var: "threadIdx.x", dtype: "int32" },
      n: { var: "n", dtype: "int64" },
    });
    expect(c!.closure.tx_iter).toBe(c!.closure.tx);
    const printed = printTVMScript(parseTVMScript(c!.text, { closure: c!.closure }));
    expect(printed).toContain('T.launch_thread("threadIdx.x", 32)');
  });
});

describe("scripts quoted in Python strings", () => {
  const QUOTED = `
def test_printer():
    @T.prim_func
    def main():
        T.evaluate(0)
    expected_output = """
# from tvm.script import tir as T

@T.prim_func
def main():
    T.evaluate(0)"""

    expected_underlined = """
@T.prim_func
def main():
    T.evaluate(0)
    ^^^^^^^^^^^^^
"""
`;

  it("ends a script at the closing quotes or at a less indented line with quotes, and leaves out underlined outputs", () => {
    const cases = extractCases("tests/test_q.py", QUOTED);
    expect(cases.map((c) => c.text)).toEqual(["@T.prim_func\ndef main():\n    T.evaluate(0)\n", "@T.prim_func\ndef main():\n    T.evaluate(0)\n"]);
  });

  it("formats an f-string script with the closure around the string; {{ }} are braces, unknown names stay", () => {
    const FORMATTED = `
@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_printer_f(dtype):
    n = 4
    expected = f"""
@T.prim_func
def main(A: T.Buffer(({n},), "{dtype}")):
    T.func_attr({{"k": {unknown}}})"""
`;
    const [c] = extractCases("tests/test_f.py", FORMATTED);
    expect(c!.text).toBe('@T.prim_func\ndef main(A: T.Buffer((4,), "float16")):\n    T.func_attr({"k": {unknown}})\n');
    expect(c!.closure).toMatchObject({ dtype: "float16", n: 4 });
  });
});

describe("docstrings", () => {
  it("a one-line or multi-line docstring of a script does not end it", () => {
    const src = [
      "@T.prim_func",
      "def f():",
      '    """One line."""',
      "    T.evaluate(0)",
      "",
      "@T.prim_func",
      "def g():",
      '    """Two',
      '    lines."""',
      "    T.evaluate(1)",
      "",
    ].join("\n");
    expect(extractCases("tests/test_d.py", src).map((c) => c.text.split("\n").length)).toEqual([5, 6]);
  });
});
