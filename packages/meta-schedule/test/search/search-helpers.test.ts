import { RandomEngine, type Schedule, Trace } from "@tessera/schedule";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BestCandidates, mergeBestFirst } from "../../src/search/best-candidates.js";
import { capClassShare } from "../../src/search/launch-classes.js";
import type { Candidate } from "../../src/search/candidate-replayer.js";
import { RejectionTally } from "../../src/search/rejection-tally.js";
import { WeightedSampler, randomPermutation } from "../../src/search/weighted-sampler.js";

const candidate = (hash: string): Candidate => ({ sch: undefined as unknown as Schedule, trace: new Trace(), hash, traceKey: `t${hash}` });

describe("BestCandidates", () => {
  it("keeps the best-scored non-excluded programs, best first, each once (property)", () => {
    const offers = fc.uniqueArray(fc.tuple(fc.integer({ min: 0, max: 40 }), fc.double({ min: 0, max: 1, noNaN: true })), {
      maxLength: 40,
      selector: ([h]) => h,
    });
    fc.assert(
      fc.property(offers, fc.integer({ min: 0, max: 8 }), fc.nat(40), (list, capacity, repeat) => {
        const excluded = (c: Candidate) => Number(c.hash) % 5 === 0;
        const heap = new BestCandidates(capacity, excluded);
        for (const [h, score] of list) heap.offer(candidate(String(h)), score);
        // Offering a held program again changes nothing.
        const held = heap.bestFirst();
        if (held.length > 0) heap.offer(held[repeat % held.length]!, 2);
        const kept = heap.bestFirst().map((c) => c.hash);
        expect(kept).toEqual(held.map((c) => c.hash));
        expect(kept.every((h) => Number(h) % 5 !== 0)).toBe(true);
        const scoreOf = new Map(list.map(([h, score]) => [String(h), score]));
        const expected = list
          .filter(([h]) => h % 5 !== 0)
          .map(([, score]) => score)
          .sort((a, b) => b - a)
          .slice(0, capacity);
        expect(kept.map((h) => scoreOf.get(h))).toEqual(expected);
      }),
    );
  });
});

describe("mergeBestFirst", () => {
  it("merges two best-first lists by score, one entry per program (its first), the first list's ahead among equals (property)", () => {
    const list = fc.array(fc.tuple(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 5 })), { maxLength: 20 });
    const bestFirst = (entries: readonly [number, number][], from: string) =>
      entries.map(([h, score]) => ({ candidate: candidate(String(h)), score, from })).sort((x, y) => y.score - x.score);
    fc.assert(
      fc.property(list, list, fc.nat(30), (rawA, rawB, capacity) => {
        const a = bestFirst(rawA, "a");
        const b = bestFirst(rawB, "b");
        const merged = mergeBestFirst(a, b, capacity);
        // Each program once, at its first occurrence in a then b.
        const hashes = merged.map((e) => e.candidate.hash);
        expect(new Set(hashes).size).toBe(hashes.length);
        const firstOf = new Map<string, (typeof a)[number]>();
        for (const e of [...a, ...b]) if (!firstOf.has(e.candidate.hash)) firstOf.set(e.candidate.hash, e);
        for (const e of merged) expect(firstOf.get(e.candidate.hash)).toBe(e);
        // The best `capacity` of those first occurrences, best first; among equal scores a's before b's.
        expect(merged).toHaveLength(Math.min(capacity, firstOf.size));
        const expected = [...firstOf.values()].map((e) => e.score).sort((x, y) => y - x);
        expect(merged.map((e) => e.score)).toEqual(expected.slice(0, capacity));
        for (let k = 1; k < merged.length; k++) {
          if (merged[k]!.score === merged[k - 1]!.score) expect(merged[k - 1]!.from <= merged[k]!.from).toBe(true);
        }
      }),
    );
  });
});

