/**
 * TVM's MultiLevelTiling for CUDA, with the fp32 GEMM knobs as sampled decisions and thread counts
 * sampled in range; how it differs from TVM's: docs/architecture/meta-schedule-notes.md.
 */
import type { Var } from "@tessera/ir";
import type { BlockRV, LoopRV, Schedule } from "@tessera/schedule";
import type { TuneContext } from "../../tune-context.js";
import type { ScheduleRule } from "../../interfaces/schedule-rule.js";
import { batchAxesOf, transposeAxisFor } from "./access-pattern.js";
import {
  COOPERATIVE_FETCH,
  FETCH_THREAD_INNER,
  FETCH_VIA_REGISTERS,
  LAUNCH_BOUNDS,
  OPERAND_SLICES,
  SHARED_TRANSPOSE,
  SHARED_TRANSPOSE_AXIS,
  SOFTWARE_PIPELINE,
  SPLIT_K,
  THREAD_EXTENT_HIGH,
  THREAD_EXTENT_LOW,
  TILING_STRUCTURE,
  VECTORIZE_WRITE_BACK,
} from "../../schedule-utils/annotations.js";
import { needsMultiLevelTiling } from "../../schedule-utils/block-info.js";
import { type LoopSplitter, fuseAll, perfectTileSplitter, tileLoopNest } from "./tiling.js";
import { blockRealizeOf } from "./block-query.js";
import { blocksBesides, geometricMean, gridFillProbabilities, threadsBesides, typicalGridFill } from "./grid-prior.js";
import { SPLIT_K_MIN_ITERATIONS, splitKCandidates } from "./split-k.js";
import { type SpatialTileCandidates, chunkCandidates, spatialTileCandidates } from "./tile-candidates.js";

export interface GpuTilingKnobs {
  /** Sample a staged (global → registers → shared) fetch against a direct one. */
  readonly fetchViaRegisters: boolean;
  /**
   * With `fetchViaRegisters`: sample the thread order of a staged fetch (threads outermost, each
   * thread's elements contiguous, against threads inner, a warp's vectors consecutive).
   */
  readonly fetchThreadOrder: boolean;
  /** Sample caching each thread's operand slices in registers at the inner reduction level. */
  readonly operandSlices: boolean;
  /** Sample a transposed, padded shared tile for operands read across their rows. */
  readonly transposedSharedLayout: boolean;
  /** Sample software pipelining of the k-chunk loop. */
  readonly softwarePipeline: boolean;
  /**
   * Candidates of `launch_bounds_min_blocks_per_sm` (0: none; -1: derived from the kernel's
   * estimated registers by RewriteLaunchBounds; n > 0: at least n blocks); empty leaves it out.
   */
  readonly launchBounds: readonly number[];
}

export const ALL_GPU_TILING_KNOBS: GpuTilingKnobs = {
  fetchViaRegisters: true,
  fetchThreadOrder: true,
  operandSlices: true,
  transposedSharedLayout: true,
  softwarePipeline: true,
  // Whether to bound, not how: the minimum blocks follow from registers × threads (a draw of it
  // independent of the tile sizes mostly asked for spills or for what the kernel had anyway).
  launchBounds: [0, -1],
};

/** TVM's plain CUDA tiling, without the extra knobs. */
export const NO_GPU_TILING_KNOBS: GpuTilingKnobs = {
  fetchViaRegisters: false,
  fetchThreadOrder: false,
  operandSlices: false,
  transposedSharedLayout: false,
  softwarePipeline: false,
  launchBounds: [],
};

