/**
 * A tf32 tensor-core GEMM through mma.sync m16n8k8 (sm_80+) from float32 operands:
 * `C = tf32(A)·tf32(B)`, each product exact in float32 and the sums in float32, as cuBLAS computes
 * with TF32 on. The rounding is a stage of its own ("A_tf32", "B_tf32"), so the schedule puts it on
 * the load path: k slices of A and B fetched into shared memory as float32 with 16-byte vector
 * loads, each lane loading its m16n8k8 registers from there with plain 32-bit loads rounded by
 * `cvt.rna.tf32.f32` (ldmatrix moves 16-bit halves; its transpose would split the 32-bit values of
 * B), two m16n8k8 MMAs per 16×16×8 tile into a warp accumulator, stored to C from the registers.
 */
import {
  type PrimExpr,
  type PrimFunc,
  type Var,
  add,
  compute,
  createPrimFunc,
  floordiv,
  floormod,
  mul,
  placeholder,
  reduceAxis,
  reduceSum,
  tf32Round,
  tf32Truncate,
} from "@tessera/ir";
import { MMA_INTRINSICS, type Schedule, mmaFragmentLayout } from "@tessera/schedule";
import {
  type MmaGemmParams,
  type MmaTiling,
  accumulateInWarp,
  checkMmaTiling,
  fetchToShared,
  layOutShared,
  sharedRowElements,
  sharedScopeOf,
  splitTiles,
  tensorizeAccumulator,
  tiledMmaSchedule,
} from "./mma-gemm.js";

const TILE = 16;
/** k of one m16n8k8 tile. */
export const K_TILE = 8;
/** float32 elements per 16-byte vector load. */
const VECTOR = 4;

/** Tiling of the tf32 GEMM: as the fp16 mma GEMM's, but `kTiles` counts 8-wide k tiles. */
export type Tf32GemmParams = MmaGemmParams & {
  /**
   * Load A's fragments with ldmatrix (its k is contiguous in shared memory: 32-bit elements as b16
   * pairs, one instruction per 16×8 fragment instead of four 32-bit loads per lane); B keeps the
   * plain loads, as ldmatrix's .trans would split its words.
   */
  readonly ldmatrixA?: boolean;
};

/** 2×2 warps of one tile each (a 32×32 block tile), k stages of 16: small enough for the simulator at 128³. */
export const SMALL_TF32_PARAMS: Tf32GemmParams = { warps: [2, 2], tilesPerWarp: [1, 1], kTiles: 2, padShared: true };
/** 2×4 warps of 4×2 tiles (a 128×128 block tile), k stages of 16, double-buffered with cp.async (37 KiB of shared memory). */
export const TF32_PARAMS: Tf32GemmParams = { warps: [2, 4], tilesPerWarp: [4, 2], kTiles: 2, padShared: true, pipelineStages: 2 };
/**
 * TF32_PARAMS with A through ldmatrix, 64×64 warp tiles (2×2 warps of 4×4 16×16 tiles) and k stages
 * of 32 in a 3-stage cp.async pipeline (dynamic shared memory).
 */
export const TF32_LDMATRIX_PARAMS: Tf32GemmParams = { warps: [2, 2], tilesPerWarp: [4, 4], kTiles: 4, padShared: true, pipelineStages: 3, ldmatrixA: true };

/** The unscheduled tf32 GEMM: blocks "A_tf32" and "B_tf32" round the operands, "C" sums their products in float32. */
export function tf32Gemm(n: number): PrimFunc {
  if (!Number.isInteger(n) || n < TILE || n % TILE !== 0) throw new RangeError(`tf32Gemm: n must be a positive multiple of ${TILE}, got ${n}`);
  const A = placeholder([n, n], "float32", "A");
  const B = placeholder([n, n], "float32", "B");
  const aTf32 = compute([n, n], (i, k) => tf32Round(A.at(i, k)), "A_tf32");
  const bTf32 = compute([n, n], (k, j) => tf32Round(B.at(k, j)), "B_tf32");
  const k = reduceAxis([0, n], "k");
  const C = compute([n, n], (i, j) => reduceSum(mul(aTf32.at(i, k), bTf32.at(k, j)), k), "C");
  return createPrimFunc([A, B, C], { name: "tf32_gemm" });
}

