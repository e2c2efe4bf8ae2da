/**
 * The Hopper wgmma design spaces of a tf32 GEMM (precision/fp32-precision.ts, "tf32"; beyond TVM;
 * the structure of the hand schedule `wgmmaTf32GemmSchedule` of @tessera/corpus): the GEMM block
 * `C[i, j] += A_tf32[i, k] · B_tf32[k, j]` whose operands are the tf32 stages of float32 A and B.
 * PTX's tf32 wgmma reads shared-memory operands K-major only, so B's stage becomes a transposing
 * pre-pass kernel (Bᵀ[j, k], rounded once; operand-prepass.ts of @tessera/schedule), marked for no
 * other rule; A's stage is a row-major pre-pass read from shared memory, or the warps' fragment
 * loads that round as they load, a design space each (wgmma-tf32-operands.ts).
 *
 * The block is split into 16×N×8 tiles (N of m64nNk8 sampled), blockized, a warp per 16-row slice
 * in whole warpgroups (sampled); k in chunks of 32 float32 (the 128 bytes of a swizzle row), each a
 * shared stage fetched with 16-byte copies into 128B-swizzled tiles; per 8-wide k step one wgmma
 * (`wgmma_m64nNk8_tf32tf32f32`, or `…_rs` with A in registers) into the accumulator, in registers in
 * the wgmma layout; its zero fill and its store (with a fused ReLU+add) 16×16 tile by tile. The
 * chunk loop is software-pipelined 1, 3 or 4 stages deep (sampled), its loads by cp.async.
 */
import {
  type BlockRV,
  MMA_INTRINSICS,
  type Schedule,
  WGMMA_N,
  type WgmmaN,
  pipelineRegisterOperandLoads,
  rowMajorPrePass,
  transposingPrePass,
  wgmmaAccumulatorLayout,
  wgmmaTf32IntrinName,
  wgmmaTf32RegisterAIntrinName,
} from "@tessera/schedule";
import { AUTO_TENSORIZE } from "../../schedule-utils/annotations.js";
import { storeIntrinsicWithEpilogue } from "./cast-epilogue.js";
import type { MatmulMatch, TensorCoreIntrinGroup } from "./intrin-group.js";
import { A_ROUND_LOAD, type WgmmaTf32A, fetchKMajor, registerALoads } from "./wgmma-tf32-operands.js";
import { type WgmmaSpaceOptions, bindWarpgroupTiles, sampleWgmmaPipeline, wgmmaWarpCounts } from "./wgmma-tiling.js";
import { tileLoop, uniform } from "./sampling-and-tiles.js";

const TILE = 16;
/** The k of one tf32 wgmma, and of a shared chunk (32 float32, one 128-byte swizzle row). */
const K_STEP = 8;
const CHUNK = 32;
/** The pre-passes move 32×32 tiles. */
const PRE_PASS_TILE = 32;

/** The sampled N and warp counts that tile a tf32 GEMM of `match`'s extents, or undefined when none does. */
export function wgmmaTf32Choices(match: MatmulMatch, o: WgmmaSpaceOptions, maxThreads: number): { ns: WgmmaN[]; warps: number[] } | undefined {
  const [i, j, k] = match.extents;
  if (k % CHUNK !== 0 || i % PRE_PASS_TILE !== 0 || j % PRE_PASS_TILE !== 0 || k % PRE_PASS_TILE !== 0) return undefined;
  const ns = WGMMA_N.filter((n) => j % n === 0);
  const warps = wgmmaWarpCounts(o, i, maxThreads);
  return ns.length === 0 || warps.length === 0 ? undefined : { ns, warps };
}

/**
 * Tiles the tf32 GEMM block `block` (its operand stages `stages`, A's then B's, of the tf32 group
 * `match.group`) for wgmma as the module comment says, A read as `a` says.
 */
export function applyWgmmaTf32Tiling(
  sch: Schedule,
  block: BlockRV,
  match: MatmulMatch<TensorCoreIntrinGroup>,
  stages: readonly [a: BlockRV, b: BlockRV],
  choices: { ns: readonly WgmmaN[]; warps: readonly number[] },
  o: WgmmaSpaceOptions,
  maxThreads: number,
  a: WgmmaTf32A,
): void {
  const [aStage, bStage] = stages;
  // The pre-passes: kernels of their own, left alone by the rules after this one.
  if (a === "shared") rowMajorPrePass(sch, aStage);
  transposingPrePass(sch, bStage);
  const prePassed = a === "shared" ? [aStage, bStage] : [bStage];
  for (const stage of prePassed) sch.annotate(stage, "schedule_rule", "None");

  const n = sch.sampleCategorical(choices.ns, uniform(choices.ns.length));
  const warps = sch.sampleCategorical(choices.warps, uniform(choices.warps.length));
  const [i, j, k] = sch.getLoops(block).slice(-3);
  const [iOuter, iTile] = sch.split(i!, [null, TILE]);
  const [jOuter, jTile] = sch.split(j!, [null, n]);
  const [kOuter, kTile] = sch.split(k!, [null, K_STEP]);
  sch.reorder(iOuter!, jOuter!, kOuter!, iTile!, jTile!, kTile!);
  const tile = sch.blockize(iTile!);
  const [i0, i1] = sch.split(iOuter!, [null, warps]);
  const [k0, k1] = sch.split(kOuter!, [null, CHUNK / K_STEP]);
  sch.reorder(i0!, jOuter!, i1!, k0!, k1!);
  bindWarpgroupTiles(sch, tile, i0!, jOuter!, i1!, maxThreads);

  // The pre-passed operands (A[i, k], Bᵀ[j, k]) fetched a chunk at a time; A in registers from one float32 tile a chunk.
  for (const stage of prePassed) fetchKMajor(sch, sch.cacheRead(tile, sch.get(stage).writes[0]!.buffer.name, "shared.dyn"), k0!);
  const aLoads = a === "registers" ? registerALoads(sch, [[aStage, A_ROUND_LOAD]], k0!, k1!) : [];

  // The accumulator in registers in the wgmma layout, stored (with any ReLU+add) after the k loop.
  const cWarp = sch.cacheWrite(tile, 0, "warp");
  sch.reverseComputeAt(cWarp, i1!);
  const store = storeIntrinsicWithEpilogue(sch, cWarp, match.group);
  const storeTile = tileLoop(sch, cWarp, TILE, TILE);
  const init = sch.decomposeReduction(tile, k0!);
  sch.transformLayout(cWarp, ["read", 0], wgmmaAccumulatorLayout);
  const computes = WGMMA_N.map((x) => (a === "registers" ? wgmmaTf32RegisterAIntrinName(x) : wgmmaTf32IntrinName(x)));
  sch.annotate(sch.blockize(sch.getLoops(block).at(-3)!), AUTO_TENSORIZE, computes);
  sch.annotate(sch.blockize(tileLoop(sch, sch.getChildBlocks(init)[0]!, TILE, TILE)), AUTO_TENSORIZE, MMA_INTRINSICS.fillF32);
  sch.annotate(sch.blockize(storeTile), AUTO_TENSORIZE, store);
  if (a === "registers") pipelineRegisterOperandLoads(sch, k1!, aLoads);
  sampleWgmmaPipeline(sch, k0!, o);
}