export interface MultiLevelTilingOptions {
  readonly structure: string;
  /**
   * How a spatial loop's thread levels are sampled. "perfectTile": TVM's one samplePerfectTile per
   * loop. "range": the threads of the loop (the product of its thread levels) are a sampleCategorical
   * over its divisors in a range that keeps the block's threads within
   * [threadExtentLow, threadExtentHigh] whatever the other loops draw, the register levels after them
   * a sampleCategorical of `registerTiles`, the levels before a perfect tile of the rest (the
   * innermost at most `maxVirtualThreads`) and the thread levels a perfect tile of the threads;
   * the innermost reduction level (the k chunk) a sampleCategorical of the divisors in [4, 16].
   */
  readonly threadSampling: "perfectTile" | "range";
  /** Register tile candidates of a spatial loop (with "range" thread sampling). */
  readonly registerTiles: readonly number[];
  /** Bound on the innermost level before the threads (the virtual threads), with "range" sampling. */
  readonly maxVirtualThreads: number;
  /** Thread axes of the first S levels (TVM's tile_binds); consecutive levels may share one. */
  readonly tileBinds: readonly string[];
  readonly maxInnermostFactor: number;
  /** The same bound for reduction loops (the inner k extent: registers and shared memory per chunk). */
  readonly maxInnermostReduceFactor: number;
  /** Vector widths of cooperative fetches (TVM's vector_load_lens), sampled uniformly. */
  readonly vectorLoadLens: readonly number[];
  /** Structure level (1-based, TVM's ReuseConfig levels) of the shared read caches. */
  readonly readReuseLevel: number;
  /** Structure level (1-based) of the local write cache. */
  readonly writeReuseLevel: number;
  /** Threads per block allowed (VerifyGPUCode checks the annotations). */
  readonly threadExtentLow: number;
  readonly threadExtentHigh: number;
  readonly knobs: GpuTilingKnobs;
  /**
   * The fewest iterations (output elements × reduction depth) of a block for which a split-k design
   * space is offered (`splitKVariant`); Infinity offers none.
   */
  readonly splitKMinIterations: number;
}

/** TVM's CUDA tiling: "SSSRRSRS" over blockIdx, vthread, threadIdx; shared reads at R0, local writes at the thread level. */
export const TVM_CUDA_TILING: MultiLevelTilingOptions = {
  structure: "SSSRRSRS",
  threadSampling: "perfectTile",
  registerTiles: [],
  maxVirtualThreads: 64,
  tileBinds: ["blockIdx.x", "vthread.x", "threadIdx.x"],
  maxInnermostFactor: 64,
  maxInnermostReduceFactor: 64,
  vectorLoadLens: [1, 2, 4],
  readReuseLevel: 4,
  writeReuseLevel: 3,
  threadExtentLow: 64,
  threadExtentHigh: 1024,
  knobs: NO_GPU_TILING_KNOBS,
  splitKMinIterations: Number.POSITIVE_INFINITY,
};

/**
 * Tessera's default ("SSSSRRS"): blockIdx, vthread, threadIdx ×2 (their outer-first fusion is the
 * warp shape), k-chunk, inner k, registers. The threads of each spatial loop are sampled in a range
 * ("range"), so that most samples have 64–1024 threads per block; shared reads at the k-chunk loop
 * (level 5), local writes at the thread loop (level 4), every knob sampled, and a split-k design
 * space for blocks of at least SPLIT_K_MIN_ITERATIONS whose grid cannot fill the GPU.
 */
export const DEFAULT_CUDA_TILING: MultiLevelTilingOptions = {
  structure: "SSSSRRS",
  threadSampling: "range",
  registerTiles: [2, 4, 8],
  maxVirtualThreads: 4,
  tileBinds: ["blockIdx.x", "vthread.x", "threadIdx.x", "threadIdx.x"],
  maxInnermostFactor: 64,
  maxInnermostReduceFactor: 16,
  vectorLoadLens: [1, 2, 4],
  readReuseLevel: 5,
  writeReuseLevel: 4,
  threadExtentLow: 64,
  threadExtentHigh: 1024,
  knobs: ALL_GPU_TILING_KNOBS,
  splitKMinIterations: SPLIT_K_MIN_ITERATIONS,
};

const COIN = [0.5, 0.5];

/** The "range" split's level counts and tile candidates (`rangeLevels`). */
interface RangeLevels {
  readonly sCount: number;
  readonly before: number;
  readonly threadLevels: number;
  readonly after: number;
  readonly candidatesOf: (extent: number) => SpatialTileCandidates;
}

/** A block's tiled spatial loops, the loops kept whole at the grid level, and its grid for the prior. */
interface BlockGrid {
  readonly spatialAxes: number;
  readonly batchLoops: ReadonlySet<Var>;
  readonly grid: GridContext | undefined;
}

/** What the grid prior needs to know of a block: the SM count, its tiled spatial loops, its batch blocks. */
interface GridContext {
  readonly sms: number;
  readonly loops: readonly { readonly loopVar: Var; readonly extent: number }[];
  readonly batchBlocks: number;
}

