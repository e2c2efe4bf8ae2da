import { describe, expect, it } from "vitest";
import { declBuffer } from "../../src/buffer.js";
import { add, bufferLoad, floatImm, floordiv, floormod, intImm, lt, mul, ramp, variable } from "../../src/expr.js";
import { storageSync } from "../../src/intrinsics.js";
import { primFunc } from "../../src/func.js";
import { printStmt, printTVMScript } from "../../src/printer/index.js";
import {
  allocate,
  attrStmt,
  block,
  blockRealize,
  bufferRegion,
  bufferStore,
  declBufferStmt,
  evaluate,
  forLoop,
  ifThenElseStmt,
  iterVar,
  letStmt,
  range,
  rangeFromExtent,
  seq,
} from "../../src/stmt.js";

const A = declBuffer("A", [64]);
const lines = (...ls: string[]): string => ls.join("\n");

describe("loops", () => {
  it("prints every loop kind and folds only plain serial nests into T.grid", () => {
    const [i, j, k, l, m, n, t] = ["i", "j", "k", "l", "m", "n", "t"].map((s) => variable(s));
    const store = bufferStore(A, floatImm(0), [i!]);
    const s = forLoop(
      t!,
      8,
      forLoop(
        i!,
        64,
        forLoop(
          j!,
          4,
          forLoop(k!, 4, forLoop(l!, 2, forLoop(m!, 2, forLoop(n!, 3, store, { min: 1 }), { kind: "unrolled" }), { kind: "vectorized" }), {
            annotations: { pragma_auto_unroll_max_step: 16, note: "x" },
          }),
        ),
        { kind: "parallel" },
      ),
      { kind: "thread_binding", threadTag: "blockIdx.x" },
    );
    expect(printStmt(s)).toBe(
      lines(
        'for t in T.thread_binding(8, thread="blockIdx.x"):',
        "    for i in T.parallel(64):",
        "        for j in range(4):",
        '            for k in T.serial(4, annotations={"pragma_auto_unroll_max_step": 16, "note": "x"}):',
        "                for l in T.vectorized(2):",
        "                    for m in T.unroll(2):",
        "                        for n in range(1, 4):",
        "                            A[i] = T.float32(0.0)",
      ),
    );
  });

  it("stops a grid at a loop whose extent depends on the grid, and prints symbolic bounds", () => {
    const [i, j, k] = ["i", "j", "k"].map((s) => variable(s));
    const lo = variable("lo");
    const s = forLoop(i!, 4, forLoop(j!, 8, forLoop(k!, add(i!, 1), evaluate(0))));
    expect(printStmt(s)).toBe(lines("for i, j in T.grid(4, 8):", "    for k in range(i + 1):", "        T.evaluate(0)"));
    expect(printStmt(forLoop(i!, 16, evaluate(0), { min: lo }))).toBe(lines("for i in range(lo, lo + 16):", "    T.evaluate(0)"));
    expect(printStmt(forLoop(i!, 16, evaluate(0), { min: 0, kind: "thread_binding", threadTag: "threadIdx.x" }))).toBe(
      lines('for i in T.thread_binding(16, thread="threadIdx.x"):', "    T.evaluate(0)"),
    );
  });
});

