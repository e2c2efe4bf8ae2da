/**
 * The Hopper wgmma design space of MultiLevelTilingTensorCore (beyond TVM, which has no wgmma
 * group): the structure of the hand schedule `wgmmaGemmSchedule` (@tessera/corpus), its constants
 * turned into sampled decisions, so that the hand schedule's configuration is one point of the space.
 *
 * The matmul block is split into 16×N×16 tiles (N of the m64nNk16 instruction, sampled), blockized;
 * each block runs `warps` warps on threadIdx.y (whole warpgroups of 4, sampled), a warp's 16-row
 * slice of the 64-row warpgroup tile per tile; the k tiles go in chunks of 64 (the 128 bytes of one
 * swizzle row of A). A and B are fetched per chunk into dynamic shared memory with 16-byte
 * cooperative copies (cp.async once pipelined) and take wgmma's 128B-swizzled layouts (A K-major,
 * B MN-major: `WGMMA_SHARED_LAYOUT`, applied by RewriteSharedLayout once the tile has its shape);
 * the accumulator lives in registers in the wgmma fragment layout, zero-filled and stored 16×16
 * tile by tile. The k-chunk loop is software-pipelined 1, 3 or 4 stages deep (sampled: the copies
 * run stages − 2 chunks ahead while one chunk of wgmmas is in flight; RewriteSoftwarePipeline).
 * A pipelined k loop loads its chunks with cp.async by every thread or with TMA (one thread's boxes
 * on mbarriers, lowerTmaCopy), sampled (`meta_schedule.software_pipeline_tma`; no effect unpipelined).
 * The wgmma's intrinsic depends on the sampled N, so the compute block is annotated with every
 * group intrinsic: RewriteTensorize applies the one whose description matches the block.
 */
import type { BlockRV, ExprRV, LoopRV, Schedule } from "@tessera/schedule";
import { wgmmaAccumulatorLayout } from "@tessera/schedule";
import {
  AUTO_TENSORIZE,
  COOPERATIVE_FETCH,
  SOFTWARE_PIPELINE,
  SOFTWARE_PIPELINE_ASYNC,
  SOFTWARE_PIPELINE_TMA,
  THREAD_EXTENT_HIGH,
  THREAD_EXTENT_LOW,
  TILING_STRUCTURE,
  WARP_EXECUTION,
  WGMMA_SHARED_LAYOUT,
} from "../../schedule-utils/annotations.js";
import { storeIntrinsicWithEpilogue } from "./cast-epilogue.js";
import type { MatmulMatch, WgmmaIntrinGroup } from "./intrin-group.js";
import { tileLoop, uniform } from "./sampling-and-tiles.js";

/** Rows of a warp's accumulator slice; the warps of one warpgroup. */
const TILE = 16;
const WARPS_PER_GROUP = 4;
const WARP_SIZE = 32;

/** The wgmma space's sampled ranges (MultiLevelTilingTensorCoreOptions.wgmma). */
export interface WgmmaSpaceOptions {
  /** Warpgroups per block sampled (each a 64-row slice of the block tile). */
  readonly warpgroups: readonly number[];
  /** Pipeline depths sampled: 1 (none) or s ≥ 3 (s shared stages, s − 2 fetched ahead). */
  readonly pipelineStages: readonly number[];
  /** How a pipeline's chunks are loaded, sampled (default both): cp.async by every thread, or TMA. */
  readonly loads?: readonly WgmmaLoad[];
}

export type WgmmaLoad = "cp.async" | "tma";

/** 1 or 2 warpgroups (more: a 64×64 fetch is not whole 16-byte copies by 384 threads); 1, 3 or 4 stages; cp.async or TMA. */
export const DEFAULT_WGMMA_SPACE: WgmmaSpaceOptions = { warpgroups: [1, 2], pipelineStages: [1, 3, 4], loads: ["cp.async", "tma"] };

/** Checks the wgmma options: positive warpgroup counts, and stages of 1 or at least 3, naming the bad value. */
export function checkWgmmaSpaceOptions(o: WgmmaSpaceOptions): void {
  if (o.warpgroups.length === 0 || o.warpgroups.some((w) => !Number.isInteger(w) || w < 1))
    throw new RangeError(`MultiLevelTilingTensorCore: wgmma.warpgroups must be positive integers, got [${o.warpgroups.join(", ")}]`);
  if (o.pipelineStages.length === 0 || o.pipelineStages.some((s) => !Number.isInteger(s) || s < 1 || s === 2))
    throw new RangeError(
      `MultiLevelTilingTensorCore: wgmma.pipelineStages must be 1 or integers ≥ 3 (2 stages fetch nothing ahead of the asynchronous wgmmas), got [${o.pipelineStages.join(", ")}]`,
    );
  const loads = o.loads ?? [];
  if ((o.loads !== undefined && loads.length === 0) || loads.some((l) => l !== "cp.async" && l !== "tma"))
    throw new RangeError(`MultiLevelTilingTensorCore: wgmma.loads must be "cp.async" or "tma", got [${loads.join(", ")}]`);
}

/** The warps per block the wgmma spaces sample: whole warpgroups whose 16-row slices tile `iExtent` rows, within `maxThreads`. */
export function wgmmaWarpCounts(o: WgmmaSpaceOptions, iExtent: number, maxThreads: number): number[] {
  return o.warpgroups.map((w) => w * WARPS_PER_GROUP).filter((w) => iExtent % (w * TILE) === 0 && w * WARP_SIZE <= maxThreads);
}

