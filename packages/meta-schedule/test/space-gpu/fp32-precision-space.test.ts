/**
 * tf32 and 3xTF32 GEMMs in the default CUDA space on an H100, as `bench:tune --only
 * gemm_relu_add_3xtf32_2048` searches them: only a GEMM whose fp32 precision was requested
 * (`withFp32Precision`) gets tf32 tensor cores; the mma.sync space tensorizes its stages as the tf32
 * fragment loads (and 3xTF32's chunks with the three-product MMA, the chunk add and the store), and
 * sampled programs simulate bit for bit equal to the executor on the rewritten function. On sm_90
 * both precisions also have two wgmma spaces (A pre-passed and read from shared memory, or split in
 * registers), whose samples simulate within float32 rounding (each wgmma sums its k in its own order).
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
    // 3xTF32 chunks of 16 k have no wgmma space; tf32 (no chunks) has its two after the mma.sync one.
    expect(spaces).toHaveLength(precision === "tf32" ? 3 : 1);
    const script = printTVMScript(spaces[0]!.func);
    for (const intrin of intrinsics) expect(script).toContain(`"${AUTO_TENSORIZE}": "${intrin}"`);
  });

  it("3xtf32 with 32-k chunks on sm_90: also two wgmma spaces, B's stages a pre-pass kernel, K-major tiles, the three-wgmma intrinsics", () => {
    const { spaces } = spaceOf(withFp32Precision(gemmReluAdd(N).func, "3xtf32"));
    expect(spaces).toHaveLength(3);
    const [shared, registers] = [spaces[1]!, spaces[2]!].map((sch) => printTVMScript(sch.func));
    for (const script of [shared, registers]) {
      expect(script).toContain('"meta_schedule.wgmma_shared_layout": "K"');
      // B's hi and lo: one transposing pre-pass kernel, stored as Bᵀ[j, k].
      expect(script).toMatch(/B_hi\[v1, v0\] = T\.tf32_round\(B_shared\[/);
    }
    // A from shared memory: its hi and lo a row-major pre-pass too.
    expect(shared).toMatch(new RegExp(`"${AUTO_TENSORIZE}": \\["wgmma_m64n64k8_tf32x3"`));
    expect(shared).toMatch(/A_hi\[v0, v1\] = T\.tf32_round\(A_local\[/);
    // A in registers: no pre-pass, the fragment loads split it a k step at a time, pipelined under the wgmmas.
    expect(registers).toMatch(new RegExp(`"${AUTO_TENSORIZE}": \\["wgmma_m64n64k8_tf32x3_rs"`));
    for (const load of ["mma_load_tf32_a_dyn", "mma_load_tf32_a_lo_dyn"]) expect(registers).toContain(`"${AUTO_TENSORIZE}": "${load}"`);
    expect(registers).not.toContain("A_local");
    expect(registers).toContain('"software_pipeline_stage": [0, 0, 1]');
    // Chunks of 16 k are not one 128-byte swizzle row of float32: no wgmma space.
    expect(spaceOf(withFp32Precision(gemmReluAdd(N).func, "3xtf32", { chunk: 16 })).spaces).toHaveLength(1);
  });

  it("tf32 on sm_90: two wgmma spaces, B's stage a transposing pre-pass, A's a pre-pass read from shared memory or the fragment loads", () => {
    const { spaces } = spaceOf(withFp32Precision(gemmReluAdd(N).func, "tf32"));
    expect(spaces).toHaveLength(3);
    const [shared, registers] = [spaces[1]!, spaces[2]!].map((sch) => printTVMScript(sch.func));
    for (const script of [shared, registers]) {
      expect(script).toContain('"meta_schedule.wgmma_shared_layout": "K"');
      expect(script).toMatch(/B_tf32\[v1, v0\] = T\.tf32_round\(B_shared\[/);
      expect(script).toContain(`"${AUTO_TENSORIZE}": "mma_store_16x16_f32_relu_add_global"`);
    }
    expect(shared).toMatch(new RegExp(`"${AUTO_TENSORIZE}": \\["wgmma_m64n64k8_tf32tf32f32"`));
    expect(registers).toMatch(new RegExp(`"${AUTO_TENSORIZE}": \\["wgmma_m64n64k8_tf32tf32f32_rs"`));
    expect(registers).toContain(`"${AUTO_TENSORIZE}": "mma_load_tf32_a_dyn"`);
    expect(registers).toContain('"software_pipeline_stage": [0, 1]');
  });

  it.each<[Fp32Precision, number, number]>([
    ["3xtf32", 1, 128],
    ["3xtf32", 2, N],
    ["tf32", 1, N],
    ["tf32", 2, N],
  ])(
    "%s, wgmma space %i at %i³: sampled programs lower and simulate equal to the executor within float32 rounding (each wgmma sums in its own order), with no race",
    (precision, k, n) => {
      const func = withFp32Precision(gemmReluAdd(n).func, precision);
      const space = spaceOf(func);
      for (const seed of [1, 2, 3]) {
        const out = replayWithPostprocs(space.ctx, space.spaces[k]!.trace, space.gen.postprocs, { seed, freshDecisions: true });
        if (!out.ok) throw new Error(`seed ${seed}: ${out.reason}: ${out.detail}`);
        const report = compareWithReference(loweredModuleFor(out.sch.func)!, func, { seed: 5, widenForDType: false, rtol: 0, atol: 1e-5 });
        expect(report.passed && report.simulation.raceCount === 0 && report.simulation.uninitializedReadCount === 0, formatComparison(report)).toBe(true);
      }
    },
  );

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
    // A split in registers, two warpgroups: the k steps' loads pipelined inside the chunks' pipeline (three statements of it).
    ["wgmma (A in registers)", 2, [], [64, 8, 1, 0], 1e-5, "tessera_wgmma_wait_group<1>"],
  ] as const)(
    "3xtf32, %s space pipelined (regression: a chunk's body of several computes after its copies was left unpipelined): cp.async copies, equal to the executor",
    (_, k, tiles, choices, atol, overlap?: string) => {
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
      const source = codegenCuda(module).source;
      expect(source).toContain("cp.async");
      // A's loads of the next k step under this step's wgmmas: a wait for all but the newest group before them.
      if (overlap !== undefined) expect(source).toContain(overlap);
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
