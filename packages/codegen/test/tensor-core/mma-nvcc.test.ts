/**
 * The mma.sync GEMMs (ldmatrix + m16n8k16 fp16; tf32 fragments rounded on load + m16n8k8; 3xTF32; the
 * fp16 and tf32 ones also with 3- and 4-stage pipelines and 64×64 warp tiles) compile
 * with nvcc for sm_80, sm_90 and sm_90a without spills, and their PTX has the instructions the inline asm asks for. Skipped where nvcc is absent (set
 * TESSERA_NVCC); in `pnpm test:slow`.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  MMA_PARAMS,
  type MmaGemmParams,
  TF32X3_PARAMS,
  TF32_LDMATRIX_PARAMS,
  TF32_PARAMS,
  mmaGemmSchedule,
  tf32GemmSchedule,
  tf32x3GemmReluAddSchedule,
  tf32x3GemmSchedule,
} from "@tessera/corpus";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { lower } from "../../src/index.js";
import { compileCorpusForArch, nvccAvailable } from "../cuda/corpus-ptxas.js";

const nvcc = process.env.TESSERA_NVCC ?? "nvcc";

const DEEP_TILINGS: readonly (readonly [string, Partial<MmaGemmParams>])[] = [
  ["s3", { pipelineStages: 3 }],
  ["s4_warp64x64", { warps: [2, 2], tilesPerWarp: [4, 4], pipelineStages: 4 }],
];
const hasNvcc = await nvccAvailable(nvcc);

describe.skipIf(!hasNvcc)(`the mma.sync GEMM compiles with nvcc${hasNvcc ? "" : " (SKIPPED: nvcc not found; set TESSERA_NVCC)"}`, () => {
  const dir = mkdtempSync(join(tmpdir(), "tessera-mma-nvcc-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const modules = [
    { label: "mma gemm 2048", file: "mma_gemm.cu", module: lower(mmaGemmSchedule(2048, MMA_PARAMS), "nvidia/h100") },
    { label: "tf32 gemm 4096", file: "tf32_gemm.cu", module: lower(tf32GemmSchedule(4096, TF32_PARAMS), "nvidia/h100") },
    { label: "3xTF32 gemm 2048", file: "tf32x3_gemm.cu", module: lower(tf32x3GemmSchedule(2048, TF32X3_PARAMS), "nvidia/h100") },
    // Deeper pipelines (tiles in dynamic shared memory) and 64×64 warp tiles: the bench:tc --tilings candidates.
    { label: "tf32 gemm 4096 ldmatrix A", file: "tf32_ldmatrix_gemm.cu", module: lower(tf32GemmSchedule(4096, TF32_LDMATRIX_PARAMS), "nvidia/h100") },
    ...DEEP_TILINGS.flatMap(([name, p]) => [
      { label: `mma gemm 4096 ${name}`, file: `mma_gemm_${name}.cu`, module: lower(mmaGemmSchedule(4096, { ...MMA_PARAMS, ...p }), "nvidia/h100") },
      { label: `tf32 gemm 4096 ${name}`, file: `tf32_gemm_${name}.cu`, module: lower(tf32GemmSchedule(4096, { ...TF32_PARAMS, ...p }), "nvidia/h100") },
    ]),
  ];

  for (const arch of ["sm_80", "sm_90", "sm_90a"]) {
    it(`${arch}: compiles without spills, to ldmatrix and mma.sync`, async () => {
      const r = await compileCorpusForArch(nvcc, dir, modules, arch);
      expect(r.exitCode, r.log).toBe(0);
      modules.forEach((m, i) => {
        expect(r.perModule[i]?.[0]?.spillStoreBytes, m.label).toBe(0);
        expect(r.perModule[i]?.[0]?.spillLoadBytes, m.label).toBe(0);
      });
      const ptx = await execa(nvcc, [`-arch=${arch}`, "-ptx", "mma_gemm.cu", "-o", `mma_gemm_${arch}.ptx`], { cwd: dir, reject: false, all: true });
      expect(ptx.exitCode, String(ptx.all)).toBe(0);
      const text = readFileSync(join(dir, `mma_gemm_${arch}.ptx`), "utf8");
      expect(text).toMatch(/ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16/);
      expect(text).toMatch(/ldmatrix\.sync\.aligned\.m8n8\.x4\.trans\.shared\.b16/);
      expect(text).toMatch(/mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.f16\.f16\.f32/);
      const tf32 = await execa(nvcc, [`-arch=${arch}`, "-ptx", "tf32_gemm.cu", "-o", `tf32_gemm_${arch}.ptx`], { cwd: dir, reject: false, all: true });
      expect(tf32.exitCode, String(tf32.all)).toBe(0);
      const tf32Text = readFileSync(join(dir, `tf32_gemm_${arch}.ptx`), "utf8");
      expect(tf32Text).toMatch(/mma\.sync\.aligned\.m16n8k8\.row\.col\.f32\.tf32\.tf32\.f32/);
      // Rounded once per element loaded (24 registers per k tile: two k tiles per stage, in the pipeline's
      // body and epilogue, fewer where nvcc keeps a loop), not once per MMA reading it (6 each, 32 MMAs per k tile).
      const cvts = tf32Text.match(/cvt\.rna\.tf32\.f32/g)?.length ?? 0;
      expect(cvts).toBeGreaterThanOrEqual(24);
      expect(cvts).toBeLessThanOrEqual(96);
      // A's fragments through ldmatrix: 32-bit words as b16 pairs, without .trans.
      const ldm = await execa(nvcc, [`-arch=${arch}`, "-ptx", "tf32_ldmatrix_gemm.cu", "-o", `tf32_ldmatrix_${arch}.ptx`], {
        cwd: dir,
        reject: false,
        all: true,
      });
      expect(ldm.exitCode, String(ldm.all)).toBe(0);
      const ldmText = readFileSync(join(dir, `tf32_ldmatrix_${arch}.ptx`), "utf8");
      expect(ldmText).toMatch(/ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16/);
      expect(ldmText).not.toMatch(/ldmatrix[^\n]*\.trans/);
      expect(ldmText).toMatch(/cvt\.rna\.tf32\.f32/);
    }, 600_000);
  }
});

describe.skipIf(!hasNvcc)(`the 3xTF32 GEMMs compile for sm_90a${hasNvcc ? "" : " (SKIPPED: nvcc not found; set TESSERA_NVCC)"}`, () => {
  const dir = mkdtempSync(join(tmpdir(), "tessera-x3-nvcc-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const modules = [
    { label: "3xTF32 gemm 2048", file: "tf32x3_gemm.cu", module: lower(tf32x3GemmSchedule(2048, TF32X3_PARAMS), "nvidia/h100") },
    { label: "3xTF32 gemm+ReLU+add 2048", file: "tf32x3_relu_add.cu", module: lower(tf32x3GemmReluAddSchedule(2048, TF32X3_PARAMS), "nvidia/h100") },
  ];

  it("without spills, with a chunk and a main accumulator in registers, three tf32 MMAs per 8-column half", async () => {
    const r = await compileCorpusForArch(nvcc, dir, modules, "sm_90a");
    expect(r.exitCode, r.log).toBe(0);
    for (const [k] of modules.entries()) {
      const kernel = r.perModule[k]?.[0];
      expect(kernel?.spillStoreBytes, r.log).toBe(0);
      expect(kernel?.spillLoadBytes, r.log).toBe(0);
      // One 256-thread block per SM needs at most 255 registers a thread.
      expect(kernel?.registers).toBeGreaterThan(0);
      expect(kernel?.registers).toBeLessThanOrEqual(255);
    }
    const ptx = await execa(nvcc, ["-arch=sm_90a", "-ptx", "tf32x3_gemm.cu", "-o", "tf32x3_gemm.ptx"], { cwd: dir, reject: false, all: true });
    expect(ptx.exitCode, String(ptx.all)).toBe(0);
    const text = readFileSync(join(dir, "tf32x3_gemm.ptx"), "utf8");
    expect(text).toMatch(/mma\.sync\.aligned\.m16n8k8\.row\.col\.f32\.tf32\.tf32\.f32/);
  }, 300_000);
});
