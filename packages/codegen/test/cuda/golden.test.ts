/**
 * Golden CUDA for hand-written lowered kernels and headers, plus the launch metadata reported
 * for them. The same golden files are compiled with nvcc in packages/runtime/test/codegen-nvcc.test.ts.
 */
import { describe, expect, it } from "vitest";
import { LaunchMetadataSchema } from "../../src/launch-metadata.js";
import { codegenCuda, exportHeader } from "../../src/cuda/index.js";
import { expectGolden } from "./golden.js";
import { GOLDEN_KERNELS } from "./kernels.js";
import { moduleFromScript } from "./lowered-kernel.js";
import { gemmReluAddModule } from "./multi-kernel.js";

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
    expectGolden("manifest.json", `${JSON.stringify([...single, multi], null, 2)}\n`);
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

describe("exportHeader golden files", () => {
  it("window_sum.cuh: one kernel, no workspace, in a namespace", () => {
    const window = GOLDEN_KERNELS.find((g) => g.name === "window_sum")!;
    expectGolden("window_sum.cuh", exportHeader(moduleFromScript(window.script), { namespace: "tessera" }));
  });

  it("gemm_relu_add.cuh: two kernels and a workspace", () => {
    expectGolden("gemm_relu_add.cuh", exportHeader(gemmReluAddModule(), { guard: "GEMM_RELU_ADD_CUH" }));
  });

  it("scale_add_float4.cuh: a scalar parameter and preamble operators", () => {
    const g = GOLDEN_KERNELS.find((k) => k.name === "scale_add_float4")!;
    expectGolden("scale_add_float4.cuh", exportHeader(moduleFromScript(g.script)));
  });
});
