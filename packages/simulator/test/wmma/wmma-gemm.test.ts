/**
 * Issue 34's target for tensorized kernels without a GPU: the WMMA GEMM (fp16 operands, fp32
 * accumulation), lowered for CUDA, runs in the simulator with warp-level fragments and agrees bit
 * for bit with the executor on the unscheduled function (same k order, float32 sums).
 */
import { lower } from "@tessera/codegen";
import { wmmaGemm, wmmaGemmSchedule } from "@tessera/corpus";
import { describe, expect, it } from "vitest";
import { compareWithReference } from "../../src/index.js";
import { differingBits } from "./wmma-gemm-bits.js";

describe("the WMMA GEMM in the simulator", () => {
  it("128³: C has the executor's bits", () => {
    const r = differingBits(128, 5);
    expect(r.differing).toBe(0);
    expect(r.races).toBe(0);
    // Not vacuous: the sums differ from element to element.
    expect(r.distinct).toBeGreaterThan(16000);
  });

  it("matches the reference with zero tolerance (compareWithReference)", () => {
    const report = compareWithReference(lower(wmmaGemmSchedule(32), "nvidia/a100"), wmmaGemm(32), { rtol: 0, atol: 0, widenForDType: false });
    expect(report.passed).toBe(true);
  });
});
