/**
 * The CPU schedules of "Dive into Deep Learning Compiler" (the CPU half: vector add, broadcast
 * add, matmul, conv2d, depthwise conv2d, pooling, batch norm) written with Tessera's schedule
 * primitives: outer loops `parallel` (OpenMP), inner loops `vectorize` (SIMD), small inner loops
 * `unroll`, and for the reductions (matmul, convolutions) a register tile: the output block is
 * accumulated in a `local` buffer (`cacheWrite`), initialised by `decomposeReduction`.
 *
 * Tile factors and parallelism come from the shape (factors.ts): factors that divide
 * the extents, and a parallel region only where the work pays for one.
 *
 * Each builder returns the unscheduled function (for the JS executor) and the scheduled one.
 */
import { type PrimFunc, floordiv, floormod, ops } from "@tessera/ir";
import { type BlockRV, type LoopRV, Schedule } from "@tessera/schedule";
import type { MachineProfile } from "./machine.js";
import { type Work, chooseConvTiles, chooseVectorTile, hostCores, machineFor, parallelLoopCount, worthParallel } from "./factors.js";

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

/**
 * How the builders use the cores: `cores` (default: this machine's) sizes the parallel loop;
 * `parallel` forces parallel regions on (true) or off (false) instead of deciding from the work.
 */
export interface CpuScheduleOptions {
  readonly cores?: number;
  readonly parallel?: boolean;
}

function coresOf(opts: CpuScheduleOptions): number {
  return opts.cores ?? hostCores();
}

function wantParallel(opts: CpuScheduleOptions, work: Work): boolean {
  return opts.parallel ?? worthParallel(work, opts.cores);
}

function extentOf(sch: Schedule, loop: LoopRV): number {
  const e = sch.get(loop).extent;
  return e.kind === "IntImm" ? e.value : 1;
}

