/**
 * Property over shapes: random samples of the default CUDA space of matmuls and batched matmuls
 * whose extents the tiles need not divide (odd and prime extents, padded predicated tiles among
 * them) are rejected by a postprocessor with a reason, or lower and simulate equal to the executor.
 */
import { matmul, type PrimFunc } from "@tessera/ir";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { replayWithPostprocs } from "../../src/index.js";
import { spatialTileCandidates } from "../../src/rules/multi-level-tiling/tile-candidates.js";
import { batchMatmul, checkSimulatedOrRejected, spaceOf } from "./helpers.js";

function sampleAndSimulate(func: PrimFunc, seed: number): "simulated" | "rejected" {
  const { ctx, gen, spaces } = spaceOf(func);
  return checkSimulatedOrRejected(replayWithPostprocs(ctx, spaces[0]!.trace, gen.postprocs, { seed, freshDecisions: true }), func, seed);
}

const extent = fc.oneof(fc.integer({ min: 33, max: 130 }), fc.constantFrom(63, 127));

describe("samples of the default CUDA space over odd shapes", () => {
  it("are rejected with a reason, or simulate equal to the executor", () => {
    const tally = { simulated: 0, rejected: 0, padded: 0 };
    fc.assert(
      fc.property(
        fc.record({
          batch: fc.integer({ min: 1, max: 3 }),
          n: extent,
          m: extent,
          k: fc.integer({ min: 5, max: 40 }),
          seed: fc.integer({ min: 1, max: 1_000_000 }),
        }),
        ({ batch, n, m, k, seed }) => {
          const func = batch === 1 ? matmul(n, m, k).func : batchMatmul(batch, n, m, k);
          const outcome = sampleAndSimulate(func, seed);
          tally[outcome]++;
          // Two matrix axes sample threads in [8, 32] (64–1024 per block).
          if (outcome === "simulated" && [n, m].some((e) => spatialTileCandidates(e, 8, 32, [2, 4, 8]).padded)) tally.padded++;
        },
      ),
      { numRuns: 16, seed: 33 },
    );
    expect(tally.simulated).toBeGreaterThan(6);
    expect(tally.padded).toBeGreaterThan(1);
    expect(tally.rejected).toBeGreaterThan(0);
  }, 300_000);

  it("give 1000³'s and 2047³'s matrix axes padded powers of two, and 2047³'s k chunk 8 or 16, rather than degenerate factors", () => {
    const draws = (func: PrimFunc) =>
      spaceOf(func)
        .spaces[0]!.trace.instructions.filter((i) => i.kind.name === "SampleCategorical")
        .slice(0, 5)
        .map((i) => i.attrs[0]);
    const padded = [
      [8, 16, 32],
      [2, 4, 8],
      [8, 16, 32],
      [2, 4, 8],
    ];
    expect(draws(matmul(1000, 1000, 1000).func)).toEqual([...padded, [8, 10]]);
    expect(draws(matmul(2047, 2047, 2047).func)).toEqual([...padded, [8, 16]]);
  });
});
