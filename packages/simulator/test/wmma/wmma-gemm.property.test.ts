/**
 * The WMMA GEMM in the simulator on more schedules and inputs (in `pnpm test:slow`): the bench's
 * tiling (2×4 warps of 2×2 fragments, k tiles of 32) and random seeds at 32³ and 64³, each bit for
 * bit with the executor.
 */
import { WMMA_PARAMS } from "@tessera/corpus";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { differingBits } from "./wmma-gemm-bits.js";

describe("the WMMA GEMM in the simulator, more schedules and inputs", () => {
  it("128³ with 2×4 warps of 2×2 fragments and k tiles of 32 (fills and loads in loops the simulator outlines): the executor's bits", () => {
    // Regression: the outlined loops did not see the name of threadIdx.z, which this kernel does not bind.
    const r = differingBits(128, 7, WMMA_PARAMS);
    expect(r.differing).toBe(0);
    expect(r.races).toBe(0);
  });

  it("agrees bit for bit at 32³ and 64³ on any inputs", () => {
    fc.assert(
      fc.property(fc.constantFrom(32, 64), fc.integer({ min: 0, max: 1 << 20 }), (n, seed) => differingBits(n, seed).differing === 0),
      { numRuns: 3 },
    );
  });
});