export class MultiLevelTiling implements ScheduleRule {
  readonly name = "multiLevelTiling";
  constructor(readonly options: MultiLevelTilingOptions = DEFAULT_CUDA_TILING) {
    if ([...options.structure].filter((c) => c === "S").length < options.tileBinds.length) {
      throw new RangeError(`MultiLevelTiling: ${options.tileBinds.length} tile binds need as many S levels in "${options.structure}"`);
    }
  }

  /**
   * The block tiled, and, when its output tiles cannot fill the GPU, a second design space that
   * splits its reduction across the grid first (split-k, `splitKVariant`).
   */
  apply(sch: Schedule, block: BlockRV, ctx: TuneContext): Schedule[] {
    if (!needsMultiLevelTiling(sch, block)) return [sch];
    const splitK = this.splitKVariant(sch, block, ctx);
    this.tile(sch, block, ctx, new Set());
    // The variant before the input, as TVM's AddRFactor returns them (PostOrderApply then lists the input first).
    return splitK === undefined ? [sch] : [splitK, sch];
  }

  /** The spatial loops of `block` and its grid as the prior sees it (`extraBatch`: iterators kept whole). */
  private gridOf(sch: Schedule, block: BlockRV, ctx: TuneContext, extraBatch: ReadonlySet<Var>): BlockGrid {
    const computeBlock = sch.get(block);
    const written = computeBlock.writes[0]!.buffer;
    const operands = computeBlock.reads.filter((r) => r.buffer !== written).map((r) => r.buffer);
    // Batch axes stay whole at the grid level (fused into blockIdx), when that level is the grid.
    const batchAxes =
      this.options.tileBinds[0]?.startsWith("blockIdx") === true ? new Set([...batchAxesOf(computeBlock, operands), ...extraBatch]) : new Set<Var>();
    const batchLoops = new Set<Var>();
    let batchBlocks = 1;
    const spatialLoops = sch.getLoops(block).flatMap((l) => {
      const loop = sch.get(l);
      const axis = computeBlock.iterVars.find((iv) => loopBindsIter(sch, block, loop.loopVar, iv.var));
      const extent = loop.extent.kind === "IntImm" ? loop.extent.value : undefined;
      if (axis !== undefined && batchAxes.has(axis.var)) {
        batchLoops.add(loop.loopVar);
        batchBlocks *= extent ?? 1;
        return [];
      }
      return axis?.iterType === "spatial" && extent !== 1 ? [{ loopVar: loop.loopVar, extent }] : [];
    });
    const grid: GridContext | undefined =
      ctx.target.kind === "cuda" && spatialLoops.every((l) => l.extent !== undefined)
        ? { sms: ctx.target.multiProcessorCount, loops: spatialLoops.map((l) => ({ loopVar: l.loopVar, extent: l.extent! })), batchBlocks }
        : undefined;
    return { spatialAxes: Math.max(1, spatialLoops.length), batchLoops, grid };
  }

  /**
   * Split-k (beyond TVM's CUDA rules; docs/architecture/tvm-deviations-meta-schedule.md): when the
   * grid of typical output tiles fills less than the GPU (grid-prior.ts) and the block has one
   * reduction loop deep enough, a copy of the schedule whose reduction loop is split into a sampled
   * number of parts (SPLIT_K, 2–16) and factored out with `rfactor`: the parts become a grid axis
   * of the tiled rfactor block, which writes partial sums to a global buffer, and the original
   * block, now summing the parts, is bound by the later rules as a second kernel.
   */
  private splitKVariant(sch: Schedule, block: BlockRV, ctx: TuneContext): Schedule | undefined {
    const { spatialAxes, grid } = this.gridOf(sch, block, ctx, new Set());
    const levels = this.options.threadSampling === "range" ? this.rangeLevels(spatialAxes) : undefined;
    if (grid === undefined || levels === undefined) return undefined;
    const axes = grid.loops.map((l) => ({ extent: l.extent, candidates: levels.candidatesOf(l.extent) }));
    if (typicalGridFill(axes, grid.batchBlocks, grid.sms) >= 1) return undefined;
    const node = sch.get(block);
    const loops = sch.getLoops(block);
    const reduceLoops = loops.filter((l) => {
      const loopVar = sch.get(l).loopVar;
      return node.iterVars.some((iv) => iv.iterType === "reduce" && loopBindsIter(sch, block, loopVar, iv.var));
    });
    const iterations = loops.reduce((n, l) => {
      const extent = sch.get(l).extent;
      return n * (extent.kind === "IntImm" ? extent.value : 1);
    }, 1);
    const depth = reduceLoops.length === 1 ? sch.get(reduceLoops[0]!).extent : undefined;
    const parts = depth?.kind === "IntImm" && iterations >= this.options.splitKMinIterations ? splitKCandidates(depth.value) : [];
    if (parts.length === 0) return undefined;
    const variant = sch.copy();
    variant.seed(sch.forkSeed());
    const count = variant.sampleCategorical(
      parts,
      parts.map(() => 1 / parts.length),
    );
    const [outer] = variant.split(reduceLoops[0]!, [count, null]);
    const rf = variant.rfactor(outer, 0);
    variant.annotate(rf, SPLIT_K, count);
    const partAxis = variant.get(rf).writes[0]!.region[0]!.min;
    if (partAxis.kind !== "Var") throw new RangeError(`MultiLevelTiling: rfactor block ${variant.get(rf).name} does not index its parts by an iterator`);
    this.tile(variant, rf, ctx, new Set([partAxis]));
    return variant;
  }

