/**
 * TVM's MultiLevelTilingTensorCore for ldmatrix + mma.sync: a matmul block whose dtypes fit an
 * intrinsic group (intrin-group.ts) is split into 16×16×k tiles that are blockized; the tiles are
 * tiled "SSRRS" (blockIdx, warps on threadIdx.y, k chunk, k steps per chunk, tiles per warp) with
 * sampled perfect tiles; A and B are staged through shared memory (a cooperative fetch of sampled
 * vector width; rows padded, or XOR-swizzled as TVM's permuted layout, a sampled decision when
 * `swizzleShared`) and warp fragments, the accumulator lives in warp registers; the
 * fragment buffers take the registers' layout and every tile block is annotated
 * `meta_schedule.auto_tensorize` with its intrinsic, which RewriteTensorize applies. The k-chunk
 * loop may be software-pipelined with cp.async, 2 to `maxPipelineStages` stages (sampled; the shared
 * tiles then live in dynamic shared memory). Any other block is left to the rules
 * after it (MultiLevelTiling). On sm_90 targets the rule also offers a wgmma design
 * space (wgmma-tiling.ts) for a block a wgmma group computes: the block's schedules are then the
 * mma.sync one and the wgmma one (TVM's rule, likewise, gives one state per intrinsic group that
 * fits). How it differs from TVM's: docs/architecture/tvm-deviations-meta-schedule.md.
 */
import type { BlockRV, LoopRV, Schedule } from "@tessera/schedule";
import { mmaFragmentLayout, tf32FragmentLayout } from "@tessera/schedule";
import type { ScheduleRule } from "../../interfaces/schedule-rule.js";
import {
  AUTO_TENSORIZE,
  COOPERATIVE_FETCH,
  SOFTWARE_PIPELINE,
  SHARED_SWIZZLE,
  SOFTWARE_PIPELINE_ASYNC,
  THREAD_EXTENT_HIGH,
  THREAD_EXTENT_LOW,
  TILING_STRUCTURE,
  WARP_EXECUTION,
} from "../../schedule-utils/annotations.js";
import { needsMultiLevelTiling } from "../../schedule-utils/block-info.js";
import { archNumber } from "@tessera/codegen";
import { gpuTargetOf, type TuneContext } from "../../tune-context.js";
import { fuseAll, perfectTileSplitter, tileLoopNest } from "../multi-level-tiling/tiling.js";
import {
  MMA_INTRIN_GROUPS,
  type MatmulMatch,
  type MatmulOperands,
  type TensorCoreIntrinGroup,
  WGMMA_INTRIN_GROUPS,
  type WgmmaIntrinGroup,
  matchMatmul,
} from "./intrin-group.js";
import { storeIntrinsicWithEpilogue } from "./cast-epilogue.js";
import { operandStage } from "./operand-stages.js";
import { applyTf32x3Tiling, matchTf32x3 } from "./tf32x3-tiling.js";
import { applyWgmmaTf32x3Tiling, wgmmaTf32x3Choices } from "./wgmma-tf32x3-tiling.js";
import { WGMMA_TF32_A } from "./wgmma-tf32-operands.js";
import { applyWgmmaTf32Tiling, wgmmaTf32Choices } from "./wgmma-tf32-tiling.js";
import { DEFAULT_WGMMA_SPACE, type WgmmaSpaceOptions, applyWgmmaTiling, checkWgmmaSpaceOptions } from "./wgmma-tiling.js";
import { tileLoop, uniform } from "./sampling-and-tiles.js";

const TILE = 16;
const WARP_SIZE = 32;
/** blockIdx, warps, k chunks, k steps per chunk, tiles per warp. */
const STRUCTURE = "SSRRS";

