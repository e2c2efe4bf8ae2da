import { RandomEngine } from "@tessera/schedule";
import { describe, expect, it } from "vitest";
import { CandidateReplayer } from "../../src/search/candidate-replayer.js";
import { RejectionTally } from "../../src/search/rejection-tally.js";
import { ReplayCache, everySampleDecided } from "../../src/search/replay-cache.js";
import { replayFixture } from "./search-fixtures.js";

const setup = replayFixture;

const rejected = (reason: string) => ({ rejected: reason });

describe("ReplayCache", () => {
  it("keeps the most recently used outcomes up to its capacity", () => {
    const cache = new ReplayCache(2);
    cache.set("a", rejected("A"));
    cache.set("b", rejected("B"));
    expect(cache.get("a")).toEqual(rejected("A"));
    cache.set("c", rejected("C"));
    expect(cache.get("b")).toBeUndefined();
    expect(cache.get("a")).toEqual(rejected("A"));
    expect(cache.get("c")).toEqual(rejected("C"));
    expect(cache.size).toBe(2);
    expect(cache.hits).toBe(3);
    expect(() => new ReplayCache(-1)).toThrow(/capacity must be a non-negative integer, got -1/);
  });

  it("keys only replays that cannot depend on their seed: recorded decisions, every sample decided", async () => {
    const { ctx, space, design, undecided } = setup(3);
    const replayer = new CandidateReplayer(ctx, space.postprocs, new RandomEngine(1));
    const sampled = (
      await replayer.replayAll(
        [1, 2, 3, 4].map((seed) => ({ trace: design, freshDecisions: true, seed })),
        new RejectionTally(),
      )
    ).find((c) => c !== undefined)!;
    const cache = new ReplayCache();
    expect(everySampleDecided(sampled.trace)).toBe(true);
    expect(cache.keyOf(sampled.trace, sampled.trace.toJSON(), false)).toBe(sampled.traceKey);
    expect(cache.keyOf(sampled.trace, sampled.trace.toJSON(), true)).toBeUndefined();
    // The same keys from the trace's JSON text (what the search sends its workers).
    expect(cache.keyOfText(sampled.trace, JSON.stringify(sampled.trace.toJSON()), false)).toBe(sampled.traceKey);
    expect(cache.keyOfText(sampled.trace, JSON.stringify(sampled.trace.toJSON()), true)).toBeUndefined();
    expect(cache.keyOfText(undecided, JSON.stringify(undecided.toJSON()), false)).toBeUndefined();
    // A design space records the decisions it was sampled with; one removed samples afresh from the seed.
    expect(everySampleDecided(design)).toBe(true);
    expect(everySampleDecided(undecided)).toBe(false);
    expect(cache.keyOf(undecided, undecided.toJSON(), false)).toBeUndefined();
    expect(new ReplayCache(0).keyOf(sampled.trace, sampled.trace.toJSON(), false)).toBeUndefined();
  });

  it("a replayer drawing from another stream plans with that stream's seeds, leaves its own untouched, and shares the cache", async () => {
    const { ctx, space, design } = setup(3);
    const own = new RandomEngine(1);
    const replayer = new CandidateReplayer(ctx, space.postprocs, own);
    const view = replayer.drawingFrom(new RandomEngine(7));
    const expected = new RandomEngine(7);
    expect(view.planRecorded(design).seed).toBe(expected.forkSeed());
    expected.int(0, 1); // planFresh draws the design space first
    expect(view.planFresh([design]).seed).toBe(expected.forkSeed());
    // The replayer's own stream did not move: its next plan is the first draw of RandomEngine(1).
    expect(replayer.planRecorded(design).seed).toBe(new RandomEngine(1).forkSeed());
    // What the view replays goes into the replayer's cache: the same recorded trace replays once.
    const sampled = (
      await view.replayAll(
        [1, 2].map((seed) => ({ trace: design, freshDecisions: true, seed })),
        new RejectionTally(),
      )
    ).find((c) => c !== undefined)!;
    const [recorded] = await view.replayAll([view.planRecorded(sampled.trace)], new RejectionTally());
    expect(recorded?.hash).toBe(sampled.hash);
    expect(view.cache).toBe(replayer.cache);
    const hits = replayer.cache.hits;
    const [again] = await replayer.replayAll([replayer.planRecorded(sampled.trace)], new RejectionTally());
    expect(again?.hash).toBe(sampled.hash);
    expect(replayer.cache.hits).toBe(hits + 1);
  });
});
