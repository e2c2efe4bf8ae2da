import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { GUIDED_SHARE, evenChunks, guidedChunks } from "../../src/search/replay-chunks.js";

describe("guidedChunks (how a replay pool without a caller's share cuts a batch)", () => {
  it("covers the requests once, in order, with chunks that never grow and each take 1/GUIDED_SHARE of an even share of what is left", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_500 }), fc.integer({ min: 1, max: 64 }), (count, workers) => {
        const chunks = guidedChunks(count, workers);
        const faults: string[] = [];
        chunks.forEach(([from, to], k) => {
          const size = to - from;
          if (from !== (k === 0 ? 0 : chunks[k - 1]![1])) faults.push(`chunk ${k} starts at ${from}`);
          if (size < 1 || (k > 0 && size > chunks[k - 1]![1] - chunks[k - 1]![0])) faults.push(`chunk ${k} has ${size}`);
          if (size !== Math.ceil((count - from) / (workers * GUIDED_SHARE))) faults.push(`chunk ${k}: ${size} of ${count - from} left`);
        });
        expect(faults).toEqual([]);
        expect(chunks.at(-1)?.[1] ?? 0).toBe(count);
      }),
    );
  });

  it("ends a batch larger than the workers on single replays, and sends a batch smaller than them one replay a chunk", () => {
    // A round's first batch on 15 workers: 256 fresh samples.
    const chunks = guidedChunks(256, 15);
    expect(chunks[0]).toEqual([0, 9]);
    expect(chunks.slice(-GUIDED_SHARE * 15).every(([from, to]) => to - from === 1)).toBe(true);
    expect(chunks.length).toBeLessThan(256 / 2);
    expect(guidedChunks(8, 15)).toEqual([...Array(8).keys()].map((k) => [k, k + 1]));
    expect(guidedChunks(0, 15)).toEqual([]);
  });

  it("refuses a bad count or worker count with a clear error", () => {
    expect(() => guidedChunks(-1, 4)).toThrow(/count must be a non-negative integer, got -1/);
    expect(() => guidedChunks(10, 0)).toThrow(/workers must be a positive integer, got 0/);
    expect(() => guidedChunks(1.5, 4)).toThrow(RangeError);
  });
});

describe("evenChunks (a pool with a caller's share: one chunk a worker)", () => {
  it("cuts the pooled replays into at most one chunk a worker, in order", () => {
    expect(evenChunks(10, 3)).toEqual([
      [0, 4],
      [4, 8],
      [8, 10],
    ]);
    expect(evenChunks(2, 4)).toEqual([
      [0, 1],
      [1, 2],
    ]);
    expect(evenChunks(0, 4)).toEqual([]);
  });
});
