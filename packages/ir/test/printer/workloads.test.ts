import { describe, expect, it } from "vitest";
import { declBuffer } from "../../src/buffer.js";
import { add, bufferLoad, floatImm, mul, variable } from "../../src/expr.js";
import { irModule, primFunc } from "../../src/func.js";
import { printTVMScript } from "../../src/printer/index.js";
import { block, blockRealize, bufferRegion, bufferStore, forLoop, iterVar, range, rangeFromExtent } from "../../src/stmt.js";
import { gemmReluAdd, nest, rootBlock } from "./workloads.js";

/** Joins golden lines; the printer ends its output with a newline. */
const text = (...lines: string[]): string => `${lines.join("\n")}\n`;

describe("printTVMScript on whole workloads", () => {
  it("prints a vector add as a lone prim_func with a single-iterator block", () => {
    const [a, b, c] = [variable("a", "handle"), variable("b", "handle"), variable("c", "handle")];
    const A = declBuffer("A", [1024]);
    const B = declBuffer("B", [1024]);
    const C = declBuffer("C", [1024]);
    const i = variable("i");
    const vi = variable("vi");
    const body = forLoop(
      i,
      1024,
      blockRealize(
        [i],
        true,
        block({
          name: "C",
          iterVars: [iterVar(vi, rangeFromExtent(1024), "spatial")],
          reads: [bufferRegion(A, [range(vi, 1)]), bufferRegion(B, [range(vi, 1)])],
          writes: [bufferRegion(C, [range(vi, 1)])],
          body: bufferStore(C, add(bufferLoad(A, [vi]), bufferLoad(B, [vi])), [vi]),
        }),
      ),
    );
    const func = primFunc(
      [a, b, c],
      new Map([
        [a, A],
        [b, B],
        [c, C],
      ]),
      rootBlock(body),
    );
    expect(printTVMScript(func)).toBe(
      text(
        "# from tvm.script import tir as T",
        "",
        "@T.prim_func",
        'def main(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32"), C: T.Buffer((1024,), "float32")):',
        '    # with T.block("root"):',
        "    for i in range(1024):",
        '        with T.block("C"):',
        "            vi = T.axis.spatial(1024, i)",
        "            T.reads(A[vi], B[vi])",
        "            T.writes(C[vi])",
        "            C[vi] = A[vi] + B[vi]",
      ),
    );
    expect(printTVMScript(func, { funcName: "vector_add" })).toContain("def vector_add(A: T.Buffer");
  });

  it("prints a matmul with init inside an IRModule", () => {
    const [a, b, c] = [variable("a", "handle"), variable("b", "handle"), variable("c", "handle")];
    const A = declBuffer("A", [128, 64], "float16");
    const B = declBuffer("B", [64, 128], "float16");
    const C = declBuffer("C", [128, 128], "float16");
    const [i, j, k] = [variable("i"), variable("j"), variable("k")];
    const [vi, vj, vk] = [variable("vi"), variable("vj"), variable("vk")];
    const matmul = blockRealize(
      [i, j, k],
      true,
      block({
        name: "C",
        iterVars: [iterVar(vi, rangeFromExtent(128), "spatial"), iterVar(vj, rangeFromExtent(128), "spatial"), iterVar(vk, rangeFromExtent(64), "reduce")],
        reads: [bufferRegion(A, [range(vi, 1), range(vk, 1)]), bufferRegion(B, [range(vk, 1), range(vj, 1)])],
        writes: [bufferRegion(C, [range(vi, 1), range(vj, 1)])],
        init: bufferStore(C, floatImm(0, "float16"), [vi, vj]),
        body: bufferStore(C, add(bufferLoad(C, [vi, vj]), mul(bufferLoad(A, [vi, vk]), bufferLoad(B, [vk, vj]))), [vi, vj]),
      }),
    );
    const func = primFunc(
      [a, b, c],
      new Map([
        [a, A],
        [b, B],
        [c, C],
      ]),
      rootBlock(nest([i, j, k], [128, 128, 64], matmul)),
      {
        global_symbol: "main",
        "tir.noalias": true,
      },
    );
    expect(printTVMScript(irModule({ main: func }))).toBe(
      text(
        "# from tvm.script import ir as I",
        "# from tvm.script import tir as T",
        "",
        "@I.ir_module",
        "class Module:",
        "    @T.prim_func",
        '    def main(A: T.Buffer((128, 64), "float16"), B: T.Buffer((64, 128), "float16"), C: T.Buffer((128, 128), "float16")):',
        '        T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})',
        '        # with T.block("root"):',
        "        for i, j, k in T.grid(128, 128, 64):",
        '            with T.block("C"):',
        '                vi, vj, vk = T.axis.remap("SSR", [i, j, k])',
        "                T.reads(A[vi, vk], B[vk, vj])",
        "                T.writes(C[vi, vj])",
        "                with T.init():",
        "                    C[vi, vj] = T.float16(0.0)",
        "                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]",
      ),
    );
  });

  it("prints the course's gemm_relu_add module as TVM shows it", () => {
    expect(printTVMScript(irModule({ main: gemmReluAdd() }))).toBe(
      text(
        "# from tvm.script import ir as I",
        "# from tvm.script import tir as T",
        "",
        "@I.ir_module",
        "class Module:",
        "    @T.prim_func",
        '    def main(A: T.Buffer((2048, 2048), "float32"), B: T.Buffer((2048, 2048), "float32"), C: T.Buffer((2048, 2048), "float32"), D: T.Buffer((2048, 2048), "float32")):',
        '        T.func_attr({"global_symbol": "gemm_relu_add", "tir.noalias": T.bool(True)})',
        '        # with T.block("root"):',
        "        matmul = T.alloc_buffer((2048, 2048))",
        "        relu = T.alloc_buffer((2048, 2048))",
        "        for i, j, k in T.grid(2048, 2048, 2048):",
        '            with T.block("gemm"):',
        '                vi, vj, vk = T.axis.remap("SSR", [i, j, k])',
        "                T.reads(A[vi, vk], B[vk, vj])",
        "                T.writes(matmul[vi, vj])",
        "                with T.init():",
        "                    matmul[vi, vj] = T.float32(0.0)",
        "                matmul[vi, vj] = matmul[vi, vj] + A[vi, vk] * B[vk, vj]",
        "        for i, j in T.grid(2048, 2048):",
        '            with T.block("relu"):',
        '                vi, vj = T.axis.remap("SS", [i, j])',
        "                T.reads(matmul[vi, vj])",
        "                T.writes(relu[vi, vj])",
        "                relu[vi, vj] = T.max(matmul[vi, vj], T.float32(0.0))",
        "        for i, j in T.grid(2048, 2048):",
        '            with T.block("add"):',
        '                vi, vj = T.axis.remap("SS", [i, j])',
        "                T.reads(relu[vi, vj], C[vi, vj])",
        "                T.writes(D[vi, vj])",
        "                D[vi, vj] = relu[vi, vj] + C[vi, vj]",
      ),
    );
  });

  it("names a lone function by global_symbol and separates module functions by a blank line", () => {
    const f = gemmReluAdd(4);
    expect(printTVMScript(f)).toMatch(/^# from tvm.script import tir as T\n\n@T.prim_func\ndef gemm_relu_add\(/);
    const two = printTVMScript(irModule({ first: f, second: f }));
    expect(two).toContain("        D[vi, vj] = relu[vi, vj] + C[vi, vj]\n\n    @T.prim_func\n    def second(");
    expect(printTVMScript(irModule({}))).toBe(
      text("# from tvm.script import ir as I", "# from tvm.script import tir as T", "", "@I.ir_module", "class Module:", "    pass"),
    );
  });

  it("keeps the root block explicit when it is not the plain implicit root", () => {
    const x = variable("x", "handle");
    const X = declBuffer("X", [4]);
    const store = bufferStore(X, floatImm(1), [0]);
    const func = primFunc([x], new Map([[x, X]]), blockRealize([], true, block({ name: "outer", body: store })));
    expect(printTVMScript(func)).toContain(
      ['    with T.block("outer"):', "        T.reads()", "        T.writes()", "        X[0] = T.float32(1.0)"].join("\n"),
    );
  });
});
