/** CUDA spellings of float16, bfloat16 and the tf32 rounding (half-types.ts). */
import { describe, expect, it } from "vitest";
import { codegenCuda } from "../../src/cuda/index.js";
import { halfGemmModule, halfOperationsModule } from "./half-kernels.js";
import { moduleFromScript } from "./lowered-kernel.js";

const source = codegenCuda(halfOperationsModule()).source;

function expectSnippets(snippets: readonly string[]): void {
  for (const snippet of snippets) expect(source, snippet).toContain(snippet);
}

function copyKernel(dtype: string): string {
  return codegenCuda(
    moduleFromScript(`
@T.prim_func
def main(A: T.Buffer((64,), "${dtype}"), B: T.Buffer((64,), "${dtype}")):
    T.func_attr({"global_symbol": "copy", "tir.noalias": T.bool(True)})
    threadIdx_x = T.launch_thread("threadIdx.x", 16)
    B[threadIdx_x] = A[threadIdx_x]
`),
  ).source;
}

describe("16-bit float types in CUDA", () => {
  it("includes cuda_fp16.h / cuda_bf16.h only when a kernel uses the type, before any helper", () => {
    expect(copyKernel("float32")).not.toMatch(/#include/);
    expect(copyKernel("float16")).toMatch(/^#include <cuda_fp16\.h>\n\nextern "C"/);
    expect(copyKernel("bfloat16")).toMatch(/^#include <cuda_bf16\.h>\n\nextern "C"/);
    expect(source.indexOf("#include <cuda_bf16.h>")).toBeLessThan(source.indexOf("tessera_tf32_round"));
    expect(copyKernel("float16")).toContain("__half* __restrict__ A");
  });

  it("writes constants rounded to the type, converted from an exact float literal", () => {
    // T.float16(0.1) is the half 0.0999755859375; its float literal converts without rounding.
    expect(source).toContain("__float2half_rn(9.99755859e-02f)");
    expect(source).toContain("__float2bfloat16_rn(-2.500000e+00f)");
  });

  it("converts once from the source value: doubles and integers directly, 16-bit types through float", () => {
    expectSnippets([
      "__double2half(3.000000e-01)",
      "__double2bfloat16(1.000000e+30)",
      "__int2bfloat16_rn(I[((int)threadIdx.x)])",
      "__ll2half_rn(L[((int)threadIdx.x)])",
      "__float2half_rn(__bfloat162float(B[((int)threadIdx.x)]))",
      "((int)__bfloat162float(B[((int)threadIdx.x)]))",
      "((int)((double)__half2float(A[((int)threadIdx.x)])))",
    ]);
  });

  it("uses the headers' operators, __hmin/__hmax and hfloor, and runs math in float rounded once", () => {
    expectSnippets([
      "(A[((int)threadIdx.x)] * __float2half_rn(9.99755859e-02f))",
      "__hmax(B[((int)threadIdx.x)], ",
      "__hmin(A[((int)threadIdx.x)], ",
      "hfloor((B[((int)threadIdx.x)] / __float2bfloat16_rn(-2.500000e+00f)))",
      "__float2half_rn(expf(__half2float(A[((int)threadIdx.x)])))",
      "__float2bfloat16_rn(fmodf(__bfloat162float(B[((int)threadIdx.x)]), ",
    ]);
  });

  it("vectorises two lanes as __half2 / __nv_bfloat162, with the headers' operators and constructors", () => {
    expect(source).toContain("*(__half2*)(H + (32 + (((int)threadIdx.x) * 2))) = (*(__half2*)(A + (((int)threadIdx.x) * 2)) + *(__half2*)(A + ");
    expect(source).toContain("make_bfloat162(__float2bfloat16_rn(2.000000e+00f), __float2bfloat16_rn(2.000000e+00f))");
    expect(source).not.toMatch(/TESSERA_.*HALF.*_OPERATORS|operator\+\(__half2/);
  });

  it("rounds to tf32 with cvt.rna.tf32.f32 on sm_80+, the same integer rounding before", () => {
    expect(source).toContain("tessera_tf32_round(F[((int)threadIdx.x)])");
    expect(source).toContain('asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(bits) : "f"(x));');
    expect(source).toContain("(__float_as_uint(x) + 0x1000u) & 0xffffe000u");
  });

  it("truncates to tf32 by clearing the low 13 bits (T.tf32_truncate)", () => {
    expect(source).toContain("__uint_as_float(__float_as_uint(F[((int)threadIdx.x)]) & 0xffffe000u)");
  });

  it("the fp16 gemm accumulates in float and rounds the epilogue to half", () => {
    const gemm = codegenCuda(halfGemmModule("float16")).source;
    expect(gemm).toContain("float gemm_local[16];");
    expect(gemm).toContain("__shared__ __half A_shared[1024];");
    expect(gemm).toMatch(/\(__half2float\(A_shared_local\[i_1_1\]\) \* __half2float\(B_shared_local\[j_1_1\]\)\)/);
    expect(gemm).toMatch(/= \(__float2half_rn\(fmaxf\(gemm_local\[.*\], 0\.000000e\+00f\)\) \+ C\[/);
  });
});
