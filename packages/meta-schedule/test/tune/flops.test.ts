import fc from "fast-check";
import { gemmReluAdd, vectorAdd } from "@tessera/ir";
import { type LoopRV, Schedule } from "@tessera/schedule";
import { describe, expect, it } from "vitest";
import { estimateFlops } from "../../src/index.js";

describe("estimateFlops", () => {
  it("counts a multiply-add as two operations and every other float operation once", () => {
    // gemm: 2·M·N·K; relu: one max per element; add: one addition per element.
    expect(estimateFlops(gemmReluAdd(64, 32, 16).func)).toBe(2 * 64 * 32 * 16 + 64 * 32 + 64 * 32);
    expect(estimateFlops(vectorAdd(1000).func)).toBe(1000);
  });

  it("does not change when a loop is split and bound", () => {
    fc.assert(
      fc.property(fc.constantFrom(1, 2, 4, 8, 16, 32, 64, 128), (inner) => {
        const sch = new Schedule(vectorAdd(256).func);
        const [i] = sch.getLoops(sch.getBlock("C")) as [LoopRV];
        const [bx, tx] = sch.split(i, [null, inner]) as [LoopRV, LoopRV];
        sch.bind(bx, "blockIdx.x");
        sch.bind(tx, "threadIdx.x");
        expect(estimateFlops(sch.func)).toBe(256);
      }),
      { numRuns: 8 },
    );
  });
});
