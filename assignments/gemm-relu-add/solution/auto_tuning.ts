/**
 * INSTRUCTOR SOLUTION — never part of the handout.
 *
 * Part 2: the search space. The manual schedule of part 1 with every tile size sampled by
 * `samplePerfectTile` instead of fixed: each of i, j and k splits into three perfect factors
 * (thread block / thread / register for i and j; k chunk / k steps / register for k).
 * Samples that need more than 1024 threads or 48 KB of shared memory per block do not build on
 * the GPU; the tuner discards them.
 */
import type { ExprRV, LoopRV, Schedule } from "@tessera/schedule";
import { epilogueFusion, writeCache } from "./gemm_relu_add.js";

/** Largest register tile (rows or columns per thread) the sampler may pick. */
const MAX_REGISTER_TILE = 8;
/** Largest number of k steps per register fetch. */
const MAX_REGISTER_K = 4;

export function autoTuningSchedule(sch: Schedule): void {
  const gemm = sch.getBlock("gemm");
  const [i, j, k] = sch.getLoops(gemm) as [LoopRV, LoopRV, LoopRV];

  // Tasks 1 + 2 at once: i → (blockIdx.x, threadIdx.x, register rows), j likewise, k → (chunk, step, register k).
  const iFactors = sch.samplePerfectTile(i, 3, MAX_REGISTER_TILE) as [ExprRV, ExprRV, ExprRV];
  const jFactors = sch.samplePerfectTile(j, 3, MAX_REGISTER_TILE) as [ExprRV, ExprRV, ExprRV];
  const kFactors = sch.samplePerfectTile(k, 3, MAX_REGISTER_K);
  const [blockX, threadX, regX] = sch.split(i, iFactors) as [LoopRV, LoopRV, LoopRV];
  const [blockY, threadY, regY] = sch.split(j, jFactors) as [LoopRV, LoopRV, LoopRV];
  const [kOuter, kChunk, kStep] = sch.split(k, kFactors) as [LoopRV, LoopRV, LoopRV];
  sch.reorder(blockX, blockY, kOuter, threadX, threadY, kChunk, kStep, regX, regY);
  sch.bind(blockX, "blockIdx.x");
  sch.bind(blockY, "blockIdx.y");
  sch.bind(threadX, "threadIdx.x");
  sch.bind(threadY, "threadIdx.y");

  const aShared = sch.cacheRead(gemm, 0, "shared");
  const bShared = sch.cacheRead(gemm, 1, "shared");
  sch.computeAt(aShared, kOuter);
  sch.computeAt(bShared, kOuter);
  const aLocal = sch.cacheRead(gemm, 0, "local");
  const bLocal = sch.cacheRead(gemm, 1, "local");
  sch.computeAt(aLocal, kStep);
  sch.computeAt(bLocal, kStep);

  // Task 3: the copying threads are the computing threads, so split by the sampled thread extents
  // (the sampled values themselves, not numbers, so that the trace stays a search space).
  const threadExtentX = iFactors[1];
  const threadExtentY = jFactors[1];
  for (const stage of [aShared, bShared]) {
    // The copy's own loops follow blockX, blockY and kOuter. A copied dimension of extent 1 (a
    // sampled tile of 1) gets no loop, so take all of them rather than "the last two".
    const copyLoops = sch.getLoops(stage).slice(3);
    const fused = copyLoops.length === 1 ? copyLoops[0]! : sch.fuse(...copyLoops);
    const [, copyX, copyY] = sch.split(fused, [null, threadExtentX, threadExtentY]) as [LoopRV, LoopRV, LoopRV];
    sch.bind(copyX, "threadIdx.x");
    sch.bind(copyY, "threadIdx.y");
  }

  writeCache(sch);
  epilogueFusion(sch);
}