  /** MultiLevelTiling proper: tiles, binds, caches and knobs (`extraBatch`: iterators kept whole at the grid level). */
  private tile(sch: Schedule, block: BlockRV, ctx: TuneContext, extraBatch: ReadonlySet<Var>): void {
    const o = this.options;
    // Decided on the untiled block: which operands a transposed shared tile would help.
    const computeBlock = sch.get(block);
    const written = computeBlock.writes[0]!.buffer;
    const operands = computeBlock.reads.map((r, index) => ({ index, buffer: r.buffer })).filter((r) => r.buffer !== written);
    const transposeAxes = operands.map((r) => (o.knobs.transposedSharedLayout ? transposeAxisFor(computeBlock, r.buffer) : undefined));

    const { spatialAxes, batchLoops, grid } = this.gridOf(sch, block, ctx, extraBatch);
    sch.annotate(block, TILING_STRUCTURE, o.structure);
    const splitSpatial = o.threadSampling === "range" ? this.rangeSplitter(spatialAxes, grid) : perfectTileSplitter(o.maxInnermostFactor);
    const { tiles } = tileLoopNest(sch, block, o.structure, {
      spatial: (s, loop, levels) => (batchLoops.has(s.get(loop).loopVar) ? [loop] : splitSpatial(s, loop, levels)),
      reduce: o.threadSampling === "range" ? this.chunkSplitter() : perfectTileSplitter(o.maxInnermostReduceFactor),
    });
    const blockLoop = this.bindTileLevels(sch, tiles).get("blockIdx.x");

    sch.annotate(block, THREAD_EXTENT_LOW, o.threadExtentLow);
    sch.annotate(block, THREAD_EXTENT_HIGH, o.threadExtentHigh);

    // Write reuse: the accumulators in registers, written back per thread.
    const writeLoop = this.levelLoop(tiles, o.writeReuseLevel);
    const writeBack = sch.cacheWrite(block, 0, "local");
    sch.reverseComputeAt(writeBack, writeLoop, true);
    sch.annotate(writeBack, VECTORIZE_WRITE_BACK, 1);

    // Read reuse: each operand staged in shared memory, fetched by all threads of the block.
    const readLoop = this.levelLoop(tiles, o.readReuseLevel);
    operands.forEach((operand, k) => {
      const shared = sch.cacheRead(block, operand.index, "shared");
      sch.computeAt(shared, readLoop, true);
      // TVM fuses the copy's own loops here; RewriteCooperativeFetch does it, since it needs their extents.
      const lanes = sch.sampleCategorical(
        o.vectorLoadLens,
        o.vectorLoadLens.map(() => 1 / o.vectorLoadLens.length),
      );
      sch.annotate(shared, COOPERATIVE_FETCH, lanes);
      if (o.knobs.fetchViaRegisters) {
        sch.annotate(shared, FETCH_VIA_REGISTERS, sch.sampleCategorical([0, 1], COIN));
        if (o.knobs.fetchThreadOrder) sch.annotate(shared, FETCH_THREAD_INNER, sch.sampleCategorical([0, 1], COIN));
      }
      const axis = transposeAxes[k];
      if (axis !== undefined) {
        sch.annotate(shared, SHARED_TRANSPOSE_AXIS, axis);
        sch.annotate(shared, SHARED_TRANSPOSE, sch.sampleCategorical([0, 1], COIN));
      }
    });

    // The k-chunk loop is where the copies are; the slices go at the next reduction level in.
    const chunkLoop = readLoop;
    const innerR = [...o.structure].findIndex((c, k) => c === "R" && k >= o.readReuseLevel && tiles[k]!.length > 0);
    const sliceLoop = innerR >= 0 ? tiles[innerR]!.at(-1) : undefined;
    if (o.knobs.operandSlices && sliceLoop !== undefined) sch.annotate(sliceLoop, OPERAND_SLICES, sch.sampleCategorical([0, 1], COIN));
    if (o.knobs.softwarePipeline) sch.annotate(chunkLoop, SOFTWARE_PIPELINE, sch.sampleCategorical([0, 1], COIN));
    if (o.knobs.launchBounds.length > 0 && blockLoop !== undefined) {
      const n = o.knobs.launchBounds.length;
      sch.annotate(
        blockLoop,
        LAUNCH_BOUNDS,
        sch.sampleCategorical(
          o.knobs.launchBounds,
          o.knobs.launchBounds.map(() => 1 / n),
        ),
      );
    }
  }

