/**
 * The tf32 GEMM (`tf32Gemm`: C = tf32(A)·tf32(B), float32 sums) on Hopper's `wgmma.mma_async`
 * m64nNk8 (sm_90a), beside the fp16 wgmma GEMM (wgmma-gemm.ts) whose tiling, pipeline and
 * accumulator it shares. PTX reads 32-bit wgmma operands K-major only (no transpose for tf32), and
 * the tensor cores truncate float32 to tf32 where the function rounds (`cvt.rna.tf32.f32`), so the
 * operands go through a layout-rewrite pre-pass (operand-prepass.ts): the stage "A_tf32" is its
 * own kernel writing tf32(A) (K-major as it is), the stage "B_tf32" its own kernel writing
 * tf32(B) transposed, Bᵀ[j, k] (K-major), both to global workspaces. The GEMM kernel then fetches
 * k stages of 32 float32 (a 128-byte swizzle row) of both with 16-byte cp.async copies into
 * 128B-swizzled dynamic shared memory (`wgmmaKMajorLayout(…, 4)`) and issues one m64nNk8 wgmma
 * per 8-wide k step (`wgmma_m64n<N>k8_tf32tf32f32`).
 *
 * Why a pre-pass rather than a transposing copy into shared memory: cp.async (and TMA) copy
 * 16-byte runs of the source row, so a transpose on the way into shared memory needs each thread
 * to load, round and store single words, synchronously, in the GEMM's k loop; the pre-pass moves
 * each element once, coalesced both ways, and the rounding leaves the GEMM's inner loop as well.
 * Its cost (a read and a write of A and B) is counted in the measured time.
 *
 * With `registerA` A needs no pre-pass: the register-A wgmma (`wgmma_m64n<N>k8_tf32tf32f32_rs`)
 * takes A from the warp's registers, which each warp loads from a float32 shared tile and rounds
 * on the way (`loadAInRegisters`; 3xTF32 splits it into hi and lo there, wgmma-tf32x3-gemm.ts).
 */
import {
  type LoopRV,
  MMA_INTRINSICS,
  Schedule,
  pipelineRegisterOperandLoads,
  wgmmaAccumulatorLayout,
  wgmmaKMajorLayout,
  wgmmaTf32IntrinName,
  wgmmaTf32RegisterAIntrinName,
} from "@tessera/schedule";
import { type MmaGemmParams, type MmaTiling, accumulateInWarp, fetchToShared, splitTiles, tensorizeAccumulator } from "./mma-gemm.js";
import { rowMajorPrePass, transposingPrePass, transposingPrePasses } from "./operand-prepass.js";
import { tensorizeTf32Loads, tf32Gemm } from "./tf32-gemm.js";
import { type WgmmaGemmParams, checkWgmmaTiling, tileForWgmma } from "./wgmma-gemm.js";

/** k of one tf32 wgmma. */
export const WGMMA_TF32_K = 8;
/** The k of a shared stage: 32 float32, the 128 bytes of the swizzle row. */
export const WGMMA_TF32_STAGE_K = 32;
/** float32 elements per 16-byte cp.async copy. */
const VECTOR = 4;
const TILE = 16;

/** The tf32 wgmma tiling, and where the wgmmas read A from. */
export interface WgmmaTf32Params extends WgmmaGemmParams {
  /**
   * A loaded into registers from one float32 shared tile a stage and rounded (3xTF32: split into hi
   * and lo) on the way, read by the register-A wgmma, rather than rounded (split) by pre-pass
   * kernels and read by the wgmmas from shared memory. Default: off for tf32, on for 3xTF32.
   */
  readonly registerA?: boolean;
  /** 3xTF32: B's hi and lo parts written by one pre-pass kernel that reads B once (the default), rather than one kernel each. */
  readonly oneBPass?: boolean;
  /**
   * With `registerA`: A's register loads of k step s + 1 issued while the wgmmas of step s run
   * (`pipelineRegisterA`: the k-step loop software-pipelined, two versions of the fragments) rather
   * than all of a stage's loads before its first wgmma. Default: on where `registerA` is.
   */
  readonly kStepALoads?: boolean;
}

/** One warpgroup, 64×64 tiles, no pipeline: small enough for the simulator at 128³. */
export const SMALL_WGMMA_TF32_PARAMS: WgmmaGemmParams = { warpgroups: 1, n: 64, pipelineStages: 1 };
/**
 * Two warpgroups of 64×256 (128×256 block tiles) and 3 stages: the fp16 kernel's best tiling, with
 * the same bytes per stage (k stages of 32 float32 are the 128 bytes of 64 fp16: 144 KiB of shared
 * memory), half the k per stage.
 */
