/**
 * The textbook schedules of `D = ReLU(A·B) + C` at any size, for the compiler's tests and
 * benchmarks: the naive GPU schedule and the complete manual schedule (shared-memory tiling,
 * register tiling, cooperative fetching, write cache, epilogue fusion). The compiler owns these;
 * the course's instructor solution schedules the same way, and the assignment's tests check that
 * the two give the same program (assignments/gemm-relu-add/test/solution-matches-corpus.test.ts).
 */
import { type PrimFunc, gemmReluAdd } from "@tessera/ir";
import { type BlockRV, type ExprRV, type LoopRV, Schedule } from "@tessera/schedule";

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

/** The reference tile sizes (64×64 per block, 4×4 per thread, k chunks of 64: 256 threads per block). */
export const REFERENCE_MANUAL_PARAMS: ManualScheduleParams = { tileX: 64, tileY: 64, tileK: 64, threadTileX: 4, threadTileY: 4, threadTileK: 1 };

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

/** The naive schedule: 32×32 tiles, one thread per element, relu at the thread, add inlined, `matmul` in registers. */
export function naiveSchedule(n: number): Schedule {
  const sch = new Schedule(gemmReluAdd(n).func);
  const gemm = sch.getBlock("gemm");
  const [i, j] = sch.getLoops(gemm) as [LoopRV, LoopRV, LoopRV];
  const [bx, tx] = sch.split(i, [null, 32]) as [LoopRV, LoopRV];
  const [by, ty] = sch.split(j, [null, 32]) as [LoopRV, LoopRV];
  sch.reorder(bx, by, tx, ty);
  bindAll(sch, [bx, "blockIdx.x"], [by, "blockIdx.y"], [tx, "threadIdx.x"], [ty, "threadIdx.y"]);
  sch.reverseComputeAt(sch.getBlock("relu"), ty);
  sch.reverseComputeInline(sch.getBlock("add"));
  sch.setScope(gemm, 0, "local");
  return sch;
}

/** The complete manual schedule at size `n` with `params`. */
export function manualSchedule(n: number, params: ManualScheduleParams = REFERENCE_MANUAL_PARAMS): Schedule {
  return manualScheduleOf(gemmReluAdd(n).func, n, params);
}

/** The manual schedule applied to `func`, an n³ workload with gemm+ReLU+add's blocks ("gemm", "relu", "add"). */
export function manualScheduleOf(func: PrimFunc, n: number, params: ManualScheduleParams = REFERENCE_MANUAL_PARAMS): Schedule {
  checkManualParams(n, params);
  const sch = new Schedule(func);
  const gemm = sch.getBlock("gemm");
  // Block tiles, with A's and B's k chunks staged in shared memory.
  const [i, j, k] = sch.getLoops(gemm) as [LoopRV, LoopRV, LoopRV];
  const [bx, ii] = sch.split(i, [null, params.tileX]) as [LoopRV, LoopRV];
  const [by, jj] = sch.split(j, [null, params.tileY]) as [LoopRV, LoopRV];
  const [ko, ki] = sch.split(k, [null, params.tileK]) as [LoopRV, LoopRV];
  sch.reorder(bx, by, ko, ii, jj, ki);
  bindAll(sch, [bx, "blockIdx.x"], [by, "blockIdx.y"]);
  const shared = [0, 1].map((operand) => sch.cacheRead(gemm, operand, "shared"));
  for (const stage of shared) sch.computeAt(stage, ko);
  // Thread tiles, with their operands in registers per k step.
  const [tx, rx] = sch.split(ii, [null, params.threadTileX]) as [LoopRV, LoopRV];
  const [ty, ry] = sch.split(jj, [null, params.threadTileY]) as [LoopRV, LoopRV];
  const [kc, ks] = sch.split(ki, [null, params.threadTileK]) as [LoopRV, LoopRV];
  sch.reorder(tx, ty, kc, ks, rx, ry);
  bindAll(sch, [tx, "threadIdx.x"], [ty, "threadIdx.y"]);
  const local = [0, 1].map((operand) => sch.cacheRead(gemm, operand, "local"));
  for (const stage of local) sch.computeAt(stage, ks);
  // Every thread of the block copies its share of each shared chunk.
  for (const stage of shared) cooperativeCopy(sch, stage, params.tileX / params.threadTileX, params.tileY / params.threadTileY);
  // Accumulate in registers, write back once per thread, with ReLU and the add fused into it.
  sch.reverseComputeAt(sch.cacheWrite(gemm, 0, "local"), ty);
  sch.reverseComputeInline(sch.getBlock("relu"));
  sch.reverseComputeInline(sch.getBlock("add"));
  return sch;
}

/** Bounds of the course's search space: the largest register tile (rows or columns per thread), and the most k steps per register fetch. */
export const COURSE_SPACE_LIMITS = { registerTile: 8, registerK: 4 } as const;

/**
 * The course's search space (the assignment's part 2): the manual schedule with every tile size
 * sampled by `samplePerfectTile` instead of fixed. i and j split into (thread block, thread,
 * register) and k into (shared chunk, step, register k); the copies into shared memory are spread
 * over the sampled thread extents. Applied to a schedule of gemm+ReLU+add at any size; a sample
 * that needs too many threads or too much shared memory fails to build and the tuner drops it.
 */
