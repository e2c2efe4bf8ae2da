/**
 * ms-gpu-space-check's programs are sampled without a GPU: every workload has candidates from each
 * of its spaces. Regression: the fp16 wgmma space's best configuration was forced on every
 * workload's second space, and the 3xTF32 workload's wgmma space (other decisions) threw
 * "forced choice 1 is not among the candidates" before any program ran (found on an H200, session 20).
 */
import { describe, expect, it } from "vitest";
import { spaceCheckWorkloads } from "./gpu-space-check-candidates.js";

describe("ms-gpu-space-check's candidates", () => {
  it("samples every workload's spaces, the fp16 GEMMs' best wgmma configuration beside them", () => {
    const names = spaceCheckWorkloads(1).flatMap((w) => w.candidates.map((c) => c.name));
    for (const label of ["fp16 GEMM, float32 C", "fp16 GEMM, float16 C"])
      expect(names).toEqual(expect.arrayContaining([`${label} space 0 sample 1`, `${label} space 1 sample 1`, `${label} wgmma 128×256, 3 stages, TMA`]));
    expect(names).toEqual(
      // The requested precisions: the mma.sync space, then the wgmma spaces with A from shared memory and A in registers.
      expect.arrayContaining([0, 1, 2].flatMap((k) => [`tf32 gemm+ReLU+add space ${k} sample 1`, `3xTF32 gemm+ReLU+add space ${k} sample 1`])),
    );
  });
});