export const WGMMA_TF32_PARAMS: WgmmaGemmParams = { warpgroups: 2, n: 256, pipelineStages: 3 };

/**
 * The pre-passes of the tf32 operands: A's stages ("A_tf32") row-major, B's ("B_tf32") transposed
 * to Bᵀ[j, k], each a kernel; with `oneBPass`, B's stages (3xTF32's "B_hi" and "B_lo") one kernel
 * that reads B once.
 */
export function tf32OperandPrePasses(
  sch: Schedule,
  stages: { readonly a: readonly string[]; readonly b: readonly string[]; readonly oneBPass?: boolean },
): void {
  for (const name of stages.a) rowMajorPrePass(sch, sch.getBlock(name));
  if (stages.oneBPass === true && stages.b.length > 1)
    transposingPrePasses(
      sch,
      stages.b.map((name) => sch.getBlock(name)),
    );
  else for (const name of stages.b) transposingPrePass(sch, sch.getBlock(name));
}

/**
 * Fetches the operands that the tiled GEMM block `t.tile` reads (`operands`: read indices or buffer names, each
 * K-major: A[i, k] and Bᵀ[j, k]) into 128B-swizzled shared.dyn tiles at the k stages.
 */
export function fetchKMajorTf32(sch: Schedule, t: MmaTiling, p: WgmmaGemmParams, operands: readonly { read: number | string; rows: number }[]): void {
  const threads = t.warps * 32;
  for (const { read, rows } of operands) {
    const shared = sch.cacheRead(t.tile, read, "shared.dyn");
    sch.computeAt(shared, t.k0);
    fetchToShared(sch, shared, t.warps, VECTOR);
    if ((rows * WGMMA_TF32_STAGE_K) % (threads * VECTOR) !== 0)
      throw new RangeError(`a ${rows}×${WGMMA_TF32_STAGE_K} tile is not whole 16-byte copies by ${threads} threads (${JSON.stringify(p)})`);
    sch.swizzleLayout(shared, 0, wgmmaKMajorLayout(rows, WGMMA_TF32_STAGE_K, 4));
  }
}

/** The accumulator tiling of the wgmma GEMMs as the mma GEMM's helpers take it (a warp per 16-row slice, N/16 tiles). */
export function wgmmaAccumulatorTiling(t: MmaTiling, p: WgmmaGemmParams, kTiles: number): MmaGemmParams {
  return { warps: [t.warps, 1], tilesPerWarp: [1, p.n / TILE], kTiles, padShared: false, pipelineStages: p.pipelineStages, asynchronousMma: true };
}

/**
 * Puts A's stage blocks (`stages`: "A_tf32", or 3xTF32's "A_hi" and "A_lo") into warp registers at
 * each k stage (a warp's 16 rows × 32 k), all read from one float32 shared.dyn tile of the block's
 * `rows` × 32 fetched with cp.async at the stage and 128B-swizzled (lane l reads row l/4, word l%4
 * of a 16-byte chunk: the swizzle puts the 8 rows' chunks in different banks). Tensorize the loads
 * with `tensorizeTf32Loads` (`mma_load_tf32_a…`) after the tiling. `perKStep`: the loads at each
 * 8-wide k step (`t.k1`, 16×8 a warp) rather than at the stage; pipeline them with `pipelineRegisterA`.
 */
export function loadAInRegisters(sch: Schedule, t: MmaTiling & { readonly k0: LoopRV }, rows: number, stages: readonly string[], perKStep = false): void {
  const parts = stages.map((name) => sch.getBlock(name));
  for (const b of parts) {
    sch.setScope(b, 0, "warp");
    sch.computeAt(b, perKStep ? t.k1 : t.k0);
  }
  const shared = sch.cacheRead(parts[0]!, 0, "shared.dyn", parts);
  sch.computeAt(shared, t.k0);
  fetchToShared(sch, shared, t.warps, VECTOR);
  sch.swizzleLayout(shared, 0, wgmmaKMajorLayout(rows, WGMMA_TF32_STAGE_K, 4));
}

