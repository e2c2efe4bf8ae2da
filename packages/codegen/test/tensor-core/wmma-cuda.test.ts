/**
 * CUDA C of the WMMA intrinsics, as TVM's generator spells them: fragment arrays of
 * `nvcuda::wmma::fragment<…>` and calls of mma.h; and clear errors for fragments it cannot type.
 */
import { wmmaGemmSchedule } from "@tessera/corpus";
import { describe, expect, it } from "vitest";
import { CodegenError, codegenCuda } from "../../src/cuda/index.js";
import { lower } from "../../src/index.js";
import { moduleFromScript } from "../cuda/lowered-kernel.js";

const source = codegenCuda(lower(wmmaGemmSchedule(128), "nvidia/a100")).source;

describe("CUDA C of a WMMA GEMM", () => {
  it("includes mma.h and declares one fragment per warp in each role", () => {
    expect(source).toContain("#include <mma.h>");
    expect(source).toContain("nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, float> C_wmma_accumulator[1];");
    expect(source).toContain("nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, half, nvcuda::wmma::row_major> A_shared_wmma_matrix_a[1];");
    expect(source).toContain("nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, 16, 16, 16, half, nvcuda::wmma::row_major> B_shared_wmma_matrix_b[1];");
  });

  it("calls fill, load, mma and store on fragment elements, with pointers into the tiles", () => {
    expect(source).toContain("nvcuda::wmma::fill_fragment(C_wmma_accumulator[0], 0.000000e+00f);");
    expect(source).toContain("nvcuda::wmma::load_matrix_sync(A_shared_wmma_matrix_a[0], A_shared + ((((int)threadIdx.y) / 2) * 256), 16);");
    expect(source).toContain("nvcuda::wmma::mma_sync(C_wmma_accumulator[0], A_shared_wmma_matrix_a[0], B_shared_wmma_matrix_b[0], C_wmma_accumulator[0]);");
    expect(source).toMatch(/nvcuda::wmma::store_matrix_sync\(C \+ .*, C_wmma_accumulator\[0\], 128, nvcuda::wmma::mem_row_major\);/);
  });

  it("aligns the shared tiles that fragments are loaded from to 32 bytes", () => {
    expect(source).toContain("__shared__ __align__(32) __half A_shared[512];");
    expect(source).toContain("__shared__ __align__(32) __half B_shared[512];");
  });
});

describe("WMMA fragments the generator refuses", () => {
  const kernelWith = (allocation: string, calls: string) =>
    moduleFromScript(`
@T.prim_func
def main(A: T.Buffer((256,), "float16")):
    T.func_attr({"global_symbol": "main"})
    threadIdx_x = T.launch_thread("threadIdx.x", 32)
    ${allocation}
    ${calls}
`);

  const error = (allocation: string, calls: string): string => {
    try {
      codegenCuda(kernelWith(allocation, calls));
    } catch (e) {
      if (e instanceof CodegenError) return e.message;
      throw e;
    }
    throw new Error("no CodegenError");
  };

  it("a matrix_a fragment never loaded (its layout is unknown)", () => {
    const msg = error('F = T.allocate([256], "float16", "wmma.matrix_a")', "T.tvm_fill_fragment(F, 16, 16, 16, 0, T.float16(0))");
    expect(msg).toContain("fragment F (wmma.matrix_a) is never loaded");
  });

  it("a fragment used with two shapes", () => {
    const msg = error(
      'F = T.allocate([256], "float32", "wmma.accumulator")',
      "T.tvm_fill_fragment(F, 16, 16, 16, 0, T.float32(0))\n    T.tvm_fill_fragment(F, 32, 8, 16, 0, T.float32(0))",
    );
    expect(msg).toContain("fragment F is used as 16×16×16 and as 32×8×16");
  });

  it("an accumulator of an element type WMMA has none for", () => {
    const msg = error('F = T.allocate([256], "float64", "wmma.accumulator")', "T.tvm_fill_fragment(F, 16, 16, 16, 0, T.float64(0))");
    expect(msg).toContain("fragment F holds float64; wmma.accumulator fragments hold float16 or float32");
  });
});
