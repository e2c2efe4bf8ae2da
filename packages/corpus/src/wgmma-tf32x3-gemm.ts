/**
 * 3xTF32 (docs/architecture/tf32x3.md) on Hopper's tf32 wgmma: the function is the mma.sync 3xTF32
 * kernels' (`tf32x3Gemm` / `tf32x3GemmReluAdd`: split stages "A_hi", "A_lo", "B_hi", "B_lo", the
 * chunked reduction "C_acc_rf" + "C_acc", the output "D"), scheduled as the tf32 wgmma GEMM is
 * (wgmma-tf32-gemm.ts):
 * - the four split stages are layout-rewrite pre-passes (operand-prepass.ts): A's parts written
 *   row-major (K-major), B's transposed (Bᵀ, K-major), each tf32-rounded once;
 * - the chunk block "C_acc_rf" is tiled as the wgmma GEMM (16×N×8 tiles, a warp per 16-row slice,
 *   warpgroups of 4), a chunk of k per shared k stage (32 float32, the 128-byte swizzle row): the
 *   four parts fetched with cp.async into 128B-swizzled shared.dyn tiles, software-pipelined;
 * - per 8-wide k step `wgmma_m64n<N>k8_tf32x3` (three wgmmas into the chunk accumulator, in
 *   registers in the wgmma layout), the chunk zeroed at each stage and added into the main float32
 *   accumulator after it (`mma_add_16x16_f32`, per 16×16 tile: the wgmma accumulator has the
 *   m16n8k16 layout per tile), the main one stored with the epilogue.
 * The chunk add waits for the stage's wgmmas (injectWgmmaSync puts `wgmma.wait_group 0` before it).
 * Two accumulators of 64×N per warpgroup: N = 128 keeps them at 128 registers a thread.
 *
 * With `registerA` (the default) A has no pre-pass: one float32 A tile a stage is fetched into
 * shared memory (128B-swizzled: the fragment loads below are then free of bank conflicts) and each
 * warp loads its 16 rows of the stage into registers twice, split on the way as the mma.sync
 * kernels do (`mma_load_tf32_a` / `_a_lo`: `cvt.rna.tf32.f32`, the residual `tf32(a − hi)`), in the
 * wgmma A fragment; `wgmma_m64n<N>k8_tf32x3_rs` takes A from those registers. With `kStepALoads`
 * (the default) a warp loads one 8-wide k step at a time, the next step's into the other of two
 * fragment versions while the step's wgmmas run (`pipelineRegisterA`: 4 + 4 registers a version);
 * without it, the whole stage's 16 + 16 before the first wgmma, held until the chunk add's wait
 * (session 14). Only B keeps its pre-passes (hi and lo, transposed, one kernel).
 */
import {
  type BlockRV,
  type LoopRV,
  MMA_INTRINSICS,
  Schedule,
  mmaFragmentLayout,
  wgmmaAccumulatorLayout,
  wgmmaTf32RegisterAIntrinName,
  wgmmaTf32x3IntrinName,
} from "@tessera/schedule";
import type { MmaTiling } from "./mma-gemm.js";
import { splitTiles } from "./mma-gemm.js";
import { tensorizeTf32Loads } from "./tf32-gemm.js";
import { chunkTf32x3, tf32x3Func } from "./tf32x3-gemm.js";
import { checkWgmmaTiling } from "./wgmma-gemm.js";
import {
  WGMMA_TF32_K,
  WGMMA_TF32_STAGE_K,
  type WgmmaTf32Params,
  fetchKMajorTf32,
  loadAInRegisters,
  pipelineRegisterA,
  pipelineWgmmaStages,
  tf32OperandPrePasses,
} from "./wgmma-tf32-gemm.js";

/** The wgmma 3xTF32 tiling; `registerA` (A split into hi and lo in registers, no pre-pass for A) is the default here. */
export type WgmmaTf32x3Params = WgmmaTf32Params;

const TILE = 16;
const WARPS_PER_GROUP = 4;

/** One warpgroup, 64×64 tiles, no pipeline: small enough for the simulator at 128³. */
export const SMALL_WGMMA_TF32X3_PARAMS: WgmmaTf32x3Params = { warpgroups: 1, n: 64, pipelineStages: 1 };
/** Two warpgroups of 64×128 (128×128 block tiles: the main and chunk accumulators in 128 registers), 3 stages. */
export const WGMMA_TF32X3_PARAMS: WgmmaTf32x3Params = { warpgroups: 2, n: 128, pipelineStages: 3 };

/** The chunk of k the wgmma 3xTF32 kernels sum in the tensor cores' accumulator: one k stage. */
export const WGMMA_TF32X3_CHUNK = WGMMA_TF32_STAGE_K;

/** The wgmma 3xTF32 schedule of `tf32x3Gemm(n, WGMMA_TF32X3_CHUNK)`. */
export function wgmmaTf32x3GemmSchedule(n: number, params: WgmmaTf32x3Params = SMALL_WGMMA_TF32X3_PARAMS): Schedule {
  checkWgmmaTiling("wgmmaTf32x3GemmSchedule", n, params, WGMMA_TF32_STAGE_K);
  return scheduleWgmmaTf32x3(tf32x3Func(n, false), params, MMA_INTRINSICS.storeF32Global);
}

