/**
 * The course assignment's schedules of `D = ReLU(A·B) + C`, written exactly the way a student
 * writes them with the schedule API: the naive GPU schedule (32×32 tiles bound to blocks and
 * threads) and the complete manual schedule (shared-memory tiling, register tiling, cooperative
 * fetching, write cache, epilogue fusion).
 */
import { gemmReluAdd } from "@tessera/ir";
import { type BlockRV, type LoopRV, Schedule } from "@tessera/schedule";

/** Tile sizes of the manual schedule. Every size must divide the one above it. */
export interface ManualScheduleParams {
  /** Rows (`i`) of D per thread block. */
  readonly tileX: number;
  /** Columns (`j`) of D per thread block. */
  readonly tileY: number;
  /** Length of the k chunk staged in shared memory. */
  readonly tileK: number;
  /** Rows per thread (register tile). */
  readonly threadTileX: number;
  /** Columns per thread (register tile). */
  readonly threadTileY: number;
  /** k steps per register fetch. */
  readonly threadTileK: number;
}

/** The reference solution's tile sizes (64×64 per block, 4×4 per thread, k chunks of 64). */
export const REFERENCE_MANUAL_PARAMS: ManualScheduleParams = {
  tileX: 64,
  tileY: 64,
  tileK: 64,
  threadTileX: 4,
  threadTileY: 4,
  threadTileK: 1,
};

function checkDivides(outer: number, inner: number, what: string): void {
  if (!Number.isInteger(outer / inner)) throw new RangeError(`${what}: ${inner} does not divide ${outer}`);
}

/** Checks that the tile sizes fit the problem size `n` (M = N = K = n). */
export function checkManualParams(n: number, p: ManualScheduleParams): void {
  checkDivides(n, p.tileX, "tileX");
  checkDivides(n, p.tileY, "tileY");
  checkDivides(n, p.tileK, "tileK");
  checkDivides(p.tileX, p.threadTileX, "threadTileX");
  checkDivides(p.tileY, p.threadTileY, "threadTileY");
  checkDivides(p.tileK, p.threadTileK, "threadTileK");
}

/** The naive schedule: 32×32 tiles, relu computed per element, add inlined, `matmul` in registers. */
export function naiveSchedule(n: number, tile = 32): Schedule {
  const sch = new Schedule(gemmReluAdd(n).func);
  const gemm = sch.getBlock("gemm");
  const [i, j] = sch.getLoops(gemm) as [LoopRV, LoopRV, LoopRV];
  const [i0, i1] = sch.split(i, [null, tile]) as [LoopRV, LoopRV];
  const [j0, j1] = sch.split(j, [null, tile]) as [LoopRV, LoopRV];
  sch.reorder(i0, j0, i1, j1);
  sch.bind(i0, "blockIdx.x");
  sch.bind(j0, "blockIdx.y");
  sch.bind(i1, "threadIdx.x");
  sch.bind(j1, "threadIdx.y");
  sch.reverseComputeAt(sch.getBlock("relu"), j1);
  sch.reverseComputeInline(sch.getBlock("add"));
  sch.setScope(gemm, 0, "local");
  return sch;
}

/** Task 1: tile the block-level loops, stage A and B tiles in shared memory per k chunk. */
export function sharedMemoryTiling(sch: Schedule, p: ManualScheduleParams): [BlockRV, BlockRV] {
  const gemm = sch.getBlock("gemm");
  const [i, j, k] = sch.getLoops(gemm) as [LoopRV, LoopRV, LoopRV];
  const [bx, ii] = sch.split(i, [null, p.tileX]) as [LoopRV, LoopRV];
  const [by, jj] = sch.split(j, [null, p.tileY]) as [LoopRV, LoopRV];
  const [ko, ki] = sch.split(k, [null, p.tileK]) as [LoopRV, LoopRV];
  sch.reorder(bx, by, ko, ii, jj, ki);
  sch.bind(bx, "blockIdx.x");
  sch.bind(by, "blockIdx.y");
  const aShared = sch.cacheRead(gemm, 0, "shared");
  const bShared = sch.cacheRead(gemm, 1, "shared");
  sch.computeAt(aShared, ko);
  sch.computeAt(bShared, ko);
  return [aShared, bShared];
}

/** Task 2: per-thread tiles bound to threadIdx, A and B fetched into registers. */
export function registerTiling(sch: Schedule, p: ManualScheduleParams): void {
  const gemm = sch.getBlock("gemm");
  const loops = sch.getLoops(gemm);
  const [ii, jj, kk] = loops.slice(-3) as [LoopRV, LoopRV, LoopRV];
  const [tx, iii] = sch.split(ii, [null, p.threadTileX]) as [LoopRV, LoopRV];
  const [ty, jjj] = sch.split(jj, [null, p.threadTileY]) as [LoopRV, LoopRV];
  const [kko, kki] = sch.split(kk, [null, p.threadTileK]) as [LoopRV, LoopRV];
  sch.reorder(tx, ty, kko, kki, iii, jjj);
  sch.bind(tx, "threadIdx.x");
  sch.bind(ty, "threadIdx.y");
  const aLocal = sch.cacheRead(gemm, 0, "local");
  const bLocal = sch.cacheRead(gemm, 1, "local");
  sch.computeAt(aLocal, kki);
  sch.computeAt(bLocal, kki);
}

/** Task 3: every thread of the block fetches its share of each shared tile. */
export function cooperativeFetching(
  sch: Schedule,
  stages: readonly BlockRV[],
  threadExtentX: number,
  threadExtentY: number,
): void {
  for (const stage of stages) {
    const loops = sch.getLoops(stage);
    const fused = sch.fuse(...loops.slice(-2));
    const [, inner] = sch.split(fused, [null, threadExtentX * threadExtentY]) as [LoopRV, LoopRV];
    const [tx, ty] = sch.split(inner, [threadExtentX, threadExtentY]) as [LoopRV, LoopRV];
    sch.bind(tx, "threadIdx.x");
    sch.bind(ty, "threadIdx.y");
  }
}

/** Task 4: accumulate in registers, write back once per thread tile. */
export function writeCache(sch: Schedule): BlockRV {
  const gemm = sch.getBlock("gemm");
  const writeBack = sch.cacheWrite(gemm, 0, "local");
  // The thread-y loop is the innermost thread-bound loop of gemm.
  const loops = sch.getLoops(gemm);
  const ty = loops.find((l) => sch.get(l).threadTag === "threadIdx.y");
  if (ty === undefined) throw new Error("writeCache: gemm has no loop bound to threadIdx.y");
  sch.reverseComputeAt(writeBack, ty);
  return writeBack;
}

/** Task 5: relu and add computed in the write-back. */
export function epilogueFusion(sch: Schedule): void {
  sch.reverseComputeInline(sch.getBlock("add"));
  sch.reverseComputeInline(sch.getBlock("relu"));
}

/** The complete manual schedule at size `n` (tasks 1–5 in order). */
export function manualSchedule(n: number, params: ManualScheduleParams = REFERENCE_MANUAL_PARAMS): Schedule {
  checkManualParams(n, params);
  const sch = new Schedule(gemmReluAdd(n).func);
  const stages = sharedMemoryTiling(sch, params);
  registerTiling(sch, params);
  cooperativeFetching(sch, stages, params.tileX / params.threadTileX, params.tileY / params.threadTileY);
  writeCache(sch);
  epilogueFusion(sch);
  return sch;
}
