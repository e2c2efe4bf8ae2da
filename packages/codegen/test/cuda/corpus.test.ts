/**
 * End to end: every corpus schedule lowered with `lower()` and turned into CUDA; the launch
 * metadata agrees with what lowering recorded. That these sources compile with nvcc for sm_75 (and
 * sm_90), with ptxas reporting the static shared memory lowering computed for every kernel of every
 * module, is corpus-nvcc.test.ts's check (the slow suite), over these modules and more.
 */
import { scheduleCorpus } from "@tessera/corpus";
import { describe, expect, it } from "vitest";
import { codegenCuda, exportHeader } from "../../src/cuda/index.js";
import { lower } from "../../src/lower/pipeline.js";

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
