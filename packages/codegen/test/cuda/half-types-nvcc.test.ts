/**
 * The 16-bit float kernels (every operation the generator spells for __half / __nv_bfloat16, the
 * tf32 rounding, half2 vectors, and the fp16/bf16 gemm+ReLU+add with float32 accumulation)
 * compile with nvcc for sm_75, sm_80 and sm_90; on sm_80+ the tf32 rounding is the PTX
 * instruction (in the PTX kept from the sm_80 run). One nvcc run per architecture, so this runs in `pnpm test:slow`; skipped where nvcc is absent.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { compilationsPerArch, nvccAvailable } from "./corpus-ptxas.js";
import { halfGemmModule, halfOperationsModule } from "./half-kernels.js";

const nvcc = process.env.TESSERA_NVCC ?? "nvcc";
const hasNvcc = await nvccAvailable(nvcc);

describe.skipIf(!hasNvcc)(`the 16-bit float kernels compile with nvcc${hasNvcc ? "" : " (SKIPPED: nvcc not found; set TESSERA_NVCC)"}`, () => {
  const dir = mkdtempSync(join(tmpdir(), "tessera-half-nvcc-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const modules = [
    { label: "half operations", file: "half_operations.cu", module: halfOperationsModule() },
    { label: "fp16 gemm", file: "gemm_fp16.cu", module: halfGemmModule("float16") },
    { label: "bf16 gemm", file: "gemm_bf16.cu", module: halfGemmModule("bfloat16") },
  ];

  const compiled = compilationsPerArch(nvcc, dir, modules);

  for (const arch of ["sm_75", "sm_80", "sm_90"]) {
    it(`${arch}: every kernel`, async () => {
      const r = await compiled(arch);
      expect(r.exitCode, r.log).toBe(0);
      modules.forEach((m, i) => expect(r.perModule[i]?.[0]?.spillStoreBytes, m.label).toBe(0));
    }, 300_000);
  }

  it("sm_80: T.tf32_round is cvt.rna.tf32.f32 in the PTX", async () => {
    const r = await compiled("sm_80");
    expect(r.exitCode, r.log).toBe(0);
    expect(r.ptxOf(0)).toMatch(/cvt\.rna\.tf32\.f32/);
  }, 300_000);
});
