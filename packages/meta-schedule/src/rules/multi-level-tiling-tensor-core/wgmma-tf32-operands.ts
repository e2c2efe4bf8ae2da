/**
 * How the tf32 wgmma spaces (wgmma-tf32-tiling.ts, wgmma-tf32x3-tiling.ts) bring their operands to
 * the wgmmas (beyond TVM). PTX reads 32-bit wgmma operands K-major from shared memory, so an operand
 * read from shared memory is a pre-passed part (A[i, k] or Bᵀ[j, k]) fetched a k chunk at a time into
 * a 128B-swizzled tile (`fetchKMajor`). A may instead come from registers: its tf32 stages (tf32's
 * "A_tf32", 3xTF32's hi and lo) become the warps' fragment loads of one float32 shared tile, which
 * round (or split) as they load, a k step at a time (`registerALoads`), the loads of step s + 1
 * issued under the wgmmas of step s (@tessera/schedule's `pipelineRegisterOperandLoads`).
 */
import { type BlockRV, type LoopRV, MMA_INTRINSICS, type Schedule, tf32FragmentLayout } from "@tessera/schedule";
import { AUTO_TENSORIZE, COOPERATIVE_FETCH, WARP_EXECUTION, WGMMA_SHARED_LAYOUT } from "../../schedule-utils/annotations.js";
import { tileLoop } from "./sampling-and-tiles.js";

/** Where the wgmmas read A from: pre-passed parts in shared memory, or fragments split in registers. */
export type WgmmaTf32A = "shared" | "registers";
/** The forms the tf32 rules offer, each a design space of its own (the structure differs, so the search measures both). */
export const WGMMA_TF32_A: readonly WgmmaTf32A[] = ["shared", "registers"];

/** Rows of a warp's A fragment; the k of one tf32 wgmma (one k step). */
const TILE = 16;
const K_STEP = 8;
/** float32 lanes of one 16-byte copy. */
const VECTOR = 4;
const M = MMA_INTRINSICS;

/** The register loads of A's rounded part and of 3xTF32's residual, from dynamic shared memory. */
export const A_ROUND_LOAD = M.loadTF32ADyn;
export const A_RESIDUAL_LOAD = M.loadTF32ALoDyn;

/** A cooperative 16-byte fetch of `shared`, computed at the chunk loop `ko`, into a K-major 128B-swizzled tile. */
export function fetchKMajor(sch: Schedule, shared: BlockRV, ko: LoopRV): void {
  sch.computeAt(shared, ko);
  sch.annotate(shared, COOPERATIVE_FETCH, VECTOR);
  sch.annotate(shared, WARP_EXECUTION, 1);
  sch.annotate(shared, WGMMA_SHARED_LAYOUT, "K");
}

/**
 * A's stage blocks `loads` (each with the load intrinsic that computes it) as warp fragments at
 * the k step `step` (a warp's 16 rows × 8 k), all read from one float32 tile fetched at `ko`;
 * tensorized once blockized. Returns the blockized loads (the blocks in the k-step loop). Call before
 * the compute tile's layout is fixed; then, once all tiles are blockized, pipeline the k-step loop
 * with them (@tessera/schedule's `pipelineRegisterOperandLoads`).
 */
export function registerALoads(sch: Schedule, loads: readonly (readonly [stage: BlockRV, intrin: string])[], ko: LoopRV, step: LoopRV): BlockRV[] {
  const stages = loads.map(([stage]) => stage);
  for (const stage of stages) {
    sch.setScope(stage, 0, "warp");
    sch.computeAt(stage, step, true);
  }
  fetchKMajor(sch, sch.cacheRead(stages[0]!, 0, "shared.dyn", stages), ko);
  return loads.map(([stage, intrin]) => {
    const fragment = tileLoop(sch, stage, TILE, K_STEP);
    sch.transformLayout(stage, ["write", 0], tf32FragmentLayout("A"));
    const load = sch.blockize(fragment);
    sch.annotate(load, AUTO_TENSORIZE, intrin);
    return load;
  });
}
