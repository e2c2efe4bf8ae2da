/**
 * RecordedFirst: the design spaces' own (recorded) decisions are measured first, then the inner
 * strategy searches with the rest of the budget, never handing out the recorded programs again;
 * for a space that replays only with its recorded decisions, those are all that is measured.
 */
import { structuralHash } from "@tessera/ir";
import type { ExprRV, LoopRV, Schedule } from "@tessera/schedule";
import { describe, expect, it } from "vitest";
import { EvolutionarySearch, RecordedFirst, ReplayTraceStrategy } from "../../src/index.js";
import { NearestNeighbourModel, tileDecisions, tuneWithFakeRunner } from "./gemm-fixture.js";

/**
 * The fixture's tile space with every tile loop split again by its sampled extent as a number
 * (`sch.get`): a replay with any other decision makes some tile larger than its pinned split
 * covers and fails, so only the recorded decisions replay.
 */
function pinnedTileSpace(sch: Schedule): void {
  const gemm = sch.getBlock("gemm");
  const [i, j, k] = sch.getLoops(gemm) as [LoopRV, LoopRV, LoopRV];
  const pinnedSplit = (loop: LoopRV, factors: ExprRV[]): LoopRV[] => sch.split(loop, factors).map((l, n) => sch.split(l, [1, sch.get(factors[n]!)])[1]!);
  const [bi, ti, ri] = pinnedSplit(i, sch.samplePerfectTile(i, 3, 8)) as [LoopRV, LoopRV, LoopRV];
  const [bj, tj, rj] = pinnedSplit(j, sch.samplePerfectTile(j, 3, 8)) as [LoopRV, LoopRV, LoopRV];
  const [ko, ki] = pinnedSplit(k, sch.samplePerfectTile(k, 2, 16)) as [LoopRV, LoopRV];
  sch.reorder(bi, bj, ti, tj, ko, ki, ri, rj);
  sch.bind(bi, "blockIdx.x");
  sch.bind(bj, "blockIdx.y");
  sch.bind(ti, "threadIdx.x");
  sch.bind(tj, "threadIdx.y");
}

describe("RecordedFirst", () => {
  it("measures the design space's recorded decisions first, then lets evolutionary search spend the rest of the budget on new programs", async () => {
    const out = await tuneWithFakeRunner(new RecordedFirst(new EvolutionarySearch()), {
      seed: 4,
      maxTrials: 12,
      numTrialsPerIter: 4,
      costModel: new NearestNeighbourModel(),
    });
    const [space] = out.designSpaces;
    expect(tileDecisions(out.handedOut[0]!.sch.trace)).toEqual(tileDecisions(space!.trace));
    expect(out.handedOut).toHaveLength(12);
    expect(out.batches).toBe(4);
    const hashes = out.handedOut.map((c) => structuralHash(c.sch.func));
    expect(new Set(hashes).size).toBe(hashes.length);
  });

  it("for a space that replays only with its recorded decisions, measures those (the inner search alone measures nothing)", async () => {
    // One run of the space function: one recorded design space.
    const alone = new ReplayTraceStrategy({ maxFailCount: 20 });
    expect(
      (await tuneWithFakeRunner(alone, { seed: 2, maxTrials: 8, numTrialsPerIter: 4, spaceFn: pinnedTileSpace, structureSamples: 1 })).handedOut,
    ).toHaveLength(0);
    expect(alone.rejectionTally().find(([reason]) => reason === "the trace does not replay")?.[1]).toBeGreaterThan(0);

    const strategy = new RecordedFirst(new ReplayTraceStrategy({ maxFailCount: 20 }));
    const out = await tuneWithFakeRunner(strategy, { seed: 2, maxTrials: 8, numTrialsPerIter: 4, spaceFn: pinnedTileSpace, structureSamples: 1 });
    expect(out.handedOut).toHaveLength(1);
    expect(tileDecisions(out.handedOut[0]!.sch.trace)).toEqual(tileDecisions(out.designSpaces[0]!.trace));
    expect(strategy.name).toBe("recordedFirst(replayTrace)");
    expect(strategy.rejectionTally().find(([reason]) => reason === "the trace does not replay")?.[1]).toBeGreaterThan(0);
  });
});
