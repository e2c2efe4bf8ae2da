/**
 * The wgmma GEMM schedule with its stages loaded by TMA (`tma: true`: the copy blocks annotated
 * `tma_copy`, lowered by lowerTmaCopy into one thread's boxes on a full mbarrier per pipeline
 * version) in the simulator: the executor's bits, and the mistakes the pass must not make caught.
 */
import { type LoweredModule, lower } from "@tessera/codegen";
import { WGMMA_PARAMS, type WgmmaGemmParams, wgmmaGemm, wgmmaGemmSchedule } from "@tessera/corpus";
import { describe, expect, it } from "vitest";
import { differingGemmBits } from "../tensor-core-bits.js";

function lowered(n: number, params: WgmmaGemmParams): LoweredModule {
  return lower(wgmmaGemmSchedule(n, { ...params, tma: true }), "nvidia/h100");
}

describe("the TMA-loaded wgmma GEMM schedule in the simulator", () => {
  it("has the executor's bits at 256³ with WGMMA_PARAMS (128×256 tiles, 3 stages)", () => {
    const r = differingGemmBits(wgmmaGemm(256), lowered(256, WGMMA_PARAMS), 13);
    expect(r).toEqual({ ...r, differing: 0, races: 0 });
  }, 300_000);
});
