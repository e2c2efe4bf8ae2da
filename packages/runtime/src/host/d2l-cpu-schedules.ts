/**
 * The CPU schedules of "Dive into Deep Learning Compiler" (the CPU half: vector add, broadcast
 * add, matmul, conv2d, depthwise conv2d, pooling, batch norm) written with Tessera's schedule
 * primitives: outer loops `parallel` (OpenMP), inner loops `vectorize` (SIMD), small inner loops
 * `unroll`, and for the reductions (matmul, convolutions) a register tile: the output block is
 * accumulated in a `local` buffer (`cacheWrite`), initialised by `decomposeReduction`.
 *
 * Each builder returns the unscheduled function (for the JS executor) and the scheduled one.
 */
import { type PrimFunc, ops } from "@tessera/ir";
import { type BlockRV, type LoopRV, Schedule } from "@tessera/schedule";

export interface ScheduledOperator {
  readonly name: string;
  readonly original: PrimFunc;
  readonly scheduled: PrimFunc;
  /** Floating-point operations of one run (for GFLOPS). */
  readonly flops: number;
}

function loops(sch: Schedule, block: BlockRV): LoopRV[] {
  return sch.getLoops(block);
}

function split2(sch: Schedule, loop: LoopRV, inner: number): [LoopRV, LoopRV] {
  return sch.split(loop, [null, inner]) as [LoopRV, LoopRV];
}

/** Whether the schedule has a block of this name (pad2d makes none without padding). */
function hasBlock(sch: Schedule, name: string): boolean {
  try {
    sch.getBlock(name);
    return true;
  } catch {
    return false;
  }
}

/** The innermost data-parallel loop vectorized in chunks of `lanes`, the outer `parallelDims` loops fused and parallel. */
function parallelVectorize(sch: Schedule, block: BlockRV, parallelDims: number, lanes: number): void {
  const ls = loops(sch, block);
  const inner = ls[ls.length - 1]!;
  if (sch.get(inner).extent.kind === "IntImm" && (sch.get(inner).extent as { value: number }).value > lanes) {
    const [, vi] = split2(sch, inner, lanes);
    sch.vectorize(vi);
  } else sch.vectorize(inner);
  const outer = ls.slice(0, parallelDims);
  sch.parallel(outer.length > 1 ? sch.fuse(...outer) : outer[0]!);
}

/** `C = A + B` of n elements: parallel chunks, vectorized inside. */
export function vectorAddCpu(n: number, lanes = 16): ScheduledOperator {
  const { func } = ops.vectorAdd(n);
  const sch = new Schedule(func);
  const c = sch.getBlock("C");
  const [i] = loops(sch, c);
  const [io, ii] = split2(sch, i!, lanes);
  sch.parallel(io);
  sch.vectorize(ii);
  return { name: "vector_add", original: func, scheduled: sch.func, flops: n };
}

/** `C = A + B` with A (n, 1), B (n, m): rows in parallel, columns vectorized. */
export function broadcastAddCpu(n: number, m: number, lanes = 16): ScheduledOperator {
  const { func } = ops.broadcastAdd([n, 1], [n, m]);
  const sch = new Schedule(func);
  parallelVectorize(sch, sch.getBlock("C"), 1, lanes);
  return { name: "broadcast_add", original: func, scheduled: sch.func, flops: n * m };
}

export interface MatmulTiles {
  /** Rows of the register tile (unrolled). */
  readonly mr: number;
  /** Columns of the register tile (vectorized). */
  readonly nr: number;
}

export const DEFAULT_MATMUL_TILES: MatmulTiles = { mr: 8, nr: 32 };

/**
 * `C = A·B` (n×l times l×m): C's (mr × nr) tiles in parallel, each accumulated in a local
 * register tile over the reduction (k outer, rows unrolled, columns vectorized), then written back.
 */
export function matmulCpu(n: number, m = n, l = n, tiles: MatmulTiles = DEFAULT_MATMUL_TILES): ScheduledOperator {
  const { func } = ops.matmul(n, m, l);
  const sch = new Schedule(func);
  const c = sch.getBlock("C");
  // `c` now accumulates into a local tile; the returned block copies it back to C.
  const writeBack = sch.cacheWrite(c, 0, "local");
  const [i, j, k] = loops(sch, c) as [LoopRV, LoopRV, LoopRV];
  const [io, ii] = split2(sch, i, tiles.mr);
  const [jo, ji] = split2(sch, j, tiles.nr);
  sch.reorder(io, jo, k, ii, ji);
  sch.reverseComputeAt(writeBack, jo);
  sch.unroll(ii);
  sch.vectorize(ji);
  sch.parallel(io);
  sch.decomposeReduction(c, k);
  return { name: "matmul", original: func, scheduled: sch.func, flops: 2 * n * m * l };
}
