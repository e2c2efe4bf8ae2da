/**
 * How the tf32 wgmma spaces (wgmma-tf32-tiling.ts, wgmma-tf32x3-tiling.ts) bring their operands to
 * the wgmmas (beyond TVM). PTX reads 32-bit wgmma operands K-major from shared memory, so an operand
 * read from shared memory is a pre-passed part (A[i, k] or Bᵀ[j, k]) fetched a k chunk at a time into
 * a 128B-swizzled tile (`fetchKMajor`). A may instead come from registers: its tf32 stages (tf32's
 * "A_tf32", 3xTF32's hi and lo) become the warps' fragment loads of one float32 shared tile, which
 * round (or split) as they load, a k step at a time (`registerALoads`), the loads of step s + 1
 * issued under the wgmmas of step s (`pipelineRegisterALoads`; the corpus's `pipelineRegisterA`).
 */
import { type BlockRV, type LoopRV, MMA_INTRINSICS, type Schedule, tf32FragmentLayout } from "@tessera/schedule";
import { AUTO_TENSORIZE, COOPERATIVE_FETCH, WARP_EXECUTION, WGMMA_SHARED_LAYOUT } from "../../schedule-utils/annotations.js";

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
 * tensorized once blockized. Call before the compute tile's layout is fixed; then, once all tiles
 * are blockized, `pipelineRegisterALoads`.
 */
export function registerALoads(sch: Schedule, loads: readonly (readonly [stage: BlockRV, intrin: string])[], ko: LoopRV, step: LoopRV): void {
  const stages = loads.map(([stage]) => stage);
  for (const stage of stages) {
    sch.setScope(stage, 0, "warp");
    sch.computeAt(stage, step, true);
  }
  fetchKMajor(sch, sch.cacheRead(stages[0]!, 0, "shared.dyn", stages), ko);
  for (const [stage, intrin] of loads) {
    const [r, c] = sch.getLoops(stage).slice(-2);
    const [r0, r1] = sch.split(r!, [null, TILE]);
    const [c0, c1] = sch.split(c!, [null, K_STEP]);
    sch.reorder(r0!, c0!, r1!, c1!);
    sch.transformLayout(stage, ["write", 0], tf32FragmentLayout("A"));
    sch.annotate(sch.blockize(r1!), AUTO_TENSORIZE, intrin);
  }
}

/**
 * The k-step loop `step` (A's loads `loads`, then the wgmma tile) software-pipelined so that the
 * wgmmas of step s are issued before the loads of step s + 1: the fragments double-buffered
 * (`double_buffer_scope`: the wgmmas read them until their group retires) and the loop unrolled,
 * each version its own registers. RewriteSoftwarePipeline counts the expanded loop as its prologue,
 * body and epilogue in the chunk loop's pipeline.
 */
export function pipelineRegisterALoads(sch: Schedule, step: LoopRV, loads: readonly BlockRV[]): void {
  const written = new Set(loads.map((s) => sch.get(s).writes[0]!.buffer.name));
  const body = sch.getChildBlocks(step);
  const isLoad = body.map((b) => written.has(sch.get(b).writes[0]?.buffer.name ?? ""));
  if (isLoad.filter(Boolean).length !== loads.length || body.length !== loads.length + 1)
    throw new Error(`pipelineRegisterALoads: the k-step loop must hold A's ${loads.length} loads and the wgmma tile, got ${body.length} blocks`);
  for (const [k, b] of body.entries()) if (isLoad[k]) sch.annotate(b, "double_buffer_scope", 0);
  sch.annotate(
    step,
    "software_pipeline_stage",
    isLoad.map((l) => (l ? 0 : 1)),
  );
  // The wgmma tile first, then the loads in their order.
  let next = 1;
  sch.annotate(
    step,
    "software_pipeline_order",
    isLoad.map((l) => (l ? next++ : 0)),
  );
  sch.unroll(step);
}
