/**
 * A tensor-core GEMM through mma.sync (sm_80+): `C = A·B` with float16 A, B and a float32 C,
 * staged as TVM stages its ldmatrix/mma tests: k slices of A and B fetched into shared memory
 * with 16-byte vector loads, 16×16 tiles moved by ldmatrix into warp registers laid out as the
 * m16n8k16 instruction wants them (a layout transform of the warp buffers), two m16n8k16 MMAs per
 * 16×16×16 tile into a warp accumulator, stored to C from the registers.
 */
import type { PrimFunc } from "@tessera/ir";
import { type BlockRV, type LoopRV, MMA_INTRINSICS, Schedule, mmaFragmentLayout, sharedSwizzle } from "@tessera/schedule";
import { wmmaGemm } from "./wmma-gemm.js";

const TILE = 16;
const WARP_SIZE = 32;
/** float16 elements per 16-byte vector load. */
const VECTOR = 8;

/** Tiling of the mma GEMM (TVM's i/j/k factors, innermost 16-wide tiles excluded). */
export interface MmaGemmParams {
  /** Warps per block along i and j. */
  readonly warps: readonly [i: number, j: number];
  /** 16×16 tiles per warp along i and j. */
  readonly tilesPerWarp: readonly [i: number, j: number];
  /** 16-wide k tiles per shared-memory stage. */
  readonly kTiles: number;
  /** Pads each shared row by 8 halves (TVM's storage_align(32, 8)) against bank conflicts. */
  readonly padShared: boolean;
  /**
   * XOR-swizzles the shared tiles' 16-byte chunks instead (`sharedSwizzle`, TVM's permuted
   * layout): no padding, no bank conflicts for ldmatrix. Excludes `padShared`.
   */
  readonly swizzle?: boolean;
  /**
   * Software pipeline of the k stages (the fetches of A and B, then the MMAs): 1 (or absent) is
   * none; s ≥ 2 keeps s shared tiles per operand and fetches s − 1 stages ahead with cp.async, so
   * that s − 1 stages of copies are in flight while the MMAs run (cp.async.wait_group s − 2);
   * with `asynchronousMma`, s − 2 stages ahead and one stage of MMAs in flight.
   */
  readonly pipelineStages?: number;
  /** The MMAs read their shared tiles asynchronously (wgmma): one fewer stage is fetched ahead (see decomposeAndPipeline). */
  readonly asynchronousMma?: boolean;
  /**
   * With `asynchronousMma`: each k stage issues its MMAs before the copies of the stage fetched
   * ahead instead of after them, so that one barrier per stage (before the MMAs) orders both the
   * landed copies and the tile the copies overwrite; the copies then have one iteration less to land.
   */
  readonly mmaBeforeCopies?: boolean;
}

/**
 * Where the shared tiles of A and B live: with more than two pipeline stages they outgrow the
 * 48 KiB of static shared memory a block may declare, so they go to dynamic shared memory
 * ("shared.dyn", opted in up to the device's limit at launch).
 */
export function sharedScopeOf(p: MmaGemmParams): "shared" | "shared.dyn" {
  return (p.pipelineStages ?? 1) > 2 ? "shared.dyn" : "shared";
}

/** The ldmatrix intrinsics of the fp16 A and B fragments, for shared tiles in `scope`. */
export function ldmatrixIntrinsOf(scope: "shared" | "shared.dyn"): readonly [a: string, b: string] {
  const M = MMA_INTRINSICS;
  return scope === "shared" ? [M.ldmatrixF16A, M.ldmatrixF16B] : [M.ldmatrixF16ADyn, M.ldmatrixF16BDyn];
}

