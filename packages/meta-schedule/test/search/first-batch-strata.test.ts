/** EvolutionarySearch's firstBatchStratum: the first batch spread over the strata the caller names. */
import { describe, expect, it } from "vitest";
import type { CostModel, MeasureCandidate } from "../../src/index.js";
import { EvolutionarySearch, MemoryDatabase } from "../../src/index.js";
import type { Candidate } from "../../src/search/candidate-replayer.js";
import { fakeLatency, tileDecisions, tuneWithFakeRunner } from "./gemm-fixture.js";

/** The fake latency's own ranking: the prior's favourites crowd into the few thread layouts it likes best. */
const truthfulModel: CostModel = {
  name: "truthful",
  update: () => {},
  predict: (_ctx, cs: readonly MeasureCandidate[]) => cs.map((c) => 1 / fakeLatency(c.sch)),
};

/** The thread layout of a fixture program: threads on i × on j. */
const layoutOf = (trace: Candidate["trace"]): string => {
  const [[, ti], [, tj]] = tileDecisions(trace) as [number[], number[]];
  return `${ti}×${tj}`;
};

async function firstBatch(seed: number, stratum?: (c: Candidate) => string | undefined): Promise<string[]> {
  const search = new EvolutionarySearch({ populationSize: 32, epsGreedy: 0, ...(stratum === undefined ? {} : { firstBatchStratum: stratum }) });
  const out = await tuneWithFakeRunner(search, { seed, maxTrials: 16, numTrialsPerIter: 16, costModel: truthfulModel });
  expect(out.handedOut).toHaveLength(16);
  return out.handedOut.map((c) => JSON.stringify(tileDecisions(c.sch.trace)));
}

const layouts = (batch: readonly string[]) =>
  new Set(
    batch.map((t) =>
      (JSON.parse(t) as number[][])
        .map((d) => d[1])
        .slice(0, 2)
        .join("×"),
    ),
  );

describe("EvolutionarySearch firstBatchStratum", () => {
  it.each([1, 2])("seed %i: the first batch measures more thread layouts, each one's favourite before any one's second", async (seed) => {
    const off = await firstBatch(seed);
    const on = await firstBatch(seed, (c) => layoutOf(c.trace));
    expect(layouts(on).size).toBeGreaterThan(layouts(off).size);
    // The batch's leading picks are of distinct layouts, as many as it found.
    const leading = on.slice(0, layouts(on).size);
    expect(layouts(leading).size).toBe(leading.length);
  });

  it("changes nothing when every program is a stratum of its own or all are one", async () => {
    const off = await firstBatch(1);
    expect(await firstBatch(1, () => undefined)).toEqual(off);
    expect(await firstBatch(1, () => "one")).toEqual(off);
  });

  it("strata the first batch only: no later round asks for a stratum", async () => {
    const database = new MemoryDatabase();
    const measuredWhenAsked: number[] = [];
    const stratum = (c: Candidate) => {
      measuredWhenAsked.push(database.getAllTuningRecords().length);
      return layoutOf(c.trace);
    };
    const search = new EvolutionarySearch({ populationSize: 32, epsGreedy: 0, firstBatchStratum: stratum });
    const out = await tuneWithFakeRunner(search, { seed: 1, maxTrials: 32, numTrialsPerIter: 16, costModel: truthfulModel, database });
    expect(out.handedOut).toHaveLength(32);
    expect(measuredWhenAsked.length).toBeGreaterThan(0);
    expect(measuredWhenAsked.every((n) => n === 0)).toBe(true);
  });

  it("is off by default, and rejects a value that is not a function", () => {
    expect(new EvolutionarySearch().config.firstBatchStratum).toBeUndefined();
    expect(() => new EvolutionarySearch({ firstBatchStratum: "layout" as unknown as () => string })).toThrow(
      /firstBatchStratum must be a function of a candidate or undefined, got layout/,
    );
  });
});
