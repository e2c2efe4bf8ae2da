/**
 * Every lowered corpus kernel (the schedule corpus and the 2048³ naive/manual/unrolled gemm+ReLU+add, each
 * lowered for the T4 and the H100) compiles with `nvcc -cubin -Xptxas -v` for sm_75 and for sm_90
 * (one nvcc run per architecture, all sources as one translation unit: nvcc-batch.ts; a schedule lowered to the same source for both targets is compiled once), with exactly the static shared memory lowering recorded and no
 * register spills; and a module of such a unit does not see another's helpers. Skipped only where nvcc is absent.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { codegenCuda } from "../../src/cuda/index.js";
import {
  type PtxasKernelRecord,
  PTXAS_ARCHS,
  compileAsOneUnit,
  compileCorpusForArch,
  lowerCudaCorpus,
  nvccAvailable,
  parsePtxasLogPerFile,
} from "./corpus-ptxas.js";

const nvcc = process.env.TESSERA_NVCC ?? "nvcc";
const hasNvcc = await nvccAvailable(nvcc);
const skipNote = hasNvcc ? "" : " (SKIPPED: nvcc not found; set TESSERA_NVCC)";
/** Diagnostics print only with TESSERA_TEST_VERBOSE=1 (README, Testing). */
const VERBOSE = process.env.TESSERA_TEST_VERBOSE === "1";

describe("parsePtxasLogPerFile", () => {
  it("attributes entry functions to files by the gmem line that starts each file", () => {
    const log = `ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'k' for 'sm_90'
ptxas info    : Function properties for k
    8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads
ptxas info    : Used 59 registers, used 1 barriers, 8192 bytes smem
ptxas info    : Compile time = 13.386 ms
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'k' for 'sm_90'
ptxas info    : Function properties for k
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 12 registers, used 0 barriers
`;
    expect(parsePtxasLogPerFile(log)).toEqual([
      [{ kernel: "k", arch: "sm_90", registers: 59, sharedBytes: 8192, stackFrameBytes: 8, spillStoreBytes: 4, spillLoadBytes: 12, compileMs: 13.386 }],
      [{ kernel: "k", arch: "sm_90", registers: 12, sharedBytes: 0, stackFrameBytes: 0, spillStoreBytes: 0, spillLoadBytes: 0, compileMs: undefined }],
    ]);
  });
});

describe.skipIf(!hasNvcc)(`the lowered corpus compiles with nvcc for ${PTXAS_ARCHS.join(" and ")}${skipNote}`, () => {
  const modules = lowerCudaCorpus();
  const dir = mkdtempSync(join(tmpdir(), "tessera-corpus-nvcc-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const records = new Map<string, PtxasKernelRecord[][]>();
  afterAll(() => {
    if (!VERBOSE) return;
    for (const [arch, perModule] of records) {
      const rows = perModule.flatMap((ks, i) =>
        ks.map((k) => `${modules[i]?.label} ${k.kernel}: ${k.registers} regs, ${k.sharedBytes} B smem, spills ${k.spillStoreBytes}/${k.spillLoadBytes} B`),
      );
      console.log(`[corpus-nvcc] ptxas -v ${arch}\n  ${rows.join("\n  ")}`);
    }
  });

  // Both architectures compile at once (one nvcc each), started by whichever test runs first.
  let compiles: Map<string, ReturnType<typeof compileCorpusForArch>> | undefined;
  const compiled = (arch: string): ReturnType<typeof compileCorpusForArch> => {
    compiles ??= new Map(
      PTXAS_ARCHS.map((a) => {
        mkdirSync(join(dir, a));
        return [a, compileCorpusForArch(nvcc, join(dir, a), modules, a)];
      }),
    );
    return compiles.get(arch)!;
  };

  for (const arch of PTXAS_ARCHS) {
    it(`${arch}: ${modules.length} modules in one nvcc run, shared bytes as lowered, no spills`, async () => {
      const r = await compiled(arch);
      expect(r.exitCode, r.log).toBe(0);
      records.set(arch, [...r.perModule]);
      // Every entry function in the log belongs to one module (the batches' attribution: nvcc-batch.ts).
      expect(r.unattributedKernels, r.log).toEqual([]);
      expect(r.perModule).toHaveLength(modules.length);
      modules.forEach((m, i) => {
        const reported = r.perModule[i]!;
        const byName = new Map(reported.map((k) => [k.kernel, k]));
        expect([...byName.keys()].sort(), m.label).toEqual(m.module.kernels.map((k) => k.name).sort());
        for (const kernel of m.module.kernels) {
          const f = byName.get(kernel.name)!;
          const what = `${m.label} ${kernel.name} (${arch})`;
          expect(f.arch, what).toBe(arch);
          expect(f.sharedBytes, `${what} shared bytes`).toBe(kernel.sharedBytes);
          expect(f.registers, `${what} registers`).toBeGreaterThan(0);
          expect(f.spillStoreBytes + f.spillLoadBytes, `${what} spills`).toBe(0);
        }
      });
    }, 600_000);
  }

  it("a module that lacks a helper another module of the unit defines fails, and the error names its file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tessera-corpus-batch-"));
    try {
      const guard = /#ifndef (TESSERA_FLOAT4_OPERATORS)\n[\s\S]*?#endif\n/;
      const withHelper = modules.find((m) => guard.test(codegenCuda(m.module).source))!;
      const source = codegenCuda(withHelper.module).source;
      const kernels = withHelper.module.kernels.map((k) => k.name);
      // The same kernel without the float4 operators it uses: alone, nvcc refuses it.
      const without = source.replace(guard, "");
      expect(without).not.toBe(source);
      const r = await compileAsOneUnit(
        nvcc,
        dir,
        "sm_75",
        [
          { file: "with_helper.cu", source, kernels },
          { file: "without_helper.cu", source: without, kernels },
        ],
        "tessera_batch_0.cu",
      );
      expect(r.exitCode, r.log).not.toBe(0);
      expect(r.log).toMatch(/without_helper\.cu\(\d+\): error: no operator "[-+*/]" matches these operands/);
      expect(r.log).not.toMatch(/with_helper\.cu\(\d+\): error/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
