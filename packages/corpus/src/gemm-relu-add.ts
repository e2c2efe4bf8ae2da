/**
 * The course assignment's schedules of `D = ReLU(A·B) + C` at any size: the naive GPU schedule
 * and the complete manual schedule (shared-memory tiling, register tiling, cooperative fetching,
 * write cache, epilogue fusion). The steps are the instructor solution's own functions
 * (assignments/gemm-relu-add/solution), so the tests, benchmarks and the autograder all see one
 * version of the course's schedules.
 */
import { gemmReluAdd } from "@tessera/ir";
import { Schedule } from "@tessera/schedule";
import * as course from "@tessera/assignment-gemm-relu-add/solution";

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

/** The course's tile sizes (64×64 per block, 4×4 per thread, k chunks of 64). */
export const REFERENCE_MANUAL_PARAMS: ManualScheduleParams = course.MANUAL_TILE_SIZES;

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

/** The course's naive schedule: 32×32 tiles, relu computed per element, add inlined, `matmul` in registers. */
export function naiveSchedule(n: number): Schedule {
  const sch = new Schedule(gemmReluAdd(n).func);
  course.naiveSchedule(sch);
  return sch;
}

/** The complete manual schedule at size `n`: the solution's tasks 1–5 in order, with `params`. */
export function manualSchedule(n: number, params: ManualScheduleParams = REFERENCE_MANUAL_PARAMS): Schedule {
  checkManualParams(n, params);
  const sch = new Schedule(gemmReluAdd(n).func);
  const [aShared, bShared] = course.sharedMemoryTiling(sch, params.tileX, params.tileY, params.tileK);
  course.registerTiling(sch, params.threadTileX, params.threadTileY, params.threadTileK);
  course.cooperativeFetching(sch, aShared, bShared, params.tileX / params.threadTileX, params.tileY / params.threadTileY);
  course.writeCache(sch);
  course.epilogueFusion(sch);
  return sch;
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
