/**
 * A sampling prior for MultiLevelTiling's "range" tiles that prefers grids filling every SM of the
 * target: a candidate tile of one spatial axis weighs min(1, blocks / SMs), where blocks is the
 * grid it gives when the block's other axes take a typical tile of theirs (the geometric mean of
 * their thread and register candidates) and its batch axes stay whole. Grids that fill the GPU
 * whatever the draw keep uniform weights, so that large square GEMMs sample as before.
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

/** Blocks of the grid along every axis but `self` (batch extents included), with typical tiles. */
export function blocksBesides(axes: readonly TiledAxis[], self: number, batchBlocks: number): number {
  return axes.reduce((blocks, a, k) => (k === self ? blocks : blocks * Math.max(1, a.extent / typicalTile(a.candidates))), batchBlocks);
}

/**
 * Sampling probabilities of `tiles` (candidate tile sizes of an axis of `extent`), given the
 * blocks along the other axes and the SM count: uniform when every candidate fills the SMs.
 */
export function gridFillProbabilities(extent: number, tiles: readonly number[], otherBlocks: number, sms: number): number[] {
  const weights = tiles.map((t) => Math.min(1, (Math.ceil(extent / t) * otherBlocks) / sms));
  if (weights.every((w) => w === weights[0])) return tiles.map(() => 1 / tiles.length);
  const total = weights.reduce((s, w) => s + w, 0);
  return weights.map((w) => w / total);
}
