/**
 * Which thread blocks of a full-size launch the simulator checks when there is no GPU (see
 * sampled-numerics.ts). Blocks of one launch run the same code on different offsets; they differ
 * only where a grid dimension ends, where partial tiles are predicated off (the last block along
 * a dimension) and where index arithmetic meets the edges of the arrays (the first and last). So
 * the sample takes every kind of block before random ones: first the corners of the grid, then
 * one block on each face (first and last index of each dimension, random elsewhere), then random
 * blocks, all distinct, up to the number of blocks the budget allows. The blocks are dealt to the
 * rounds in that order, so each block runs once, on one round's inputs; a grid no larger than the
 * budget is checked whole (every block in every round when it fits that many times). Rounds left
 * without a block (a budget of fewer blocks than rounds) are left out.
 */
import type { Dim3 } from "@tessera/simulator";
import { uniformArray } from "@tessera/course-kit";

/** Blocks to simulate per round: at most `maxBlocks` in all, and only rounds that get some (fewer than `rounds` when `maxBlocks` < `rounds`). */
export function sampleBlocks(grid: Dim3, rounds: number, maxBlocks: number, seed: number): Dim3[][] {
  const volume = grid[0] * grid[1] * grid[2];
  if (rounds < 1 || maxBlocks < 1 || volume < 1) return [];
  if (volume * rounds <= maxBlocks) return Array.from({ length: rounds }, () => allBlocks(grid));
  const total = Math.min(volume, maxBlocks);
  const blocks = total === volume ? allBlocks(grid) : distinctSample(grid, total, seed);
  // Round r gets blocks [start(r), start(r + 1)): as even a share as the count allows, the first rounds one more.
  const start = (r: number): number => r * Math.floor(blocks.length / rounds) + Math.min(r, blocks.length % rounds);
  const dealt = Array.from({ length: rounds }, (_, r) => blocks.slice(start(r), start(r + 1)));
  return dealt.filter((round) => round.length > 0);
}

/** `total` (< the grid's volume) distinct blocks: corners, faces, then random ones. */
function distinctSample(grid: Dim3, total: number, seed: number): Dim3[] {
  const random = seededIntegers(seed);
  const chosen = new Map<number, Dim3>();
  const add = (b: Dim3): void => {
    if (chosen.size < total) chosen.set(linearIndex(b, grid), b);
  };
  for (const corner of corners(grid)) add(corner);
  const isNew = (b: Dim3): boolean => !chosen.has(linearIndex(b, grid));
  for (const face of faces(grid, random, isNew)) add(face);
  while (chosen.size < total) add([random(grid[0]), random(grid[1]), random(grid[2])]);
  return [...chosen.values()];
}

/** Every combination of first and last index along each dimension (duplicates where an extent is 1). */
function corners(grid: Dim3): Dim3[] {
  const ends = grid.map((e) => [0, e - 1]) as [number[], number[], number[]];
  return ends[2].flatMap((z) => ends[1].flatMap((y) => ends[0].map((x): Dim3 => [x, y, z])));
}

/** Draws of a face block before one already chosen is taken anyway (a face may hold only corners). */
const FACE_DRAWS = 16;

/**
 * For each dimension longer than 1, a block at its first and one at its last index, random along
 * the others, not already chosen (`isNew`) where a few draws find one.
 */
function faces(grid: Dim3, random: (below: number) => number, isNew: (b: Dim3) => boolean): Dim3[] {
  const out: Dim3[] = [];
  const taken = (b: Dim3): boolean => !isNew(b) || out.some((o) => o[0] === b[0] && o[1] === b[1] && o[2] === b[2]);
  for (let d = 0; d < 3; d++) {
    if (grid[d]! < 2) continue;
    for (const at of [0, grid[d]! - 1]) {
      let b: [number, number, number] = [0, 0, 0];
      for (let draw = 0; draw < FACE_DRAWS; draw++) {
        b = [random(grid[0]), random(grid[1]), random(grid[2])];
        b[d] = at;
        if (!taken(b)) break;
      }
      out.push(b);
    }
  }
  return out;
}

function allBlocks(grid: Dim3): Dim3[] {
  const out: Dim3[] = [];
  for (let z = 0; z < grid[2]; z++) for (let y = 0; y < grid[1]; y++) for (let x = 0; x < grid[0]; x++) out.push([x, y, z]);
  return out;
}

function linearIndex(b: Dim3, grid: Dim3): number {
  return b[0] + grid[0] * (b[1] + grid[1] * b[2]);
}

/** Integers in [0, below) from `seed`: the same sample on every machine. */
function seededIntegers(seed: number): (below: number) => number {
  const pool = uniformArray(4096, seed * 7919 + 17, 0, 1);
  let next = 0;
  let refill = 1;
  return (below) => {
    if (next === pool.length) {
      pool.set(uniformArray(pool.length, seed * 7919 + 17 + refill++, 0, 1));
      next = 0;
    }
    return Math.min(below - 1, Math.floor(pool[next++]! * below));
  };
}
