/** Expression and statement spellings of the CUDA generator, kernel by kernel. */
import { describe, expect, it } from "vitest";
import { codegenCuda, codegenKernel } from "../../src/cuda/index.js";
import { float32Literal, float64Literal } from "../../src/c-family/literals.js";
import { NameTable, sanitizeIdentifier } from "../../src/c-family/names.js";
import { moduleFromScript } from "./lowered-kernel.js";

/** The body of a one-thread-block kernel `k(A, B[, ...])` around `body` (indented 4 spaces). */
function kernelSource(body: string, params = 'A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")'): string {
  return `
@T.prim_func
def main(${params}):
    T.func_attr({"global_symbol": "k", "tir.noalias": T.bool(True)})
    threadIdx_x = T.launch_thread("threadIdx.x", 16)
${body}
`;
}

const cuda = (body: string, params?: string): string => codegenCuda(moduleFromScript(kernelSource(body, params))).source;

describe("literals", () => {
  it("prints float32 in TVM's %e style, with more digits only when six do not round-trip", () => {
    expect(float32Literal(0)).toBe("0.000000e+00f");
    expect(float32Literal(1)).toBe("1.000000e+00f");
    expect(float32Literal(-0.5)).toBe("-5.000000e-01f");
    expect(float32Literal(1e-20)).toBe("1.000000e-20f");
    expect(float32Literal(Math.fround(1 / 3))).toBe("3.33333343e-01f");
    expect(float32Literal(Infinity)).toBe("__int_as_float(0x7f800000)");
    expect(float64Literal(0.1)).toBe("1.000000e-01");
    expect(float64Literal(1 / 3)).toBe("3.3333333333333331e-01");
    expect(float64Literal(2)).toBe("2.000000e+00");
  });
});

describe("names", () => {
  it("sanitises, avoids keywords and built-ins, and deduplicates by identity", () => {
    expect(sanitizeIdentifier("i.outer")).toBe("i_outer");
    expect(sanitizeIdentifier("0x")).toBe("v_0x");
    expect(sanitizeIdentifier("__x")).toBe("_x");
    expect(sanitizeIdentifier("_X")).toBe("v_X");
    const t = new NameTable();
    const [a, b, c] = [{}, {}, {}];
    expect(t.define(a, "i")).toBe("i");
    expect(t.define(b, "i")).toBe("i_1");
    expect(t.define(c, "float")).toBe("float_1");
    expect(t.lookup(a)).toBe("i");
  });

  it("gives two loops over distinct variables of one name distinct C names", () => {
    const src = cuda(`    for i in range(2):
        B[i] = A[i]
    for i in range(2):
        B[i + 2] = A[i]`);
    expect(src).toContain("for (int i = 0; i < 2; ++i) {");
    expect(src).toContain("for (int i_1 = 0; i_1 < 2; ++i_1) {");
  });
});