/** Fuses the leading `candidates` (outermost first, directly nested) that give enough parallel iterations, and makes that loop parallel. */
function parallelizeOuter(sch: Schedule, candidates: readonly LoopRV[], cores: number): void {
  const count = parallelLoopCount(
    candidates.map((l) => extentOf(sch, l)),
    cores,
  );
  const outer = candidates.slice(0, count);
  sch.parallel(outer.length > 1 ? sch.fuse(...outer) : outer[0]!);
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

/**
 * The innermost data-parallel loop vectorized (split into whole vectors where its extent allows),
 * the outer `parallelDims` loops (as many as needed) fused and parallel when `parallel`.
 */
function parallelVectorize(sch: Schedule, block: BlockRV, parallelDims: number, lanes: number, parallel: boolean, cores: number): void {
  const ls = loops(sch, block);
  const inner = ls[ls.length - 1]!;
  const extent = extentOf(sch, inner);
  const tile = chooseVectorTile(extent, lanes);
  if (extent > tile) {
    const [, vi] = split2(sch, inner, tile);
    sch.vectorize(vi);
  } else sch.vectorize(inner);
  if (parallel) parallelizeOuter(sch, ls.slice(0, parallelDims), cores);
}

/** `C = A + B` of n elements: parallel chunks (where n is large enough), vectorized inside. */
export function vectorAddCpu(n: number, lanes = 16, opts: CpuScheduleOptions = {}): ScheduledOperator {
  const { func } = ops.vectorAdd(n);
  const sch = new Schedule(func);
  const c = sch.getBlock("C");
  const [i] = loops(sch, c);
  const [io, ii] = split2(sch, i!, lanes);
  if (wantParallel(opts, { flops: n, bytes: 12 * n })) sch.parallel(io);
  sch.vectorize(ii);
  return { name: "vector_add", original: func, scheduled: sch.func, flops: n };
}

/** `C = A + B` with A (n, 1), B (n, m): rows in parallel (where large enough), columns vectorized. */
export function broadcastAddCpu(n: number, m: number, lanes = 16, opts: CpuScheduleOptions = {}): ScheduledOperator {
  const { func } = ops.broadcastAdd([n, 1], [n, m]);
  const sch = new Schedule(func);
  const parallel = wantParallel(opts, { flops: n * m, bytes: 8 * n * m });
  parallelVectorize(sch, sch.getBlock("C"), 1, lanes, parallel, coresOf(opts));
  return { name: "broadcast_add", original: func, scheduled: sch.func, flops: n * m };
}

export interface MatmulTiles {
  /** Rows of the register tile (unrolled). */
  readonly mr: number;
  /** Columns of the register tile (vectorized). */
  readonly nr: number;
}

/** The reference machine's register tile (AVX-512: 8 rows × 2 vectors of 16 lanes). */
export const DEFAULT_MATMUL_TILES: MatmulTiles = { mr: 8, nr: 32 };

/**
 * The register tile for a machine's SIMD width: 8 rows × 2 vectors (16 accumulators). With AVX2 (32-byte
 * vectors) that is 8×16: measured faster than 8×32 (32 accumulators, spilled) at 64³–256³ and than 4×16
 * or 6×16 (the latter's tail rows are guarded) on the 2-core reference machine of 2026-11-29.
 */
export function matmulTilesFor(machine: MachineProfile): MatmulTiles {
  return { mr: 8, nr: 2 * Math.max(1, machine.simdBytes / 4) };
}

/** matmulCpu's options: the machine (CpuScheduleOptions) and whether B is packed into column panels. */
export interface MatmulOptions extends CpuScheduleOptions {
  /** Pack B (default: when B outgrows the L2 cache and `nr` divides its columns). */
  readonly pack?: boolean;
}

/**
 * `C = A·B` (n×l times l×m), as the book's blocked matmul with packing: B is first copied into
 * panels of `nr` columns (`PackedB[j / nr, k, j % nr]`, so the reduction walks each panel
 * contiguously); then C's (mr × nr) tiles, over row blocks, are each accumulated in a
 * local register tile over the whole reduction (rows unrolled, columns vectorized) and written back.
 * Sized from the work and the machine: the register tile from the SIMD width (matmulTilesFor), the
 * row blocks in parallel only where that pays for a region, the packing only where B outgrows L2
 * (a panel read in place from a B that fits in L2 was as fast at 256³ and twice as fast at 128³,
 * where the copy is a fifth of the work), and in a region of its own only where copying B pays
 * for one, so small products make one region per call or none.
 */
export function matmulCpu(n: number, m = n, l = n, tilesOrDefault?: MatmulTiles, opts: MatmulOptions = {}): ScheduledOperator {
  const { func } = ops.matmul(n, m, l);
  const sch = new Schedule(func);
  const c = sch.getBlock("C");
  const machine = machineFor(opts.cores);
  const tiles = tilesOrDefault ?? matmulTilesFor(machine);
  const bBytes = 4 * l * m;
  const pack = m % tiles.nr === 0 && (opts.pack ?? bBytes > machine.l2Bytes);
  if (pack) {
    const packed = sch.cacheRead(c, 1, "global");
    sch.transformLayout(packed, ["write", 0], (k, j) => [floordiv(j!, tiles.nr), k!, floormod(j!, tiles.nr)]);
    const [pk, pj] = loops(sch, packed) as [LoopRV, LoopRV];
    if (wantParallel(opts, { flops: 0, bytes: 2 * bBytes })) sch.parallel(pk);
    // One panel row at a time: the copy writes whole vectors (no division in the vectorized index).
    sch.vectorize(split2(sch, pj, tiles.nr)[1]);
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
  if (wantParallel(opts, { flops: 2 * n * m * l, bytes: 4 * (n * l + l * m + n * m) })) sch.parallel(io);
  sch.decomposeReduction(c, k);
  return { name: "matmul", original: func, scheduled: sch.func, flops: 2 * n * m * l };
}

/** The padding stage (if any): the padded row vectorized, rows in parallel when `parallel`. */
function schedulePad(sch: Schedule, parallel: boolean, cores: number): void {
  if (!hasBlock(sch, "PaddedX")) return;
  parallelVectorize(sch, sch.getBlock("PaddedX"), 3, 16, parallel, cores);
}

function convShape(s: ConvSize): { outSize: number; paddedSize: number } {
  const paddedSize = s.size + 2 * s.padding;
  return { paddedSize, outSize: paddedSize - s.kernel + 1 };
}

export interface ConvSize {
  readonly channels: number;
  /** Height and width of the input. */
  readonly size: number;
  readonly kernel: number;
  readonly padding: number;
}

/** Overrides of conv2dCpu's shape-derived register tile. */
export interface ConvTileOverrides {
  readonly vectorized?: "columns" | "channels";
  readonly ocTile?: number;
  readonly owTile?: number;
}

/**
 * conv2d (batch 1, NCHW, stride 1): an (ocTile × owTile) register tile of Y per (output channel
 * block, output row, column block), accumulated over (ric, rkh, rkw); blocks × rows in parallel
 * where the work pays for it. Vectorized "columns": channel rows unrolled, columns in SIMD lanes.
 * Vectorized "channels" (many input channels): the weights packed with the output-channel block
 * innermost, channels in SIMD lanes, columns unrolled. The tile divides the output channels and
 * width (chooseConvTiles) unless overridden.
 */
export function conv2dCpu(s: ConvSize, tiles: ConvTileOverrides = {}, opts: CpuScheduleOptions = {}): ScheduledOperator {
  const { func } = ops.conv2d({
    batch: 1,
    inChannels: s.channels,
    outChannels: s.channels,
    height: s.size,
    width: s.size,
    kernel: s.kernel,
    padding: s.padding,
  });
  const { outSize, paddedSize } = convShape(s);
  const cores = coresOf(opts);
  const chosen = chooseConvTiles(
    {
      inChannels: s.channels,
      outChannels: s.channels,
      paddedHeight: paddedSize,
      paddedWidth: paddedSize,
      outHeight: outSize,
      outWidth: outSize,
      kernel: s.kernel,
    },
    { cores, ...(tiles.vectorized === undefined ? {} : { vectorized: tiles.vectorized }) },
  );
  const vectorized = chosen.vectorized;
  const ocTile = tiles.ocTile ?? chosen.ocTile;
  const owTile = tiles.owTile ?? chosen.owTile;
  const sch = new Schedule(func);
  const y = sch.getBlock("Y");
  if (vectorized === "channels") {
    // The book's packed weights: PackedW[o / ocTile, i, kh, kw, o % ocTile], a contiguous vector of output channels per tap.
    const pack = sch.cacheRead(y, 1, "global");
    sch.transformLayout(pack, ["write", 0], (o, ic, kh, kw) => [floordiv(o!, ocTile), ic!, kh!, kw!, floormod(o!, ocTile)]);
    if (opts.parallel ?? chosen.parallelPacking) parallelizeOuter(sch, loops(sch, pack).slice(0, 2), cores);
  }
  schedulePad(sch, opts.parallel ?? chosen.parallelPadding, cores);
  const writeBack = sch.cacheWrite(y, 0, "local");
  const [n, c, i, j, ric, rkh, rkw] = loops(sch, y) as [LoopRV, LoopRV, LoopRV, LoopRV, LoopRV, LoopRV, LoopRV];
  const [co, ci] = split2(sch, c, ocTile);
  const [jo, ji] = split2(sch, j, owTile);
  if (vectorized === "channels") {
    // Output channels in SIMD lanes: the local tile is stored column-major so a column's channels are one vector.
    sch.reorder(n, co, i, jo, ric, rkh, rkw, ji, ci);
    sch.reverseComputeAt(writeBack, jo);
    sch.transformLayout(y, ["write", 0], (b, ch, h, w) => [b!, h!, w!, ch!]);
    sch.unroll(ji);
    sch.vectorize(ci);
  } else {
    sch.reorder(n, co, i, jo, ric, rkh, rkw, ci, ji);
    sch.reverseComputeAt(writeBack, jo);
    sch.unroll(ci);
    sch.vectorize(ji);
  }
  if (opts.parallel ?? chosen.parallel) parallelizeOuter(sch, [n, co, i, jo], cores);
  sch.decomposeReduction(y, ric);
  return { name: "conv2d", original: func, scheduled: sch.func, flops: 2 * s.channels * s.channels * outSize * outSize * s.kernel * s.kernel };
}

/** Depthwise conv2d (batch 1, stride 1): per (channel, row) in parallel, a vectorized row tile accumulated over the window. */
export function depthwiseConv2dCpu(s: ConvSize, owTile?: number, opts: CpuScheduleOptions = {}): ScheduledOperator {
  const { func } = ops.depthwiseConv2d({ batch: 1, channels: s.channels, height: s.size, width: s.size, kernel: s.kernel, padding: s.padding });
  const { outSize, paddedSize } = convShape(s);
  const cores = coresOf(opts);
  const padded = s.channels * paddedSize * paddedSize;
  const outputs = s.channels * outSize * outSize;
  const parallel = wantParallel(opts, { flops: 2 * outputs * s.kernel * s.kernel, bytes: 4 * (outputs + padded) });
  const sch = new Schedule(func);
  schedulePad(sch, wantParallel(opts, { flops: 0, bytes: 8 * padded }), cores);
  const y = sch.getBlock("Y");
  const writeBack = sch.cacheWrite(y, 0, "local");
  const [n, c, i, j, rkh, rkw] = loops(sch, y) as [LoopRV, LoopRV, LoopRV, LoopRV, LoopRV, LoopRV];
  const [jo, ji] = split2(sch, j, owTile ?? chooseVectorTile(outSize, 16, 2));
  sch.reorder(n, c, i, jo, rkh, rkw, ji);
  sch.reverseComputeAt(writeBack, jo);
  sch.unroll(rkw);
  sch.vectorize(ji);
  if (parallel) parallelizeOuter(sch, [n, c, i], cores);
  sch.decomposeReduction(y, rkh);
  return { name: "depthwise_conv2d", original: func, scheduled: sch.func, flops: 2 * s.channels * outSize * outSize * s.kernel * s.kernel };
}

export interface PoolSize extends ConvSize {
  readonly stride: number;
}

/** A window reduction (PoolMax, PoolSum): padding stage first, window loops outside the vectorized output row. */
function scheduleWindowReduction(sch: Schedule, blockName: string, parallel: boolean, cores: number): void {
  // A padding stage of its own, as the book has: inlined, every window read carried a bounds
  // check that kept gcc from vectorizing the row (max pooling measured 2-3× slower).
  schedulePad(sch, parallel, cores);
  const b = sch.getBlock(blockName);
  const [n, c, h, w, rkh, rkw] = loops(sch, b) as [LoopRV, LoopRV, LoopRV, LoopRV, LoopRV, LoopRV];
  sch.reorder(n, c, h, rkh, rkw, w);
  sch.vectorize(w);
  if (parallel) parallelizeOuter(sch, [n, c, h], cores);
  sch.decomposeReduction(b, rkh);
}

function poolOut(s: PoolSize): number {
  return Math.floor((s.size + 2 * s.padding - s.kernel) / s.stride) + 1;
}

/** A pooling's work: a window of reads per output, the input and output streamed once. */
function poolWork(s: PoolSize): Work {
  const outputs = s.channels * poolOut(s) ** 2;
  return { flops: outputs * s.kernel * s.kernel, bytes: 4 * (outputs + s.channels * s.size * s.size) };
}

export function maxPoolCpu(s: PoolSize, opts: CpuScheduleOptions = {}): ScheduledOperator {
  const { func } = ops.maxPool2d({ batch: 1, channels: s.channels, height: s.size, width: s.size, kernel: s.kernel, padding: s.padding, stride: s.stride });
  const sch = new Schedule(func);
  scheduleWindowReduction(sch, "PoolMax", wantParallel(opts, poolWork(s)), coresOf(opts));
  const out = poolOut(s);
  return { name: "max_pool2d", original: func, scheduled: sch.func, flops: s.channels * out * out * s.kernel * s.kernel };
}

export function avgPoolCpu(s: PoolSize, opts: CpuScheduleOptions = {}): ScheduledOperator {
  const { func } = ops.avgPool2d({ batch: 1, channels: s.channels, height: s.size, width: s.size, kernel: s.kernel, padding: s.padding, stride: s.stride });
  const sch = new Schedule(func);
  const parallel = wantParallel(opts, poolWork(s));
  scheduleWindowReduction(sch, "PoolSum", parallel, coresOf(opts));
  parallelVectorize(sch, sch.getBlock("PoolAvg"), 3, 16, parallel, coresOf(opts));
  const out = poolOut(s);
  return { name: "avg_pool2d", original: func, scheduled: sch.func, flops: s.channels * out * out * (s.kernel * s.kernel + 1) };
}

/** Inference batch norm on (channels, size, size): channel × row in parallel, rows vectorized. */
export function batchNormCpu(channels: number, size: number, opts: CpuScheduleOptions = {}): ScheduledOperator {
  const { func } = ops.batchNorm({ channels, height: size, width: size });
  const sch = new Schedule(func);
  const elements = channels * size * size;
  const parallel = wantParallel(opts, { flops: 4 * elements, bytes: 8 * elements });
  parallelVectorize(sch, sch.getBlock("Y"), 2, 16, parallel, coresOf(opts));
  return { name: "batch_norm", original: func, scheduled: sch.func, flops: 4 * channels * size * size };
}
