/**
 * The CPU schedules of "Dive into Deep Learning Compiler" (the CPU half: vector add, broadcast
 * add, matmul, conv2d, depthwise conv2d, pooling, batch norm) written with Tessera's schedule
 * primitives: outer loops `parallel` (OpenMP), inner loops `vectorize` (SIMD), small inner loops
 * `unroll`, and for the reductions (matmul, convolutions) a register tile: the output block is
 * accumulated in a `local` buffer (`cacheWrite`), initialised by `decomposeReduction`.
 *
 * Each builder returns the unscheduled function (for the JS executor) and the scheduled one.
 */
import { type PrimFunc, floordiv, floormod, ops } from "@tessera/ir";
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
 * `C = A·B` (n×l times l×m), as the book's blocked matmul with packing: B is first copied into
 * panels of `nr` columns (`PackedB[j / nr, k, j % nr]`, so the reduction walks each panel
 * contiguously); then C's (mr × nr) tiles, in parallel over row blocks, are each accumulated in a
 * local register tile over the whole reduction (rows unrolled, columns vectorized) and written back.
 */
export function matmulCpu(n: number, m = n, l = n, tiles: MatmulTiles = DEFAULT_MATMUL_TILES): ScheduledOperator {
  const { func } = ops.matmul(n, m, l);
  const sch = new Schedule(func);
  const c = sch.getBlock("C");
  if (m % tiles.nr === 0) {
    const pack = sch.cacheRead(c, 1, "global");
    sch.transformLayout(pack, ["write", 0], (k, j) => [floordiv(j!, tiles.nr), k!, floormod(j!, tiles.nr)]);
    const [pk, pj] = loops(sch, pack) as [LoopRV, LoopRV];
    sch.parallel(pk);
    sch.vectorize(pj);
  }
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

/** The padding stage (if any): rows in parallel, the padded row vectorized. */
function schedulePad(sch: Schedule): void {
  if (!hasBlock(sch, "PaddedX")) return;
  parallelVectorize(sch, sch.getBlock("PaddedX"), 3, 16);
}

export interface ConvSize {
  readonly channels: number;
  /** Height and width of the input. */
  readonly size: number;
  readonly kernel: number;
  readonly padding: number;
}

/**
 * conv2d (batch 1, NCHW, stride 1): an (ocTile × owTile) register tile of Y per (output channel
 * block, output row, column block), accumulated over (ric, rkh, rkw) with the channel rows
 * unrolled and the columns vectorized; blocks × rows in parallel.
 */
export function conv2dCpu(s: ConvSize, ocTile = Math.min(16, s.channels), owTile = 16): ScheduledOperator {
  const { func } = ops.conv2d({ batch: 1, inChannels: s.channels, outChannels: s.channels, height: s.size, width: s.size, kernel: s.kernel, padding: s.padding });
  const sch = new Schedule(func);
  schedulePad(sch);
  const y = sch.getBlock("Y");
  const writeBack = sch.cacheWrite(y, 0, "local");
  const [n, c, i, j, ric, rkh, rkw] = loops(sch, y) as [LoopRV, LoopRV, LoopRV, LoopRV, LoopRV, LoopRV, LoopRV];
  const [co, ci] = split2(sch, c, ocTile);
  const [jo, ji] = split2(sch, j, owTile);
  sch.reorder(n, co, i, jo, ric, rkh, rkw, ci, ji);
  sch.reverseComputeAt(writeBack, jo);
  sch.unroll(ci);
  sch.vectorize(ji);
  sch.parallel(sch.fuse(n, co, i));
  sch.decomposeReduction(y, ric);
  const out = s.size + 2 * s.padding - s.kernel + 1;
  return { name: "conv2d", original: func, scheduled: sch.func, flops: 2 * s.channels * s.channels * out * out * s.kernel * s.kernel };
}

/** Depthwise conv2d (batch 1, stride 1): per (channel, row) in parallel, a vectorized row tile accumulated over the window. */
export function depthwiseConv2dCpu(s: ConvSize, owTile = 32): ScheduledOperator {
  const { func } = ops.depthwiseConv2d({ batch: 1, channels: s.channels, height: s.size, width: s.size, kernel: s.kernel, padding: s.padding });
  const sch = new Schedule(func);
  schedulePad(sch);
  const y = sch.getBlock("Y");
  const writeBack = sch.cacheWrite(y, 0, "local");
  const [n, c, i, j, rkh, rkw] = loops(sch, y) as [LoopRV, LoopRV, LoopRV, LoopRV, LoopRV, LoopRV];
  const [jo, ji] = split2(sch, j, owTile);
  sch.reorder(n, c, i, jo, rkh, rkw, ji);
  sch.reverseComputeAt(writeBack, jo);
  sch.unroll(rkw);
  sch.vectorize(ji);
  sch.parallel(sch.fuse(n, c, i));
  sch.decomposeReduction(y, rkh);
  const out = s.size + 2 * s.padding - s.kernel + 1;
  return { name: "depthwise_conv2d", original: func, scheduled: sch.func, flops: 2 * s.channels * out * out * s.kernel * s.kernel };
}

export interface PoolSize extends ConvSize {
  readonly stride: number;
}

/** A window reduction (PoolMax, PoolSum): padding inlined, window loops outside the vectorized output row. */
function scheduleWindowReduction(sch: Schedule, blockName: string): void {
  if (hasBlock(sch, "PaddedX")) sch.computeInline(sch.getBlock("PaddedX"));
  const b = sch.getBlock(blockName);
  const [n, c, h, w, rkh, rkw] = loops(sch, b) as [LoopRV, LoopRV, LoopRV, LoopRV, LoopRV, LoopRV];
  sch.reorder(n, c, h, rkh, rkw, w);
  sch.vectorize(w);
  sch.parallel(sch.fuse(n, c, h));
  sch.decomposeReduction(b, rkh);
}

function poolOut(s: PoolSize): number {
  return Math.floor((s.size + 2 * s.padding - s.kernel) / s.stride) + 1;
}

export function maxPoolCpu(s: PoolSize): ScheduledOperator {
  const { func } = ops.maxPool2d({ batch: 1, channels: s.channels, height: s.size, width: s.size, kernel: s.kernel, padding: s.padding, stride: s.stride });
  const sch = new Schedule(func);
  scheduleWindowReduction(sch, "PoolMax");
  const out = poolOut(s);
  return { name: "max_pool2d", original: func, scheduled: sch.func, flops: s.channels * out * out * s.kernel * s.kernel };
}

export function avgPoolCpu(s: PoolSize): ScheduledOperator {
  const { func } = ops.avgPool2d({ batch: 1, channels: s.channels, height: s.size, width: s.size, kernel: s.kernel, padding: s.padding, stride: s.stride });
  const sch = new Schedule(func);
  scheduleWindowReduction(sch, "PoolSum");
  parallelVectorize(sch, sch.getBlock("PoolAvg"), 3, 16);
  const out = poolOut(s);
  return { name: "avg_pool2d", original: func, scheduled: sch.func, flops: s.channels * out * out * (s.kernel * s.kernel + 1) };
}

/** Inference batch norm on (channels, size, size): channel × row in parallel, rows vectorized. */
export function batchNormCpu(channels: number, size: number): ScheduledOperator {
  const { func } = ops.batchNorm({ channels, height: size, width: size });
  const sch = new Schedule(func);
  parallelVectorize(sch, sch.getBlock("Y"), 2, 16);
  return { name: "batch_norm", original: func, scheduled: sch.func, flops: 4 * channels * size * size };
}