/** 2×2 warps of one tile each (a 32×32 block tile), k stages of 32: small enough for the simulator at 128³. */
export const SMALL_MMA_PARAMS: MmaGemmParams = { warps: [2, 2], tilesPerWarp: [1, 1], kTiles: 2, padShared: true };
/**
 * 2×2 warps of 4×4 tiles (a 128×128 block tile of 64×64 warp tiles), k stages of 32, four cp.async
 * stages in dynamic shared memory, the shared tiles XOR-swizzled (unpadded). The fastest tiling of
 * `pnpm bench:tc --tilings` on an H200 (docs/benchmarks/tensor-core-2026-11-29-s10: 1.73× HGEMM at
 * 2048³ and 2.06× at 4096³, against 1.94× and 2.53× for session 9's padded three-stage default and
 * 2.35× and 2.84× for the 2×4 warps of 4×2 tiles double-buffered before it).
 */
export const MMA_PARAMS: MmaGemmParams = { warps: [2, 2], tilesPerWarp: [4, 4], kTiles: 2, padShared: false, swizzle: true, pipelineStages: 4 };

/** The unscheduled function (the same as the WMMA GEMM's): fp16 inputs, fp32 products and sums. */
export const mmaGemm = wmmaGemm;

/** Checks `p` tiles an n³ GEMM whose k tiles are `kTile` wide and whose shared tiles are fetched `vector` elements per load. */
export function checkMmaTiling(what: string, n: number, p: MmaGemmParams, kTile: number, vector: number): void {
  if (p.padShared && p.swizzle === true) throw new RangeError(`${what}: padShared and swizzle exclude each other (a swizzled tile is not padded)`);
  const all = [...p.warps, ...p.tilesPerWarp, p.kTiles, p.pipelineStages ?? 1];
  if (all.some((x) => !Number.isInteger(x) || x < 1))
    throw new RangeError(`${what}: warps, tiles per warp, k tiles and pipeline stages must be positive integers, got ${JSON.stringify(p)}`);
  const [bi, bj, bk] = [p.warps[0] * p.tilesPerWarp[0] * TILE, p.warps[1] * p.tilesPerWarp[1] * TILE, p.kTiles * kTile];
  if (!Number.isInteger(n) || n % bi !== 0 || n % bj !== 0 || n % bk !== 0)
    throw new RangeError(`${what}: n = ${n} is not a multiple of the block tile ${bi}×${bj}×${bk}`);
  const threads = p.warps[0] * p.warps[1] * WARP_SIZE;
  for (const [rows, cols] of [
    [bi, bk],
    [bk, bj],
  ] as const)
    if ((rows * cols) % (threads * vector) !== 0)
      throw new RangeError(`${what}: a ${rows}×${cols} shared tile is not a whole number of ${vector}-wide loads by ${threads} threads`);
}

/** The mma.sync schedule of `mmaGemm(n)`: warps[0]×warps[1] warps per block. */
export function mmaGemmSchedule(n: number, params: MmaGemmParams = SMALL_MMA_PARAMS): Schedule {
  checkMmaTiling("mmaGemmSchedule", n, params, TILE, VECTOR);
  const M = MMA_INTRINSICS;
  const { sch, block: c, t } = tiledMmaSchedule(mmaGemm(n), "C", params, TILE);
  const fragments = fetchF16Fragments(sch, t, params);
  const cWarp = accumulateInWarp(sch, t, params);

  const [loadA, loadB] = fragments.layOut();
  sch.transformLayout(cWarp.block, ["read", 0], mmaFragmentLayout);

  const [ldmatrixA, ldmatrixB] = ldmatrixIntrinsOf(sharedScopeOf(params));
  sch.tensorize(loadA, ldmatrixA);
  sch.tensorize(loadB, ldmatrixB);
  sch.tensorize(sch.getLoops(c).at(-3)!, M.mmaF16F16F32);
  tensorizeAccumulator(sch, cWarp.storeTile);
  return sch;
}

/**
 * The tile's fp16 A and B (its reads 0 and 1) through shared tiles fetched at the k stages into warp
 * fragments at the k tiles; `layOut` then splits the fragment loads into 16×16 tiles in the
 * ldmatrix layout and returns their tile loops (A's, B's).
 */
