/**
 * Schedule Y = Xᵀ (an n×n transpose, d2l's "matrix transpose" operator) for the GPU: two tasks.
 *
 *   pnpm grade --assignment d2l-transpose          grades this file
 *
 * Do NOT change the names or signatures of the exported functions: the autograder calls them.
 * Every unfinished task throws an error starting with "TODO(": delete the `throw` when you start.
 */
import { type PrimFunc, ops } from "@tessera/ir";
import type { Schedule } from "@tessera/schedule";

/** n of the graded workload. */
export const WORKLOAD_SIZE = 512;

/** The tile size the course uses (do not change it). */
export const MANUAL_TILE_SIZES = { tile: 16 } as const;

/** The unscheduled workload: block "Y" over loops i (rows of Y) and j (columns); buffers X and Y. */
export function workload(size: number = WORKLOAD_SIZE): PrimFunc {
  return ops.transpose([size, size], [1, 0]).func;
}

/** Task 1: split i and j of block "Y" into tiles of `tile`, ordered i_0, j_0, i_1, j_1. */
export function tileLoops(sch: Schedule, tile: number): void {
  void sch;
  void tile;
  throw new Error("TODO(task 1): tileLoops is not implemented yet");
}

/** Task 2: bind the tile loops to thread blocks (i_0 → blockIdx.y, j_0 → blockIdx.x) and the loops inside to threads (i_1 → threadIdx.y, j_1 → threadIdx.x). */
export function bindThreads(sch: Schedule): void {
  void sch;
  throw new Error("TODO(task 2): bindThreads is not implemented yet");
}