  /**
   * Fuses and binds the first S levels (TVM's tile_binds): the loops of consecutive levels that
   * share an axis are fused together, outer levels first; the last of them holds the fused loop.
   */
  private bindTileLevels(sch: Schedule, tiles: LoopRV[][]): Map<string, LoopRV> {
    const sLevels = [...this.options.structure].flatMap((c, k) => (c === "S" ? [k] : []));
    const bound = new Map<string, LoopRV>();
    const binds = this.options.tileBinds;
    for (let b = 0; b < binds.length; ) {
      let end = b;
      while (end + 1 < binds.length && binds[end + 1] === binds[b]) end++;
      const levels = sLevels.slice(b, end + 1);
      const loops = levels.flatMap((l) => tiles[l]!);
      if (loops.length > 0 && binds[b]!.startsWith("vthread") && levels.length === 1 && loops.length <= 3) {
        // One virtual-thread axis per loop (x innermost), so that lowering shares what a
        // virtual thread's loads do not depend on (TVM fuses them into vthread.x).
        loops.forEach((loop, k) => sch.bind(loop, `vthread.${"xyz"[loops.length - 1 - k]!}`));
        bound.set(binds[b]!, loops[0]!);
      } else if (loops.length > 0) {
        const fused = fuseAll(sch, loops);
        sch.bind(fused, binds[b]!);
        for (const l of levels) tiles[l] = [];
        tiles[levels.at(-1)!] = [fused];
        bound.set(binds[b]!, fused);
      }
      b = end + 1;
    }
    return bound;
  }

  /**
   * The level counts of the "range" split of a spatial loop (before the threads, threads,
   * registers) and the tile candidates of an extent, with `spatialAxes` tiled axes sharing the
   * thread range; undefined when the structure has no thread level after a grid level.
   */
  private rangeLevels(spatialAxes: number): RangeLevels | undefined {
    const o = this.options;
    const sCount = [...o.structure].filter((c) => c === "S").length;
    const isThread = (q: number) => o.tileBinds[q]?.startsWith("threadIdx") === true;
    const first = Array.from({ length: sCount }, (_, q) => q).findIndex(isThread);
    if (first < 1) return undefined;
    const threadLevels = o.tileBinds.slice(first).filter((b) => b.startsWith("threadIdx")).length;
    const after = sCount - first - threadLevels;
    const low = Math.log2(Math.max(1, o.threadExtentLow));
    const high = Math.log2(Math.max(1, o.threadExtentHigh));
    const lo = 2 ** Math.ceil(low / spatialAxes);
    const hi = 2 ** Math.floor(high / spatialAxes);
    const registerTiles = o.registerTiles.filter((r) => r <= o.maxInnermostFactor);
    const candidatesOf = (extent: number): SpatialTileCandidates => {
      const c = spatialTileCandidates(extent, lo, hi, registerTiles);
      return after > 0 && c.registers.length > 0 ? c : { ...c, registers: [1] };
    };
    return { sCount, before: first, threadLevels, after, candidatesOf };
  }

