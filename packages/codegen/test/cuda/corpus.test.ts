/**
 * End to end: every corpus schedule lowered with `lower()` and turned into CUDA; the launch
 * metadata agrees with what lowering recorded, and (where nvcc is present) the sources compile
 * for sm_75 in one nvcc invocation with the static shared memory lowering computed.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { scheduleCorpus } from "@tessera/corpus";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { codegenCuda, exportHeader } from "../../src/cuda/index.js";
import { lower } from "../../src/lower/pipeline.js";

const nvcc = process.env.TESSERA_NVCC ?? "nvcc";
const hasNvcc = await execa(nvcc, ["--version"], { reject: false }).then(
  (r) => r.exitCode === 0,
  () => false,
);

const lowered = scheduleCorpus().map((entry) => ({ entry, module: lower(entry.build(), "nvidia/tesla-t4") }));

describe("CUDA for the lowered schedule corpus", () => {
  for (const { entry, module } of lowered) {
    it(`${entry.name}: one __global__ per kernel, metadata as lowering recorded it, a header`, () => {
      const out = codegenCuda(module);
      expect(out.kernels).toEqual(module.kernels.map((k) => k.launch));
      for (const k of module.kernels) {
        const bounds = [k.launch.block.reduce((a, b) => a * b), ...(k.launch.minBlocksPerSM === undefined ? [] : [k.launch.minBlocksPerSM])];
        expect(out.source).toContain(`__global__ void __launch_bounds__(${bounds.join(", ")}) ${k.name}(`);
      }
      const header = exportHeader(module);
      expect(header).toContain(`inline cudaError_t launch_${module.name}(`);
    });
  }
});

/** `[name, static shared bytes]` of every entry function in a `ptxas -v` log. */
function ptxasSharedBytes(log: string): [string, number][] {
  const out: [string, number][] = [];
  let current: string | undefined;
  for (const line of log.split("\n")) {
    const entry = /Compiling entry function '([^']+)'/.exec(line);
    if (entry) current = entry[1];
    if (/Used \d+ registers/.test(line) && current !== undefined) out.push([current, Number(/(\d+) bytes smem/.exec(line)?.[1] ?? 0)]);
  }
  return out;
}

describe.skipIf(!hasNvcc)(`the corpus CUDA compiles with nvcc -arch=sm_75${hasNvcc ? "" : " (SKIPPED: nvcc not found; set TESSERA_NVCC)"}`, () => {
  const dir = mkdtempSync(join(tmpdir(), "tessera-corpus-cuda-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("every kernel, with the shared memory lowering computed", async () => {
    // One file per module (kernel names repeat across schedules of one function), one nvcc run.
    const files = lowered.map(({ entry, module }) => {
      const file = `${entry.name}.cu`;
      writeFileSync(join(dir, file), codegenCuda(module).source);
      return file;
    });
    const r = await execa(nvcc, ["-arch=sm_75", "-cubin", "-Xptxas", "-v", ...files], { cwd: dir, reject: false, all: true, timeout: 300_000 });
    expect(r.exitCode, String(r.all)).toBe(0);
    // Kernel names repeat across modules, so compare the multisets of (name, shared bytes).
    const expected = lowered.flatMap(({ module }) => module.kernels.map((k): [string, number] => [k.name, k.sharedBytes]));
    const byName = (a: [string, number], b: [string, number]): number => a[0].localeCompare(b[0]) || a[1] - b[1];
    expect(ptxasSharedBytes(String(r.all)).sort(byName)).toEqual(expected.sort(byName));
  });
});
