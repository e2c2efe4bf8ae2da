/**
 * The Hopper wgmma design spaces of a 3xTF32 GEMM (beyond TVM; the structure of the hand schedule
 * `wgmmaTf32x3GemmSchedule` of @tessera/corpus): PTX's tf32 wgmma reads shared-memory operands
 * K-major only, so the rule makes B's two tf32 stages a layout-rewrite pre-pass, a kernel of its own
 * that runs before the GEMM (B read once, its hi and lo written transposed to Bᵀ[j, k]:
 * operand-prepass.ts of @tessera/schedule), marked for no other rule (`schedule_rule`). A comes
 * one of two ways, a design space each (wgmma-tf32-operands.ts): "shared", its hi and lo a
 * row-major pre-pass kernel too, fetched as B's; "registers", one float32 tile a chunk from which
 * each warp loads and splits its fragments a k step at a time (`mma_load_tf32_a` / `_a_lo`), the
 * loads of step s + 1 under the wgmmas of step s, for the register-A wgmma (`…_tf32x3_rs`).
 *
 * The chunk block (a chunk = one k stage of 32 float32, the 128 bytes of a swizzle row) is split
 * into 16×N×8 tiles (N of m64nNk8 sampled), blockized, a warp per 16-row slice in whole warpgroups
 * (sampled); the shared parts are fetched per chunk into 128B-swizzled dynamic shared memory with
 * 16-byte cooperative copies (K-major, `meta_schedule.wgmma_shared_layout`), per 8-wide k step
 * `wgmma_m64nNk8_tf32x3` (three wgmmas) into the chunk's accumulator, in registers in the wgmma
 * layout, zeroed per chunk; after the chunk the main accumulator adds it (`mma_add_16x16_f32`) and
 * after the k loop is stored. The chunk loop is software-pipelined 1, 3 or 4 stages deep (sampled),
 * its loads by cp.async.
 */
import {
  type BlockRV,
  type LoopRV,
  MMA_INTRINSICS,
  type Schedule,
  WGMMA_N,
  type WgmmaN,
  pipelineRegisterOperandLoads,
  rowMajorPrePasses,
  transposingPrePasses,
  wgmmaAccumulatorLayout,
  wgmmaTf32RegisterAIntrinName,
  wgmmaTf32x3IntrinName,
} from "@tessera/schedule";
import { AUTO_TENSORIZE } from "../../schedule-utils/annotations.js";
import { storeIntrinsicWithEpilogue } from "./cast-epilogue.js";
import { type Tf32x3Match, blockizeTf32x3Tiles } from "./tf32x3-tiling.js";
import { type WgmmaSpaceOptions, bindWarpgroupTiles, sampleWgmmaPipeline, wgmmaWarpCounts } from "./wgmma-tiling.js";
import { A_RESIDUAL_LOAD, A_ROUND_LOAD, type WgmmaTf32A, fetchKMajor, registerALoads } from "./wgmma-tf32-operands.js";
import { tileLoop, uniform } from "./sampling-and-tiles.js";

const TILE = 16;
/** The k of a chunk: 32 float32, one 128-byte swizzle row of the K-major tiles. */
export const WGMMA_TF32X3_CHUNK = 32;
/** A transposing pre-pass moves 32×32 tiles. */
const PRE_PASS_TILE = 32;
const M = MMA_INTRINSICS;

/** The wgmma space's N and warp counts that tile the chunk block `block` of `sch`, or undefined when none does (or its chunk is not 32). */
export function wgmmaTf32x3Choices(sch: Schedule, block: BlockRV, o: WgmmaSpaceOptions, maxThreads: number): { ns: WgmmaN[]; warps: number[] } | undefined {
  const [, i, j, k] = sch.get(block).iterVars.map((iv) => (iv.dom.extent.kind === "IntImm" ? iv.dom.extent.value : 0));
  if (k !== WGMMA_TF32X3_CHUNK || i! % PRE_PASS_TILE !== 0 || j! % PRE_PASS_TILE !== 0) return undefined;
  const ns = WGMMA_N.filter((n) => j! % n === 0);
  const warps = wgmmaWarpCounts(o, i!, maxThreads);
  return ns.length === 0 || warps.length === 0 ? undefined : { ns, warps };
}

