/**
 * gemm+ReLU+add in fp16 with fp32 accumulation on tensor cores (the bonus workload of issue 34):
 * `halfGemmReluAdd(n, "float16")` scheduled as the mma.sync GEMM (ldmatrix + m16n8k16, cp.async
 * pipeline), its float32 sums kept in the warp accumulator ("gemm" in warp registers, "relu"
 * inlined) and the epilogue `D = half(max(acc, 0)) + C` done by each lane on its own registers in
 * the store of each 16×16 tile.
 */
import { MMA_INTRINSICS, type Schedule, mmaFragmentLayout } from "@tessera/schedule";
import { halfGemmReluAdd } from "./half-gemm.js";
import {
  type MmaGemmParams,
  SMALL_MMA_PARAMS,
  accumulateForStore,
  checkMmaTiling,
  fetchF16Fragments,
  ldmatrixIntrinsOf,
  sharedScopeOf,
  tiledMmaSchedule,
} from "./mma-gemm.js";

const TILE = 16;
/** float16 elements per 16-byte vector load. */
const VECTOR = 8;

/** The mma.sync schedule of `halfGemmReluAdd(n, "float16").func`. */
export function mmaGemmReluAddSchedule(n: number, params: MmaGemmParams = SMALL_MMA_PARAMS): Schedule {
  checkMmaTiling("mmaGemmReluAddSchedule", n, params, TILE, VECTOR);
  const M = MMA_INTRINSICS;
  const { sch, block: gemm, t } = tiledMmaSchedule(halfGemmReluAdd(n, "float16").func, "gemm", params, TILE);
  const fragments = fetchF16Fragments(sch, t, params);
  sch.computeInline(sch.getBlock("relu"));
  const store = accumulateForStore(sch, t, params, sch.getBlock("add"), 1);

  const [loadA, loadB] = fragments.layOut();
  sch.transformLayout(store.block, ["read", 0], mmaFragmentLayout);

  const [ldmatrixA, ldmatrixB] = ldmatrixIntrinsOf(sharedScopeOf(params));
  sch.tensorize(loadA, ldmatrixA);
  sch.tensorize(loadB, ldmatrixB);
  sch.tensorize(sch.getLoops(gemm).at(-3)!, M.mmaF16F16F32);
  sch.tensorize(sch.getLoops(sch.getBlock("gemm_init")).at(-2)!, M.fillF32);
  sch.tensorize(store.storeTile, M.storeF32ReluAddF16Global);
  return sch;
}
