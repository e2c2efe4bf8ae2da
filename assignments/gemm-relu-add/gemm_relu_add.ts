/**
 * Part 1 (80 pt): schedule D = ReLU(A·B) + C for the GPU by hand.
 *
 * Fill in the five task functions below, in order. Read README.md first: each task has a
 * section there explaining why it speeds the kernel up and which primitives to use.
 *
 *   pnpm grade --show          prints the IR after manualSchedule() (or add sch.show() anywhere)
 *   pnpm grade --test          checks that your schedule still computes ReLU(A·B) + C
 *
 * Do NOT change the names or signatures of the exported functions: the autograder calls them.
 *
 * Every unfinished task throws an error starting with "TODO(" (rather than silently doing
 * nothing): an untouched schedule still computes the right numbers, so a silent task would
 * let `pnpm grade --test` pass while teaching you nothing. Delete the `throw` when you start.
 */
import { type PrimFunc, gemmReluAdd } from "@tessera/ir";
import { type BlockRV, type LoopRV, Schedule } from "@tessera/schedule";

/** M = N = K of the graded workload. */
export const WORKLOAD_SIZE = 2048;

/** The tile sizes the course uses for the manual schedule (do not change them). */
export const MANUAL_TILE_SIZES = {
  tileX: 64,
  tileY: 64,
  tileK: 64,
  threadTileX: 4,
  threadTileY: 4,
  threadTileK: 1,
} as const;

/**
 * The unscheduled workload with M = N = K = `size`: blocks "gemm" (with init), "relu" and "add";
 * buffers A, B, C, D; intermediates `matmul` and `relu`. Print it with
 * `new Schedule(workload()).show()`.
 */
export function workload(size: number = WORKLOAD_SIZE): PrimFunc {
  return gemmReluAdd(size).func;
}

/**
 * Given by the course (not graded): the naive schedule used by `pnpm grade --evaluate-naive`.
 * Each thread block computes a 32×32 tile of D, each thread one element; `matmul` lives in a
 * register. Read it as a worked example of split / reorder / bind.
 */
export function naiveSchedule(sch: Schedule): void {
  const gemm = sch.getBlock("gemm");
  const [i, j] = sch.getLoops(gemm) as [LoopRV, LoopRV, LoopRV];
  const [i0, i1] = sch.split(i, [null, 32]) as [LoopRV, LoopRV];
  const [j0, j1] = sch.split(j, [null, 32]) as [LoopRV, LoopRV];
  sch.reorder(i0, j0, i1, j1);
  sch.bind(i0, "blockIdx.x");
  sch.bind(j0, "blockIdx.y");
  sch.bind(i1, "threadIdx.x");
  sch.bind(j1, "threadIdx.y");
  sch.reverseComputeAt(sch.getBlock("relu"), j1);
  sch.reverseComputeInline(sch.getBlock("add"));
  sch.setScope(gemm, 0, "local");
}

/**
 * Task 1 — shared-memory tiling (20 pt).
 *
 * Each thread block computes one (tileX, tileY) tile of `matmul`, walking K in chunks of tileK;
 * for every chunk the block first copies the tileX×tileK piece of A and the tileK×tileY piece of
 * B into shared memory. Returns the two shared-memory copy blocks (A's first), which task 3 uses.
 */
export function sharedMemoryTiling(sch: Schedule, tileX: number, tileY: number, tileK: number): [BlockRV, BlockRV] {
  // TODO(task 1):
  //  1. Get the "gemm" block (sch.getBlock) and its loops i, j, k (sch.getLoops).
  //  2. Split i by tileX, j by tileY and k by tileK: sch.split(loop, [null, tile]) returns
  //     [outer, inner] (null means "infer this factor").
  //  3. Reorder the six loops so that the two block-level loops come first, then the outer k
  //     loop, then the three inner loops (sch.reorder).
  //  4. Bind the outer i loop to "blockIdx.x" and the outer j loop to "blockIdx.y" (sch.bind).
  //  5. Create the shared-memory copies of A (read index 0) and B (read index 1) with
  //     sch.cacheRead(gemm, index, "shared").
  //  6. Move both copies under the outer k loop (sch.computeAt) so that each copies exactly one
  //     chunk. Print the IR (sch.show()) and check the copied regions are tileX×tileK and tileK×tileY.
  //  7. Return [aShared, bShared].
  throw new Error("TODO(task 1): sharedMemoryTiling is not implemented yet");
}