export interface MultiLevelTilingTensorCoreOptions {
  /** Intrinsic groups tried in order; the first whose dtypes and tile fit the block is used. */
  readonly intrinGroups: readonly TensorCoreIntrinGroup[];
  /** Most 16×16 tiles of C per block along i and along j (the block tile is at most 16× this). */
  readonly maxTilesPerBlock: number;
  /** Most 16×16 tiles each warp computes along i and along j. */
  readonly maxTilesPerWarp: number;
  /** Most k steps (of the intrinsic's k) per shared-memory chunk. */
  readonly maxKSteps: number;
  /** Vector widths of the fetches into shared memory, in elements, sampled uniformly. */
  readonly vectorLoadLens: readonly number[];
  /** Sample software pipelining (cp.async into multi-buffered shared tiles) of the k-chunk loop. */
  readonly softwarePipeline: boolean;
  /**
   * Most pipeline stages sampled (2: double buffering; default 4). Above 2 the shared tiles live in
   * dynamic shared memory, whose opt-in limit (227 KiB on sm_90) the deeper pipelines need.
   */
  readonly maxPipelineStages: number;
  /**
   * Sample the shared tiles' layout: padded rows or XOR-swizzled chunks (TVM's permuted layout),
   * both free of ldmatrix bank conflicts; the swizzle also of cp.async ones. False: always padded.
   */
  readonly swizzleShared: boolean;
  /**
   * wgmma groups (beyond TVM), offered on targets of one of their `archs` (sm_90) in a design space
   * of their own beside the mma.sync one; [] turns them off.
   */
  readonly wgmmaGroups: readonly WgmmaIntrinGroup[];
  /** The wgmma space's sampled warpgroups per block and pipeline depths. */
  readonly wgmma: WgmmaSpaceOptions;
}

export const DEFAULT_TENSOR_CORE_TILING: MultiLevelTilingTensorCoreOptions = {
  intrinGroups: MMA_INTRIN_GROUPS,
  maxTilesPerBlock: 16,
  maxTilesPerWarp: 8,
  maxKSteps: 4,
  vectorLoadLens: [2, 4, 8],
  softwarePipeline: true,
  maxPipelineStages: 4,
  swizzleShared: true,
  wgmmaGroups: WGMMA_INTRIN_GROUPS,
  wgmma: DEFAULT_WGMMA_SPACE,
};

export class MultiLevelTilingTensorCore implements ScheduleRule {
  readonly name = "multiLevelTilingTensorCore";
  constructor(readonly options: MultiLevelTilingTensorCoreOptions = DEFAULT_TENSOR_CORE_TILING) {
    for (const key of ["maxTilesPerBlock", "maxTilesPerWarp", "maxKSteps", "maxPipelineStages"] as const)
      if (!Number.isInteger(options[key]) || options[key] < 1)
        throw new RangeError(`MultiLevelTilingTensorCore: ${key} must be a positive integer, got ${options[key]}`);
    if (options.vectorLoadLens.length === 0 || options.vectorLoadLens.some((v) => !Number.isInteger(v) || v < 1))
      throw new RangeError(`MultiLevelTilingTensorCore: vectorLoadLens must be positive integers, got [${options.vectorLoadLens.join(", ")}]`);
    checkWgmmaSpaceOptions(options.wgmma);
  }

  apply(sch: Schedule, block: BlockRV, ctx: TuneContext): Schedule[] {
    if (ctx.target.kind !== "cuda") return [sch];
    // A 3xTF32 chunk block (a requested fp32 precision's; its ko-first binding is not a trivial one)
    // takes the tf32 group's intrinsics three times over.
    const x3 = this.options.intrinGroups.some((g) => g.tf32Operands === true) ? matchTf32x3(sch, block) : undefined;
    if (x3 !== undefined) {
      const maxThreads = gpuTargetOf(ctx, "MultiLevelTilingTensorCore").maxThreadsPerBlock;
      // On sm_90 also a wgmma space (wgmma-tf32x3-tiling.ts), on a copy taken before the mma.sync tiling changes `sch`.
      const arch = archNumber(ctx.target);
      const wgmmaOn = this.options.wgmmaGroups.some((g) => g.archs.includes(arch));
      const choices = wgmmaOn ? wgmmaTf32x3Choices(sch, block, this.options.wgmma, maxThreads) : undefined;
      // Two wgmma spaces: A's parts pre-passed and read from shared memory, or split in registers.
      const wgmma = choices === undefined ? [] : WGMMA_TF32_A.map((a) => ({ a, sch: sch.copy() }));
      applyTf32x3Tiling(sch, block, x3, this.options, maxThreads);
      for (const w of wgmma) applyWgmmaTf32x3Tiling(w.sch, block, x3, choices!, this.options.wgmma, maxThreads, w.a);
      return [sch, ...wgmma.map((w) => w.sch)];
    }
    if (!needsMultiLevelTiling(sch, block)) return [sch];
    const arch = archNumber(ctx.target);
    const wgmmaMatch = matchMatmul(
      sch.get(block),
      this.options.wgmmaGroups.filter((g) => g.archs.includes(arch)),
    );
    // The wgmma space works on a copy taken before the mma.sync tiling changes `sch`.
    const wgmma = wgmmaMatch === undefined ? undefined : sch.copy();
    const maxThreads = gpuTargetOf(ctx, "MultiLevelTilingTensorCore").maxThreadsPerBlock;
    const wgmmaSpaces = wgmma !== undefined && applyWgmmaTiling(wgmma, block, wgmmaMatch!, this.options.wgmma, maxThreads) ? [wgmma] : [];
    const match = matchMatmul(sch.get(block), this.options.intrinGroups, (g, m) => g.tf32Operands !== true || tf32Stages(sch, block, m) !== undefined);
    if (match === undefined) return wgmmaSpaces.length > 0 ? wgmmaSpaces : [sch];
    // A tf32 GEMM (a requested fp32 precision's) on sm_90: also two tf32 wgmma spaces (A from shared memory or registers), on copies.
    const tf32Wgmma = match.group.tf32Operands === true ? this.#tf32WgmmaSpaces(sch, block, match, arch, maxThreads) : [];
    return [this.#applyMma(sch, block, match, ctx), ...wgmmaSpaces, ...tf32Wgmma];
  }

  #tf32WgmmaSpaces(sch: Schedule, block: BlockRV, match: MatmulMatch, arch: number, maxThreads: number): Schedule[] {
    if (!this.options.wgmmaGroups.some((g) => g.archs.includes(arch))) return [];
    const choices = wgmmaTf32Choices(match, this.options.wgmma, maxThreads);
    const stages = tf32Stages(sch, block, match);
    if (choices === undefined || stages === undefined) return [];
    return WGMMA_TF32_A.map((a) => {
      const copy = sch.copy();
      applyWgmmaTf32Tiling(copy, block, match, stages, choices, this.options.wgmma, maxThreads, a);
      return copy;
    });
  }

