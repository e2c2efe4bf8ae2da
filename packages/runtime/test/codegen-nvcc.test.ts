/**
 * The CUDA code generator's golden output compiles: every golden kernel (all of them as one
 * translation unit per architecture, which also checks that the preamble helpers are guarded)
 * with `nvcc -cubin -Xptxas -v` for sm_75 and sm_90, and a C++ driver that includes the golden
 * headers and calls their launchers is compiled and linked (nothing runs: no GPU is needed).
 *
 * The golden files and their manifest are written by packages/codegen/test/cuda/golden.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { compileCuda, nvccVersion, type PtxasFunctionInfo } from "@tessera/runtime";

const GOLDEN = join(dirname(fileURLToPath(import.meta.url)), "../../codegen/test/cuda/golden");

interface ManifestEntry {
  readonly file: string;
  readonly kernels: readonly { readonly sharedBytes: number; readonly launch: { readonly name: string } }[];
}

const manifest = JSON.parse(readFileSync(join(GOLDEN, "manifest.json"), "utf8")) as ManifestEntry[];
const allKernels = manifest.flatMap((m) => m.kernels.map((k) => ({ file: m.file, name: k.launch.name, sharedBytes: k.sharedBytes })));

const hasNvcc = (await nvccVersion()) !== undefined;
/** Diagnostics print only with TESSERA_TEST_VERBOSE=1 (README, Testing). */
const VERBOSE = process.env.TESSERA_TEST_VERBOSE === "1";
const skipNote = hasNvcc ? "" : " (SKIPPED: nvcc not found on PATH; set TESSERA_NVCC)";
if (!hasNvcc && VERBOSE) console.warn("[codegen-nvcc] nvcc not found: skipping the compile checks of the generated CUDA");

const workDir = mkdtempSync(join(tmpdir(), "tessera-codegen-nvcc-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

/** The ptxas resources of every golden kernel, per architecture (printed once for the record, verbose only). */
const resources = new Map<string, PtxasFunctionInfo[]>();
afterAll(() => {
  if (!VERBOSE) return;
  for (const [arch, fns] of resources) {
    const rows = fns.map((f) => `${f.name}: ${f.registers} registers, ${f.sharedBytes} B smem, ${f.spillStoreBytes} B spill stores`);
    console.log(`[codegen-nvcc] ptxas -v ${arch}\n  ${rows.join("\n  ")}`);
  }
});

describe.skipIf(!hasNvcc)(`golden CUDA kernels compile with nvcc${skipNote}`, () => {
  const translationUnit = manifest.map((m) => `// ---- ${m.file}\n${readFileSync(join(GOLDEN, m.file), "utf8")}`).join("\n");

  for (const arch of ["sm_75", "sm_90"]) {
    it(`all ${allKernels.length} kernels for ${arch}, with the shared memory they declare and no spills`, async () => {
      const r = await compileCuda(translationUnit, { arch, backend: "nvcc", ptxasVerbose: true, cache: false, name: "golden kernels" });
      const functions = r.ptxas?.functions ?? [];
      resources.set(arch, functions);
      expect(functions.map((f) => f.name).sort()).toEqual(allKernels.map((k) => k.name).sort());
      for (const k of allKernels) {
        const f = functions.find((x) => x.name === k.name)!;
        expect(f.arch, k.name).toBe(arch);
        expect(f.sharedBytes, `${k.name} shared memory`).toBe(k.sharedBytes);
        expect(f.registers, `${k.name} registers`).toBeGreaterThan(0);
        expect(f.registers, `${k.name} registers`).toBeLessThanOrEqual(255);
        expect(f.spillStoreBytes + f.spillLoadBytes, `${k.name} spills`).toBe(0);
      }
    });
  }
});

describe.skipIf(!hasNvcc)(`golden headers build into a C++ program${skipNote}`, () => {
  it("includes every header (one of them twice) and calls each launcher", async () => {
    for (const h of ["window_sum.cuh", "gemm_relu_add.cuh", "scale_add_float4.cuh", "bounded_scale.cuh"]) {
      writeFileSync(join(workDir, h), readFileSync(join(GOLDEN, h), "utf8"));
    }
    const driver = `#include "window_sum.cuh"
#include "window_sum.cuh"
#include "gemm_relu_add.cuh"
#include "scale_add_float4.cuh"
#include "bounded_scale.cuh"
#include <cstdio>

int main() {
  float *a = nullptr, *b = nullptr, *c = nullptr, *d = nullptr;
  cudaMalloc(&a, 4096 * sizeof(float));
  cudaMalloc(&b, 4096 * sizeof(float));
  cudaMalloc(&c, 4096 * sizeof(float));
  cudaMalloc(&d, 4096 * sizeof(float));
  cudaError_t e1 = tessera::launch_window_sum(a, b);
  void* scratch = nullptr;
  cudaMalloc(&scratch, gemm_relu_add_workspace_bytes());
  cudaError_t e2 = launch_gemm_relu_add(a, b, c, d, 0, scratch);
  cudaError_t e3 = launch_gemm_relu_add(a, b, c, d);
  cudaError_t e4 = launch_scale_add_float4(a, b, c, 2.0f);
  cudaError_t e5 = launch_bounded_scale(a, b);
  std::printf("%s %s %s %s %s\\n", cudaGetErrorString(e1), cudaGetErrorString(e2), cudaGetErrorString(e3), cudaGetErrorString(e4), cudaGetErrorString(e5));
  return 0;
}
`;
    writeFileSync(join(workDir, "main.cu"), driver);
    const nvcc = process.env.TESSERA_NVCC ?? "nvcc";
    const r = await execa(nvcc, ["-arch=sm_75", "-o", "driver", "main.cu"], { cwd: workDir, reject: false, all: true, timeout: 120_000 });
    expect(r.exitCode, String(r.all)).toBe(0);
  });
});