  /**
   * The "range" split of a spatial loop: [levels before the threads] [thread levels] [register
   * levels], the thread product and the register tile sampled from candidates that divide the
   * loop together (or, for extents whose divisors give no real tile, padded powers of two:
   * tile-candidates.ts), weighted by the grid prior when `grid` is known (grid-prior.ts).
   */
  private rangeSplitter(spatialAxes: number, grid: GridContext | undefined): LoopSplitter {
    const o = this.options;
    const range = this.rangeLevels(spatialAxes);
    if (range === undefined) return perfectTileSplitter(o.maxInnermostFactor);
    const { sCount, before, threadLevels, after, candidatesOf } = range;
    const axes = grid?.loops.map((l) => ({ extent: l.extent, candidates: candidatesOf(l.extent) }));
    return (sch, loop, levels) => {
      if (levels !== sCount) return perfectTileSplitter(o.maxInnermostFactor)(sch, loop, levels);
      const { loopVar, extent } = sch.get(loop);
      if (extent.kind !== "IntImm") return perfectTileSplitter(o.maxInnermostFactor)(sch, loop, levels);
      const { threads, registers } = candidatesOf(extent.value);
      const self = grid?.loops.findIndex((l) => l.loopVar === loopVar) ?? -1;
      // Each candidate tile with the threads per block it gives (the other axes at typical threads).
      const weigh = (tiles: readonly number[], blockThreads: readonly number[]): number[] =>
        self < 0
          ? tiles.map(() => 1 / tiles.length)
          : gridFillProbabilities(extent.value, tiles, blockThreads, blocksBesides(axes!, self, grid!.batchBlocks), grid!.sms);
      const others = self < 0 ? 1 : threadsBesides(axes!, self);
      const t = sch.sampleCategorical(
        threads,
        weigh(
          threads.map((x) => x * geometricMean(registers)),
          threads.map((x) => x * others),
        ),
      );
      const r =
        after > 0
          ? sch.sampleCategorical(
              registers,
              weigh(
                registers.map((x) => x * geometricMean(threads)),
                registers.map(() => geometricMean(threads) * others),
              ),
            )
          : undefined;
      const [outer, thread, register] = sch.split(loop, r === undefined ? [null, t] : [null, t, r]);
      return [
        ...perfectTileSplitter(o.maxVirtualThreads)(sch, outer!, before),
        ...perfectTileSplitter(32)(sch, thread!, threadLevels),
        ...(after > 0 ? perfectTileSplitter(o.maxInnermostFactor)(sch, register!, after) : []),
      ];
    };
  }

  /**
   * The "range" split of a reduction loop: the innermost level (the k chunk staged in shared memory
   * at a time) a sampleCategorical over the loop's divisors in [4, maxInnermostReduceFactor] (fewer
   * when the loop has none), the outer levels a perfect tile of the rest. Chunks of at least 4 make
   * the fetched tiles large enough for the block's threads to divide them.
   */
  private chunkSplitter(): LoopSplitter {
    const cap = this.options.maxInnermostReduceFactor;
    return (sch, loop, levels) => {
      const extent = sch.get(loop).extent;
      if (levels < 2 || extent.kind !== "IntImm") return perfectTileSplitter(cap)(sch, loop, levels);
      const chunks = chunkCandidates(extent.value, cap);
      const chunk = sch.sampleCategorical(
        chunks,
        chunks.map(() => 1 / chunks.length),
      );
      const [outer, inner] = sch.split(loop, [null, chunk]);
      return [...perfectTileSplitter(cap)(sch, outer!, levels - 1), inner!];
    };
  }

  /** The innermost loop of structure level `level` (1-based), after the bound levels were fused. */
  private levelLoop(tiles: LoopRV[][], level: number): LoopRV {
    for (let l = level - 1; l >= 0; l--) {
      const loop = tiles[l]!.at(-1);
      if (loop !== undefined) return loop;
    }
    throw new RangeError(`MultiLevelTiling: structure level ${level} has no loop`);
  }
}

/** Whether the block's binding of iterator `iter` is the loop variable `loopVar` (trivial bindings). */
function loopBindsIter(sch: Schedule, block: BlockRV, loopVar: Var, iter: Var): boolean {
  const node = sch.get(block);
  const realize = blockRealizeOf(sch.func, node.name);
  const k = node.iterVars.findIndex((iv) => iv.var === iter);
  return realize !== undefined && k >= 0 && realize.iterValues[k] === loopVar;
}

export function multiLevelTiling(options: Partial<MultiLevelTilingOptions> = {}): MultiLevelTiling {
  return new MultiLevelTiling({ ...DEFAULT_CUDA_TILING, ...options });
}
