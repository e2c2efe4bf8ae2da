/**
 * The mma.sync GEMMs (ldmatrix + m16n8k16 fp16; tf32 fragments rounded on load + m16n8k8; 3xTF32,
 * also fused with ReLU and add; the fp16 and tf32 ones also with 3- and 4-stage pipelines and 64×64
 * warp tiles; MMA_PARAMS' XOR-swizzled shared tiles and the padded ones) compile with nvcc for sm_80
 * and sm_90 without spills, and their PTX (kept from the same nvcc run) has the instructions the
 * inline asm asks for; the swizzled tf32, tf32-ldmatrix and 3xTF32 GEMMs (the `bench:tc --tilings
 * ….swz` candidates) for sm_90 only (the swizzled tf32 GEMM spills 8 bytes for sm_80). Skipped where nvcc is absent (set
 * TESSERA_NVCC); in `pnpm test:slow`. The blocks share one nvcc compilation per architecture (compilationPool).
 *
 * The wgmma GEMM (WGMMA_PARAMS, Hopper's wgmma.mma_async) compiles for sm_90a only, in a batch of
 * its own: without spills, to wgmma.mma_async, its fences and fence.proxy.async; so does the tf32
 * wgmma GEMM (WGMMA_TF32_PARAMS: m64n256k8 tf32, its two pre-pass kernels beside it).
 *
 * Not sm_90a as well for the mma.sync ones: the sources use no architecture-specific feature (the test checks that no
 * `__CUDA_ARCH_FEAT_` macro appears), so nvcc's front end gives sm_90a the same PTX as sm_90 but
 * for its `.target` line, and ptxas the same registers and machine code (on CUDA 13.0 the nine
 * cubins differed only in three bytes of the ELF header's architecture flags). It cost a third of
 * the file's nvcc time.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  MMA_PARAMS,
  type MmaGemmParams,
  TF32X3_PARAMS,
  TF32_LDMATRIX_PARAMS,
  TF32_PARAMS,
  WGMMA_PARAMS,
  WGMMA_TF32_PARAMS,
  mmaGemmSchedule,
  tf32GemmSchedule,
  tf32x3GemmReluAddSchedule,
  tf32x3GemmSchedule,
  wgmmaGemmSchedule,
  wgmmaTf32GemmSchedule,
  wgmmaTf32x3GemmReluAddSchedule,
  WGMMA_TF32X3_PARAMS,
} from "@tessera/corpus";
import { afterAll, describe, expect, it } from "vitest";
import { lower } from "../../src/index.js";
import { codegenCuda } from "../../src/cuda/index.js";
import { type PtxasKernelRecord, compilationPool, nvccAvailable } from "../cuda/corpus-ptxas.js";

/** ptxas kept the kernel in registers: no spills, no stack frame, at most 255 registers a thread. */
function expectInRegisters(kernel: PtxasKernelRecord | undefined, log: string): void {
  expect(kernel?.spillStoreBytes, log).toBe(0);
  expect(kernel?.spillLoadBytes, log).toBe(0);
  expect(kernel?.stackFrameBytes, log).toBe(0);
  expect(kernel?.registers).toBeLessThanOrEqual(255);
}

const nvcc = process.env.TESSERA_NVCC ?? "nvcc";

