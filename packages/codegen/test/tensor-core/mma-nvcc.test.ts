/**
 * The mma.sync GEMM (ldmatrix + m16n8k16) compiles with nvcc for sm_80 and sm_90 without spills,
 * and its PTX has the instructions the inline asm asks for. Skipped where nvcc is absent (set
 * TESSERA_NVCC); in `pnpm test:slow`.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MMA_PARAMS, mmaGemmSchedule } from "@tessera/corpus";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { lower } from "../../src/index.js";
import { compileCorpusForArch, nvccAvailable } from "../cuda/corpus-ptxas.js";

const nvcc = process.env.TESSERA_NVCC ?? "nvcc";
const hasNvcc = await nvccAvailable(nvcc);

describe.skipIf(!hasNvcc)(`the mma.sync GEMM compiles with nvcc${hasNvcc ? "" : " (SKIPPED: nvcc not found; set TESSERA_NVCC)"}`, () => {
  const dir = mkdtempSync(join(tmpdir(), "tessera-mma-nvcc-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const modules = [{ label: "mma gemm 2048", file: "mma_gemm.cu", module: lower(mmaGemmSchedule(2048, MMA_PARAMS), "nvidia/h100") }];

  for (const arch of ["sm_80", "sm_90"]) {
    it(`${arch}: compiles without spills, to ldmatrix and mma.sync`, async () => {
      const r = await compileCorpusForArch(nvcc, dir, modules, arch);
      expect(r.exitCode, r.log).toBe(0);
      expect(r.perModule[0]?.[0]?.spillStoreBytes).toBe(0);
      const ptx = await execa(nvcc, [`-arch=${arch}`, "-ptx", "mma_gemm.cu", "-o", `mma_gemm_${arch}.ptx`], { cwd: dir, reject: false, all: true });
      expect(ptx.exitCode, String(ptx.all)).toBe(0);
      const text = readFileSync(join(dir, `mma_gemm_${arch}.ptx`), "utf8");
      expect(text).toMatch(/ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16/);
      expect(text).toMatch(/ldmatrix\.sync\.aligned\.m8n8\.x4\.trans\.shared\.b16/);
      expect(text).toMatch(/mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.f16\.f16\.f32/);
    }, 300_000);
  }
});
