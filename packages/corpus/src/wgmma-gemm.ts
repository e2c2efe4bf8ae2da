/**
 * A tensor-core GEMM through Hopper's `wgmma.mma_async` (sm_90a): `C = A·B` with float16 A, B and
 * a float32 C. Each block computes a (64·warpgroups)×N tile of C; each warpgroup (4 warps) a 64×N
 * slice, one m64nNk16 wgmma per 16-wide k step, reading A and B from shared memory through matrix
 * descriptors. k stages of 64 (A's shared rows are the 128 bytes of the 128B swizzle) are fetched
 * by all threads with 16-byte cp.async copies into 128B-swizzled dynamic shared memory
 * (`wgmmaSharedLayout`: A K-major, B MN-major in 64-column panels), software-pipelined
 * `pipelineStages` deep: the copies run `pipelineStages` − 2 stages ahead, so that the tile they
 * overwrite was read by the wgmmas two stages back and one stage of wgmmas stays in flight
 * (injectWgmmaSync waits for all but the last stage's groups). The accumulator lives in registers in the wgmma fragment layout
 * (`wgmmaAccumulatorLayout`), zero-filled and stored to C 16×16 tile by tile with the mma.sync
 * fill and store intrinsics (the same per-tile layout).
 */
import { type BlockRV, type WgmmaN, Schedule, wgmmaAccumulatorLayout, wgmmaIntrinName, wgmmaSharedLayout } from "@tessera/schedule";
import { type MmaGemmParams, type MmaTiling, accumulateInWarp, fetchToShared, splitTiles, tensorizeAccumulator } from "./mma-gemm.js";
import { wmmaGemm } from "./wmma-gemm.js";

/** Rows of a warp's accumulator slice and the k of one wgmma. */
const TILE = 16;
const WARPS_PER_GROUP = 4;
/** The k of a shared stage: A's rows are the 64 fp16 (128 bytes) of the 128B swizzle. */
const STAGE_K = 64;
/** fp16 elements per 16-byte cp.async copy. */
const VECTOR = 8;

export interface WgmmaGemmParams {
  /** Consumer warpgroups per block along i (each a 64-row slice of the block tile). */
  readonly warpgroups: number;
  /** The block tile's columns: N of the m64nNk16 instruction. */
  readonly n: WgmmaN;
  /**
   * Software pipeline depth of the k stages (1: none; s ≥ 2: s shared stages, s − 2 fetched ahead
   * with cp.async while the wgmmas of the stage before are still in flight).
   */
  readonly pipelineStages: number;
  /**
   * Issue each k stage's wgmmas before the copies of the stage fetched ahead (one barrier per k
   * stage) rather than after them (two: before the copies and before the wgmmas). On an H200
   * (docs/benchmarks/tensor-core-2026-11-30-s13) slower at 128×256 tiles, 2% at 4 stages and 30%
   * at 3 (the copies have one wgmma stage less to land), and 3% faster at 256×128 with 4 stages
   * than session 12's time with the copies first.
   */
  readonly wgmmaBeforeCopies?: boolean;
  /**
   * Load A's and B's stages with TMA instead of cp.async by every thread: the copy blocks are
   * annotated `tma_copy` and lowering (lowerTmaCopy) issues each stage's boxes from one thread on a
   * full mbarrier per stage (sm_90). Needs a pipeline (3 stages or more).
   */
  readonly tma?: boolean;
}

/** One warpgroup, 64×64 tiles, no pipeline: small enough for the simulator at 128³. */
export const SMALL_WGMMA_PARAMS: WgmmaGemmParams = { warpgroups: 1, n: 64, pipelineStages: 1 };
/**
 * Two warpgroups of 64×256, 128×256 block tiles (cuBLAS's HGEMM tile), 3 stages (144 KiB of shared
 * memory, 166 registers: one block of 8 warps per SM), the copies one stage ahead while the last
 * stage's wgmmas are in flight. On an H200 (docs/benchmarks/tensor-core-2026-11-30-s12) 0.0399 ms
 * at 2048³ and 0.2775 ms at 4096³ (495 TFLOP/s, 1.34× and 1.51× cuBLAS HGEMM), against 0.0450 and
 * 0.3207 ms for 128×128 tiles with 3 stages (two blocks per SM), the best before; 4 stages and
 * 256×128 tiles were slower.
 */
export const WGMMA_PARAMS: WgmmaGemmParams = { warpgroups: 2, n: 256, pipelineStages: 3 };

/** The unscheduled function (the WMMA GEMM's): fp16 inputs, fp32 products and sums. */
export const wgmmaGemm = wmmaGemm;

