/**
 * Schedule parameters of the d2l CPU schedules derived from the shape, the way the book picks its
 * tiling factors per size: tiles that divide the loop extents (no ragged tail guards in the inner
 * loops), a vectorized tile of whole SIMD vectors, enough parallel iterations to keep every core
 * busy, and no parallel region at all where the work is too small to pay for one.
 *
 * Why the last rule matters: a parallel region costs a fork and a join (with OpenMP's passive
 * waiting, the runtime's default, waking the team), measured at tens of µs per region on an idle
 * 2-core machine and up to milliseconds when other processes hold the cores (the worker waits to be
 * scheduled). A 16-channel 64×64 conv2d runs in about 0.14 ms on one core: its two regions
 * (padding, convolution) made it slower than serial even on the idle machine, and 10× slower
 * under load (docs/benchmarks/cpu-operators.md). The region cost and the L1 size are probed on the
 * machine (@tessera/schedule/machine); an explicit core count sizes for the reference machine (machineFor).
 */
import { type Work, machineFor, worthParallel } from "@tessera/schedule/machine";
import { DEFAULT_MACHINE, hostCores } from "./machine.js";

export { hostCores } from "./machine.js";
export { CORE_BYTES_PER_US, CORE_FLOPS_PER_US, PARALLEL_PAYOFF, type Work, estimatedMicros, machineFor, worthParallel } from "@tessera/schedule/machine";

/** The reference machine's cost of one parallel region (fork, join, a straggling thread); others are probed (@tessera/schedule/machine). */
export const PARALLEL_REGION_COST_US = DEFAULT_MACHINE.parallelRegionUs;
/** The reference machine's L1 data cache per core (48 KiB, an AMD EPYC); others are probed (@tessera/schedule/machine). */
export const L1_DATA_BYTES = DEFAULT_MACHINE.l1DataBytes;
/** Parallel iterations per core to aim for (TVM's ParallelizeVectorizeUnroll caps at 16 per core). */
export const JOBS_PER_CORE = 16;

function requirePositiveInteger(what: string, n: number): void {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`${what} must be a positive integer, got ${n}`);
}

/** The largest divisor of `n` that is at most `max` (1 when max < 1). */
export function largestDivisorAtMost(n: number, max: number): number {
  requirePositiveInteger("largestDivisorAtMost: n", n);
  for (let d = Math.min(n, Math.floor(max)); d > 1; d--) if (n % d === 0) return d;
  return 1;
}

/**
 * The vectorized tile of a loop of `extent` iterations: the largest multiple of `lanes` up to
 * `maxLanes × lanes` that divides the extent; else half a vector (`lanes / 2`, …) if one divides;
 * else the largest divisor up to `lanes` (a short loop the compiler still vectorizes, no tail).
 */
export function chooseVectorTile(extent: number, lanes = 16, maxVectors = 1): number {
  requirePositiveInteger("chooseVectorTile: extent", extent);
  requirePositiveInteger("chooseVectorTile: lanes", lanes);
  for (let v = maxVectors; v >= 1; v--) if (extent % (v * lanes) === 0) return v * lanes;
  for (let w = lanes >> 1; w >= 4; w >>= 1) if (extent % w === 0) return w;
  return largestDivisorAtMost(extent, lanes);
}

/**
 * How many of the outer loops (extents outermost first) to fuse into the parallel loop: the fewest
 * whose product reaches JOBS_PER_CORE × cores, or all of them when none does.
 */
export function parallelLoopCount(extents: readonly number[], cores = hostCores()): number {
  if (extents.length === 0) throw new RangeError("parallelLoopCount: no loops to parallelize");
  let product = 1;
  for (let k = 0; k < extents.length; k++) {
    requirePositiveInteger(`parallelLoopCount: extent ${k}`, extents[k]!);
    product *= extents[k]!;
    if (product >= JOBS_PER_CORE * cores) return k + 1;
  }
  return extents.length;
}

export interface ConvTiles {
  /**
   * Which register-tile dimension is vectorized. "columns": output columns in SIMD lanes, output
   * channels unrolled, each weight broadcast from W's own layout. "channels" (the book's packed
   * schedule): the weights are first packed with a block of output channels innermost, output
   * channels in SIMD lanes, columns unrolled, each input pixel broadcast — chosen when the weights
   * one column tile reads (ocTile × inChannels × kernel², 16 scattered rows of W) outgrow L1
   * twice over.
   */
  readonly vectorized: "columns" | "channels";
  /** Output channels of the register tile: divides the output channels. */
  readonly ocTile: number;
  /** Output columns of the register tile: divides the output width. */
  readonly owTile: number;
  /** Whether the convolution's outer loops run in parallel. */
  readonly parallel: boolean;
  /** Whether the padding stage runs in parallel. */
  readonly parallelPadding: boolean;
  /** Whether the weight packing (vectorized "channels" only) runs in parallel. */
  readonly parallelPacking: boolean;
}

export interface ConvShape {
  readonly inChannels: number;
  readonly outChannels: number;
  /** Padded input height and width. */
  readonly paddedHeight: number;
  readonly paddedWidth: number;
  readonly outHeight: number;
  readonly outWidth: number;
  readonly kernel: number;
}

/**
 * Register tile and parallelism of a direct conv2d: `ocTile × owTile` accumulators with at most
 * `maxRows` rows (one vector register per row and vector of columns: 16 rows of one AVX-512
 * vector fill half the register file), factors dividing the extents; parallel only where it pays.
 */
export function chooseConvTiles(
  shape: ConvShape,
  opts: { cores?: number; lanes?: number; maxRows?: number; vectorized?: ConvTiles["vectorized"] } = {},
): ConvTiles {
  const machine = machineFor(opts.cores);
  const cores = machine.cores;
  const lanes = opts.lanes ?? 16;
  const maxRows = opts.maxRows ?? 16;
  const rowsTile = largestDivisorAtMost(shape.outChannels, maxRows);
  const weightBlockBytes = 4 * rowsTile * shape.inChannels * shape.kernel * shape.kernel;
  // Measured crossover on the benchmark machine (conv2d 64×64 3×3): at 1.5× L1 (128 channels) the
  // two schedules were even, at 3× L1 (256 channels) packing was 1.2-2× faster under load.
  const vectorized = opts.vectorized ?? (weightBlockBytes > 2 * machine.l1DataBytes && shape.outChannels % lanes === 0 ? "channels" : "columns");
  const ocTile = vectorized === "channels" ? chooseVectorTile(shape.outChannels, lanes) : rowsTile;
  const owTile = vectorized === "channels" ? largestDivisorAtMost(shape.outWidth, maxRows) : chooseVectorTile(shape.outWidth, lanes);
  const outputs = shape.outChannels * shape.outHeight * shape.outWidth;
  const conv: Work = {
    flops: 2 * outputs * shape.inChannels * shape.kernel * shape.kernel,
    bytes: 4 * (outputs + shape.inChannels * shape.paddedHeight * shape.paddedWidth),
  };
  const padded = shape.inChannels * shape.paddedHeight * shape.paddedWidth;
  const weights = shape.outChannels * shape.inChannels * shape.kernel * shape.kernel;
  return {
    vectorized,
    ocTile,
    owTile,
    parallel: worthParallel(conv, cores, machine),
    parallelPadding: worthParallel({ flops: 0, bytes: 8 * padded }, cores, machine),
    parallelPacking: worthParallel({ flops: 0, bytes: 8 * weights }, cores, machine),
  };
}
