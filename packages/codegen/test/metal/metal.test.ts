/**
 * The Metal generator. There is no Metal compiler here: the output is checked structurally, with
 * golden files (the course's gemm schedules at 2048³, the d2l operators) and by compiling it as
 * C++ against a stand-in header for Metal's keywords (syntax and types only; see metal-cxx.test.ts).
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { FAST_PARAMS, REFERENCE_MANUAL_PARAMS, d2lGpuOperators, fastSchedule, manualSchedule, naiveSchedule, scheduleCorpus } from "@tessera/corpus";
import { parsePrimFunc } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { moduleFromKernelFunc } from "../../src/kernel-from-func.js";
import { lower } from "../../src/lower/pipeline.js";
import { codegenMetal } from "../../src/metal/index.js";
import type { MetalTarget } from "../../src/targets/gpu-source.js";
import { target } from "../../src/targets/target.js";
import { ShaderCodegenError } from "../../src/shader/errors.js";
import { expectGolden } from "../cuda/golden.js";

const GOLDEN = join(dirname(fileURLToPath(import.meta.url)), "golden");

describe("codegenMetal", () => {
  it("writes TVM's kernel signature: device buffers at [[buffer(i)]], scalars in a constant struct, thread positions", () => {
    const func = parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32"), n: T.int32):
    T.func_attr({"global_symbol": "k", "tir.noalias": T.bool(True)})
    threadIdx_x = T.launch_thread("threadIdx.x", 16)
    B[threadIdx_x] = A[threadIdx_x] * T.Cast("float32", n)
`);
    const m = codegenMetal({ ...moduleFromKernelFunc(func), target: target("metal") as MetalTarget });
    expect(m.source).toContain("struct k_kernel_args_t {\n  int n;\n};");
    expect(m.source).toContain(
      "kernel void k_kernel(device const float* A [[buffer(0)]], device float* B [[buffer(1)]], constant k_kernel_args_t& args [[buffer(2)]], " +
        "uint3 blockIdx [[threadgroup_position_in_grid]], uint3 threadIdx [[thread_position_in_threadgroup]]) {",
    );
    expect(m.source).toContain("B[((int)threadIdx.x)] = (A[((int)threadIdx.x)] * ((float)args.n));");
    expect(m.kernels[0]).toMatchObject({ threadgroups: [1, 1, 1], threadsPerThreadgroup: [16, 1, 1] });
  });

  it("declares shared memory threadgroup and writes barriers as threadgroup_barrier", () => {
    const m = codegenMetal(
      lower(
        scheduleCorpus()
          .find((e) => e.name === "window_sum")!
          .build(),
        "metal",
      ),
    );
    expect(m.source).toContain("  threadgroup float A_shared[66];");
    expect(m.source).toContain("  threadgroup_barrier(mem_flags::mem_threadgroup);");
    expect(m.source.startsWith("#include <metal_stdlib>\nusing namespace metal;\n")).toBe(true);
  });

  it("refuses float64, which Metal lacks", () => {
    const func = parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((64,), "float64")):
    T.func_attr({"global_symbol": "d", "tir.noalias": T.bool(True)})
    threadIdx_x = T.launch_thread("threadIdx.x", 16)
    A[threadIdx_x] = A[threadIdx_x] + T.float64(1)
`);
    const run = () => codegenMetal({ ...moduleFromKernelFunc(func), target: target("metal") as MetalTarget });
    expect(run).toThrow(ShaderCodegenError);
    expect(run).toThrow(/^Metal codegen of kernel d_kernel: parameter A has dtype float64, which Metal cannot express/);
  });
});

describe("Metal golden files", () => {
  for (const [name, build] of [
    ["course_naive_2048", () => naiveSchedule(2048)],
    ["course_manual_2048", () => manualSchedule(2048, REFERENCE_MANUAL_PARAMS)],
    ["course_fast_2048", () => fastSchedule(2048, FAST_PARAMS)],
  ] as const) {
    it(name, { timeout: 60_000 }, () => {
      expectGolden(`${name}.metal`, codegenMetal(lower(build(), "metal")).source, GOLDEN);
    });
  }

  it("the d2l operators", () => {
    for (const op of d2lGpuOperators()) expectGolden(`d2l_${op.name}.metal`, codegenMetal(lower(op.scheduled, "metal")).source, GOLDEN);
  });
});