/**
 * Binds a wgmma space's loops, the block tiles (`i0`, `jOuter`, fused) to blockIdx.x and the warps
 * (`i1`) to threadIdx.y, and marks the blockized `tile` as run by whole warpgroups.
 */
export function bindWarpgroupTiles(sch: Schedule, tile: BlockRV, i0: LoopRV, jOuter: LoopRV, i1: LoopRV, maxThreads: number): void {
  sch.bind(sch.fuse(i0, jOuter), "blockIdx.x");
  sch.bind(i1, "threadIdx.y");
  sch.annotate(tile, WARP_EXECUTION, 1);
  sch.annotate(tile, THREAD_EXTENT_LOW, WARPS_PER_GROUP * WARP_SIZE);
  sch.annotate(tile, THREAD_EXTENT_HIGH, maxThreads);
}

/**
 * Samples the software pipeline of a wgmma space's chunk loop `k0` (lag = stages − 2 chunks between
 * the copies and the wgmmas that read them; 0: no pipeline) and marks its loads asynchronous;
 * returns the lags sampled from.
 */
export function sampleWgmmaPipeline(sch: Schedule, k0: LoopRV, o: WgmmaSpaceOptions): number[] {
  const lags = o.pipelineStages.map((s) => (s === 1 ? 0 : s - 2));
  sch.annotate(k0, SOFTWARE_PIPELINE, sch.sampleCategorical(lags, uniform(lags.length)) as ExprRV);
  sch.annotate(k0, SOFTWARE_PIPELINE_ASYNC, 1);
  return lags;
}

/**
 * Tiles `block` (a matmul `match` says its group computes) for wgmma as the module comment says;
 * returns false, with `sch` untouched, when no sampled configuration tiles the block's extents.
 */
export function applyWgmmaTiling(sch: Schedule, block: BlockRV, match: MatmulMatch<WgmmaIntrinGroup>, o: WgmmaSpaceOptions, maxThreads: number): boolean {
  const { group } = match;
  const [iExtent, jExtent, kExtent] = match.extents;
  const ns = group.n.filter((n) => jExtent % n === 0);
  const warpCounts = wgmmaWarpCounts(o, iExtent, maxThreads);
  if (ns.length === 0 || warpCounts.length === 0 || kExtent % group.stageK !== 0) return false;

  const n = sch.sampleCategorical(ns, uniform(ns.length));
  const warps = sch.sampleCategorical(warpCounts, uniform(warpCounts.length));
  const [i, j, k] = sch.getLoops(block).slice(-3);
  const [iOuter, iTile] = sch.split(i, [null, TILE]);
  const [jOuter, jTile] = sch.split(j, [null, n]);
  const [kOuter, kTile] = sch.split(k, [null, group.k]);
  sch.reorder(iOuter, jOuter, kOuter, iTile, jTile, kTile);
  const tile = sch.blockize(iTile);
  sch.annotate(tile, TILING_STRUCTURE, "SSR");
  const [i0, i1] = sch.split(iOuter, [null, warps]);
  const [k0, k1] = sch.split(kOuter, [null, group.stageK / group.k]);
  sch.reorder(i0, jOuter, i1, k0, k1);
  bindWarpgroupTiles(sch, tile, i0, jOuter, i1, maxThreads);

  for (const [operand, layout] of [
    [match.readA, "K"],
    [match.readB, "MN"],
  ] as const) {
    const shared = sch.cacheRead(tile, operand, "shared.dyn");
    sch.computeAt(shared, k0);
    sch.annotate(shared, COOPERATIVE_FETCH, group.vectorLanes);
    sch.annotate(shared, WARP_EXECUTION, 1);
    sch.annotate(shared, WGMMA_SHARED_LAYOUT, layout);
  }
  const cWarp = sch.cacheWrite(tile, 0, "warp");
  sch.reverseComputeAt(cWarp, i1);
  const store = storeIntrinsicWithEpilogue(sch, cWarp, group);
  const storeTile = tileLoop(sch, cWarp, TILE, TILE);
  const init = sch.decomposeReduction(tile, k0);
  sch.transformLayout(cWarp, ["read", 0], wgmmaAccumulatorLayout);
  sch.annotate(
    sch.blockize(sch.getLoops(block).at(-3)),
    AUTO_TENSORIZE,
    group.n.map((x) => group.computeOf(x)),
  );
  sch.annotate(sch.blockize(tileLoop(sch, sch.getChildBlocks(init)[0]!, TILE, TILE)), AUTO_TENSORIZE, group.init);
  sch.annotate(sch.blockize(storeTile), AUTO_TENSORIZE, store);

  const lags = sampleWgmmaPipeline(sch, k0, o);
  // TMA or cp.async for a pipeline's loads (0: cp.async, 1: TMA), sampled where a depth pipelines.
  const loads = [...new Set(o.loads ?? DEFAULT_WGMMA_SPACE.loads!)].map((l) => (l === "tma" ? 1 : 0));
  if (lags.some((l) => l > 0)) sch.annotate(k0, SOFTWARE_PIPELINE_TMA, sch.sampleCategorical(loads, uniform(loads.length)) as ExprRV);
  return true;
}