/** The wgmma 3xTF32 schedule of `tf32x3GemmReluAdd(n, WGMMA_TF32X3_CHUNK)`: the GEMM's, the epilogue in the store of each tile. */
export function wgmmaTf32x3GemmReluAddSchedule(n: number, params: WgmmaTf32x3Params = SMALL_WGMMA_TF32X3_PARAMS): Schedule {
  checkWgmmaTiling("wgmmaTf32x3GemmReluAddSchedule", n, params, WGMMA_TF32_STAGE_K);
  return scheduleWgmmaTf32x3(tf32x3Func(n, true), params, MMA_INTRINSICS.storeF32ReluAddGlobal);
}

function scheduleWgmmaTf32x3(func: ReturnType<typeof tf32x3Func>, params: WgmmaTf32x3Params, storeIntrin: string): Schedule {
  const M = MMA_INTRINSICS;
  const registerA = params.registerA !== false;
  const kStepALoads = registerA && params.kStepALoads !== false;
  const sch = new Schedule(func);
  const { chunk: c, main } = chunkTf32x3(sch, WGMMA_TF32X3_CHUNK);
  tf32OperandPrePasses(sch, { a: registerA ? [] : ["A_hi", "A_lo"], b: ["B_hi", "B_lo"], oneBPass: params.oneBPass !== false });
  const t = tileStageChunks(sch, c, params);
  const rows = 64 * params.warpgroups;
  if (registerA) loadAInRegisters(sch, t, rows, ["A_hi", "A_lo"], kStepALoads);
  fetchKMajorTf32(sch, t, params, [
    ...(registerA
      ? []
      : [
          { read: "A_hi", rows },
          { read: "A_lo", rows },
        ]),
    { read: "B_hi", rows: params.n },
    { read: "B_lo", rows: params.n },
  ]);

  // The chunk accumulator and the main one in warp registers; the main accumulation after each
  // stage's chunk, the store (with any epilogue) after the k loop.
  sch.setScope(t.tile, 0, "warp");
  sch.reverseComputeAt(main, t.k0);
  sch.setScope(main, 0, "warp");
  const store = sch.getBlock("D");
  sch.reverseComputeAt(store, t.warp);
  const addTile = splitTiles(sch, main);
  const storeTile = splitTiles(sch, store);
  sch.decomposeReduction(t.tile, t.k1);
  const mainInit = sch.decomposeReduction(main, t.k0);
  // The copies run stages − 2 ahead of the chunk (A's register loads, its zero fill, wgmmas and add).
  if (params.pipelineStages > 1) pipelineWgmmaStages(sch, t.k0, params.pipelineStages, kStepALoads ? t.k1 : undefined);

  sch.transformLayout(store, ["read", 0], mmaFragmentLayout);
  sch.transformLayout(main, ["read", 1], (ko, i, j) => [ko!, ...wgmmaAccumulatorLayout(i!, j!)]);
  if (registerA)
    tensorizeTf32Loads(sch, [
      ["A_hi", M.loadTF32A],
      ["A_lo", M.loadTF32ALo],
    ]);
  if (kStepALoads) pipelineRegisterA(sch, t.k1, ["A_hi_o", "A_lo_o"]);
  sch.tensorize(sch.getLoops(c).at(-3)!, registerA ? wgmmaTf32RegisterAIntrinName(params.n, true) : wgmmaTf32x3IntrinName(params.n));
  // The chunk's zero fill (inside the blockized tile's init) in 16×16 tiles.
  const chunkInit = sch.getBlock("C_acc_rf_init");
  splitTiles(sch, chunkInit);
  sch.tensorize(sch.getLoops(chunkInit).at(-2)!, M.fillF32);
  sch.tensorize(sch.getLoops(mainInit).at(-2)!, M.fillF32);
  sch.tensorize(addTile, M.addF32);
  sch.tensorize(storeTile, storeIntrin);
  return sch;
}

/**
 * Tiles the chunk block "C_acc_rf" (loops i, j, ko, ki; a chunk ko is one k stage) into 16×N×8
 * tiles (blockized), bound to blocks and warps (threadIdx.y): k0 the stages (= chunks), k1 the 8-wide k steps.
 */
function tileStageChunks(sch: Schedule, c: BlockRV, p: WgmmaTf32Params): MmaTiling & { readonly k0: LoopRV } {
  const [i, j, ko, ki] = sch.getLoops(c);
  const [iOuter, iTile] = sch.split(i!, [null, TILE]);
  const [jOuter, jTile] = sch.split(j!, [null, p.n]);
  const [kSteps, kIn] = sch.split(ki!, [null, WGMMA_TF32_K]);
  sch.reorder(iOuter!, jOuter!, ko!, kSteps!, iTile!, jTile!, kIn!);
  const tile = sch.blockize(iTile!);
  const warps = WARPS_PER_GROUP * p.warpgroups;
  const [i0, i1] = sch.split(iOuter!, [null, warps]);
  sch.reorder(i0!, jOuter!, i1!, ko!, kSteps!);
  sch.bind(sch.fuse(i0!, jOuter!), "blockIdx.x");
  sch.bind(i1!, "threadIdx.y");
  return { tile, k0: ko!, k1: kSteps!, warp: i1!, warps };
}
