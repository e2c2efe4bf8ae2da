/**
 * Golden CUDA for hand-written lowered kernels and headers, plus the launch metadata reported
 * for them. The same golden files are compiled with nvcc in packages/runtime/test/codegen-nvcc.test.ts.
 */
import { FAST_PARAMS, REFERENCE_MANUAL_PARAMS, fastSchedule, manualSchedule, naiveSchedule, scheduleCorpus } from "@tessera/corpus";
import type { Schedule } from "@tessera/schedule";
import { describe, expect, it } from "vitest";
import { LaunchMetadataSchema } from "../../src/launch-metadata.js";
import { codegenCuda, exportHeader } from "../../src/cuda/index.js";
import { expectGolden } from "./golden.js";
import { GOLDEN_KERNELS } from "./kernels.js";
import { moduleFromScript } from "./lowered-kernel.js";
import { gemmReluAddModule } from "./multi-kernel.js";
import { lower } from "../../src/lower/pipeline.js";
import type { LoweredModule } from "../../src/lowered.js";

/**
 * The corpus gemm with MetaSchedule's unroll pragmas and __launch_bounds__(256, 2), lowered for
 * the T4: register tiles, fills and epilogue expanded with constant local indices.
 */
function unrolledGemmModule(): LoweredModule {
  return lower(
    scheduleCorpus()
      .find((e) => e.name === "gemm_relu_add_unrolled")!
      .build(),
    "nvidia/tesla-t4",
  );
}

/**
 * The corpus's fast schedule at 128³ (64×64×8 tiles, 2×2 strided 4×4 sub-tiles, float4 fetches
 * through registers, transposed padded A tile, three-stage software pipeline), lowered for the T4.
 */
function fastGemmModule(): LoweredModule {
  const func = scheduleCorpus()
    .find((e) => e.name === "gemm_relu_add_fast")!
    .build().func;
  // Its own symbol: the golden kernels compile as one translation unit (codegen-nvcc.test.ts).
  return lower({ ...func, attrs: { ...func.attrs, global_symbol: "gemm_relu_add_fast" } }, "nvidia/tesla-t4");
}

describe("codegenCuda golden kernels", () => {
  for (const g of GOLDEN_KERNELS) {
    it(`${g.name} matches golden/${g.name}.cu`, () => {
      const module = moduleFromScript(g.script);
      const out = codegenCuda(module);
      expectGolden(`${g.name}.cu`, out.source);
      expect(out.kernels).toHaveLength(1);
      const [meta] = out.kernels;
      expect(LaunchMetadataSchema.parse(meta)).toEqual(meta);
      expect(meta).toEqual(module.kernels[0]!.launch);
    });
  }

  it("records the manifest the nvcc check reads: every golden .cu with its kernels' launch and static shared bytes", () => {
    const single = GOLDEN_KERNELS.map((g) => {
      const out = codegenCuda(moduleFromScript(g.script));
      return { file: `${g.name}.cu`, kernels: [{ sharedBytes: g.sharedBytes, launch: out.kernels[0]! }] };
    });
    const multi = { file: "gemm_relu_add.cu", kernels: codegenCuda(gemmReluAddModule()).kernels.map((launch) => ({ sharedBytes: 0, launch })) };
    const unrolled = unrolledGemmModule();
    const lowered = {
      file: "gemm_relu_add_unrolled.cu",
      kernels: codegenCuda(unrolled).kernels.map((launch, i) => ({ sharedBytes: unrolled.kernels[i]!.sharedBytes, launch })),
    };
    const fast = fastGemmModule();
    const pipelined = {
      file: "gemm_relu_add_fast.cu",
      kernels: codegenCuda(fast).kernels.map((launch, i) => ({ sharedBytes: fast.kernels[i]!.sharedBytes, launch })),
    };
    expectGolden("manifest.json", `${JSON.stringify([...single, multi, lowered, pipelined], null, 2)}\n`);
  });
});

describe("codegenCuda on a module of several kernels", () => {
  it("emits the kernels in launch order and reports one metadata entry each", () => {
    const out = codegenCuda(gemmReluAddModule());
    expectGolden("gemm_relu_add.cu", out.source);
    expect(out.kernels.map((k) => [k.name, k.grid, k.block])).toEqual([
      ["gemm_relu_add_kernel_0", [4, 1, 1], [256, 1, 1]],
      ["gemm_relu_add_kernel_1", [8, 1, 1], [128, 1, 1]],
    ]);
    expect(out.kernels[1]!.params.map((p) => p.name)).toEqual(["T_matmul", "D", "E"]);
    expect(out.source.indexOf("gemm_relu_add_kernel_0")).toBeLessThan(out.source.indexOf("gemm_relu_add_kernel_1"));
  });
});

