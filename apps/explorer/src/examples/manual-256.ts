/**
 * The course's manual schedule of D = ReLU(A·B) + C, here at 256³: five steps, each a few
 * primitives. Press Run, then step through the primitives on the right.
 */
import { type PrimFunc, gemmReluAdd } from "@tessera/ir";
import { type BlockRV, type LoopRV, Schedule } from "@tessera/schedule";

const TILE = { x: 64, y: 64, k: 64 };
const THREAD_TILE = { x: 4, y: 4, k: 1 };

export function workload(size: number): PrimFunc {
  return gemmReluAdd(size).func;
}

// 1. Each thread block computes a 64×64 tile; A and B are staged in shared memory per k chunk.
function sharedMemoryTiling(sch: Schedule): [BlockRV, BlockRV] {
  const gemm = sch.getBlock("gemm");
  const [i, j, k] = sch.getLoops(gemm) as [LoopRV, LoopRV, LoopRV];
  const [bx, ix] = sch.split(i, [null, TILE.x]) as [LoopRV, LoopRV];
  const [by, iy] = sch.split(j, [null, TILE.y]) as [LoopRV, LoopRV];
  const [ko, ki] = sch.split(k, [null, TILE.k]) as [LoopRV, LoopRV];
  sch.reorder(bx, by, ko, ix, iy, ki);
  sch.bind(bx, "blockIdx.x");
  sch.bind(by, "blockIdx.y");
  const aShared = sch.cacheRead(gemm, 0, "shared");
  const bShared = sch.cacheRead(gemm, 1, "shared");
  sch.computeAt(aShared, ko);
  sch.computeAt(bShared, ko);
  return [aShared, bShared];
}

// 2. Each thread computes a 4×4 sub-tile, with its pieces of A and B in registers.
function registerTiling(sch: Schedule): void {
  const gemm = sch.getBlock("gemm");
  const [ix, iy, ki] = sch.getLoops(gemm).slice(-3) as [LoopRV, LoopRV, LoopRV];
  const [tx, rx] = sch.split(ix, [null, THREAD_TILE.x]) as [LoopRV, LoopRV];
  const [ty, ry] = sch.split(iy, [null, THREAD_TILE.y]) as [LoopRV, LoopRV];
  const [kc, ks] = sch.split(ki, [null, THREAD_TILE.k]) as [LoopRV, LoopRV];
  sch.reorder(tx, ty, kc, ks, rx, ry);
  sch.bind(tx, "threadIdx.x");
  sch.bind(ty, "threadIdx.y");
  sch.computeAt(sch.cacheRead(gemm, 0, "local"), ks);
  sch.computeAt(sch.cacheRead(gemm, 1, "local"), ks);
}

// 3. The block's 16×16 threads share the copies into shared memory.
function cooperativeFetching(sch: Schedule, stages: BlockRV[]): void {
  for (const stage of stages) {
    const [row, col] = sch.getLoops(stage).slice(-2) as [LoopRV, LoopRV];
    const [, tx, ty] = sch.split(sch.fuse(row, col), [null, TILE.x / THREAD_TILE.x, TILE.y / THREAD_TILE.y]) as [LoopRV, LoopRV, LoopRV];
    sch.bind(tx, "threadIdx.x");
    sch.bind(ty, "threadIdx.y");
  }
}

// 4. Sums accumulate in registers and are written back once per thread.
function writeCache(sch: Schedule): void {
  const gemm = sch.getBlock("gemm");
  const writeBack = sch.cacheWrite(gemm, 0, "local");
  const ty = sch.getLoops(gemm).find((loop) => sch.get(loop).threadTag === "threadIdx.y");
  if (ty === undefined) throw new Error("no gemm loop is bound to threadIdx.y");
  sch.reverseComputeAt(writeBack, ty);
}

// 5. ReLU and the add run in the write-back, while the results are in registers.
function epilogueFusion(sch: Schedule): void {
  sch.reverseComputeInline(sch.getBlock("relu"));
  sch.reverseComputeInline(sch.getBlock("add"));
}

export function manualSchedule(size = 256): Schedule {
  const sch = new Schedule(workload(size));
  const stages = sharedMemoryTiling(sch);
  registerTiling(sch);
  cooperativeFetching(sch, stages);
  writeCache(sch);
  epilogueFusion(sch);
  return sch;
}
