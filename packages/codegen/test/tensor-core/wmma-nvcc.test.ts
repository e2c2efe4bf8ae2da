/**
 * The WMMA-tensorized GEMM compiles with nvcc for sm_80 and sm_90 without spills, and its PTX
 * (kept from the same nvcc run) has the WMMA instructions (wmma.load / wmma.mma.sync / wmma.store, m16n16k16, f32 accumulate). Skipped where nvcc is absent (set TESSERA_NVCC); in `pnpm test:slow`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WMMA_PARAMS, wmmaGemmSchedule } from "@tessera/corpus";
import { afterAll, describe, expect, it } from "vitest";
import { lower } from "../../src/index.js";
import { compileCorpusForArch, nvccAvailable } from "../cuda/corpus-ptxas.js";

const nvcc = process.env.TESSERA_NVCC ?? "nvcc";
const hasNvcc = await nvccAvailable(nvcc);

describe.skipIf(!hasNvcc)(`the WMMA GEMM compiles with nvcc${hasNvcc ? "" : " (SKIPPED: nvcc not found; set TESSERA_NVCC)"}`, () => {
  const dir = mkdtempSync(join(tmpdir(), "tessera-wmma-nvcc-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const modules = [{ label: "wmma gemm 2048", file: "wmma_gemm.cu", module: lower(wmmaGemmSchedule(2048, WMMA_PARAMS), "nvidia/h100") }];

  for (const arch of ["sm_80", "sm_90"]) {
    it(`${arch}: compiles without spills, to WMMA instructions`, async () => {
      const r = await compileCorpusForArch(nvcc, dir, modules, arch);
      expect(r.exitCode, r.log).toBe(0);
      expect(r.perModule[0]?.[0]?.spillStoreBytes).toBe(0);
      const text = r.ptxOf(0);
      expect(text).toMatch(/wmma\.load\.a\.sync\.aligned\.row\.m16n16k16(\.shared)?\.f16/);
      expect(text).toMatch(/wmma\.mma\.sync\.aligned\.row\.row\.m16n16k16\.f32\.f32/);
      expect(text).toMatch(/wmma\.store\.d\.sync\.aligned\.row\.m16n16k16(\.global)?\.f32/);
    }, 300_000);
  }
});