/** Checks `p` tiles an n³ GEMM: throws a RangeError naming the parameters otherwise. */
export function checkWgmmaTiling(what: string, n: number, p: WgmmaGemmParams, stageK = STAGE_K): void {
  if (![p.warpgroups, p.pipelineStages].every((x) => Number.isInteger(x) && x >= 1))
    throw new RangeError(`${what}: warpgroups and pipeline stages must be positive integers, got ${JSON.stringify(p)}`);
  if (p.pipelineStages === 2)
    throw new RangeError(`${what}: 2 pipeline stages fetch nothing ahead (the copies run stages − 2 ahead of the asynchronous wgmmas); use 1 or at least 3`);
  const rows = 64 * p.warpgroups;
  if (!Number.isInteger(n) || n % rows !== 0 || n % p.n !== 0 || n % stageK !== 0)
    throw new RangeError(`${what}: n = ${n} is not a multiple of the block tile ${rows}×${p.n}×${stageK}`);
}

/** The wgmma schedule of `wgmmaGemm(n)`. */
export function wgmmaGemmSchedule(n: number, params: WgmmaGemmParams = SMALL_WGMMA_PARAMS): Schedule {
  checkWgmmaTiling("wgmmaGemmSchedule", n, params);
  const sch = new Schedule(wgmmaGemm(n));
  const c = sch.getBlock("C");
  const t = tileForWgmma(sch, c, params);
  const threads = t.warps * 32;
  for (const operand of [0, 1] as const) {
    const shared = sch.cacheRead(t.tile, operand, "shared.dyn");
    sch.computeAt(shared, t.k0);
    fetchToShared(sch, shared, t.warps, VECTOR);
    const [rows, cols] = operand === 0 ? [64 * params.warpgroups, STAGE_K] : [STAGE_K, params.n];
    if ((rows * cols) % (threads * VECTOR) !== 0) throw new RangeError(`wgmmaGemmSchedule: a ${rows}×${cols} tile is not whole copies by ${threads} threads`);
    sch.swizzleLayout(shared, 0, wgmmaSharedLayout(operand === 0 ? "A" : "B", rows, cols));
    if (params.tma === true) sch.annotate(shared, "tma_copy", 1);
  }
  // The accumulator as the mma GEMM keeps it: warps of one 16-row slice each, N/16 tiles per warp.
  const asMma: MmaGemmParams = {
    warps: [t.warps, 1],
    tilesPerWarp: [1, params.n / TILE],
    kTiles: STAGE_K / TILE,
    padShared: false,
    pipelineStages: params.pipelineStages,
    asynchronousMma: true,
    mmaBeforeCopies: params.wgmmaBeforeCopies === true,
  };
  const cWarp = accumulateInWarp(sch, t, asMma);
  sch.transformLayout(cWarp.block, ["read", 0], wgmmaAccumulatorLayout);
  sch.tensorize(sch.getLoops(c).at(-3)!, wgmmaIntrinName(params.n));
  const init = sch.getBlock("C_init");
  splitTiles(sch, init);
  tensorizeAccumulator(sch, cWarp.storeTile);
  return sch;
}

/**
 * Tiles the GEMM block into 16×N×kTile warp tiles (blockized; k 16 for fp16, 8 for tf32), bound to
 * blocks and warps (threadIdx.y), the k tiles in shared stages of `stageK`.
 */
export function tileForWgmma(sch: Schedule, c: BlockRV, p: WgmmaGemmParams, kTile = TILE, stageK = STAGE_K): MmaTiling {
  const [i, j, k] = sch.getLoops(c);
  const [iOuter, iTile] = sch.split(i!, [null, TILE]);
  const [jOuter, jTile] = sch.split(j!, [null, p.n]);
  const [kOuter, kIn] = sch.split(k!, [null, kTile]);
  sch.reorder(iOuter!, jOuter!, kOuter!, iTile!, jTile!, kIn!);
  const tile = sch.blockize(iTile!);
  const warps = WARPS_PER_GROUP * p.warpgroups;
  const [i0, i1] = sch.split(iOuter!, [null, warps]);
  const [k0, k1] = sch.split(kOuter!, [null, stageK / kTile]);
  sch.reorder(i0!, jOuter!, i1!, k0!, k1!);
  sch.bind(sch.fuse(i0!, jOuter!), "blockIdx.x");
  sch.bind(i1!, "threadIdx.y");
  return { tile, k0: k0!, k1: k1!, warp: i1!, warps };
}
