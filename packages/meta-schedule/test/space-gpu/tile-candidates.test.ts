/** The candidates of "range" tile sampling (divisors, or padded powers of two) and the grid-fill prior. */
import { describe, expect, it } from "vitest";
import { MIN_WARPS_PER_SM, blocksBesides, gridFill, gridFillProbabilities, typicalGridFill } from "../../src/rules/multi-level-tiling/grid-prior.js";
import { splitKCandidates } from "../../src/rules/multi-level-tiling/split-k.js";
import { MAX_TILE_PADDING, chunkCandidates, paddingOf, spatialTileCandidates } from "../../src/rules/multi-level-tiling/tile-candidates.js";

const REGISTERS = [2, 4, 8];

describe("spatialTileCandidates", () => {
  it("keeps the divisors where they give register tiles (powers of two, the conv's 56)", () => {
    expect(spatialTileCandidates(2048, 8, 32, REGISTERS)).toEqual({ threads: [8, 16, 32], registers: [2, 4, 8], padded: false });
    expect(spatialTileCandidates(64, 8, 32, REGISTERS)).toEqual({ threads: [8, 16, 32], registers: [2], padded: false });
    // 56 pads by more than a sixteenth with every power-of-two tile: the divisors stay, without registers.
    expect(spatialTileCandidates(56, 4, 8, REGISTERS)).toEqual({ threads: [4, 7, 8], registers: [], padded: false });
  });

  it("pads odd and prime extents to powers of two, by at most MAX_TILE_PADDING", () => {
    for (const extent of [1000, 2047, 1023, 127]) {
      const c = spatialTileCandidates(extent, 8, 32, REGISTERS);
      expect(c.padded).toBe(true);
      expect(c.threads).toEqual([8, 16, 32]);
      expect(c.registers.length).toBeGreaterThan(0);
      for (const t of c.threads) for (const r of c.registers) expect(paddingOf(extent, t * r)).toBeLessThanOrEqual(MAX_TILE_PADDING);
    }
    expect(spatialTileCandidates(1000, 8, 32, REGISTERS).registers).toEqual([2, 4, 8]);
    expect(spatialTileCandidates(127, 8, 32, REGISTERS).registers).toEqual([2, 4]);
  });
});

describe("chunkCandidates", () => {
  it("keeps divisors of at least 8, pads a prime extent's chunk, and falls back to small divisors", () => {
    expect(chunkCandidates(2048, 16)).toEqual([8, 16]);
    expect(chunkCandidates(1000, 16)).toEqual([8, 10]);
    expect(chunkCandidates(2047, 16)).toEqual([8, 16]);
    expect(chunkCandidates(61, 16)).toEqual([8, 16]);
    // 6 has the divisor 6 ≥ 4: no padding; 7 pads by more than a sixteenth with 8: its divisors stay.
    expect(chunkCandidates(6, 16)).toEqual([1, 2, 3, 6]);
    expect(chunkCandidates(7, 16)).toEqual([1, 7]);
  });
});

describe("the grid-fill prior", () => {
  it("is uniform when every candidate fills the SMs", () => {
    expect(gridFillProbabilities(2048, [32, 64, 128], [256, 256, 256], 32, 132)).toEqual([1 / 3, 1 / 3, 1 / 3]);
  });

  it("weighs a tile by the share of the SMs its grid fills", () => {
    // 4096 / 256 · 2 = 32 blocks fill 32/132 of the SMs; 4096 / 16 · 2 = 512 fill them all.
    const p = gridFillProbabilities(4096, [16, 256], [256, 256], 2, 132);
    expect(p[0]! / p[1]!).toBeCloseTo(132 / 32, 10);
    expect(p[0]! + p[1]!).toBeCloseTo(1, 12);
  });

  it("weighs a grid that reaches every SM by its warps per SM", () => {
    // 4096 / 16 · 2 = 512 blocks either way: of 64 threads, 1024 warps (7.76 per SM, under 8); of 256, enough.
    const p = gridFillProbabilities(4096, [16, 16], [64, 256], 2, 132);
    expect(p[0]! / p[1]!).toBeCloseTo(1024 / (132 * MIN_WARPS_PER_SM), 10);
    expect(gridFill(132, 128, 132)).toBeCloseTo(4 / MIN_WARPS_PER_SM, 12);
    expect(gridFill(66, 1024, 132)).toBeCloseTo(0.5, 12);
    expect(gridFill(1000, 256, 132)).toBe(1);
  });

  it("finds the typical grid of a skinny GEMM short of the GPU, and a square one's full", () => {
    const axis = (extent: number, threads: number[], registers: number[]) => ({ extent, candidates: { threads, registers, padded: false } });
    // 64 × 4096: typical tiles 16 · 2 = 32 and 16 · 4 = 64, 2 · 64 = 128 blocks of 256 threads.
    const skinny = [axis(64, [8, 16, 32], [2]), axis(4096, [8, 16, 32], [2, 4, 8])];
    expect(typicalGridFill(skinny, 1, 132)).toBeCloseTo(128 / 132, 10);
    expect(typicalGridFill(skinny, 4, 132)).toBe(1);
    const square = [axis(2048, [8, 16, 32], [2, 4, 8]), axis(2048, [8, 16, 32], [2, 4, 8])];
    expect(typicalGridFill(square, 1, 132)).toBe(1);
  });

  it("counts the other axes at their typical tile and the batch axes whole", () => {
    const axis = (extent: number) => ({ extent, candidates: { threads: [8, 32], registers: [2, 8], padded: false } });
    // Typical tile 16 · 4 = 64: 1024 / 64 = 16 blocks along the other axis, times a batch of 3.
    expect(blocksBesides([axis(4096), axis(1024)], 0, 3)).toBeCloseTo(48, 10);
    expect(blocksBesides([axis(4096), axis(1024)], 1, 1)).toBeCloseTo(64, 10);
  });
});

describe("split-k part counts", () => {
  it("are powers of two up to 16 that divide the reduction and leave parts of at least 128", () => {
    expect(splitKCandidates(4096)).toEqual([2, 4, 8, 16]);
    expect(splitKCandidates(512)).toEqual([2, 4]);
    expect(splitKCandidates(2047)).toEqual([]);
    expect(splitKCandidates(200)).toEqual([]);
    expect(splitKCandidates(384)).toEqual([2]);
  });
});
