import { RandomEngine } from "@tessera/schedule";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EvolutionarySearch } from "../../src/index.js";
import { perfectTileDecisions, sampledSplits, tileShapeMove, transposedTileTraces } from "../../src/mutator/mutate-tile-shape.js";
import { gemmTileSpace, neighbourBatches, sampledTrace, tileDecisions, tileKey } from "./gemm-fixture.js";

const key = tileKey;

describe("transposedTileTraces", () => {
  it("exchanges the i and j tiles of the gemm (alike and of one extent), never k's, and drops the postprocessing", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000 }), (seed) => {
        const trace = sampledTrace(gemmTileSpace, seed);
        const [ti, tj, tk] = tileDecisions(trace) as [number[], number[], number[]];
        const out = transposedTileTraces(trace);
        const expected = JSON.stringify(ti) === JSON.stringify(tj) ? [] : [JSON.stringify([tj, ti, tk])];
        expect(out.map(key)).toEqual(expected);
        for (const t of out) expect(t.instructions.some((i) => i.kind.name === "EnterPostproc")).toBe(false);
      }),
      { numRuns: 40 },
    );
  });

  it("holds every transpose that MutateTileShape's tilesTranspose move draws", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 10_000 }), (seed, drawSeed) => {
        const trace = sampledTrace(gemmTileSpace, seed);
        const drawn = tileShapeMove(trace, "tilesTranspose", new RandomEngine(drawSeed), sampledSplits(trace), perfectTileDecisions(trace));
        const all = transposedTileTraces(trace).map(key);
        if (drawn === undefined) expect(all).toEqual([]);
        else expect(all).toContain(key(drawn));
      }),
      { numRuns: 40 },
    );
  });
});

describe("EvolutionarySearch transposeNeighbours", () => {
  /** The tiles of the second batch, and the transpose of the first batch's best program (which that batch did not measure). */
  async function secondBatch(transposeNeighbours: boolean, seed: number): Promise<{ tiles: string[]; transposed: string }> {
    const { measured, best, second } = await neighbourBatches({ transposeNeighbours }, seed);
    const [ti, tj, tk] = tileDecisions(best.sch.trace) as [number[], number[], number[]];
    const transposed = JSON.stringify([tj, ti, tk]);
    // The case the option is for: a transpose that differs, and that the first batch did not measure.
    expect(ti).not.toEqual(tj);
    expect(measured.map((c) => key(c.sch.trace))).not.toContain(transposed);
    return { tiles: second.map((c) => key(c.sch.trace)), transposed };
  }

  // Seeds whose first batch's best program has i and j tiles that differ and a transpose it did not
  // measure (the three of seeds 0–29 where this happens, under the default two first-round islands).
  it.each([1, 10, 16])("seed %i: measures the transpose of the best measured program next, which one-decision neighbours did not reach", async (seed) => {
    const on = await secondBatch(true, seed);
    expect(on.tiles).toContain(on.transposed);
    const off = await secondBatch(false, seed);
    expect(off.transposed).toBe(on.transposed);
    expect(off.tiles).not.toContain(off.transposed);
  });

  it("is off by default, and rejects a value that is not a boolean", () => {
    expect(new EvolutionarySearch().config.transposeNeighbours).toBe(false);
    expect(() => new EvolutionarySearch({ transposeNeighbours: 1 as unknown as boolean })).toThrow(/transposeNeighbours must be true or false, got 1/);
  });
});
