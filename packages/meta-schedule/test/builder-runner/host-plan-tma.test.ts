/**
 * The host plan (what the runner's child binds to each kernel parameter) of a TMA-loaded kernel
 * names each TMA-loaded buffer's tensor map, which the GPU runner encodes for the array it binds
 * and passes after the pointer; a kernel without TMA names none.
 */
import { lower } from "@tessera/codegen";
import { WGMMA_PARAMS, wgmmaGemmSchedule } from "@tessera/corpus";
import { describe, expect, it } from "vitest";
import { hostPlanOf } from "../../src/builder/lower-and-generate.js";

describe("hostPlanOf", () => {
  it("names the tensor maps of the buffers a kernel loads with TMA", () => {
    const plan = hostPlanOf(lower(wgmmaGemmSchedule(256, { ...WGMMA_PARAMS, tma: true }), "nvidia/h100"));
    expect(plan.kernelArguments).toEqual([
      [
        { kind: "param", index: 0, tensorMap: { shape: [256, 256], rowStride: 256, box: [128, 64], swizzle: 128 } },
        { kind: "param", index: 1, tensorMap: { shape: [256, 256], rowStride: 256, box: [64, 64], swizzle: 128 } },
        { kind: "param", index: 2 },
      ],
    ]);
  });

  it("names none for the cp.async kernel", () => {
    const plan = hostPlanOf(lower(wgmmaGemmSchedule(256, WGMMA_PARAMS), "nvidia/h100"));
    expect(plan.kernelArguments).toEqual([[0, 1, 2].map((index) => ({ kind: "param", index }))]);
  });
});
