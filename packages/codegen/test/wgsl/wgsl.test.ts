/**
 * The WGSL generator: its layout (bindings, builtins, workgroup memory, barriers), what it
 * refuses with a ShaderCodegenError naming the construct, and the WebGPU limits it checks.
 * Execution on a real WebGPU device is tested in packages/webgpu.
 */
import { parsePrimFunc } from "@tessera/ir";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { FAST_PARAMS, REFERENCE_MANUAL_PARAMS, fastSchedule, manualSchedule, naiveSchedule, scheduleCorpus } from "@tessera/corpus";
import { describe, expect, it } from "vitest";
import { moduleFromKernelFunc } from "../../src/kernel-from-func.js";
import { lower } from "../../src/lower/pipeline.js";
import type { LoweredModule } from "../../src/lowered.js";
import type { WebGpuTarget } from "../../src/targets/gpu-source.js";
import { target } from "../../src/targets/target.js";
import { ShaderCodegenError, codegenWgsl } from "../../src/wgsl/index.js";
import { wgslFloat32Literal } from "../../src/wgsl/expr-emitter.js";
import { expectGolden } from "../cuda/golden.js";

const GOLDEN = join(dirname(fileURLToPath(import.meta.url)), "golden");

function kernelModule(body: string, params = 'A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")', t = "webgpu"): LoweredModule<WebGpuTarget> {
  const func = parsePrimFunc(`
@T.prim_func
def main(${params}):
    T.func_attr({"global_symbol": "k", "tir.noalias": T.bool(True)})
    threadIdx_x = T.launch_thread("threadIdx.x", 16)
${body}
`);
  return { ...moduleFromKernelFunc(func), target: target(t as "webgpu") };
}

function refusal(run: () => unknown): ShaderCodegenError {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(ShaderCodegenError);
    return err as ShaderCodegenError;
  }
  throw new Error("expected a ShaderCodegenError");
}

