/** The thread blocks the no-GPU numerics simulate: corners, then faces, then random blocks, dealt to the rounds. */
import type { Dim3 } from "@tessera/simulator";
import { describe, expect, it } from "vitest";
import { sampleBlocks } from "../src/grade/block-sample.js";

const key = (b: Dim3): string => b.join(",");

describe("sampleBlocks", () => {
  it("on the manual schedule's 32×32 grid: 4 corners, then one block on each of the 4 edges, then random blocks, 56 distinct ones in 5 rounds", () => {
    const rounds = sampleBlocks([32, 32, 1], 5, 56, 1);
    expect(rounds.map((r) => r.length)).toEqual([12, 11, 11, 11, 11]);
    const all = rounds.flat();
    expect(new Set(all.map(key)).size).toBe(56);
    expect(all.slice(0, 4).map(key).sort()).toEqual(["0,0,0", "0,31,0", "31,0,0", "31,31,0"]);
    const [x0, x31, y0, y31] = all.slice(4, 8);
    expect([x0![0], x31![0], y0![1], y31![1]]).toEqual([0, 31, 0, 31]);
    for (const b of all) expect(b[0] >= 0 && b[0] < 32 && b[1] >= 0 && b[1] < 32 && b[2] === 0, key(b)).toBe(true);
    // Random blocks reach the interior.
    expect(all.some((b) => b[0] > 0 && b[0] < 31 && b[1] > 0 && b[1] < 31)).toBe(true);
  });

  it("is the same for the same seed, and another sample for another seed", () => {
    expect(sampleBlocks([32, 32, 1], 5, 56, 1)).toEqual(sampleBlocks([32, 32, 1], 5, 56, 1));
    expect(sampleBlocks([32, 32, 1], 5, 56, 2).flat().map(key)).not.toEqual(sampleBlocks([32, 32, 1], 5, 56, 1).flat().map(key));
  });

  it("leaves out the last rounds when the budget allows fewer blocks than rounds", () => {
    const rounds = sampleBlocks([16, 16, 1], 5, 3, 1);
    expect(rounds.map((r) => r.length)).toEqual([1, 1, 1]);
    for (const b of rounds.flat()) expect(b[0] % 15 === 0 && b[1] % 15 === 0, `${key(b)} is a corner`).toBe(true);
  });

  it("checks a grid that fits the budget whole: every block once, or every block in every round", () => {
    const once = sampleBlocks([4, 3, 1], 2, 20, 1);
    expect(once.flat().map(key).sort()).toEqual(Array.from({ length: 12 }, (_, i) => `${i % 4},${Math.floor(i / 4)},0`).sort());
    const everyRound = sampleBlocks([4, 3, 1], 2, 24, 1);
    expect(everyRound).toHaveLength(2);
    for (const r of everyRound) expect(r).toHaveLength(12);
  });

  it("takes the 8 corners and 6 faces of a 3-d grid first", () => {
    const blocks = sampleBlocks([5, 6, 7], 1, 20, 3)[0]!;
    expect(new Set(blocks.slice(0, 8).map(key))).toEqual(new Set(["0,0,0", "4,0,0", "0,5,0", "4,5,0", "0,0,6", "4,0,6", "0,5,6", "4,5,6"]));
    const faces = blocks.slice(8, 14);
    expect(faces.map((b, k) => b[Math.floor(k / 2)])).toEqual([0, 4, 0, 5, 0, 6]);
  });

  it("samples nothing for no rounds or no budget", () => {
    expect(sampleBlocks([8, 8, 1], 0, 10, 1)).toEqual([]);
    expect(sampleBlocks([8, 8, 1], 3, 0, 1)).toEqual([]);
  });
});