describe("blocks", () => {
  it("prints split bindings one per line, T.where, range regions and a block-local alloc", () => {
    const B = declBuffer("B", [2048]);
    const [i0, i1] = [variable("i_0"), variable("i_1")];
    const v0 = variable("v0");
    const local = declBuffer("B_local", [16], "int32", { scope: "local" });
    const binding = add(mul(i0, 64), i1);
    const realize = blockRealize(
      [binding],
      lt(binding, 2000),
      block({
        name: "B",
        iterVars: [iterVar(v0, rangeFromExtent(2048), "spatial")],
        reads: [bufferRegion(A, [range(floordiv(v0, 32), 1)])],
        writes: [bufferRegion(B, [range(mul(v0, 8), 8)])],
        allocBuffers: [local],
        annotations: { "meta_schedule.cooperative_fetch": 4 },
        body: bufferStore(B, bufferLoad(A, [floordiv(v0, 32)]), [v0]),
      }),
    );
    expect(printStmt(forLoop(i0, 32, forLoop(i1, 64, realize)))).toBe(
      lines(
        "for i_0, i_1 in T.grid(32, 64):",
        '    with T.block("B"):',
        "        v0 = T.axis.spatial(2048, i_0 * 64 + i_1)",
        "        T.where(i_0 * 64 + i_1 < 2000)",
        "        T.reads(A[v0 // 32])",
        "        T.writes(B[v0 * 8:v0 * 8 + 8])",
        '        T.block_attr({"meta_schedule.cooperative_fetch": 4})',
        '        B_local = T.alloc_buffer((16,), "int32", scope="local")',
        "        B[v0] = A[v0 // 32]",
      ),
    );
  });

  it("groups only runs of remappable iterators and prints scan/opaque axes and offset domains", () => {
    const C = declBuffer("C", [8, 8, 8, 8]);
    const [i, j, k, l] = ["i", "j", "k", "l"].map((s) => variable(s));
    const [vi, vj, vk, vl, vs] = ["vi", "vj", "vk", "vl", "vs"].map((s) => variable(s));
    const realize = blockRealize(
      [i!, j!, floormod(k!, 4), l!, l!],
      true,
      block({
        name: "C",
        iterVars: [
          iterVar(vi!, rangeFromExtent(8), "spatial"),
          iterVar(vj!, rangeFromExtent(8), "reduce"),
          iterVar(vk!, range(2, 4), "spatial"),
          iterVar(vl!, rangeFromExtent(8), "scan"),
          iterVar(vs!, rangeFromExtent(8), "opaque"),
        ],
        reads: [bufferRegion(C, [range(0, 8), range(vj!, 1), range(vk!, 1), range(vl!, 1)])],
        writes: [],
        body: evaluate(0),
      }),
    );
    expect(printStmt(forLoop(i!, 8, forLoop(j!, 8, forLoop(k!, 8, forLoop(l!, 8, realize)))))).toBe(
      lines(
        "for i, j, k, l in T.grid(8, 8, 8, 8):",
        '    with T.block("C"):',
        '        vi, vj = T.axis.remap("SR", [i, j])',
        "        vk = T.axis.spatial((2, 6), k % 4)",
        "        vl = T.axis.scan(8, l)",
        "        vs = T.axis.opaque(8, l)",
        "        T.reads(C[0:8, vj, vk, vl])",
        "        T.writes()",
        "        T.evaluate(0)",
      ),
    );
  });

  it("does not remap a binding whose loop domain differs from the iterator domain", () => {
    const i = variable("i");
    const vi = variable("vi");
    const realize = blockRealize([i], true, block({ name: "b", iterVars: [iterVar(vi, rangeFromExtent(16), "spatial")], body: evaluate(0) }));
    expect(printStmt(forLoop(i, 8, realize))).toContain("vi = T.axis.spatial(16, i)");
  });

  it("prints match_buffer with its source region", () => {
    const [vi] = [variable("vi")];
    const sub = declBuffer("A_sub", [16], "float32", { offsetFactor: 1 });
    const realize = blockRealize(
      [0],
      true,
      block({
        name: "m",
        iterVars: [iterVar(vi, rangeFromExtent(4), "spatial")],
        matchBuffers: [{ buffer: sub, source: bufferRegion(A, [range(mul(vi, 16), 16)]) }],
        body: bufferStore(sub, floatImm(1), [0]),
      }),
    );
    expect(printStmt(realize)).toBe(
      lines(
        'with T.block("m"):',
        "    vi = T.axis.spatial(4, 0)",
        "    T.reads()",
        "    T.writes()",
        "    A_sub = T.match_buffer(A[vi * 16:vi * 16 + 16], (16,), offset_factor=1)",
        "    A_sub[0] = T.float32(1.0)",
      ),
    );
  });
});