describe("WeightedSampler", () => {
  it("never draws a zero weight, draws in proportion, and is uniform when all weights are zero", () => {
    const rng = new RandomEngine(3);
    const sampler = new WeightedSampler([0, 3, 1, Number.NaN, -2]);
    const counts = [0, 0, 0, 0, 0];
    for (let k = 0; k < 4000; k++) counts[sampler.sample(rng)]!++;
    expect(counts[0]).toBe(0);
    expect(counts[3]! + counts[4]!).toBe(0);
    expect(counts[1]! / counts[2]!).toBeGreaterThan(2.5);
    expect(counts[1]! / counts[2]!).toBeLessThan(3.5);
    const uniform = new WeightedSampler([0, 0]);
    const seen = new Set(Array.from({ length: 50 }, () => uniform.sample(rng)));
    expect(seen).toEqual(new Set([0, 1]));
  });

  it("random permutations are permutations", () => {
    fc.assert(
      fc.property(fc.nat(40), fc.integer(), (n, seed) => {
        expect([...randomPermutation(n, new RandomEngine(seed))].sort((a, b) => a - b)).toEqual(Array.from({ length: n }, (_, k) => k));
      }),
    );
  });
});

describe("RejectionTally", () => {
  it("counts reasons, most frequent first", () => {
    const t = new RejectionTally();
    t.add("b");
    t.add("a", 3);
    t.add("b");
    const other = new RejectionTally();
    other.add("c", 2);
    t.addAll(other);
    expect(t.entries()).toEqual([
      ["a", 3],
      ["b", 2],
      ["c", 2],
    ]);
    expect(t.total).toBe(7);
    expect(t.summary()).toBe("3× a; 2× b; 2× c");
    expect(new RejectionTally().summary()).toBe("none");
  });
});

describe("capClassShare", () => {
  const items = fc.array(fc.tuple(fc.constantFrom("a", "b", "c", undefined), fc.nat()), { maxLength: 30 });
  it("is a permutation, stable within a class, capping a class in the first `count` only while others are left (property)", () => {
    fc.assert(
      fc.property(items, fc.nat(30), fc.integer({ min: 1, max: 10 }), (list, count, cap) => {
        const ranked = list.map(([cls, id], rank) => ({ cls, id, rank }));
        const out = capClassShare(ranked, count, cap, (x) => x.cls);
        expect([...out].sort((x, y) => x.rank - y.rank)).toEqual(ranked);
        const classes = [...new Set(list.map(([cls]) => cls))];
        for (const cls of classes) {
          const ranks = out.filter((x) => x.cls === cls).map((x) => x.rank);
          expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
        }
        const head = out.slice(0, count);
        for (const cls of classes) {
          if (cls === undefined) continue;
          const n = head.filter((x) => x.cls === cls).length;
          // A class goes over its cap only when every item left behind is of a class at its cap already.
          const inHead = (c: string) => head.filter((x) => x.cls === c).length;
          const eligibleLeftOut = out.slice(count).some((x) => x.cls !== cls && (x.cls === undefined || inHead(x.cls) < cap));
          if (n > cap) expect(eligibleLeftOut).toBe(false);
        }
        // When no class is over its cap among the first `count`, nothing moves.
        const firstCount = ranked.slice(0, count);
        const binding = classes.some((cls) => cls !== undefined && firstCount.filter((x) => x.cls === cls).length > cap);
        if (!binding) expect(out).toEqual(ranked);
      }),
    );
  });

  it("fills a short head in rank order when every class is at its cap (regression: the property once expected the other over-cap class first)", () => {
    expect(capClassShare(["b1", "b2", "a1", "a2"], 3, 1, (x) => x[0])).toEqual(["b1", "a1", "b2", "a2"]);
  });

  it("puts the over-cap favourites behind the other classes' best", () => {
    const ranked = ["a1", "a2", "a3", "a4", "b1", "c1", "a5"];
    expect(capClassShare(ranked, 4, 2, (x) => x[0])).toEqual(["a1", "a2", "b1", "c1", "a3", "a4", "a5"]);
    expect(() => capClassShare(ranked, 4, 0, (x) => x[0])).toThrow(/cap/);
  });
});