const DEEP_TILINGS: readonly (readonly [string, Partial<MmaGemmParams>])[] = [
  ["s3", { pipelineStages: 3 }],
  ["s4_warp64x64", { warps: [2, 2], tilesPerWarp: [4, 4], pipelineStages: 4 }],
];
/** XOR-swizzled shared tiles instead of padded ones, and the reverse. */
const SWIZZLED = { padShared: false, swizzle: true } as const;
const PADDED = { padShared: true, swizzle: false } as const;
const hasNvcc = await nvccAvailable(nvcc);
// One nvcc compilation per architecture for all the blocks below (their modules with the same headers share a unit).
const dir = mkdtempSync(join(tmpdir(), "tessera-mma-nvcc-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const nvccRuns = compilationPool(nvcc, dir);

describe.skipIf(!hasNvcc)(`the mma.sync GEMM compiles with nvcc${hasNvcc ? "" : " (SKIPPED: nvcc not found; set TESSERA_NVCC)"}`, () => {
  const modules = [
    { label: "mma gemm 2048", file: "mma_gemm.cu", module: lower(mmaGemmSchedule(2048, MMA_PARAMS), "nvidia/h100") },
    { label: "mma gemm 2048 padded", file: "mma_gemm_padded.cu", module: lower(mmaGemmSchedule(2048, { ...MMA_PARAMS, ...PADDED }), "nvidia/h100") },
    { label: "tf32 gemm 4096", file: "tf32_gemm.cu", module: lower(tf32GemmSchedule(4096, TF32_PARAMS), "nvidia/h100") },
    { label: "3xTF32 gemm 2048", file: "tf32x3_gemm.cu", module: lower(tf32x3GemmSchedule(2048, TF32X3_PARAMS), "nvidia/h100") },
    { label: "3xTF32 gemm+ReLU+add 2048", file: "tf32x3_relu_add.cu", module: lower(tf32x3GemmReluAddSchedule(2048, TF32X3_PARAMS), "nvidia/h100") },
    // Deeper pipelines (tiles in dynamic shared memory) and 64×64 warp tiles: the bench:tc --tilings candidates.
    { label: "tf32 gemm 4096 ldmatrix A", file: "tf32_ldmatrix_gemm.cu", module: lower(tf32GemmSchedule(4096, TF32_LDMATRIX_PARAMS), "nvidia/h100") },
    ...DEEP_TILINGS.flatMap(([name, p]) => [
      { label: `mma gemm 4096 ${name}`, file: `mma_gemm_${name}.cu`, module: lower(mmaGemmSchedule(4096, { ...MMA_PARAMS, ...p }), "nvidia/h100") },
      { label: `tf32 gemm 4096 ${name}`, file: `tf32_gemm_${name}.cu`, module: lower(tf32GemmSchedule(4096, { ...TF32_PARAMS, ...p }), "nvidia/h100") },
    ]),
  ];
  const indexOf = (file: string): number => modules.findIndex((m) => m.file === file);
  const compiled = nvccRuns.add(modules, ["sm_80", "sm_90"]);

  it("the sources use no architecture-specific feature macro (so sm_90a would compile them as sm_90 does)", () => {
    for (const m of modules)
      expect(codegenCuda(m.module).source, m.label).not.toMatch(/__CUDA_ARCH_FEAT_|__CUDA_ARCH_SPECIFIC__|__CUDA_ARCH_FAMILY_SPECIFIC__/);
  });

  for (const arch of ["sm_80", "sm_90"]) {
    it(`${arch}: compiles without spills, to ldmatrix and mma.sync`, async () => {
      const r = await compiled(arch);
      expect(r.exitCode, r.log).toBe(0);
      modules.forEach((m, i) => {
        expect(r.perModule[i]?.[0]?.spillStoreBytes, m.label).toBe(0);
        expect(r.perModule[i]?.[0]?.spillLoadBytes, m.label).toBe(0);
      });
      const text = r.ptxOf(indexOf("mma_gemm.cu"));
      expect(text).toMatch(new RegExp(`^\\.target ${arch}$`, "m"));
      expect(text).toMatch(/ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16/);
      expect(text).toMatch(/ldmatrix\.sync\.aligned\.m8n8\.x4\.trans\.shared\.b16/);
      expect(text).toMatch(/mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.f16\.f16\.f32/);
      const tf32Text = r.ptxOf(indexOf("tf32_gemm.cu"));
      expect(tf32Text).toMatch(/mma\.sync\.aligned\.m16n8k8\.row\.col\.f32\.tf32\.tf32\.f32/);
      // Rounded once per element loaded (24 registers per k tile: two k tiles per stage, in the pipeline's
      // body and epilogue, fewer where nvcc keeps a loop), not once per MMA reading it (6 each, 32 MMAs per k tile).
      const cvts = tf32Text.match(/cvt\.rna\.tf32\.f32/g)?.length ?? 0;
      expect(cvts).toBeGreaterThanOrEqual(24);
      expect(cvts).toBeLessThanOrEqual(96);
      // A's fragments through ldmatrix: 32-bit words as b16 pairs, without .trans.
      const ldmText = r.ptxOf(indexOf("tf32_ldmatrix_gemm.cu"));
      expect(ldmText).toMatch(/ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16/);
      expect(ldmText).not.toMatch(/ldmatrix[^\n]*\.trans/);
      expect(ldmText).toMatch(/cvt\.rna\.tf32\.f32/);
    }, 600_000);
  }

  it("sm_90: the 3xTF32 GEMMs keep a chunk and a main accumulator in registers, three tf32 MMAs per 8-column half", async () => {
    const r = await compiled("sm_90");
    expect(r.exitCode, r.log).toBe(0);
    for (const file of ["tf32x3_gemm.cu", "tf32x3_relu_add.cu"]) {
      const kernel = r.perModule[indexOf(file)]?.[0];
      expect(kernel?.spillStoreBytes, r.log).toBe(0);
      expect(kernel?.spillLoadBytes, r.log).toBe(0);
      // One 256-thread block per SM needs at most 255 registers a thread.
      expect(kernel?.registers).toBeGreaterThan(0);
      expect(kernel?.registers).toBeLessThanOrEqual(255);
    }
    expect(r.ptxOf(indexOf("tf32x3_gemm.cu"))).toMatch(/mma\.sync\.aligned\.m16n8k8\.row\.col\.f32\.tf32\.tf32\.f32/);
  }, 600_000);
});

describe.skipIf(!hasNvcc)(`the swizzled tf32 and 3xTF32 GEMMs compile for sm_90${hasNvcc ? "" : " (SKIPPED: nvcc not found; set TESSERA_NVCC)"}`, () => {
  const modules = [
    { label: "tf32 gemm 4096 swizzled", file: "tf32_gemm_swz.cu", module: lower(tf32GemmSchedule(4096, { ...TF32_PARAMS, ...SWIZZLED }), "nvidia/h100") },
    {
      label: "tf32 gemm 4096 ldmatrix A swizzled",
      file: "tf32_ldmatrix_gemm_swz.cu",
      module: lower(tf32GemmSchedule(4096, { ...TF32_LDMATRIX_PARAMS, ...SWIZZLED }), "nvidia/h100"),
    },
    {
      label: "3xTF32 gemm 2048 swizzled",
      file: "tf32x3_gemm_swz.cu",
      module: lower(tf32x3GemmSchedule(2048, { ...TF32X3_PARAMS, ...SWIZZLED }), "nvidia/h100"),
    },
  ];
  const compiled = nvccRuns.add(modules, ["sm_90"]);

  it("sm_90: without spills in at most 255 registers", async () => {
    const r = await compiled("sm_90");
    expect(r.exitCode, r.log).toBe(0);
    modules.forEach((m, i) => {
      const kernel = r.perModule[i]?.[0];
      expect(kernel?.spillStoreBytes, m.label).toBe(0);
      expect(kernel?.spillLoadBytes, m.label).toBe(0);
      expect(kernel?.registers).toBeGreaterThan(0);
      expect(kernel?.registers).toBeLessThanOrEqual(255);
    });
  }, 600_000);
});

describe.skipIf(!hasNvcc)(`the wgmma GEMM compiles for sm_90a${hasNvcc ? "" : " (SKIPPED: nvcc not found; set TESSERA_NVCC)"}`, () => {
  const modules = [{ label: "wgmma gemm 4096", file: "wgmma_gemm.cu", module: lower(wgmmaGemmSchedule(4096, WGMMA_PARAMS), "nvidia/h100") }];
  const compiled = nvccRuns.add(modules, ["sm_90a"]);

  it("sm_90a: without spills, to wgmma.mma_async m64n256k16 from shared-memory descriptors, fenced, one k stage kept in flight", async () => {
    const r = await compiled("sm_90a");
    expect(r.exitCode, r.log).toBe(0);
    expectInRegisters(r.perModule[0]?.[0], r.log);
    const text = r.ptxOf(0);
    expect(text).toMatch(/^\.target sm_90a$/m);
    expect(text).toMatch(/wgmma\.mma_async\.sync\.aligned\.m64n256k16\.f32\.f16\.f16/);
    expect(text).toMatch(/wgmma\.fence\.sync\.aligned/);
    expect(text).toMatch(/wgmma\.commit_group\.sync\.aligned/);
    expect(text).toMatch(/wgmma\.wait_group\.sync\.aligned 0/);
    expect(text).toMatch(/wgmma\.wait_group\.sync\.aligned 4/);
    expect(text).toMatch(/fence\.proxy\.async\.shared::cta/);
  }, 600_000);
});

describe.skipIf(!hasNvcc)(
  `the 3xTF32 wgmma gemm+ReLU+add with A from registers compiles for sm_90a${hasNvcc ? "" : " (SKIPPED: nvcc not found; set TESSERA_NVCC)"}`,
  () => {
    const modules = [
      {
        label: "wgmma 3xTF32 gemm+ReLU+add 2048",
        file: "wgmma_tf32x3.cu",
        module: lower(wgmmaTf32x3GemmReluAddSchedule(2048, WGMMA_TF32X3_PARAMS), "nvidia/h100"),
      },
    ];
    const compiled = nvccRuns.add(modules, ["sm_90a"]);

    it("sm_90a: B's pre-pass and the GEMM kernel without spills, to the register-A wgmma m64n128k8 tf32, A rounded and split in registers", async () => {
      const r = await compiled("sm_90a");
      expect(r.exitCode, r.log).toBe(0);
      const kernels = r.perModule[0] ?? [];
      expect(kernels).toHaveLength(2);
      for (const kernel of kernels) expectInRegisters(kernel, r.log);
      const text = r.ptxOf(0);
      // A as four registers in braces, B through a descriptor.
      expect(text).toMatch(/wgmma\.mma_async\.sync\.aligned\.m64n128k8\.f32\.tf32\.tf32 \{[^}]*\}, \{%r\d+, %r\d+, %r\d+, %r\d+\}, %rd\d+/);
      expect(text).toMatch(/cvt\.rna\.tf32\.f32/);
      expect(r.log).not.toMatch(/wgmma.*serialized/i);
    }, 600_000);
  },
);

describe.skipIf(!hasNvcc)(`the tf32 wgmma GEMM compiles for sm_90a${hasNvcc ? "" : " (SKIPPED: nvcc not found; set TESSERA_NVCC)"}`, () => {
  const modules = [{ label: "wgmma tf32 gemm 4096", file: "wgmma_tf32_gemm.cu", module: lower(wgmmaTf32GemmSchedule(4096, WGMMA_TF32_PARAMS), "nvidia/h100") }];
  const compiled = nvccRuns.add(modules, ["sm_90a"]);

  it("sm_90a: its three kernels without spills, to wgmma.mma_async m64n256k8 tf32, one k stage kept in flight", async () => {
    const r = await compiled("sm_90a");
    expect(r.exitCode, r.log).toBe(0);
    const kernels = r.perModule[0] ?? [];
    expect(kernels).toHaveLength(3);
    for (const kernel of kernels) expectInRegisters(kernel, r.log);
    const text = r.ptxOf(0);
    expect(text).toMatch(/wgmma\.mma_async\.sync\.aligned\.m64n256k8\.f32\.tf32\.tf32/);
    expect(text).toMatch(/cvt\.rna\.tf32\.f32/);
    expect(text).toMatch(/wgmma\.wait_group\.sync\.aligned 4/);
    expect(text).toMatch(/fence\.proxy\.async\.shared::cta/);
  }, 600_000);
});