/** How a tf32 GEMM takes a float32 operand: rounded (`cvt.rna`, `T.tf32_round`) or truncated as a tensor core reads it unrounded (`T.tf32_truncate`). */
export type Tf32Conversion = "round" | "truncate";

/**
 * The tf32 GEMM with each operand converted as given ("A_tf32", "B_tf32"), products exact and sums
 * in float32 in k order. `truncatingTf32Gemm(n)` is both truncated: what tf32 wgmmas compute from
 * unrounded float32 in shared memory (the TMA tf32 GEMM); rounding B only is the register-B form,
 * which rounds B's fragments as it loads them.
 */
export function tf32GemmConverting(n: number, conversions: { readonly a: Tf32Conversion; readonly b: Tf32Conversion }): PrimFunc {
  if (!Number.isInteger(n) || n < TILE || n % TILE !== 0) throw new RangeError(`tf32GemmConverting: n must be a positive multiple of ${TILE}, got ${n}`);
  const convert = (c: Tf32Conversion) => (c === "round" ? tf32Round : tf32Truncate);
  const A = placeholder([n, n], "float32", "A");
  const B = placeholder([n, n], "float32", "B");
  const aTf32 = compute([n, n], (i, k) => convert(conversions.a)(A.at(i, k)), "A_tf32");
  const bTf32 = compute([n, n], (k, j) => convert(conversions.b)(B.at(k, j)), "B_tf32");
  const k = reduceAxis([0, n], "k");
  const C = compute([n, n], (i, j) => reduceSum(mul(aTf32.at(i, k), bTf32.at(k, j)), k), "C");
  return createPrimFunc([A, B, C], { name: `tf32_gemm_${conversions.a}_a_${conversions.b}_b` });
}

/**
 * The tf32 GEMM as the tensor cores compute it from unrounded float32 operands (tf32 wgmmas reading
 * float32 from shared memory): `C = trunc(A)·trunc(B)`, each operand's low 13 mantissa bits cleared
 * instead of rounded.
 */
export function truncatingTf32Gemm(n: number): PrimFunc {
  return tf32GemmConverting(n, { a: "truncate", b: "truncate" });
}

/** (i, k) of A → (i tile, k tile, lane, register) of the m16n8k8 A fragment (16×8). */
function tf32ALayout(i: Var, k: Var): PrimExpr[] {
  const [ti, tk] = [floormod(i, TILE), floormod(k, K_TILE)];
  const lane = add(mul(floormod(ti, 8), 4), floormod(tk, 4));
  return [floordiv(i, TILE), floordiv(k, K_TILE), lane, add(floordiv(ti, 8), mul(floordiv(tk, 4), 2))];
}

/** (k, j) of B → (k tile, j tile, lane, register) of the two m16n8k8 B fragments of a 8×16 tile. */
function tf32BLayout(k: Var, j: Var): PrimExpr[] {
  const [tk, tj] = [floormod(k, K_TILE), floormod(j, TILE)];
  const lane = add(mul(floormod(tj, 8), 4), floormod(tk, 4));
  return [floordiv(k, K_TILE), floordiv(j, TILE), lane, add(floordiv(tk, 4), mul(floordiv(tj, 8), 2))];
}

/**
 * Per operand: its fragment tile, the layout of its registers and the shared row stride (≡ offset
 * mod factor, in words) that makes its fragment loads conflict-free: lane (g, t) = (lane / 4,
 * lane % 4) reads A at row g, column t (stride ≡ 4 mod 8) and B at row t, column g (≡ 8 mod 16).
 */
export const TF32_OPERANDS = {
  A: { tile: [TILE, K_TILE], layout: tf32ALayout, align: [8, 4] },
  B: { tile: [K_TILE, TILE], layout: tf32BLayout, align: [16, 8] },
} as const;

