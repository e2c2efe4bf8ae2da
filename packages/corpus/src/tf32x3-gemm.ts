/**
 * A float32-accurate GEMM on tf32 tensor cores, 3xTF32 (docs/architecture/tf32x3.md): each float32
 * operand split into hi = tf32(x) and lo = tf32(x − hi), `C = Σ hi·hi + Σ (lo·hi + hi·lo)` with the
 * small products in an accumulator of their own, added to the big one once, at the store. The
 * schedule is the tf32 GEMM's with the splits on the load path (four tf32 fragment loads from the
 * same shared tiles), `mma_tf32x3_m16n8k8` (three m16n8k8 MMAs per 8-column half) into the two
 * warp accumulators, and a store that adds them.
 */
import { type PrimFunc, parsePrimFunc } from "@tessera/ir";
import { MMA_INTRINSICS, type Schedule, mmaFragmentLayout } from "@tessera/schedule";
import { type MmaGemmParams, accumulateForStore, checkMmaTiling, tiledMmaSchedule } from "./mma-gemm.js";
import { K_TILE, fetchTf32Operands, tensorizeTf32Loads } from "./tf32-gemm.js";

const TILE = 16;
/** float32 elements per 16-byte vector load. */
const VECTOR = 4;

/** Tiling of the 3xTF32 GEMM (8-wide k tiles, as the tf32 GEMM's). */
export type Tf32x3GemmParams = MmaGemmParams;

/** 2×2 warps of one tile each (a 32×32 block tile), k stages of 16: small enough for the simulator at 128³. */
export const SMALL_TF32X3_PARAMS: Tf32x3GemmParams = { warps: [2, 2], tilesPerWarp: [1, 1], kTiles: 2, padShared: true };
/** 2×4 warps of 4×2 tiles (a 128×128 block tile), k stages of 16, double-buffered with cp.async. */
export const TF32X3_PARAMS: Tf32x3GemmParams = { warps: [2, 4], tilesPerWarp: [4, 2], kTiles: 2, padShared: true, pipelineStages: 2 };

const split = (operand: "A" | "B", part: "hi" | "lo", n: number) => {
  const [r, c] = operand === "A" ? ["vi", "vk"] : ["vk", "vj"];
  const x = `${operand}[${r}, ${c}]`;
  return `    for ax0, ax1 in T.grid(${n}, ${n}):
        with T.block("${operand}_${part}"):
            ${r}, ${c} = T.axis.remap("SS", [ax0, ax1])
            ${operand}_${part}[${r}, ${c}] = ${part === "hi" ? `T.tf32_round(${x})` : `T.tf32_round(${x} - T.tf32_round(${x}))`}`;
};

/**
 * The unscheduled 3xTF32 GEMM: blocks "A_hi", "A_lo", "B_hi", "B_lo" split the operands, "C" adds
 * per k `C_small += A_lo·B_hi + A_hi·B_lo` and `C_big += A_hi·B_hi` in float32, "D" writes C_big + C_small.
 */
export function tf32x3Gemm(n: number): PrimFunc {
  return tf32x3Func(n, false);
}

/** gemm+ReLU+add through 3xTF32: as `tf32x3Gemm`, but "D" writes `D = max(C_big + C_small, 0) + C` (A, B, C, D). */
export function tf32x3GemmReluAdd(n: number): PrimFunc {
  return tf32x3Func(n, true);
}

function tf32x3Func(n: number, reluAdd: boolean): PrimFunc {
  const what = reluAdd ? "tf32x3GemmReluAdd" : "tf32x3Gemm";
  if (!Number.isInteger(n) || n < TILE || n % TILE !== 0) throw new RangeError(`${what}: n must be a positive multiple of ${TILE}, got ${n}`);
  const buffers = ["A_hi", "A_lo", "B_hi", "B_lo", "C_big", "C_small"].map((b) => `    ${b} = T.alloc_buffer((${n}, ${n}))`).join("\n");
  const params = (reluAdd ? ["A", "B", "C", "D"] : ["A", "B", "C"]).map((p) => `${p}: T.Buffer((${n}, ${n}), "float32")`).join(", ");
  const out = reluAdd ? "D[vi, vj] = T.max(C_big[vi, vj] + C_small[vi, vj], T.float32(0)) + C[vi, vj]" : "C[vi, vj] = C_big[vi, vj] + C_small[vi, vj]";
  return parsePrimFunc(`
@T.prim_func
def ${reluAdd ? "tf32x3_gemm_relu_add" : "tf32x3_gemm"}(${params}):
${buffers}
${split("A", "hi", n)}
${split("A", "lo", n)}
${split("B", "hi", n)}
${split("B", "lo", n)}
    for i, j, k in T.grid(${n}, ${n}, ${n}):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C_small[vi, vj] = T.float32(0)
                C_big[vi, vj] = T.float32(0)
            C_small[vi, vj] = C_small[vi, vj] + A_lo[vi, vk] * B_hi[vk, vj] + A_hi[vi, vk] * B_lo[vk, vj]
            C_big[vi, vj] = C_big[vi, vj] + A_hi[vi, vk] * B_hi[vk, vj]
    for i, j in T.grid(${n}, ${n}):
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            ${out}
`);
}

/** The mma.sync 3xTF32 schedule of `tf32x3Gemm(n)`: warps[0]×warps[1] warps per block. */
export function tf32x3GemmSchedule(n: number, params: Tf32x3GemmParams = SMALL_TF32X3_PARAMS): Schedule {
  checkMmaTiling("tf32x3GemmSchedule", n, params, K_TILE, VECTOR);
  return scheduleTf32x3(tf32x3Gemm(n), params, MMA_INTRINSICS.storeF32SumGlobal);
}

/** The 3xTF32 schedule of `tf32x3GemmReluAdd(n)`: the GEMM's, the epilogue in the store of each tile. */
export function tf32x3GemmReluAddSchedule(n: number, params: Tf32x3GemmParams = SMALL_TF32X3_PARAMS): Schedule {
  checkMmaTiling("tf32x3GemmReluAddSchedule", n, params, K_TILE, VECTOR);
  return scheduleTf32x3(tf32x3GemmReluAdd(n), params, MMA_INTRINSICS.storeF32SumReluAddGlobal);
}

function scheduleTf32x3(func: PrimFunc, params: Tf32x3GemmParams, storeIntrin: string): Schedule {
  const M = MMA_INTRINSICS;
  const { sch, block: c, t } = tiledMmaSchedule(func, "C", params, K_TILE);
  fetchTf32Operands(sch, t, params, { A: ["A_hi", "A_lo"], B: ["B_hi", "B_lo"] });
  const store = accumulateForStore(sch, t, params, sch.getBlock("D"), 2);
  sch.transformLayout(store.block, ["read", 0], mmaFragmentLayout);
  sch.transformLayout(store.block, ["read", 1], mmaFragmentLayout);
  tensorizeTf32Loads(sch, [
    ["A_hi", M.loadTF32A],
    ["A_lo", M.loadTF32ALo],
    ["B_hi", M.loadTF32B],
    ["B_lo", M.loadTF32BLo],
  ]);
  sch.tensorize(sch.getLoops(c).at(-3)!, M.mmaTF32x3);
  sch.tensorize(sch.getLoops(sch.getBlock("C_init")).at(-2)!, M.fillF32Pair);
  sch.tensorize(store.storeTile, storeIntrin);
  return sch;
}
