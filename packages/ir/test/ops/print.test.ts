import { describe, expect, it } from "vitest";
import { gemmReluAdd, printTVMScript } from "../../src/index.js";

/**
 * The notebook's `gemm_relu_add` (/work/shared/seeds/000_*.txt, "Part 1") as TVM prints it back:
 * the parser turns `vi = T.axis.spatial(M, i)` lines into iterators that print as one
 * `T.axis.remap`, adds the implicit root block and the inferred reads/writes, and `@T.prim_func`
 * records `global_symbol`.
 */
const NOTEBOOK_AS_PRINTED = `# from tvm.script import tir as T

@T.prim_func
def gemm_relu_add(A: T.Buffer((2048, 2048), "float32"), B: T.Buffer((2048, 2048), "float32"), C: T.Buffer((2048, 2048), "float32"), D: T.Buffer((2048, 2048), "float32")):
    T.func_attr({"global_symbol": "gemm_relu_add"})
    # with T.block("root"):
    matmul = T.alloc_buffer((2048, 2048))
    relu = T.alloc_buffer((2048, 2048))
    for i, j, k in T.grid(2048, 2048, 2048):
        with T.block("gemm"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            T.reads(A[vi, vk], B[vk, vj])
            T.writes(matmul[vi, vj])
            with T.init():
                matmul[vi, vj] = T.float32(0.0)
            matmul[vi, vj] = matmul[vi, vj] + A[vi, vk] * B[vk, vj]
    for i, j in T.grid(2048, 2048):
        with T.block("relu"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(matmul[vi, vj])
            T.writes(relu[vi, vj])
            relu[vi, vj] = T.max(matmul[vi, vj], T.float32(0.0))
    for i, j in T.grid(2048, 2048):
        with T.block("add"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(relu[vi, vj], C[vi, vj])
            T.writes(D[vi, vj])
            D[vi, vj] = relu[vi, vj] + C[vi, vj]
`;

describe("gemmReluAdd printed", () => {
  it("prints as TVM prints the notebook's function", () => {
    expect(printTVMScript(gemmReluAdd().func)).toBe(NOTEBOOK_AS_PRINTED);
  });
});
