/**
 * The course's naive and manual schedules of `D = ReLU(A·B) + C` (the steps of the instructor
 * solution in assignments/gemm-relu-add/solution, copied: the schedule package must not depend on
 * the assignment, which depends on it), written the way a student writes them — destructuring `getLoops` and `split` results
 * with no casts and no `!`. The package's tsconfig has `noUncheckedIndexedAccess` on, so this file
 * type-checking is itself part of the test; trace-typecheck.test.ts checks their printed traces.
 */
import { gemmReluAdd } from "@tessera/ir";
import { type BlockRV, Schedule } from "../src/index.js";

export function naiveSchedule(n: number, tile = 32): Schedule {
  const sch = new Schedule(gemmReluAdd(n).func);
  const gemm = sch.getBlock("gemm");
  const [i, j] = sch.getLoops(gemm);
  const [i0, i1] = sch.split(i, [null, tile]);
  const [j0, j1] = sch.split(j, [null, tile]);
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

/** The manual schedule with the reference tile sizes: 64×64 per block, 4×4 per thread, k chunks of 64. */
export function manualSchedule(n: number): Schedule {
  const [tileX, tileY, tileK, threadTileX, threadTileY, threadTileK] = [64, 64, 64, 4, 4, 1];
  const sch = new Schedule(gemmReluAdd(n).func);

  // Task 1: shared-memory tiling.
  let gemm = sch.getBlock("gemm");
  const [i, j, k] = sch.getLoops(gemm);
  const [bx, ii] = sch.split(i, [null, tileX]);
  const [by, jj] = sch.split(j, [null, tileY]);
  const [ko, ki] = sch.split(k, [null, tileK]);
  sch.reorder(bx, by, ko, ii, jj, ki);
  sch.bind(bx, "blockIdx.x");
  sch.bind(by, "blockIdx.y");
  const aShared = sch.cacheRead(gemm, 0, "shared");
  const bShared = sch.cacheRead(gemm, 1, "shared");
  sch.computeAt(aShared, ko);
  sch.computeAt(bShared, ko);

  // Task 2: register tiling.
  gemm = sch.getBlock("gemm");
  const [, , , ii2, jj2, kk2] = sch.getLoops(gemm);
  const [tx, iii] = sch.split(ii2, [null, threadTileX]);
  const [ty, jjj] = sch.split(jj2, [null, threadTileY]);
  const [kko, kki] = sch.split(kk2, [null, threadTileK]);
  sch.reorder(tx, ty, kko, kki, iii, jjj);
  sch.bind(tx, "threadIdx.x");
  sch.bind(ty, "threadIdx.y");
  const aLocal = sch.cacheRead(gemm, 0, "local");
  const bLocal = sch.cacheRead(gemm, 1, "local");
  sch.computeAt(aLocal, kki);
  sch.computeAt(bLocal, kki);

  // Task 3: cooperative fetching.
  const threadsX = tileX / threadTileX;
  const threadsY = tileY / threadTileY;
  const stages: BlockRV[] = [aShared, bShared];
  for (const stage of stages) {
    const loops = sch.getLoops(stage);
    const fused = sch.fuse(...loops.slice(-2));
    const [, inner] = sch.split(fused, [null, threadsX * threadsY]);
    const [fx, fy] = sch.split(inner, [threadsX, threadsY]);
    sch.bind(fx, "threadIdx.x");
    sch.bind(fy, "threadIdx.y");
  }

  // Task 4: write cache, written back per thread tile.
  const writeBack = sch.cacheWrite(gemm, 0, "local");
  sch.reverseComputeAt(writeBack, ty);

  // Task 5: epilogue fusion.
  sch.reverseComputeInline(sch.getBlock("add"));
  sch.reverseComputeInline(sch.getBlock("relu"));
  return sch;
}