/** Tiles the chunk block `block` of `m` for wgmma as the module comment says (`choices` from wgmmaTf32x3Choices). */
export function applyWgmmaTf32x3Tiling(
  sch: Schedule,
  block: BlockRV,
  m: Tf32x3Match,
  choices: { ns: readonly WgmmaN[]; warps: readonly number[] },
  o: WgmmaSpaceOptions,
  maxThreads: number,
  a: WgmmaTf32A = "shared",
): void {
  // The pre-passes: kernels of their own, left alone by the rules after this one.
  const prePassed = a === "shared" ? [m.a.hi, m.a.lo, m.b.hi, m.b.lo] : [m.b.hi, m.b.lo];
  if (a === "shared") rowMajorPrePasses(sch, [m.a.hi, m.a.lo]);
  transposingPrePasses(sch, [m.b.hi, m.b.lo]);
  for (const stage of prePassed) sch.annotate(stage, "schedule_rule", "None");

  const n = sch.sampleCategorical(choices.ns, uniform(choices.ns.length));
  const warps = sch.sampleCategorical(choices.warps, uniform(choices.warps.length));
  const { iOuter, jOuter, ko, step, tile } = blockizeTf32x3Tiles(sch, block, n);
  const [i0, i1] = sch.split(iOuter, [null, warps]);
  sch.reorder(i0!, jOuter, i1!, ko, step);
  bindWarpgroupTiles(sch, tile, i0!, jOuter, i1!, maxThreads);

  // The pre-passed parts, K-major (A[i, k], Bᵀ[j, k]), fetched a chunk at a time; A in registers
  // from one float32 tile a chunk, loaded and split a k step at a time.
  const parts = prePassed.map((stage) => sch.get(stage).writes[0]!.buffer);
  for (const buffer of parts) fetchKMajor(sch, sch.cacheRead(tile, buffer.name, "shared.dyn"), ko);
  const aLoads =
    a === "registers"
      ? registerALoads(
          sch,
          [
            [m.a.hi, A_ROUND_LOAD],
            [m.a.lo, A_RESIDUAL_LOAD],
          ],
          ko,
          step,
        )
      : [];

  // The chunk accumulator and the main one in registers; the main adds each chunk; its write-back after the k loop.
  sch.setScope(tile, 0, "warp");
  const writeBack = sch.cacheWrite(m.main, 0, "warp");
  sch.reverseComputeAt(m.main, ko, true);
  sch.reverseComputeAt(writeBack, i1!, true);
  const store = storeIntrinsicWithEpilogue(sch, writeBack, { store: M.storeF32Global, reluAddStores: { float32: M.storeF32ReluAddGlobal } });
  const addTile = tileLoop(sch, m.main, TILE, TILE);
  const storeTile = tileLoop(sch, writeBack, TILE, TILE);
  const chunkInit = sch.decomposeReduction(tile, step);
  const mainInit = sch.decomposeReduction(m.main, ko);
  sch.transformLayout(writeBack, ["read", 0], wgmmaAccumulatorLayout);
  const chunkRead = sch.get(m.main).reads.findIndex((r) => r.buffer === sch.get(block).writes[0]!.buffer);
  sch.transformLayout(m.main, ["read", chunkRead], (c, r, col) => [c!, ...wgmmaAccumulatorLayout(r!, col!)]);
  const chunkInitBlock = sch.getChildBlocks(chunkInit)[0]!;
  const tiles: [LoopRV, string | string[]][] = [
    [sch.getLoops(block).at(-3)!, WGMMA_N.map((x) => wgmmaTf32x3IntrinName(x))],
    [tileLoop(sch, chunkInitBlock, TILE, TILE), M.fillF32],
    [sch.getLoops(mainInit).at(-2)!, M.fillF32],
    [addTile, M.addF32],
    [storeTile, store],
  ];
  if (a === "registers") tiles[0]![1] = WGMMA_N.map((x) => wgmmaTf32RegisterAIntrinName(x, true));
  for (const [loop, intrin] of tiles) sch.annotate(sch.blockize(loop), AUTO_TENSORIZE, intrin);
  if (a === "registers") pipelineRegisterOperandLoads(sch, step, aLoads);
  sampleWgmmaPipeline(sch, ko, o);
}