export function fetchF16Fragments(sch: Schedule, t: MmaTiling, params: MmaGemmParams): { layOut: () => [LoopRV, LoopRV] } {
  for (const operand of [0, 1] as const) {
    const shared = sch.cacheRead(t.tile, operand, sharedScopeOf(params));
    sch.computeAt(shared, t.k0);
    fetchToShared(sch, shared, t.warps, VECTOR);
    layOutShared(sch, shared, params, sharedRowElements(params, operand, TILE), 2, [32, 8]);
  }
  const aWarp = sch.cacheRead(t.tile, 0, "warp");
  const bWarp = sch.cacheRead(t.tile, 1, "warp");
  sch.computeAt(aWarp, t.k1);
  sch.computeAt(bWarp, t.k1);
  return {
    layOut: () => {
      const loads: [LoopRV, LoopRV] = [splitTiles(sch, aWarp), splitTiles(sch, bWarp)];
      sch.transformLayout(aWarp, ["write", 0], mmaFragmentLayout);
      sch.transformLayout(bWarp, ["write", 0], mmaFragmentLayout);
      return loads;
    },
  };
}

/** The loops of a block- and warp-tiled mma GEMM that its stages attach to. */
export interface MmaTiling {
  /** The blockized 16×16×kTile tile. */
  readonly tile: BlockRV;
  /** The k stages (shared tiles) and the k tiles within a stage. */
  readonly k0: LoopRV;
  readonly k1: LoopRV;
  /** The fused warp loop (threadIdx.y) and the number of warps per block. */
  readonly warp: LoopRV;
  readonly warps: number;
}

/** A schedule of `func` whose GEMM block `name` is tiled by `tileForMma`. */
export function tiledMmaSchedule(func: PrimFunc, name: string, params: MmaGemmParams, kTile: number): { sch: Schedule; block: BlockRV; t: MmaTiling } {
  const sch = new Schedule(func);
  const block = sch.getBlock(name);
  return { sch, block, t: tileForMma(sch, block, params, kTile) };
}

/** Tiles the GEMM block `c` into 16×16×kTile tiles, blockized, bound to blocks and warps as `params` say. */
export function tileForMma(sch: Schedule, c: BlockRV, params: MmaGemmParams, kTile: number): MmaTiling {
  const [i, j, k] = sch.getLoops(c);
  const [iOuter, iTile] = sch.split(i!, [null, TILE]);
  const [jOuter, jTile] = sch.split(j!, [null, TILE]);
  const [kOuter, kIn] = sch.split(k!, [null, kTile]);
  sch.reorder(iOuter!, jOuter!, kOuter!, iTile!, jTile!, kIn!);
  const tile = sch.blockize(iTile!);

  const [i0, i1, i2] = sch.split(iOuter!, [null, params.warps[0], params.tilesPerWarp[0]]);
  const [j0, j1, j2] = sch.split(jOuter!, [null, params.warps[1], params.tilesPerWarp[1]]);
  const [k0, k1] = sch.split(kOuter!, [null, params.kTiles]);
  sch.reorder(i0!, j0!, i1!, j1!, k0!, k1!, i2!, j2!);
  sch.bind(sch.fuse(i0!, j0!), "blockIdx.x");
  const warp = sch.fuse(i1!, j1!);
  sch.bind(warp, "threadIdx.y");
  return { tile, k0: k0!, k1: k1!, warp, warps: params.warps[0] * params.warps[1] };
}

/**
 * The tile's float32 C in a warp accumulator, stored from the registers after the k loop; the
 * reduction's init decomposed at the k stages, which are software-pipelined as `params` ask.
 */
export function accumulateInWarp(sch: Schedule, t: MmaTiling, params: MmaGemmParams): { block: BlockRV; storeTile: LoopRV } {
  const cWarp = sch.cacheWrite(t.tile, 0, "warp");
  sch.reverseComputeAt(cWarp, t.warp);
  const storeTile = splitTiles(sch, cWarp);
  decomposeAndPipeline(sch, t, params);
  return { block: cWarp, storeTile };
}

/**
 * The accumulators the tile writes (its first `accumulators` writes: 3xTF32's small and big, or
 * one) in warp registers, read by the consumer block `store` (which writes the output, with any
 * epilogue) after the k loop; the init decomposed and the k stages pipelined as in `accumulateInWarp`.
 */