/**
 * The software pipeline of the k stage loop `k0` with `stages` shared stages (> 1): the copies into
 * shared memory (the blocks writing shared.dyn) run stages − 2 ahead of everything else in the
 * stage (register loads, zero fills, wgmmas, adds), as the wgmma GEMM's, in program order. `inner`:
 * a loop inside `k0` that is itself pipelined (`pipelineRegisterA`), whose prologue, body and
 * epilogue are three statements of `k0`'s body (as in TVM), in its place.
 */
export function pipelineWgmmaStages(sch: Schedule, k0: LoopRV, stages: number, inner?: LoopRV): void {
  const ahead = stages - 2;
  // Replaces the GEMM's three-statement annotations (accumulateInWarp's), which annotate keeps.
  for (const key of ["software_pipeline_stage", "software_pipeline_order", "software_pipeline_async_stages"])
    if (Object.hasOwn(sch.get(k0).annotations, key)) sch.unannotate(k0, key);
  const innerLoop = inner === undefined ? undefined : sch.get(inner);
  const entries: number[] = [];
  let innerSeen = false;
  for (const b of sch.getChildBlocks(k0)) {
    if (innerLoop !== undefined && sch.getLoops(b).some((l) => sch.get(l) === innerLoop)) {
      if (!innerSeen) entries.push(ahead, ahead, ahead);
      innerSeen = true;
    } else entries.push(sch.get(b).writes[0]?.buffer.scope === "shared.dyn" ? 0 : ahead);
  }
  sch.annotate(k0, "software_pipeline_stage", entries);
  sch.annotate(
    k0,
    "software_pipeline_order",
    entries.map((_, i) => i),
  );
  sch.annotate(k0, "software_pipeline_async_stages", [0]);
}

/**
 * The k-step loop `k1` of a register-A wgmma GEMM whose A loads sit in it (`loadAInRegisters(…, true)`),
 * after the loads are tensorized (`loads`: their blocks' names), software-pipelined so that the
 * wgmmas of step s are issued before the loads of step s + 1 (@tessera/schedule's
 * `pipelineRegisterOperandLoads`, which the tensor-core design spaces use too).
 */
export function pipelineRegisterA(sch: Schedule, k1: LoopRV, loads: readonly string[]): void {
  pipelineRegisterOperandLoads(
    sch,
    k1,
    loads.map((name) => sch.getBlock(name)),
  );
}

/** The tf32 wgmma schedule of `tf32Gemm(n)`: the operand pre-passes (B's only with `registerA`), then the GEMM kernel. */
export function wgmmaTf32GemmSchedule(n: number, params: WgmmaTf32Params = SMALL_WGMMA_TF32_PARAMS): Schedule {
  checkWgmmaTiling("wgmmaTf32GemmSchedule", n, params, WGMMA_TF32_STAGE_K);
  const registerA = params.registerA === true;
  const kStepALoads = registerA && params.kStepALoads !== false;
  const sch = new Schedule(tf32Gemm(n));
  tf32OperandPrePasses(sch, { a: registerA ? [] : ["A_tf32"], b: ["B_tf32"] });
  const c = sch.getBlock("C");
  const t = tileForWgmma(sch, c, params, WGMMA_TF32_K, WGMMA_TF32_STAGE_K);
  if (registerA) loadAInRegisters(sch, t, 64 * params.warpgroups, ["A_tf32"], kStepALoads);
  fetchKMajorTf32(sch, t, params, [...(registerA ? [] : [{ read: 0, rows: 64 * params.warpgroups }]), { read: registerA ? "B_tf32" : 1, rows: params.n }]);
  const cWarp = accumulateInWarp(sch, t, wgmmaAccumulatorTiling(t, params, WGMMA_TF32_STAGE_K / WGMMA_TF32_K));
  sch.transformLayout(cWarp.block, ["read", 0], wgmmaAccumulatorLayout);
  if (registerA && params.pipelineStages > 1) pipelineWgmmaStages(sch, t.k0, params.pipelineStages, kStepALoads ? t.k1 : undefined);
  if (registerA) tensorizeTf32Loads(sch, [["A_tf32", MMA_INTRINSICS.loadTF32A]]);
  if (kStepALoads) pipelineRegisterA(sch, t.k1, ["A_tf32_o"]);
  sch.tensorize(sch.getLoops(c).at(-3)!, registerA ? wgmmaTf32RegisterAIntrinName(params.n) : wgmmaTf32IntrinName(params.n));
  splitTiles(sch, sch.getBlock("C_init"));
  tensorizeAccumulator(sch, cWarp.storeTile);
  return sch;
}
