/**
 * INSTRUCTOR SOLUTION — never part of the handout.
 *
 * Part 1 of the assignment: the manual GPU schedule of D = ReLU(A·B) + C in five tasks.
 * Same exports and signatures as the student's `gemm_relu_add.ts`.
 */
import { type PrimFunc, gemmReluAdd } from "@tessera/ir";
import { type BlockRV, type LoopRV, Schedule } from "@tessera/schedule";

/** M = N = K of the graded workload. */
export const WORKLOAD_SIZE = 2048;

/** The tile sizes the course uses for the manual schedule (256 threads per block). */
export const MANUAL_TILE_SIZES = {
  tileX: 64,
  tileY: 64,
  tileK: 64,
  threadTileX: 4,
  threadTileY: 4,
  threadTileK: 1,
} as const;

/** The unscheduled workload D = ReLU(A·B) + C with M = N = K = `size`. */
export function workload(size: number = WORKLOAD_SIZE): PrimFunc {
  return gemmReluAdd(size).func;
}

/** The naive schedule the course provides for comparison (`--evaluate-naive`): 32×32 tiles. */
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

/** Task 1: one thread block per (tileX, tileY) tile of D; A and B staged in shared memory per k chunk. */
export function sharedMemoryTiling(sch: Schedule, tileX: number, tileY: number, tileK: number): [BlockRV, BlockRV] {
  const gemm = sch.getBlock("gemm");
  const [i, j, k] = sch.getLoops(gemm) as [LoopRV, LoopRV, LoopRV];
  const [blockX, innerX] = sch.split(i, [null, tileX]) as [LoopRV, LoopRV];
  const [blockY, innerY] = sch.split(j, [null, tileY]) as [LoopRV, LoopRV];
  const [kOuter, kInner] = sch.split(k, [null, tileK]) as [LoopRV, LoopRV];
  sch.reorder(blockX, blockY, kOuter, innerX, innerY, kInner);
  sch.bind(blockX, "blockIdx.x");
  sch.bind(blockY, "blockIdx.y");
  const aShared = sch.cacheRead(gemm, 0, "shared");
  const bShared = sch.cacheRead(gemm, 1, "shared");
  // Under kOuter, each stage copies exactly the tileX×tileK chunk of A and tileK×tileY chunk of B.
  sch.computeAt(aShared, kOuter);
  sch.computeAt(bShared, kOuter);
  return [aShared, bShared];
}

/** Task 2: one thread per (threadTileX, threadTileY) sub-tile; A and B fetched into registers. */
export function registerTiling(sch: Schedule, threadTileX: number, threadTileY: number, threadTileK: number): void {
  const gemm = sch.getBlock("gemm");
  // After task 1 the gemm loops are blockX, blockY, kOuter, innerX, innerY, kInner.
  const [innerX, innerY, kInner] = sch.getLoops(gemm).slice(-3) as [LoopRV, LoopRV, LoopRV];
  const [threadX, regX] = sch.split(innerX, [null, threadTileX]) as [LoopRV, LoopRV];
  const [threadY, regY] = sch.split(innerY, [null, threadTileY]) as [LoopRV, LoopRV];
  const [kChunk, kStep] = sch.split(kInner, [null, threadTileK]) as [LoopRV, LoopRV];
  sch.reorder(threadX, threadY, kChunk, kStep, regX, regY);
  sch.bind(threadX, "threadIdx.x");
  sch.bind(threadY, "threadIdx.y");
  const aLocal = sch.cacheRead(gemm, 0, "local");
  const bLocal = sch.cacheRead(gemm, 1, "local");
  sch.computeAt(aLocal, kStep);
  sch.computeAt(bLocal, kStep);
}

/** Task 3: all threads of a block share the copy of each shared tile, in memory order. */
export function cooperativeFetching(sch: Schedule, aShared: BlockRV, bShared: BlockRV, threadExtentX: number, threadExtentY: number): void {
  for (const stage of [aShared, bShared]) {
    const [row, col] = sch.getLoops(stage).slice(-2) as [LoopRV, LoopRV];
    const fused = sch.fuse(row, col);
    const [, threadX, threadY] = sch.split(fused, [null, threadExtentX, threadExtentY]) as [LoopRV, LoopRV, LoopRV];
    sch.bind(threadX, "threadIdx.x");
    sch.bind(threadY, "threadIdx.y");
  }
}

/** Task 4: accumulate in registers; write each thread's tile back to `matmul` once. */
export function writeCache(sch: Schedule): void {
  const gemm = sch.getBlock("gemm");
  const writeBack = sch.cacheWrite(gemm, 0, "local");
  const threadY = sch.getLoops(gemm).find((loop) => sch.get(loop).threadTag === "threadIdx.y");
  if (threadY === undefined) throw new Error("writeCache: no gemm loop is bound to threadIdx.y (run registerTiling first)");
  sch.reverseComputeAt(writeBack, threadY);
}

/** Task 5: ReLU and the add run in the write-back, while the result is still in registers. */
export function epilogueFusion(sch: Schedule): void {
  sch.reverseComputeInline(sch.getBlock("relu"));
  sch.reverseComputeInline(sch.getBlock("add"));
}

/** The complete manual schedule (tasks 1–5 with the course's tile sizes). */
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
