/**
 * The warp-specialised wgmma GEMM (corpus: warpSpecializedWgmmaGemmScript — a producer warpgroup of
 * cp.async copies handing stages to two consumer warpgroups of wgmmas through mbarriers) in the
 * simulator: the executor's bits at 256³, and a consumer that releases a stage before its wgmmas
 * retire is caught.
 */
import { warpSpecializedWgmmaGemmScript, wgmmaGemm } from "@tessera/corpus";
import { cudaTarget, moduleFromKernelFunc } from "@tessera/codegen";
import { parsePrimFunc } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { compareWithReference } from "../../src/index.js";

const H100 = cudaTarget("nvidia/h100");

function compare(n: number, stages: number, edit: (s: string) => string = (s) => s) {
  const module = moduleFromKernelFunc(parsePrimFunc(edit(warpSpecializedWgmmaGemmScript(n, { stages }))), { target: H100 });
  return compareWithReference(module, wgmmaGemm(n), { seed: 5, rtol: 0, atol: 0 });
}

describe("the warp-specialised wgmma GEMM", () => {
  // 256³ is 4 k stages: both ring sizes refill slots.
  for (const stages of [2, 3]) {
    it(`has the executor's bits at 256³ with ${stages} stages, reusing its ring`, () => {
      const r = compare(256, stages);
      expect(r.mismatchCount).toBe(0);
      expect(r.simulation.raceCount).toBe(0);
      expect(r.passed).toBe(true);
    }, 60_000);
  }

  it("refuses a consumer that releases the stage its wgmmas still read (no wait before the release)", () => {
    const early = (s: string) =>
      s.replace("            T.ptx.wgmma_wait_group(4, C_warp.data, 128)\n", "").replace("if t > 0:", "if t >= 0:").replace("(t - 1) %", "t %");
    expect(() => compare(256, 2, early)).toThrow(/that an in-flight wgmma group read \(.*\) was overwritten \(.*\) before wgmma\.wait_group retired the group/);
  }, 60_000);
});