describe("codegenWgsl", () => {
  it("writes out unrolled loops, one block per value with the loop variable a const (WGSL has no #pragma unroll)", () => {
    const m = kernelModule(
      [
        "    for i in T.unroll(4):",
        "        B[threadIdx_x * 4 + i] = A[threadIdx_x * 4 + i] + T.float32(1)",
        "    for j in T.unroll(100):",
        "        B[j % 64] = A[j % 64]",
      ].join("\n"),
    );
    const source = codegenWgsl(m).kernels[0]!.source;
    for (const v of [0, 1, 2, 3]) expect(source).toContain(`const i : i32 = ${v}i;`);
    expect(source).not.toContain("for (var i ");
    // More copies than the expansion allows: it stays a loop.
    expect(source).toContain("for (var j : i32 = 0i; j < 100i; j++) {");
  });

  it("binds buffers in parameter order, read-only where never stored, then the uniform of scalars", () => {
    const m = kernelModule(
      '    B[threadIdx_x] = A[threadIdx_x] * T.Cast("float32", n)',
      'A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32"), n: T.int32',
    );
    const [k] = codegenWgsl(m).kernels;
    expect(k!.source).toContain("@group(0) @binding(0) var<storage, read> A : array<f32>;");
    expect(k!.source).toContain("@group(0) @binding(1) var<storage, read_write> B : array<f32>;");
    expect(k!.source).toContain("@group(0) @binding(2) var<uniform> scalars : Scalars;");
    expect(k!.source).toContain("B[i32(threadIdx.x)] = (A[i32(threadIdx.x)] * f32(scalars.n));");
    expect(k!.bindings.map((b) => [b.binding, b.kind, b.name])).toEqual([
      [0, "buffer", "A"],
      [1, "buffer", "B"],
      [2, "uniform", "scalars"],
    ]);
    expect(k!.workgroupSize).toEqual([16, 1, 1]);
  });

  it("puts shared memory at module scope as var<workgroup> and barriers as workgroupBarrier()", () => {
    const w = codegenWgsl(
      lower(
        scheduleCorpus()
          .find((e) => e.name === "window_sum")!
          .build(),
        "webgpu",
      ),
    );
    const source = w.kernels[0]!.source;
    expect(source).toMatch(/^var<workgroup> A_shared : array<f32, 66>;$/m);
    expect(source).toContain("  workgroupBarrier();");
    expect(source).toContain("@compute @workgroup_size(64, 1, 1)");
    expect(w.kernels[0]!.workgroupBytes).toBe(264);
  });

  it("writes conditionals with select(), casts as constructors and non-finite constants from bits", () => {
    const m = kernelModule('    B[threadIdx_x] = T.Select(A[threadIdx_x] > T.float32(0), T.float32("inf"), T.Cast("float32", threadIdx_x % 3))');
    const source = codegenWgsl(m).kernels[0]!.source;
    expect(source).toContain("select(f32((i32(threadIdx.x) % 3i)), bitcast<f32>(tessera_bits.x), (A[i32(threadIdx.x)] > 0.0f))");
    expect(source).toMatch(/^var<private> tessera_bits : vec3<u32>/m);
  });

  it("writes float32 constants exactly, never past the largest f32", () => {
    expect(wgslFloat32Literal(-3.4028234663852886e38)).toBe("-3.4028234663852886e+38f");
    expect(wgslFloat32Literal(1)).toBe("1.0f");
    expect(wgslFloat32Literal(-0)).toBe("-0.0f");
    expect(wgslFloat32Literal(0.1)).toBe(`${Math.fround(0.1)}f`);
  });

  it("refuses float64 naming the construct", () => {
    const m = kernelModule("    B[threadIdx_x] = A[threadIdx_x]", 'A: T.Buffer((64,), "float64"), B: T.Buffer((64,), "float64")');
    expect(refusal(() => codegenWgsl(m)).message).toMatch(/^WGSL codegen of kernel k_kernel: parameter A has dtype float64/);
  });

  it("refuses float16 unless the target has shader-f16", () => {
    const params = 'A: T.Buffer((64,), "float16"), B: T.Buffer((64,), "float16")';
    expect(refusal(() => codegenWgsl(kernelModule("    B[threadIdx_x] = A[threadIdx_x]", params))).message).toMatch(/needs the shader-f16 feature/);
    const f16 = codegenWgsl(kernelModule("    B[threadIdx_x] = A[threadIdx_x]", params, "webgpu -supports_float16=1")).kernels[0]!.source;
    expect(f16.startsWith("enable f16;")).toBe(true);
  });

  it("refuses a warp barrier", () => {
    const m = kernelModule('    T.evaluate(T.tvm_storage_sync("warp"))\n    B[threadIdx_x] = A[threadIdx_x]');
    expect(refusal(() => codegenWgsl(m)).message).toMatch(/T\.tvm_storage_sync\("warp"\) has no WGSL translation/);
  });

  it("uses a floor-division helper only where the operands may be negative", () => {
    const m = kernelModule('    B[threadIdx_x] = T.Cast("float32", T.floordiv(threadIdx_x - 8, 3) + T.floordiv(threadIdx_x, 4))');
    const source = codegenWgsl(m).kernels[0]!.source;
    expect(source).toContain("tessera_floordiv((i32(threadIdx.x) - 8i), 3i)");
    expect(source).toContain("(i32(threadIdx.x) / 4i)");
    expect(source).toContain("fn tessera_floordiv(a : i32, b : i32) -> i32 {");
  });

  it("declares arrays read or written as aligned float4 as vec4 arrays: one vector access, scalars through a component", () => {
    const m = kernelModule(
      "    B[T.Ramp(threadIdx_x * 4, 1, 4)] = A[T.Ramp(threadIdx_x * 4, 1, 4)]\n    B[threadIdx_x + 1] = A[3]",
      'A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")',
    );
    const source = codegenWgsl(m).kernels[0]!.source;
    expect(source).toContain("var<storage, read> A : array<vec4<f32>>;");
    expect(source).toContain("B[((i32(threadIdx.x) * 4i) >> 2u)] = A[((i32(threadIdx.x) * 4i) >> 2u)];");
    expect(source).toContain("B[((i32(threadIdx.x) + 1i) >> 2u)][((i32(threadIdx.x) + 1i) & 3i)] = A[0].w;");
  });

  it("declares float16 arrays accessed as aligned quads as vec4<f16> arrays", () => {
    const m = kernelModule(
      "    B[T.Ramp(threadIdx_x * 4, 1, 4)] = A[T.Ramp(threadIdx_x * 4, 1, 4)]\n    B[threadIdx_x + 1] = A[2]",
      'A: T.Buffer((64,), "float16"), B: T.Buffer((64,), "float16")',
      "webgpu -supports_float16=1",
    );
    const source = codegenWgsl(m).kernels[0]!.source;
    expect(source).toContain("var<storage, read> A : array<vec4<f16>>;");
    expect(source).toContain("var<storage, read_write> B : array<vec4<f16>>;");
    expect(source).toContain("B[((i32(threadIdx.x) * 4i) >> 2u)] = A[((i32(threadIdx.x) * 4i) >> 2u)];");
    expect(source).toContain("= A[0].z;");
  });

  it("keeps a scalar array where no float4 access is provably aligned", () => {
    const m = kernelModule("    B[T.Ramp(threadIdx_x * 4, 1, 4)] = A[T.Ramp(threadIdx_x * 4 + 1, 1, 4)]");
    const source = codegenWgsl(m).kernels[0]!.source;
    expect(source).toContain("var<storage, read> A : array<f32>;");
    expect(source).toContain("A[(((i32(threadIdx.x) * 4i) + 1i) + 3i)]");
    expect(source).toContain("var<storage, read_write> B : array<vec4<f32>>;");
  });

  it("names the WebGPU limit a kernel exceeds", () => {
    const manual = scheduleCorpus().find((e) => e.name === "gemm_relu_add_manual")!;
    // 256 invocations fit WebGPU's default limits; 8 KiB of workgroup memory do not fit 4 KiB.
    const err = refusal(() => codegenWgsl({ ...lower(manual.build(), "webgpu"), target: target("webgpu -max_shared_memory_per_block=4096") }));
    expect(err.message).toMatch(/8192 bytes of workgroup memory exceed maxComputeWorkgroupStorageSize = 4096/);
  });
});