/**
 * Puts the stage blocks that round each operand (e.g. A: "A_tf32") into warp registers at the k
 * tiles, reading the operand from a shared tile fetched at the k stages by the whole block.
 */
export function fetchTf32Operands(sch: Schedule, t: MmaTiling, params: MmaGemmParams, stages: Readonly<Record<"A" | "B", readonly string[]>>): void {
  for (const operand of ["A", "B"] as const) {
    const blocks = stages[operand].map((name) => sch.getBlock(name));
    for (const b of blocks) {
      sch.setScope(b, 0, "warp");
      sch.computeAt(b, t.k1);
    }
    const shared = sch.cacheRead(blocks[0]!, 0, sharedScopeOf(params), blocks.length > 1 ? blocks : []);
    sch.computeAt(shared, t.k0);
    fetchToShared(sch, shared, t.warps, VECTOR);
    layOutShared(sch, shared, params, sharedRowElements(params, operand === "A" ? 0 : 1, K_TILE), 4, TF32_OPERANDS[operand].align);
  }
}

/** The mma.sync m16n8k8 schedule of `tf32Gemm(n)`: warps[0]×warps[1] warps per block. */
export function tf32GemmSchedule(n: number, params: Tf32GemmParams = SMALL_TF32_PARAMS): Schedule {
  checkMmaTiling("tf32GemmSchedule", n, params, K_TILE, VECTOR);
  const { sch, block: c, t } = tiledMmaSchedule(tf32Gemm(n), "C", params, K_TILE);
  fetchTf32Operands(sch, t, params, { A: ["A_tf32"], B: ["B_tf32"] });
  const cWarp = accumulateInWarp(sch, t, params);
  sch.transformLayout(cWarp.block, ["read", 0], mmaFragmentLayout);
  tensorizeTf32Loads(sch, [
    ["A_tf32", params.ldmatrixA === true ? MMA_INTRINSICS.ldmatrixTF32A : MMA_INTRINSICS.loadTF32A],
    ["B_tf32", MMA_INTRINSICS.loadTF32B],
  ]);
  sch.tensorize(sch.getLoops(c).at(-3)!, MMA_INTRINSICS.mmaTF32TF32F32);
  tensorizeAccumulator(sch, cWarp.storeTile);
  return sch;
}

/** The variant of each tf32 fragment load for shared tiles in dynamic shared memory (more than two pipeline stages). */
const SHARED_DYN_TF32_LOADS: Readonly<Record<string, string>> = {
  [MMA_INTRINSICS.loadTF32A]: MMA_INTRINSICS.loadTF32ADyn,
  [MMA_INTRINSICS.ldmatrixTF32A]: MMA_INTRINSICS.ldmatrixTF32ADyn,
  [MMA_INTRINSICS.loadTF32B]: MMA_INTRINSICS.loadTF32BDyn,
  [MMA_INTRINSICS.loadTF32ALo]: MMA_INTRINSICS.loadTF32ALoDyn,
  [MMA_INTRINSICS.loadTF32BLo]: MMA_INTRINSICS.loadTF32BLoDyn,
};

/**
 * Splits each tf32 load block (named after its operand, "A…" or "B…") into fragment tiles in the
 * m16n8k8 layout and tensorizes it with its intrinsic (the intrinsic's shared.dyn variant where the
 * block reads a tile in dynamic shared memory).
 */
export function tensorizeTf32Loads(sch: Schedule, loads: readonly (readonly [block: string, intrin: string])[]): void {
  const tiles = loads.map(([name, intrin]) => {
    const b = sch.getBlock(name);
    const dynamic = sch.get(b).reads[0]?.buffer.scope === "shared.dyn";
    const operand = TF32_OPERANDS[name.startsWith("A") ? "A" : "B"];
    const loop = splitTiles(sch, b, ...operand.tile);
    sch.transformLayout(b, ["write", 0], operand.layout);
    return { loop, intrin: dynamic ? (SHARED_DYN_TF32_LOADS[intrin] ?? intrin) : intrin };
  });
  for (const { loop, intrin } of tiles) sch.tensorize(loop, intrin);
}