export function courseSearchSpace(sch: Schedule): void {
  const gemm = sch.getBlock("gemm");
  const [i, j, k] = sch.getLoops(gemm) as [LoopRV, LoopRV, LoopRV];
  const tiles = {
    i: sch.samplePerfectTile(i, 3, COURSE_SPACE_LIMITS.registerTile) as [ExprRV, ExprRV, ExprRV],
    j: sch.samplePerfectTile(j, 3, COURSE_SPACE_LIMITS.registerTile) as [ExprRV, ExprRV, ExprRV],
    k: sch.samplePerfectTile(k, 3, COURSE_SPACE_LIMITS.registerK),
  };
  const [bx, tx, rx] = sch.split(i, tiles.i) as [LoopRV, LoopRV, LoopRV];
  const [by, ty, ry] = sch.split(j, tiles.j) as [LoopRV, LoopRV, LoopRV];
  const [ko, kc, ks] = sch.split(k, tiles.k) as [LoopRV, LoopRV, LoopRV];
  sch.reorder(bx, by, ko, tx, ty, kc, ks, rx, ry);
  bindAll(sch, [bx, "blockIdx.x"], [by, "blockIdx.y"], [tx, "threadIdx.x"], [ty, "threadIdx.y"]);
  const shared = [0, 1].map((operand) => sch.cacheRead(gemm, operand, "shared"));
  for (const stage of shared) sch.computeAt(stage, ko);
  const local = [0, 1].map((operand) => sch.cacheRead(gemm, operand, "local"));
  for (const stage of local) sch.computeAt(stage, ks);
  // Split by the sampled thread extents themselves (not their values), so the trace stays a space.
  for (const stage of shared) {
    // The copy's loops after bx, by, ko; a copied dimension of extent 1 has none.
    const loops = sch.getLoops(stage).slice(3);
    const copy = loops.length === 1 ? loops[0]! : sch.fuse(...loops);
    const [, x, y] = sch.split(copy, [null, tiles.i[1], tiles.j[1]]) as [LoopRV, LoopRV, LoopRV];
    bindAll(sch, [x, "threadIdx.x"], [y, "threadIdx.y"]);
  }
  // The write-back stage, on the gemm block looked up again (as the course's write-cache task does).
  const updated = sch.getBlock("gemm");
  const writeBack = sch.cacheWrite(updated, 0, "local");
  const threadY = sch.getLoops(updated).find((loop) => sch.get(loop).threadTag === "threadIdx.y");
  if (threadY === undefined) throw new Error("courseSearchSpace: no gemm loop is bound to threadIdx.y");
  sch.reverseComputeAt(writeBack, threadY);
  sch.reverseComputeInline(sch.getBlock("relu"));
  sch.reverseComputeInline(sch.getBlock("add"));
}

function bindAll(sch: Schedule, ...bindings: readonly [LoopRV, string][]): void {
  for (const [loop, thread] of bindings) sch.bind(loop, thread);
}

/** The copy's two innermost loops, fused and spread over the block's threadsX × threadsY threads. */
function cooperativeCopy(sch: Schedule, stage: BlockRV, threadsX: number, threadsY: number): void {
  const [row, col] = sch.getLoops(stage).slice(-2) as [LoopRV, LoopRV];
  const [, x, y] = sch.split(sch.fuse(row, col), [null, threadsX, threadsY]) as [LoopRV, LoopRV, LoopRV];
  bindAll(sch, [x, "threadIdx.x"], [y, "threadIdx.y"]);
}

/**
 * Kernel-wide annotations on the outermost loop of a block, as MetaSchedule leaves them: the
 * unroll pragmas RewriteParallelVectorizeUnroll writes, and a launch-bounds request.
 */
export interface KernelAnnotations {
  /** `pragma_auto_unroll_max_step`: serial loops up to this many steps are unrolled. */
  readonly unrollMaxStep: number;
  /** `pragma_unroll_explicit`: expand unrolled loops (true) or leave them to nvcc's `#pragma unroll`. */
  readonly unrollExplicit: boolean;
  /** `launch_bounds_min_blocks_per_sm`: `__launch_bounds__(threads, minBlocksPerSM)`; omitted, none. */
  readonly minBlocksPerSM?: number;
}

/** Annotates the outermost loop of block `blockName` with `annotations`; returns `sch`. */
export function annotateKernel(sch: Schedule, blockName: string, annotations: KernelAnnotations): Schedule {
  const [outer] = sch.getLoops(sch.getBlock(blockName));
  sch.annotate(outer, "pragma_auto_unroll_max_step", annotations.unrollMaxStep);
  sch.annotate(outer, "pragma_unroll_explicit", annotations.unrollExplicit ? 1 : 0);
  if (annotations.minBlocksPerSM !== undefined) sch.annotate(outer, "launch_bounds_min_blocks_per_sm", annotations.minBlocksPerSM);
  return sch;
}
