/**
 * The candidates MultiLevelTiling's "range" sampling draws tile factors from, for one loop extent.
 * Divisors first (TVM samples perfect tiles only); when the divisors give no real tile (an odd or
 * prime extent such as 1000 or 2047), powers of two whose padded tail stays small: the split then
 * overshoots the extent and guards its blocks with a predicate.
 */

/** The largest share of an extent that a padded tile may add (ceil(e / t) · t − e over e). */
export const MAX_TILE_PADDING = 1 / 16;

/** The padding a tile of `tile` adds to `extent`, as a share of the extent. */
export function paddingOf(extent: number, tile: number): number {
  return (Math.ceil(extent / tile) * tile - extent) / extent;
}

export function divisors(n: number): number[] {
  const out: number[] = [];
  for (let d = 1; d <= n; d++) if (n % d === 0) out.push(d);
  return out;
}

function powersOfTwo(low: number, high: number): number[] {
  const out: number[] = [];
  for (let p = 1; p <= high; p *= 2) if (p >= low) out.push(p);
  return out;
}

export interface SpatialTileCandidates {
  /** Threads of the loop (the product of its thread levels). */
  readonly threads: readonly number[];
  /** Register tiles; empty when none fits (the caller then uses 1). */
  readonly registers: readonly number[];
  /** Whether the tiles overshoot the extent (predicated), rather than divide it. */
  readonly padded: boolean;
}

/**
 * Thread counts in [low, high] and register tiles (of `registerTiles`) for a spatial loop of
 * `extent`: divisors that every combination divides, or else padded powers of two that every
 * combination pads by at most MAX_TILE_PADDING.
 */
export function spatialTileCandidates(extent: number, low: number, high: number, registerTiles: readonly number[]): SpatialTileCandidates {
  const all = divisors(extent);
  const inRange = all.filter((d) => d >= low && d <= high);
  const threads = inRange.length > 0 ? inRange : [Math.max(...all.filter((d) => d <= high))];
  const registers = registerTiles.filter((r) => threads.every((t) => extent % (t * r) === 0));
  if (registers.length > 0) return { threads, registers, padded: false };
  const padThreads = powersOfTwo(low, high);
  const padRegisters = registerTiles.filter((r) => padThreads.every((t) => paddingOf(extent, t * r) <= MAX_TILE_PADDING));
  if (padThreads.length > 0 && padRegisters.length > 0) return { threads: padThreads, registers: padRegisters, padded: true };
  return { threads, registers: [], padded: false };
}

/**
 * k-chunk candidates of a reduction loop of `extent` up to `cap`: its divisors of at least
 * min(8, cap) (all divisors up to `cap` when there are none), or padded powers of two when the
 * divisors only give chunks under 4.
 */
export function chunkCandidates(extent: number, cap: number): readonly number[] {
  const fitting = divisors(extent).filter((d) => d <= cap);
  const large = fitting.filter((d) => d >= Math.min(8, cap));
  if (large.length > 0) return large;
  if (Math.max(...fitting) < Math.min(4, cap)) {
    const padded = powersOfTwo(Math.min(8, cap), cap).filter((c) => paddingOf(extent, c) <= MAX_TILE_PADDING);
    if (padded.length > 0) return padded;
  }
  return fitting;
}
