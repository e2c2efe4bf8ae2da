/**
 * The 16-bit float kernels (every operation the generator spells for __half / __nv_bfloat16, the
 * tf32 rounding, half2 vectors, and the fp16/bf16 gemm+ReLU+add with float32 accumulation)
 * compile with nvcc for sm_75, sm_80 and sm_90; on sm_80+ the tf32 rounding is the PTX
 * instruction. A few nvcc runs, so this runs in `pnpm test:slow`; skipped where nvcc is absent.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { codegenCuda } from "../../src/cuda/index.js";
import { compileCorpusForArch, nvccAvailable } from "./corpus-ptxas.js";
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

  for (const arch of ["sm_75", "sm_80", "sm_90"]) {
    it(`${arch}: every kernel`, async () => {
      const r = await compileCorpusForArch(nvcc, dir, modules, arch);
      expect(r.exitCode, r.log).toBe(0);
      modules.forEach((m, i) => expect(r.perModule[i]?.[0]?.spillStoreBytes, m.label).toBe(0));
    }, 300_000);
  }

  it("sm_80: T.tf32_round is cvt.rna.tf32.f32 in the PTX", async () => {
    writeFileSync(join(dir, "tf32.cu"), codegenCuda(halfOperationsModule()).source);
    const r = await execa(nvcc, ["-arch=sm_80", "-ptx", "tf32.cu", "-o", "tf32.ptx"], { cwd: dir, reject: false, all: true });
    expect(r.exitCode, String(r.all)).toBe(0);
    expect(readFileSync(join(dir, "tf32.ptx"), "utf8")).toMatch(/cvt\.rna\.tf32\.f32/);
  }, 300_000);
});
