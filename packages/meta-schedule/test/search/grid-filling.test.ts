/**
 * The prior seeds' grid-filling variants (search/grid-filling.ts): the launch-class parsing, the
 * choice among neighbours (the search handing them out: database/prior-seeds.test.ts).
 */
import { describe, expect, it } from "vitest";
import { bestGridFiller, underfillsGrid } from "../../src/search/grid-filling.js";
import { gridBlocksOf } from "../../src/search/launch-classes.js";

describe("grid-filling seeds", () => {
  it("count the blocks of a candidate's largest grid", () => {
    expect(gridBlocksOf({ launchClass: "8×8×1/128×1×1" })).toBe(64);
    expect(gridBlocksOf({ launchClass: "4×1×1/64×1×1; 16×2×1/256×1×1" })).toBe(32);
    expect(gridBlocksOf({ launchClass: undefined })).toBeUndefined();
    expect(gridBlocksOf({ launchClass: "x×1×1/32×1×1" })).toBeUndefined();
    expect(underfillsGrid({ launchClass: "64×1×1/128×1×1" }, 132)).toBe(true);
    expect(underfillsGrid({ launchClass: "132×1×1/128×1×1" }, 132)).toBe(false);
    expect(underfillsGrid({ launchClass: undefined }, 132)).toBe(false);
  });

  it("pick the best-scored neighbour with more blocks than the seed, none when no neighbour has more", () => {
    const seed = { launchClass: "64×1×1/128×1×1" };
    const neighbours = [
      { name: "same grid", launchClass: "64×1×1/256×1×1" },
      { name: "more, scored low", launchClass: "128×1×1/128×1×1" },
      { name: "more, scored high", launchClass: "256×1×1/64×1×1" },
      { name: "unknown", launchClass: undefined },
    ];
    const scores = new Map([
      ["same grid", 9],
      ["more, scored low", 1],
      ["more, scored high", 2],
    ]);
    const scored: string[][] = [];
    const score = (pool: readonly (typeof neighbours)[number][]) => {
      scored.push(pool.map((p) => p.name));
      return pool.map((p) => scores.get(p.name) ?? 0);
    };
    expect(bestGridFiller(seed, neighbours, score)?.name).toBe("more, scored high");
    // Only the neighbours with more blocks are scored.
    expect(scored).toEqual([["more, scored low", "more, scored high"]]);
    expect(bestGridFiller(seed, neighbours.slice(0, 1), score)).toBeUndefined();
    expect(bestGridFiller({ launchClass: undefined }, neighbours, score)).toBeUndefined();
  });
});
