import { forEachStmt, parsePrimFunc } from "@tessera/ir";
import { describe, expect, test } from "vitest";
import { flattenBuffer } from "../../src/lower/passes/index.js";
import { corpusEntry, expectSameResults, runFront, runFrontThrough, script } from "./helpers.js";

describe("flattenBuffer", () => {
  test("parameters and allocations become one-dimensional, indices row-major", () => {
    const f = parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32")):
    for i in range(4):
        S = T.allocate([2, 8], "float32", "shared")
        S_1 = T.Buffer((2, 8), data=S, scope="shared")
        for j in range(8):
            S_1[i % 2, j] = A[i, j]
        for j in range(8):
            B[i, j] = S_1[i % 2, 7 - j]
`);
    const out = flattenBuffer(f);
    expect(script(out)).toBe(`@T.prim_func
def main(A: T.Buffer((32,), "float32"), B: T.Buffer((32,), "float32")):
    for i in range(4):
        S = T.allocate([16], "float32", "shared")
        S_1 = T.Buffer((16,), data=S, scope="shared")
        for j in range(8):
            S_1[i % 2 * 8 + j] = A[i * 8 + j]
        for j in range(8):
            B[i * 8 + j] = S_1[i % 2 * 8 - j + 7]
`);
    expectSameResults(out, f);
  });

  test("parameter buffers keep their name and data pointer", () => {
    const before = runFrontThrough(corpusEntry("gemm_relu_add_naive").build().func, "lowerOpaqueBlock");
    const after = flattenBuffer(before);
    expect(after.params).toBe(before.params);
    for (const p of before.params) {
      const old = before.bufferMap.get(p)!;
      const flat = after.bufferMap.get(p)!;
      expect(flat.name).toBe(old.name);
      expect(flat.data).toBe(old.data);
      expect(flat.shape.map((s) => (s.kind === "IntImm" ? s.value : -1))).toEqual([4096]);
    }
    // The body accesses exactly the flat parameter buffers.
    const flatParams = new Set(after.bufferMap.values());
    forEachStmt(after.body, (s) => {
      if (s.kind === "BufferStore" && s.buffer.scope === "global") expect(flatParams.has(s.buffer)).toBe(true);
      if (s.kind === "BufferStore" || s.kind === "Allocate") expect(s.buffer.shape.length).toBe(1);
    });
  });

  test("naive corpus schedule after passes 1–7", () => {
    const entry = corpusEntry("gemm_relu_add_naive");
    const out = runFront(entry.build().func);
    expect(script(out)).toBe(`@T.prim_func
def gemm_relu_add(A: T.Buffer((4096,), "float32"), B: T.Buffer((4096,), "float32"), C: T.Buffer((4096,), "float32"), D: T.Buffer((4096,), "float32")):
    T.func_attr({"global_symbol": "gemm_relu_add"})
    blockIdx_x = T.launch_thread("blockIdx.x", 2)
    blockIdx_y = T.launch_thread("blockIdx.y", 2)
    threadIdx_x = T.launch_thread("threadIdx.x", 32)
    threadIdx_y = T.launch_thread("threadIdx.y", 32)
    matmul = T.decl_buffer((1,), scope="local")
    T.attr(matmul.data, "buffer_allocated_addr", T.tvm_tuple())
    T.attr(matmul.data, "buffer_data_alignment", 64)
    for k in range(64):
        if k == 0:
            matmul[0] = T.float32(0.0)
        matmul[0] = matmul[0] + A[blockIdx_x * 2048 + threadIdx_x * 64 + k] * B[k * 64 + blockIdx_y * 32 + threadIdx_y]
    D[blockIdx_x * 2048 + threadIdx_x * 64 + blockIdx_y * 32 + threadIdx_y] = T.max(matmul[0], T.float32(0.0)) + C[blockIdx_x * 2048 + threadIdx_x * 64 + blockIdx_y * 32 + threadIdx_y]
`);
    expectSameResults(out, entry.original());
  });
});