export function accumulateForStore(
  sch: Schedule,
  t: MmaTiling,
  params: MmaGemmParams,
  store: BlockRV,
  accumulators: number,
): { block: BlockRV; storeTile: LoopRV } {
  for (let i = 0; i < accumulators; i++) sch.setScope(t.tile, i, "warp");
  sch.reverseComputeAt(store, t.warp);
  const storeTile = splitTiles(sch, store);
  decomposeAndPipeline(sch, t, params);
  return { block: store, storeTile };
}

function decomposeAndPipeline(sch: Schedule, t: MmaTiling, params: MmaGemmParams): void {
  sch.decomposeReduction(t.tile, t.k0);
  const stages = params.pipelineStages ?? 1;
  if (stages > 1) {
    // The fetches run `prefetch` iterations of k0 ahead of the MMAs that read them: stages − 1, or
    // stages − 2 for asynchronous MMAs (wgmma), whose shared tiles keep one version more (their reads
    // stay in flight for one more iteration), so that the tiles are `stages` deep either way.
    const prefetch = params.asynchronousMma === true ? stages - 2 : stages - 1;
    sch.annotate(t.k0, "software_pipeline_stage", [0, 0, prefetch]);
    sch.annotate(t.k0, "software_pipeline_order", params.asynchronousMma === true && params.mmaBeforeCopies === true ? [1, 2, 0] : [0, 1, 2]);
    sch.annotate(t.k0, "software_pipeline_async_stages", [0]);
  }
}

/** Tensorizes the accumulator's zero fill (block `init`) and its store to global memory. */
export function tensorizeAccumulator(sch: Schedule, storeTile: LoopRV, init = "C_init"): void {
  sch.tensorize(sch.getLoops(sch.getBlock(init)).at(-2)!, MMA_INTRINSICS.fillF32);
  sch.tensorize(storeTile, MMA_INTRINSICS.storeF32Global);
}

/** Elements per row of operand A's (`[bi, bk]`) or B's (`[bk, bj]`) shared tile, k tiles `kTile` wide. */
export function sharedRowElements(p: MmaGemmParams, operand: 0 | 1, kTile: number): number {
  return operand === 0 ? p.kTiles * kTile : p.warps[1] * p.tilesPerWarp[1] * TILE;
}

/**
 * The layout of a shared tile whose rows are `rowElements` elements of `elementBytes` bytes: XOR-
 * swizzled (`params.swizzle`), padded with `storageAlign(…, factor, offset)` (`params.padShared`)
 * or plain.
 */
export function layOutShared(
  sch: Schedule,
  shared: BlockRV,
  params: MmaGemmParams,
  rowElements: number,
  elementBytes: number,
  [factor, offset]: readonly [number, number],
): void {
  if (params.swizzle === true) sch.swizzleLayout(shared, 0, sharedSwizzle(rowElements, elementBytes));
  else if (params.padShared) sch.storageAlign(shared, 0, -2, factor, offset);
}

/** The tile a shared cache holds, fetched by every thread of the block with 16-byte vector loads of `width` elements. */
export function fetchToShared(sch: Schedule, shared: BlockRV, warps: number, width: number): void {
  const fused = sch.fuse(...sch.getLoops(shared).slice(-2));
  const [, warp, lane, vector] = sch.split(fused, [null, warps, WARP_SIZE, width]);
  sch.bind(warp!, "threadIdx.y");
  sch.bind(lane!, "threadIdx.x");
  sch.vectorize(vector!);
}

/** Splits a block's two innermost loops into rows×cols tiles (16×16 unless given); returns the first loop inside a tile. */
export function splitTiles(sch: Schedule, b: BlockRV, rows = TILE, cols = TILE) {
  const [r, c] = sch.getLoops(b).slice(-2);
  const [r0, r1] = sch.split(r!, [null, rows]);
  const [c0, c1] = sch.split(c!, [null, cols]);
  sch.reorder(r0!, c0!, r1!, c1!);
  return r1!;
}