  #applyMma(sch: Schedule, block: BlockRV, match: MatmulMatch, ctx: TuneContext): Schedule {
    const { group } = match;
    const o = this.options;
    // Tiles of deeper pipelines exceed static shared memory's 48 KiB: such spaces keep them in shared.dyn.
    const dynamicShared = o.softwarePipeline && o.maxPipelineStages > 2;
    // A tf32 group's operand stages, found before the tiling below makes `block` an inner block.
    const stages = group.tf32Operands === true ? tf32Stages(sch, block, match) : undefined;
    if (group.tf32Operands === true && stages === undefined) throw new Error("MultiLevelTilingTensorCore: a tf32 group matched without its operand stages");

    // The intrinsic's tile, blockized: the block the tiling below works on.
    const [i, j, k] = sch.getLoops(block).slice(-3);
    const [iOuter, iTile] = sch.split(i, [null, TILE]);
    const [jOuter, jTile] = sch.split(j, [null, TILE]);
    const [kOuter, kTile] = sch.split(k, [null, group.k]);
    sch.reorder(iOuter!, jOuter!, kOuter!, iTile!, jTile!, kTile!);
    const tile = sch.blockize(iTile!);
    sch.annotate(tile, TILING_STRUCTURE, STRUCTURE);

    const { tiles } = tileLoopNest(sch, tile, STRUCTURE, {
      spatial: (s, loop) => {
        // [blocks, tiles per block] then [warps, tiles per warp]: both bounded, both TVM perfect tiles.
        const [blocks, perBlock] = s.split(loop, s.samplePerfectTile(loop, 2, o.maxTilesPerBlock));
        const [warps, perWarp] = s.split(perBlock!, s.samplePerfectTile(perBlock!, 2, o.maxTilesPerWarp));
        return [blocks!, warps!, perWarp!];
      },
      reduce: perfectTileSplitter(o.maxKSteps),
    });
    const [blockLevel, warpLevel, chunkLevel, stepLevel] = tiles;
    sch.bind(fuseAll(sch, blockLevel!), "blockIdx.x");
    const warp = fuseAll(sch, warpLevel!);
    sch.bind(warp, "threadIdx.y");
    const chunk = chunkLevel!.at(-1)!;
    const step = stepLevel!.at(-1)!;
    sch.annotate(tile, WARP_EXECUTION, 1);
    sch.annotate(tile, THREAD_EXTENT_LOW, WARP_SIZE);
    sch.annotate(tile, THREAD_EXTENT_HIGH, gpuTargetOf(ctx, "MultiLevelTilingTensorCore").maxThreadsPerBlock);

