/**
 * `T.cuda.mma_store_legacy` in CUDA C by its registers' and destination's dtypes: float32 registers
 * to a float32 or float16 tile through the pair-store helpers (two adjacent columns per vector store,
 * each element rounded once for float16), same 16-bit dtypes through the scalar template, and any
 * other pair refused by name. That the helpers compile: mma-nvcc and half-output-gemm-nvcc (slow);
 * that they store the right elements: ms-gpu-space-check on a GPU (docs/benchmarks/tensor-core-2026-11-30-s19).
 */
import { parsePrimFunc } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { CodegenError } from "../../src/cuda/errors.js";
import { codegenCuda } from "../../src/cuda/index.js";
import { moduleFromKernelFunc } from "../../src/kernel-from-func.js";
import { target } from "../../src/targets/target.js";

/** One warp storing a 16×16 tile of `registers` registers into a `tile` C. */
function storeKernel(registers: string, tile: string): string {
  return codegenCuda(
    moduleFromKernelFunc(
      parsePrimFunc(`
@T.prim_func
def main(C: T.Buffer((16, 16), "${tile}")):
    T.func_attr({"global_symbol": "store"})
    threadIdx_x = T.launch_thread("threadIdx.x", 32)
    W = T.allocate([8], "${registers}", "local")
    T.cuda.mma_store_legacy(16, 16, T.tvm_access_ptr(T.type_annotation("${tile}"), C.data, 0, 256, 2), W, 0, 16, dtype="${tile}")
`),
      { target: target("nvidia/h100") },
    ),
  ).source;
}

describe("the mma store's CUDA C", () => {
  it.each([
    ["float32", "float32", "tessera_mma_store_16x16_f32", "*reinterpret_cast<float2*>(q) = make_float2(w[r], w[r + 1]);"],
    ["float32", "float16", "tessera_mma_store_16x16_f32_to_f16", "*reinterpret_cast<__half2*>(q) = __floats2half2_rn(w[r], w[r + 1]);"],
    ["float16", "float16", "tessera_mma_store_16x16", "dst[row * stride + col] = w[r];"],
  ])("%s registers to a %s tile: %s", (registers, tile, helper, store) => {
    const source = storeKernel(registers, tile);
    expect(source).toContain(`${helper}(C + 0, W + 0, 16);`);
    expect(source).toContain(store);
    // Only the helper the kernel calls is defined.
    expect(source.match(/__device__ __forceinline__ void tessera_mma_store_16x16\w*\(/g)).toEqual([`__device__ __forceinline__ void ${helper}(`]);
  });

  it("refuses a pair of dtypes it has no store for, naming both", () => {
    expect(() => storeKernel("float16", "float32")).toThrow(CodegenError);
    expect(() => storeKernel("float16", "float32")).toThrow(/no store of float16 accumulator registers to a float32 tile/);
  });
});