describe("codegenCuda on a lowered schedule with unroll pragmas and launch bounds", () => {
  it("gemm_relu_add_unrolled.cu: __launch_bounds__(256, 2), expanded register tiles indexed by constants", () => {
    const out = codegenCuda(unrolledGemmModule());
    expectGolden("gemm_relu_add_unrolled.cu", out.source);
    expect(out.kernels[0]!.minBlocksPerSM).toBe(2);
    expect(out.source).not.toContain("pragma_");
    // Local arrays are only ever indexed by constants.
    const localIndices = [...out.source.matchAll(/\b(?:matmul_local|A_shared_local|B_shared_local)\[([^\]]*)\]/g)].map((m) => m[1]!);
    expect(localIndices.length).toBeGreaterThan(0);
    expect(localIndices.filter((i) => !/^\d+$/.test(i))).toEqual([]);
  });

  it("the hand-written bounded_scale kernel reports its minimum of blocks per SM", () => {
    const g = GOLDEN_KERNELS.find((k) => k.name === "bounded_scale")!;
    const out = codegenCuda(moduleFromScript(g.script));
    expect(out.source).toContain('extern "C" __global__ void __launch_bounds__(256, 2) bounded_scale_kernel(');
    expect(out.kernels[0]!.minBlocksPerSM).toBe(2);
  });
});

describe("codegenCuda on a pipelined, vectorized schedule", () => {
  it("gemm_relu_add_fast.cu: float4 fetches into registers, a transposed padded A tile, two shared versions and one barrier per k step", () => {
    const out = codegenCuda(fastGemmModule());
    expectGolden("gemm_relu_add_fast.cu", out.source);
    const source = out.source;
    expect(source).toContain("__launch_bounds__(64, 2) gemm_relu_add_fast_kernel(");
    // 128-bit global loads into the register stages, 128-bit shared stores of B.
    expect(source).toMatch(/\*\(float4\*\)\(A_local \+ 0\) = \*\(float4\*\)\(A \+/);
    expect(source).toMatch(/\*\(float4\*\)\(B_shared \+ .*\) = \*\(float4\*\)\(B_local \+ 0\)/);
    // The transposed A tile: rows of 64 floats padded to 68, two versions of 8 rows (the last unpadded).
    expect(source).toContain("__shared__ __align__(16) float A_shared[1084];");
    expect(source).toContain("((k_0 + 1) % 2) * 544");
    // The main k loop holds exactly one barrier.
    const loop = source.slice(source.indexOf("for (int k_0 = 0;"), source.indexOf("for (int k_0_1 = 0;"));
    expect(loop.match(/__syncthreads\(\);/g)).toHaveLength(1);
    // Register tiles and stages are indexed by constants only.
    const localIndices = [...source.matchAll(/\b(?:matmul_local|A_local|B_local|A_shared_local|B_shared_local)(?:_\d+)?\[([^\]]*)\]/g)].map((m) => m[1]!);
    expect(localIndices.length).toBeGreaterThan(0);
    expect(localIndices.filter((i) => !/^\d+$/.test(i))).toEqual([]);
    // decomposeReduction: the accumulators are zeroed before the k loop, not under a k == 0 test.
    expect(source).not.toMatch(/if \(\(?k_0 == 0/);
  });
});

describe("exportHeader golden files", () => {
  it("window_sum.cuh: one kernel, no workspace, in a namespace", () => {
    const window = GOLDEN_KERNELS.find((g) => g.name === "window_sum")!;
    expectGolden("window_sum.cuh", exportHeader(moduleFromScript(window.script), { namespace: "tessera" }));
  });

  it("gemm_relu_add.cuh: two kernels and a workspace", () => {
    expectGolden("gemm_relu_add.cuh", exportHeader(gemmReluAddModule(), { guard: "GEMM_RELU_ADD_CUH" }));
  });

  it("bounded_scale.cuh: a static kernel keeps its __launch_bounds__(256, 2)", () => {
    const g = GOLDEN_KERNELS.find((k) => k.name === "bounded_scale")!;
    const header = exportHeader(moduleFromScript(g.script));
    expectGolden("bounded_scale.cuh", header);
    expect(header).toContain("static __global__ void __launch_bounds__(256, 2) bounded_scale_kernel(");
  });

  it("scale_add_float4.cuh: a scalar parameter and preamble operators", () => {
    const g = GOLDEN_KERNELS.find((k) => k.name === "scale_add_float4")!;
    expectGolden("scale_add_float4.cuh", exportHeader(moduleFromScript(g.script)));
  });
});

/**
 * The course's kernels at the graded size (2048³) as the GPU runs them: the naive schedule, the
 * manual schedule with the reference tiles and the fast schedule. A change to the simplifier or a
 * lowering pass that changes a byte of these must be deliberate (and re-measured on a GPU).
 */
describe("the course's gemm kernels at 2048³, for the H100", () => {
  const course: [string, () => Schedule][] = [
    ["course_naive_2048", () => naiveSchedule(2048)],
    ["course_manual_2048", () => manualSchedule(2048, REFERENCE_MANUAL_PARAMS)],
    ["course_fast_2048", () => fastSchedule(2048, FAST_PARAMS)],
  ];
  for (const [name, build] of course) {
    it(`${name}.cu is unchanged`, () => {
      expectGolden(`${name}.cu`, codegenCuda(lower(build(), "nvidia/h100")).source);
    });
  }
});