    // A and B: a shared tile per k chunk, fetched by all warps; fragments per k step: cache reads,
    // or for a tf32 group the operands' tf32 stages, which round as they load.
    const scope = dynamicShared ? "shared.dyn" : "shared";
    const [warpA, warpB] = [match.readA, match.readB].map((operand, k) => {
      let warp: BlockRV;
      let shared: BlockRV;
      if (stages === undefined) {
        shared = sch.cacheRead(tile, operand, scope);
        sch.computeAt(shared, chunk, true);
        warp = sch.cacheRead(tile, operand, "warp");
      } else {
        warp = stages[k]!;
        sch.setScope(warp, 0, "warp");
        sch.computeAt(warp, step, true);
        shared = sch.cacheRead(warp, 0, scope);
        sch.computeAt(shared, chunk, true);
      }
      // 16-byte vectors at most (8 fp16 or 4 float32 lanes).
      const lens = o.vectorLoadLens.filter((v) => v <= group.vectorLanes);
      sch.annotate(shared, COOPERATIVE_FETCH, sch.sampleCategorical(lens, uniform(lens.length)));
      sch.annotate(shared, WARP_EXECUTION, 1);
      // Against ldmatrix bank conflicts: rows padded by 16 bytes (TVM's storage_align(32, 8) for fp16)
      // or XOR-swizzled, as sampled; RewriteSharedLayout applies the layout once the tile has its shape.
      // (The tf32 loads are 32-bit loads of padded rows: the swizzle is ldmatrix's 16-byte chunks.)
      const swizzle = o.swizzleShared && stages === undefined ? sch.sampleCategorical([0, 1], uniform(2)) : 0;
      sch.annotate(shared, SHARED_SWIZZLE, swizzle);
      return warp;
    }) as [BlockRV, BlockRV];
    if (stages === undefined) {
      sch.computeAt(warpA, step, true);
      sch.computeAt(warpB, step, true);
    }
    const warpC = sch.cacheWrite(tile, 0, "warp");
    sch.reverseComputeAt(warpC, warp, true);
    const store = storeIntrinsicWithEpilogue(sch, warpC, group);
    const init = sch.decomposeReduction(tile, chunk);

    // The fragments take the registers' layout first, then each 16×16 tile becomes the block its
    // intrinsic replaces (blockized after the layout change, so that its region is the whole tile).
    const [tileA, tileB] = stages === undefined ? [[TILE, TILE] as const, [TILE, TILE] as const] : [[TILE, group.k] as const, [group.k, TILE] as const];
    const tileLoops = [tileLoop(sch, warpA, ...tileA), tileLoop(sch, warpB, ...tileB), tileLoop(sch, warpC, TILE, TILE)];
    sch.transformLayout(warpA, ["write", 0], stages === undefined ? mmaFragmentLayout : tf32FragmentLayout("A"));
    sch.transformLayout(warpB, ["write", 0], stages === undefined ? mmaFragmentLayout : tf32FragmentLayout("B"));
    sch.transformLayout(warpC, ["read", 0], mmaFragmentLayout);
    const intrinsicTiles: [LoopRV, string][] = [
      [tileLoops[0]!, dynamicShared ? group.loadASharedDyn : group.loadA],
      [tileLoops[1]!, dynamicShared ? group.loadBSharedDyn : group.loadB],
      [tileLoops[2]!, store],
      [sch.getLoops(sch.getChildBlocks(init)[0]!).at(-2)!, group.init],
      [sch.getLoops(block).at(-3)!, group.compute],
    ];
    for (const [loop, intrin] of intrinsicTiles) sch.annotate(sch.blockize(loop), AUTO_TENSORIZE, intrin);

    if (o.softwarePipeline) {
      // 0: no pipeline; s − 1 for s stages (RewriteSoftwarePipeline drops one the shared memory cannot hold).
      const lags = Array.from({ length: Math.max(2, o.maxPipelineStages) }, (_, v) => v);
      sch.annotate(chunk, SOFTWARE_PIPELINE, sch.sampleCategorical(lags, uniform(lags.length)));
      sch.annotate(chunk, SOFTWARE_PIPELINE_ASYNC, 1);
    }
    return sch;
  }
}

/** The tf32 stages of A and B (operand-stages.ts) that a tf32 group loads, in that order; undefined unless both round their operand. */
function tf32Stages(sch: Schedule, block: BlockRV, m: Pick<MatmulOperands, "readA" | "readB">): [BlockRV, BlockRV] | undefined {
  const reads = sch.get(block).reads;
  const [a, b] = [m.readA, m.readB].map((r) => operandStage(sch, block, reads[r]!.buffer));
  return a?.part === "round" && b?.part === "round" ? [a.block, b.block] : undefined;
}

export function multiLevelTilingTensorCore(options: Partial<MultiLevelTilingTensorCoreOptions> = {}): MultiLevelTilingTensorCore {
  return new MultiLevelTilingTensorCore({ ...DEFAULT_TENSOR_CORE_TILING, ...options });
}