/**
 * Task 2 — register tiling (20 pt).
 *
 * Each thread computes a (threadTileX, threadTileY) sub-tile, stepping through the chunk
 * threadTileK at a time with its pieces of A and B copied from shared memory into registers.
 * A thread block then has (tileX / threadTileX) × (tileY / threadTileY) threads.
 */
export function registerTiling(sch: Schedule, threadTileX: number, threadTileY: number, threadTileK: number): void {
  // TODO(task 2): the same pattern as task 1, one level down.
  //  1. Get the gemm block again and its loops; the last three are the inner i, j and k loops
  //     that task 1 created.
  //  2. Split them by threadTileX, threadTileY and threadTileK.
  //  3. Reorder: the two thread-level loops, then the two k loops, then the two register loops.
  //  4. Bind the thread-level i loop to "threadIdx.x" and the thread-level j loop to "threadIdx.y".
  //  5. Create register copies of A and B with sch.cacheRead(gemm, index, "local") and move them
  //     under the innermost k loop with sch.computeAt.
  throw new Error("TODO(task 2): registerTiling is not implemented yet");
}

/**
 * Task 3 — cooperative fetching (20 pt).
 *
 * After task 1 every thread copies the whole A and B chunks. Make the block's threads share the
 * work: the threadExtentX × threadExtentY threads each copy one element per round, in memory order.
 */
export function cooperativeFetching(sch: Schedule, aShared: BlockRV, bShared: BlockRV, threadExtentX: number, threadExtentY: number): void {
  // TODO(task 3): for each of aShared and bShared (the same steps — a loop over both is fine):
  //  1. Take the last two loops of the copy block (the row and column of the copied chunk).
  //  2. Fuse them into one loop (sch.fuse).
  //  3. Split the fused loop into [null, threadExtentX, threadExtentY].
  //  4. Bind the middle loop to "threadIdx.x" and the innermost one to "threadIdx.y".
  throw new Error("TODO(task 3): cooperativeFetching is not implemented yet");
}

/**
 * Task 4 — write cache (10 pt).
 *
 * Accumulate each thread's sums in registers and write them to `matmul` once, instead of
 * updating global memory K times per element.
 */
export function writeCache(sch: Schedule): void {
  // TODO(task 4):
  //  1. Create a "local" write stage for the gemm block's output (sch.cacheWrite(gemm, 0, "local")).
  //  2. Move it under the gemm loop bound to "threadIdx.y" with sch.reverseComputeAt, so that
  //     each thread writes back its own threadTileX × threadTileY sub-tile.
  //     (sch.get(loop).threadTag tells you which thread axis a loop is bound to.)
  throw new Error("TODO(task 4): writeCache is not implemented yet");
}

/**
 * Task 5 — epilogue fusion (10 pt).
 *
 * Compute ReLU and the add inside the write-back of task 4, while the result is still in
 * registers, instead of two more passes over global memory.
 */
export function epilogueFusion(sch: Schedule): void {
  // TODO(task 5): get the "relu" and "add" blocks and inline each into the block that produces
  // its input with sch.reverseComputeInline (think about which one must go first).
  throw new Error("TODO(task 5): epilogueFusion is not implemented yet");
}

/** The complete manual schedule: tasks 1–5 with the course's tile sizes (given; do not change). */
export function manualSchedule(size: number = WORKLOAD_SIZE): Schedule {
  const t = MANUAL_TILE_SIZES;
  const sch = new Schedule(workload(size));
  const [aShared, bShared] = sharedMemoryTiling(sch, t.tileX, t.tileY, t.tileK);
  registerTiling(sch, t.threadTileX, t.threadTileY, t.threadTileK);
  cooperativeFetching(sch, aShared, bShared, t.tileX / t.threadTileX, t.tileY / t.threadTileY);
  writeCache(sch);
  epilogueFusion(sch);
  return sch;
}
