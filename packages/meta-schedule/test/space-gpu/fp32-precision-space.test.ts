/**
 * tf32 and 3xTF32 GEMMs in the default CUDA space on an H100, as `bench:tune --only
 * gemm_relu_add_3xtf32_2048` searches them: only a GEMM whose fp32 precision was requested
 * (`withFp32Precision`) gets tf32 tensor cores; the mma.sync space tensorizes its stages as the tf32
 * fragment loads (and 3xTF32's chunks with the three-product MMA, the chunk add and the store), and
 * sampled programs simulate bit for bit equal to the executor on the rewritten function.
 */
import { codegenCuda } from "@tessera/codegen";
import { gemmReluAdd, printTVMScript } from "@tessera/ir";
import { compareWithReference, formatComparison } from "@tessera/simulator";
import { describe, expect, it } from "vitest";
import { type Fp32Precision, replayWithPostprocs, withFp32Precision } from "../../src/index.js";
import { loweredModuleFor } from "../../src/postproc/verify-gpu-code.js";
import { AUTO_TENSORIZE } from "../../src/schedule-utils/annotations.js";
import { spaceOf, withForcedDecisions } from "./helpers.js";

const N = 64;

describe("float32 GEMMs and the requested fp32 precision in the default CUDA space", () => {
  it("a float32 GEMM nobody asked about gets no tensor core (IEEE float32 stays)", () => {
    const { spaces } = spaceOf(gemmReluAdd(N).func);
    for (const sch of spaces) expect(printTVMScript(sch.func)).not.toContain(AUTO_TENSORIZE);
  });

  it.each<[Fp32Precision, readonly string[]]>([
    ["tf32", ["mma_load_tf32_a_dyn", "mma_load_tf32_b_dyn", "mma_tf32tf32f32_m16n8k8", "mma_store_16x16_f32_relu_add_global"]],
    [
      "3xtf32",
      [
        "mma_load_tf32_a_dyn",
        "mma_load_tf32_a_lo_dyn",
        "mma_load_tf32_b_dyn",
        "mma_load_tf32_b_lo_dyn",
        "mma_tf32x3_m16n8k8",
        "mma_add_16x16_f32",
        "mma_fill_16x16_f32",
        "mma_store_16x16_f32_relu_add_global",
      ],
    ],
  ])("%s: an mma.sync space tensorizing the GEMM with %j", (precision, intrinsics) => {
    const { spaces } = spaceOf(withFp32Precision(gemmReluAdd(N).func, precision, { chunk: 16 }));
    expect(spaces).toHaveLength(1);
    const script = printTVMScript(spaces[0]!.func);
    for (const intrin of intrinsics) expect(script).toContain(`"${AUTO_TENSORIZE}": "${intrin}"`);
  });

  it("3xtf32 with 32-k chunks on sm_90: also a wgmma space, its stages pre-pass kernels, K-major tiles, the three-wgmma intrinsic", () => {
    const { spaces } = spaceOf(withFp32Precision(gemmReluAdd(N).func, "3xtf32"));
    expect(spaces).toHaveLength(2);
    const script = printTVMScript(spaces[1]!.func);
    expect(script).toMatch(new RegExp(`"${AUTO_TENSORIZE}": \\["wgmma_m64n64k8_tf32x3"`));
    expect(script).toContain('"meta_schedule.wgmma_shared_layout": "K"');
    // B's hi and lo: one transposing pre-pass kernel, stored as Bᵀ[j, k].
    expect(script).toMatch(/B_hi\[v1, v0\] = T\.tf32_round\(B_shared\[/);
    // Chunks of 16 k are not one 128-byte swizzle row of float32: no wgmma space.
    expect(spaceOf(withFp32Precision(gemmReluAdd(N).func, "3xtf32", { chunk: 16 })).spaces).toHaveLength(1);
  });

  it("3xtf32, the wgmma space: sampled programs lower and simulate equal to the executor within float32 rounding (the three wgmmas sum in their own order), with no race", () => {
    const func = withFp32Precision(gemmReluAdd(128).func, "3xtf32");
    const space = spaceOf(func);
    for (const seed of [1, 2, 3]) {
      const out = replayWithPostprocs(space.ctx, space.spaces[1]!.trace, space.gen.postprocs, { seed, freshDecisions: true });
      if (!out.ok) throw new Error(`seed ${seed}: ${out.reason}: ${out.detail}`);
      const report = compareWithReference(loweredModuleFor(out.sch.func)!, func, { seed: 5, widenForDType: false, rtol: 0, atol: 1e-5 });
      expect(report.passed && report.simulation.raceCount === 0 && report.simulation.uninitializedReadCount === 0, formatComparison(report)).toBe(true);
    }
  });

  it.each([
    [
      "mma.sync",
      0,
      [
        [4, 2],
        [2, 1],
        [4, 2],
        [2, 1],
      ],
      [4, 4, 2, 0],
      0,
    ],
    ["wgmma", 1, [], [64, 4, 1, 0], 1e-5],
  ] as const)(
    "3xtf32, %s space pipelined (regression: a chunk's body of several computes after its copies was left unpipelined): cp.async copies, equal to the executor",
    (_, k, tiles, choices, atol) => {
      const func = withFp32Precision(gemmReluAdd(128).func, "3xtf32");
      const space = spaceOf(func);
      const out = replayWithPostprocs(
        space.ctx,
        withForcedDecisions(
          space.spaces[k]!.trace,
          tiles.map((t) => [...t]),
          [...choices],
        ),
        space.gen.postprocs,
        { seed: 1 },
      );
      if (!out.ok) throw new Error(`${out.reason}: ${out.detail}`);
      const module = loweredModuleFor(out.sch.func)!;
      expect(codegenCuda(module).source).toContain("cp.async");
      const report = compareWithReference(module, func, { seed: 5, widenForDType: false, rtol: 0, atol });
      expect(report.passed && report.simulation.raceCount === 0 && report.simulation.uninitializedReadCount === 0, formatComparison(report)).toBe(true);
    },
  );

  it.each<Fp32Precision>(["tf32", "3xtf32"])("%s: sampled programs lower and simulate bit for bit equal to the executor, with no race", (precision) => {
    const func = withFp32Precision(gemmReluAdd(N).func, precision, { chunk: 16 });
    const space = spaceOf(func);
    for (const seed of [1, 2, 3]) {
      const out = replayWithPostprocs(space.ctx, space.spaces[0]!.trace, space.gen.postprocs, { seed, freshDecisions: true });
      if (!out.ok) throw new Error(`seed ${seed}: ${out.reason}: ${out.detail}`);
      const report = compareWithReference(loweredModuleFor(out.sch.func)!, func, { seed: 5, widenForDType: false, rtol: 0, atol: 0 });
      expect(report.passed && report.simulation.raceCount === 0 && report.simulation.uninitializedReadCount === 0, formatComparison(report)).toBe(true);
    }
  });
});
