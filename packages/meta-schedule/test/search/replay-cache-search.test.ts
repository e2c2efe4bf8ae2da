import { structuralHash } from "@tessera/ir";
import { RandomEngine, Trace } from "@tessera/schedule";
import { describe, expect, it, vi } from "vitest";
import { CandidateReplayer, type Candidate } from "../../src/search/candidate-replayer.js";
import { RejectionTally } from "../../src/search/rejection-tally.js";
import { ReplayCache } from "../../src/search/replay-cache.js";
import { ONE_CLIMB, handedOutTraces, replayFixture } from "./search-fixtures.js";

const setup = replayFixture;

describe("CandidateReplayer with its replay cache", () => {
  it("gives the same candidates and rejections as replaying every trace, replaying a repeated trace once", { timeout: 300_000 }, async () => {
    const { ctx, space, design, undecided } = setup(5);
    const fresh = await new CandidateReplayer(ctx, space.postprocs, new RandomEngine(2)).replayAll(
      [10, 11, 12, 13, 14, 15].map((seed) => ({ trace: design, freshDecisions: true, seed })),
      new RejectionTally(),
    );
    const traces: Trace[] = fresh.filter((c): c is Candidate => c !== undefined).map((c) => c.trace);
    expect(traces.length).toBeGreaterThan(1);
    // Recorded traces, one of them twice in a batch, a batch repeated, and a trace with an undecided sample.
    const batch = (seed: number) => [
      ...traces.map((trace, k) => ({ trace, freshDecisions: false, seed: seed + k })),
      { trace: traces[0]!, freshDecisions: false, seed: seed + 99 },
      { trace: undecided, freshDecisions: false, seed: 7 },
    ];
    const run = async (cacheSize: number) => {
      const replayer = new CandidateReplayer(ctx, space.postprocs, new RandomEngine(2), undefined, cacheSize);
      const tally = new RejectionTally();
      const out = [...(await replayer.replayAll(batch(100), tally)), ...(await replayer.replayAll(batch(200), tally))];
      return { out, tally: tally.summary(), hits: replayer.cache.hits };
    };
    const cached = await run(64);
    const uncached = await run(0);
    const identity = (c: Candidate | undefined) => (c === undefined ? undefined : [c.hash, c.traceKey, c.launchClass, structuralHash(c.sch.func)]);
    expect(cached.out.map(identity)).toEqual(uncached.out.map(identity));
    expect(cached.tally).toBe(uncached.tally);
    // The repeats within the first batch, then every decided trace of the second batch.
    const distinct = new Set(traces.map((t) => JSON.stringify(t.toJSON()))).size;
    expect(cached.hits).toBe(traces.length + 1 - distinct + traces.length + 1);
    expect(uncached.hits).toBe(0);
  });

  it("answers a remembered candidate's record from the cache with what a fresh replay of the record gives", { timeout: 300_000 }, async () => {
    const { ctx, space, design } = setup(6);
    const replayer = new CandidateReplayer(ctx, space.postprocs, new RandomEngine(3));
    const sampled = (
      await replayer.replayAll(
        [20, 21, 22, 23, 24].map((seed) => ({ trace: design, freshDecisions: true, seed })),
        new RejectionTally(),
      )
    ).filter((c): c is Candidate => c !== undefined);
    expect(sampled.length).toBeGreaterThan(1);
    replayer.remember(sampled);
    // The records the database keeps of them (as the measure callback writes them), read back.
    const records = sampled.map((c) => ({ trace: Trace.fromJSON(structuredClone(c.sch.trace.toJSON())), freshDecisions: false, seed: 5 }));
    const hitsBefore = replayer.cache.hits;
    const answered = await replayer.replayAll(records, new RejectionTally());
    expect(replayer.cache.hits - hitsBefore).toBe(sampled.length);
    answered.forEach((c, k) => expect(c).toBe(sampled[k]));
    const replayed = await new CandidateReplayer(ctx, space.postprocs, new RandomEngine(3), undefined, 0).replayAll(records, new RejectionTally());
    const identity = (c: Candidate | undefined) =>
      c === undefined ? undefined : [c.hash, c.traceKey, c.launchClass, structuralHash(c.sch.func), JSON.stringify(c.sch.trace.toJSON())];
    expect(answered.map(identity)).toEqual(replayed.map(identity));
  });

  it("leaves the evolutionary search's candidates unchanged (a seed hands out the same traces without the cache)", { timeout: 600_000 }, async () => {
    const handedOut = (seed: number): Promise<string[]> => handedOutTraces(seed, undefined, ONE_CLIMB);
    const lookups = vi.spyOn(ReplayCache.prototype, "get");
    let withCache: string[];
    try {
      withCache = await handedOut(11);
      // The cache answered some replays of this search (else the comparison below proves nothing).
      expect(lookups.mock.results.filter((r) => r.value !== undefined).length).toBeGreaterThan(0);
    } finally {
      lookups.mockRestore();
    }
    const keyOf = vi.spyOn(ReplayCache.prototype, "keyOf").mockReturnValue(undefined);
    try {
      expect(await handedOut(11)).toEqual(withCache);
    } finally {
      keyOf.mockRestore();
    }
    expect(withCache).toHaveLength(8);
  });
});