describe("webgpu and metal targets", () => {
  it("have WebGPU's default limits and Metal's", () => {
    const w = target("webgpu");
    expect([w.kind, w.maxThreadsPerBlock, w.maxSharedMemoryPerBlock, w.maxBlockDim[2], w.maxGridDim[0]]).toEqual(["webgpu", 256, 16384, 64, 65535]);
    const m = target("metal");
    expect([m.kind, m.maxThreadsPerBlock, m.maxSharedMemoryPerBlock, m.warpSize]).toEqual(["metal", 1024, 32768, 32]);
  });

  it("take TVM's limit options and refuse unknown ones", () => {
    expect(target("webgpu -max_num_threads=1024").maxThreadsPerBlock).toBe(1024);
    expect(() => target("webgpu -arch=sm_80")).toThrow(/unknown option -arch/);
    expect(() => target("metal -max_num_threads=0")).toThrow(/must be a positive integer/);
  });

  it("lower under their own limits: too many threads is a GpuVerifyError naming the target", () => {
    const manual = scheduleCorpus().find((e) => e.name === "gemm_relu_add_manual")!;
    expect(() => lower(manual.build(), "webgpu -max_num_threads=128")).toThrow(/256 threads per block.*allows 128/);
  });
});

describe("WGSL golden files: the course's gemm kernels at 2048³", () => {
  // Limits of a typical desktop adapter (1024 invocations, 32 KiB): the manual and fast schedules exceed WebGPU's defaults.
  const desktop = "webgpu -max_num_threads=1024 -max_shared_memory_per_block=32768";
  for (const [name, build] of [
    ["course_naive_2048", () => naiveSchedule(2048)],
    ["course_manual_2048", () => manualSchedule(2048, REFERENCE_MANUAL_PARAMS)],
    ["course_fast_2048", () => fastSchedule(2048, FAST_PARAMS)],
  ] as const) {
    it(name, { timeout: 60_000 }, () => {
      expectGolden(`${name}.wgsl`, codegenWgsl(lower(build(), desktop)).source, GOLDEN);
    });
  }
});
