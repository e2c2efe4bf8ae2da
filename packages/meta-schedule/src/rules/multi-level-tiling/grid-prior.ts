/**
 * A sampling prior for MultiLevelTiling's "range" tiles that prefers grids filling every SM of the
 * target: a candidate tile of one spatial axis weighs by the grid's fill (`gridFill`: blocks per
 * SM and warps per SM), the grid being the one it gives when the block's other axes take a typical
 * tile of theirs (the geometric mean of their thread and register candidates) and its batch axes
 * stay whole. Grids that fill the GPU whatever the draw keep uniform weights, so that large square
 * GEMMs sample as before.
 */
import type { SpatialTileCandidates } from "./tile-candidates.js";

export interface TiledAxis {
  readonly extent: number;
  readonly candidates: SpatialTileCandidates;
}

export function geometricMean(xs: readonly number[]): number {
  return xs.length === 0 ? 1 : Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length);
}

/** The tile (threads × registers) an axis typically gets. */
export function typicalTile(c: SpatialTileCandidates): number {
  return geometricMean(c.threads) * geometricMean(c.registers);
}

/**
 * Warps an SM needs to hide latency: two for each of its four schedulers, so that one can issue
 * while the other waits (an fp32 GEMM kernel of 8 warps per SM runs near its peak; 4 do not).
 */
export const MIN_WARPS_PER_SM = 8;

/**
 * The share of the GPU a grid keeps busy, in [0, 1]: the SMs it reaches (blocks / SMs) and the
 * warps each of them gets against MIN_WARPS_PER_SM. Blocks of 4 warps on every SM fill half of it.
 */
export function gridFill(blocks: number, threadsPerBlock: number, sms: number): number {
  const warps = blocks * Math.max(1, Math.ceil(threadsPerBlock / 32));
  return Math.min(1, blocks / sms, warps / (sms * MIN_WARPS_PER_SM));
}

/** The fill of the grid every axis gives with its typical tile (batch blocks whole). */
export function typicalGridFill(axes: readonly TiledAxis[], batchBlocks: number, sms: number): number {
  const blocks = axes.reduce((b, a) => b * Math.max(1, a.extent / typicalTile(a.candidates)), batchBlocks);
  const threads = axes.reduce((t, a) => t * geometricMean(a.candidates.threads), 1);
  return gridFill(blocks, threads, sms);
}

/** Blocks of the grid along every axis but `self` (batch extents included), with typical tiles. */
export function blocksBesides(axes: readonly TiledAxis[], self: number, batchBlocks: number): number {
  return axes.reduce((blocks, a, k) => (k === self ? blocks : blocks * Math.max(1, a.extent / typicalTile(a.candidates))), batchBlocks);
}

/** Threads per block along every axis but `self`, with typical thread counts. */
export function threadsBesides(axes: readonly TiledAxis[], self: number): number {
  return axes.reduce((threads, a, k) => (k === self ? threads : threads * geometricMean(a.candidates.threads)), 1);
}

/**
 * Sampling probabilities of `tiles` (candidate tile sizes of an axis of `extent`, each paired with
 * the threads per block it gives in `threads`), given the blocks along the other axes and the SM
 * count: proportional to the grid's fill, uniform when every candidate fills the GPU.
 */
export function gridFillProbabilities(extent: number, tiles: readonly number[], threads: readonly number[], otherBlocks: number, sms: number): number[] {
  const weights = tiles.map((t, k) => gridFill(Math.ceil(extent / t) * otherBlocks, threads[k]!, sms));
  if (weights.every((w) => w === weights[0])) return tiles.map(() => 1 / tiles.length);
  const total = weights.reduce((s, w) => s + w, 0);
  return weights.map((w) => w / total);
}
