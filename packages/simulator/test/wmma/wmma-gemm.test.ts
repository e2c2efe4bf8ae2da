/**
 * Issue 34's target for tensorized kernels without a GPU: the WMMA GEMM (fp16 operands, fp32
 * accumulation), lowered for CUDA, runs in the simulator with warp-level fragments and agrees bit
 * for bit with the executor on the unscheduled function (same k order, float32 sums).
 */
import { lower } from "@tessera/codegen";
import { wmmaGemm, wmmaGemmSchedule } from "@tessera/corpus";
import { compilePrimFunc, randomArgs } from "@tessera/ir";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareWithReference, simulate } from "../../src/index.js";

/** Elements whose bits differ between the executor's C and the simulator's, on seeded inputs. */
function differingBits(n: number, seed: number): { differing: number; distinct: number; races: number } {
  const original = wmmaGemm(n);
  const module = lower(wmmaGemmSchedule(n), "nvidia/a100");
  const expected = randomArgs(original, seed, { low: -2, high: 2 });
  const simulated = expected.map((a) => a.slice());
  expected[2]!.fill(Number.NaN);
  simulated[2]!.fill(Number.NaN);
  compilePrimFunc(original).run(expected);
  const report = simulate(module, simulated);
  const want = new Uint32Array(expected[2]!.buffer);
  const got = new Uint32Array(simulated[2]!.buffer);
  let differing = 0;
  for (let i = 0; i < want.length; i++) if (want[i] !== got[i]) differing++;
  return { differing, distinct: new Set(want).size, races: report.raceCount };
}

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

  it("agrees bit for bit at 32³ and 64³ on any inputs", () => {
    fc.assert(
      fc.property(fc.constantFrom(32, 64), fc.integer({ min: 0, max: 1 << 20 }), (n, seed) => differingBits(n, seed).differing === 0),
      { numRuns: 3 },
    );
  });
});