describe("control flow and lowered statements", () => {
  it("prints if/else with nested bodies", () => {
    const i = variable("i");
    const s = ifThenElseStmt(lt(i, 10), bufferStore(A, floatImm(1), [i]), seq([bufferStore(A, floatImm(2), [i]), evaluate(storageSync("shared"))]));
    expect(printStmt(s)).toBe(lines("if i < 10:", "    A[i] = T.float32(1.0)", "else:", "    A[i] = T.float32(2.0)", '    T.tvm_storage_sync("shared")'));
  });

  it("prints a let flat when it ends its scope and as a with-scope otherwise", () => {
    const x = variable("x");
    const body = bufferStore(A, floatImm(0), [x]);
    expect(printStmt(letStmt(x, 3, body))).toBe(lines("x: T.int32 = 3", "A[x] = T.float32(0.0)"));
    expect(printStmt(seq([letStmt(x, 3, body), evaluate(0)]))).toBe(lines("with T.LetStmt(3) as x:", "    A[x] = T.float32(0.0)", "T.evaluate(0)"));
  });

  it("prints Allocate with a buffer view, the Allocate+DeclBuffer sugar, and launch_thread", () => {
    const shared = declBuffer("A_shared", [64], "float32", { scope: "shared" });
    const tx = variable("threadIdx.x");
    const store = bufferStore(shared, bufferLoad(A, [tx]), [tx]);
    expect(printStmt(attrStmt("thread_extent", tx, 64, allocate(shared, store)))).toBe(
      lines(
        'threadIdx_x = T.launch_thread("threadIdx.x", 64)',
        'A_shared = T.allocate([64], "float32", "shared")',
        'A_shared_1 = T.Buffer((64,), data=A_shared, scope="shared")',
        "A_shared_1[threadIdx_x] = A[threadIdx_x]",
      ),
    );
    expect(printStmt(seq([allocate(shared, declBufferStmt(shared, store)), evaluate(0)]))).toBe(
      lines('with T.decl_buffer((64,), scope="shared") as A_shared:', "    A_shared[threadIdx_x] = A[threadIdx_x]", "T.evaluate(0)"),
    );
    expect(printStmt(allocate(shared, evaluate(0)))).toBe(lines('A_shared = T.allocate([64], "float32", "shared")', "T.evaluate(0)"));
  });

  it("prints generic attributes and a decl_buffer aliasing a parameter's data", () => {
    const a = variable("a", "handle");
    const flat = declBuffer("A_flat", [8, 8], "float32", { data: A.data });
    const inner = declBufferStmt(flat, bufferStore(flat, floatImm(0), [0, 0]));
    const func = primFunc([a], new Map([[a, A]]), attrStmt("pragma_unroll", undefined, intImm(1), seq([inner, evaluate(0)])));
    // In a diagnostic fragment the undeclared A is named on first use, with its data pointer.
    expect(printStmt(seq([evaluate(bufferLoad(A, [0])), inner]))).toBe(
      lines("T.evaluate(A[0])", "A_flat = T.decl_buffer((8, 8), data=A.data)", "A_flat[0, 0] = T.float32(0.0)"),
    );
    expect(printTVMScript(func)).toContain(
      lines(
        'def main(A: T.Buffer((64,), "float32")):',
        '    T.attr(None, "pragma_unroll", 1)',
        "    with T.decl_buffer((8, 8), data=A.data) as A_flat:",
        "        A_flat[0, 0] = T.float32(0.0)",
        "    T.evaluate(0)",
      ),
    );
  });

  it("prints vector accesses with a constant-stride Ramp as slices", () => {
    const i = variable("i");
    const V = declBuffer("V", [64]);
    expect(printStmt(bufferStore(V, bufferLoad(A, [ramp(mul(i, 4), 1, 4)]), [ramp(i, 2, 4)]))).toBe("V[i:i + 8:2] = A[i * 4:i * 4 + 4]");
  });

  it("declares symbolic shape variables and uses match_buffer for non-simple parameters", () => {
    const [a, b, n] = [variable("a", "handle"), variable("b", "handle"), variable("n")];
    const M = variable("M");
    const X = declBuffer("X", [M, 16]);
    const Y = declBuffer("Y", [16], "int8", { scope: "shared", dataAlignment: 16 });
    const func = primFunc(
      [a, b, n],
      new Map([
        [a, X],
        [b, Y],
      ]),
      bufferStore(Y, intImm(1, "int8"), [n]),
    );
    expect(printTVMScript(func)).toBe(
      [
        "# from tvm.script import tir as T",
        "",
        "@T.prim_func",
        "def main(a: T.handle, b: T.handle, n: T.int32):",
        "    M = T.int32()",
        "    X = T.match_buffer(a, (M, 16))",
        '    Y = T.match_buffer(b, (16,), "int8", scope="shared", align=16)',
        "    Y[n] = T.int8(1)",
        "",
      ].join("\n"),
    );
  });
});

describe("scheduled code", () => {
  it("prints a cooperative-fetch stage as in the course notebook", () => {
    const a = variable("a", "handle");
    const X = declBuffer("A", [1026]);
    const shared = declBuffer("A_shared", [1026], "float32", { scope: "shared" });
    const [i0, i1, ax0] = [variable("i_0"), variable("i_1"), variable("ax0")];
    const v0 = variable("v0");
    const fetch = blockRealize(
      [add(mul(i0, 128), ax0)],
      true,
      block({
        name: "A_shared",
        iterVars: [iterVar(v0, rangeFromExtent(1026), "spatial")],
        reads: [bufferRegion(X, [range(v0, 1)])],
        writes: [bufferRegion(shared, [range(v0, 1)])],
        body: bufferStore(shared, bufferLoad(X, [v0]), [v0]),
      }),
    );
    const loops = forLoop(i0, 8, forLoop(i1, 128, forLoop(ax0, 130, fetch), { kind: "thread_binding", threadTag: "threadIdx.x" }), {
      kind: "thread_binding",
      threadTag: "blockIdx.x",
    });
    const body = blockRealize([], true, block({ name: "root", allocBuffers: [shared], body: loops }));
    expect(printTVMScript(primFunc([a], new Map([[a, X]]), body))).toBe(
      [
        "# from tvm.script import tir as T",
        "",
        "@T.prim_func",
        'def main(A: T.Buffer((1026,), "float32")):',
        '    # with T.block("root"):',
        '    A_shared = T.alloc_buffer((1026,), scope="shared")',
        '    for i_0 in T.thread_binding(8, thread="blockIdx.x"):',
        '        for i_1 in T.thread_binding(128, thread="threadIdx.x"):',
        "            for ax0 in range(130):",
        '                with T.block("A_shared"):',
        "                    v0 = T.axis.spatial(1026, i_0 * 128 + ax0)",
        "                    T.reads(A[v0])",
        "                    T.writes(A_shared[v0])",
        "                    A_shared[v0] = A[v0]",
        "",
      ].join("\n"),
    );
  });
});