describe("integer division", () => {
  it("uses plain / and % when the dividend is provably non-negative", () => {
    const src = cuda("    B[threadIdx_x] = A[threadIdx_x // 4 * 4 + threadIdx_x % 4]");
    expect(src).toContain("A[(((((int)threadIdx.x) / 4) * 4) + (((int)threadIdx.x) % 4))]");
    expect(src).not.toContain("tessera_floordiv(int a");
  });

  it("uses the floor helpers (and emits them once) when the dividend may be negative", () => {
    const src = cuda("    B[threadIdx_x] = A[T.floormod(threadIdx_x - 20, 64) + T.floordiv(threadIdx_x - 20, 64)]");
    expect(src).toContain("tessera_floormod((((int)threadIdx.x) - 20), 64)");
    expect(src).toContain("tessera_floordiv((((int)threadIdx.x) - 20), 64)");
    expect(src.match(/#ifndef TESSERA_FLOORDIV_DEFINED/g)).toHaveLength(1);
  });

  it("keeps truncating T.truncdiv as C's /", () => {
    const src = cuda("    B[threadIdx_x] = A[T.truncdiv(threadIdx_x - 20, 4) + 10]");
    expect(src).toContain("(((((int)threadIdx.x) - 20) / 4) + 10)");
  });
});

describe("math, select and casts", () => {
  it("maps float32 intrinsics to the f-suffixed functions and min/max to fminf/fmaxf", () => {
    const src = cuda("    B[threadIdx_x] = T.min(T.tanh(A[threadIdx_x]), T.log(A[threadIdx_x])) + T.sigmoid(A[threadIdx_x]) + T.fabs(A[threadIdx_x])");
    expect(src).toContain("fminf(tanhf(A[((int)threadIdx.x)]), logf(A[((int)threadIdx.x)]))");
    expect(src).toContain("(1.000000e+00f / (1.000000e+00f + expf((-A[((int)threadIdx.x)]))))");
    expect(src).toContain("fabsf(A[((int)threadIdx.x)])");
  });

  it("uses the plain names for float64 and min/max for integers", () => {
    const src = cuda(
      '    B[threadIdx_x] = T.exp(A[threadIdx_x]) + T.Cast("float64", T.max(threadIdx_x, 3))',
      'A: T.Buffer((64,), "float64"), B: T.Buffer((64,), "float64")',
    );
    expect(src).toContain("(exp(A[((int)threadIdx.x)]) + ((double)max(((int)threadIdx.x), 3)))");
  });

  it("prints if_then_else and Select as C conditionals", () => {
    const src = cuda("    B[threadIdx_x] = T.if_then_else(threadIdx_x < 8, A[threadIdx_x], T.Select(threadIdx_x == 9, T.float32(1), T.float32(2)))");
    expect(src).toContain("((((int)threadIdx.x) < 8) ? A[((int)threadIdx.x)] : ((((int)threadIdx.x) == 9) ? 1.000000e+00f : 2.000000e+00f))");
  });
});

describe("statements", () => {
  it("prints if/else, a loop with a non-zero start and an unrolled loop", () => {
    const src = cuda(`    for i in range(2, 6):
        if i < threadIdx_x:
            B[i] = A[i]
        else:
            B[i] = T.float32(0)
    for j in T.unroll(2):
        B[j] = A[j]`);
    expect(src).toContain(
      "for (int i = 2; i < 6; ++i) {\n    if (i < ((int)threadIdx.x)) {\n      B[i] = A[i];\n    } else {\n      B[i] = 0.000000e+00f;\n    }\n  }",
    );
    expect(src).toContain("  #pragma unroll\n  for (int j = 0; j < 2; ++j) {");
  });

  it("prints a LetStmt as a declaration", () => {
    const src = cuda(`    base = T.int32(4)
    B[threadIdx_x] = A[threadIdx_x + base]`);
    expect(src).toMatch(/int base = 4;\n {2}B\[\(\(int\)threadIdx.x\)\] = A\[\(\(\(int\)threadIdx.x\) \+ base\)\];/);
  });
});

describe("vectors", () => {
  it("uses a float4 pointer when the base is a multiple of 4, through a let binding too", () => {
    const src = cuda(`    base = threadIdx_x * 4
    B[T.Ramp(base, 1, 4)] = A[T.Ramp(base, 1, 4)]`);
    expect(src).toContain("*(float4*)(B + base) = *(float4*)(A + base);");
  });

  it("reads a flattened vector index (broadcast + ramp, a 2-D access's row and columns) as one ramp: a float4 pointer when aligned", () => {
    const src = cuda("    B[T.Broadcast(threadIdx_x * 8, 4) + T.Ramp(4, 1, 4)] = A[T.Broadcast(threadIdx_x * 8, 4) + T.Ramp(0, 1, 4)]");
    expect(src).toContain("*(float4*)(B + ((((int)threadIdx.x) * 8) + 4)) = *(float4*)(A + (((int)threadIdx.x) * 8));");
  });

  it("gathers and scatters lane by lane when alignment cannot be proven", () => {
    const src = cuda("    B[T.Ramp(threadIdx_x * 2, 1, 4)] = A[T.Ramp(threadIdx_x * 4, 1, 4)]");
    expect(src).toContain("B[(((int)threadIdx.x) * 2)] = A[(((int)threadIdx.x) * 4)];");
    expect(src).toContain("B[((((int)threadIdx.x) * 2) + 3)] = A[((((int)threadIdx.x) * 4) + 3)];");
  });

  it("computes every lane first when a scattered store reads the buffer it writes", () => {
    const src = cuda("    A[T.Ramp(threadIdx_x * 3 + 1, 1, 4)] = A[T.Ramp(threadIdx_x * 3, 1, 4)]");
    expect(src).toContain("float A_lane0 = A[(((int)threadIdx.x) * 3)];");
    expect(src).toContain("A[((((int)threadIdx.x) * 3) + 4)] = A_lane3;");
  });

  it("builds a vector from a broadcast and lane-wise operations with make_float4", () => {
    const src = cuda("    B[T.Ramp(threadIdx_x * 4, 1, 4)] = T.max(A[T.Ramp(threadIdx_x * 4, 1, 4)], T.Broadcast(T.float32(0), 4))");
    expect(src).toContain("*(float4*)(B + (((int)threadIdx.x) * 4)) = make_float4(fmaxf(A[(((int)threadIdx.x) * 4)], 0.000000e+00f), ");
    expect(src).not.toContain("operator+");
  });

  it("aligns a shared array that is accessed as float4", () => {
    const src = cuda(`    S = T.allocate([64], "float32", "shared")
    S_1 = T.Buffer((64,), data=S, scope="shared")
    S_1[T.Ramp(threadIdx_x * 4, 1, 4)] = A[T.Ramp(threadIdx_x * 4, 1, 4)]
    T.tvm_storage_sync("shared")
    B[threadIdx_x] = S_1[63 - threadIdx_x]`);
    expect(src).toContain("__shared__ __align__(16) float S[64];");
  });
});

describe("signature", () => {
  it("drops __restrict__ when the function does not promise noalias", () => {
    const module = moduleFromScript(kernelSource("    B[threadIdx_x] = A[threadIdx_x]").replace('"tir.noalias": T.bool(True)', '"tir.noalias": T.bool(False)'));
    expect(codegenCuda(module).source).toContain("k_kernel(float* A, float* B)");
  });

  it("codegenKernel gives the kernel alone, with static linkage on request", () => {
    const kernel = moduleFromScript(kernelSource("    B[threadIdx_x] = A[threadIdx_x]")).kernels[0]!;
    expect(codegenKernel(kernel)).toMatch(/^extern "C" __global__ void __launch_bounds__\(16\) k_kernel\(/);
    expect(codegenKernel(kernel, { linkage: "static" })).toMatch(/^static __global__ void __launch_bounds__\(16\) k_kernel\(/);
  });
});
