/**
 * mma.sync tensor intrinsics (sm_80+), on warp-scope fragments in the register layout of the PTX
 * instructions (one row per lane): TVM's ldmatrix loads, m16n8k16 fp16 MMAs (a 16×16×16 tile is
 * two instructions, one per 8-column half), fill and store, under TVM's names; and m16n8k8 tf32
 * MMAs (a 16×16×8 tile) with their fragment loads, which TVM lacks, in the PTX ISA's layouts.
 * Implementations call `T.ptx_legacy.ldmatrix` / `T.ptx_legacy.mma` / `T.cuda.mma_fill_legacy` /
 * `T.cuda.mma_store_legacy` as TVM's do; the tf32 loads are plain stores of each lane's registers.
 *
 * The tf32 MMA multiplies float32 registers that hold tf32 values (10-bit mantissa): the tf32 loads
 * round what they load (`T.tf32_round`, and for 3xTF32 the residual `tf32(x − tf32(x))`), so a
 * function that tensorizes with them rounds its operands in a stage of its own (`tf32Gemm` of
 * @tessera/corpus); its products are then exact in float32, as the description says.
 */
import { defineBuiltinTensorIntrin } from "../registry.js";
import { type BufferSpec, type Dim, intrinPair } from "./script.js";

type IndexMap = (row: string, col: string) => readonly [lane: string, local: string];

/** A 16×16 fp16 tile (A, B or the accumulator) in ldmatrix / m16n8k16 registers: 32 lanes × 8. */
const LDMATRIX_16X16: IndexMap = (i, j) => [`4 * (${i} % 8) + ${j} % 8 // 2`, `4 * (${j} // 8) + ${i} // 8 * 2 + ${j} % 2`];
/** The 16×8 A operand of m16n8k8 tf32: lane 4·(row mod 8) + col mod 4, registers by row half and column half. */
const TF32_A_16X8: IndexMap = (i, k) => [`4 * (${i} % 8) + ${k} % 4`, `${i} // 8 + ${k} // 4 * 2`];
/** The 8×16 B operand (two 8×8 halves of m16n8k8 tf32): lane 4·(col mod 8) + row mod 4. */
const TF32_B_8X16: IndexMap = (k, j) => [`4 * (${j} % 8) + ${k} % 4`, `${k} // 4 + ${j} // 8 * 2`];

const WARP = 32;

const warpBuffer = (name: string, param: string, dtype: string, local: number, offsetFactor: number): BufferSpec => ({
  name,
  param,
  dims: [WARP, local],
  dtype,
  scope: "warp",
  offsetFactor,
});

const at = (buffer: string, map: IndexMap, row: string, col: string) => {
  const [lane, local] = map(row, col);
  return `${buffer}[${lane}, ${local}]`;
};

/** An ldmatrix of a 16×16 fp16 tile from shared memory into the registers of a warp. */
function ldmatrixIntrin(operand: "A" | "B", transposed: boolean, sharedScope: string): { desc: string; impl: string } {
  const shared: BufferSpec = { name: "S", param: "s", dims: [16, 16], dtype: "float16", scope: sharedScope };
  const warp = warpBuffer("W", "w", "float16", 8, 16);
  // ldmatrix.trans when the registers want the transpose of what shared memory holds.
  const transInInstruction = operand === "A" ? transposed : !transposed;
  // Which row of shared memory each lane addresses (TVM's smem_offset of the 16×16 fp16 case).
  const rowAddress = transposed ? "S_s1 * 8 * (tx // 16) + S_s1 * (tx % 8) + 8 * (tx % 16 // 8)" : "S_s1 * (tx % 16) + 8 * (tx // 16)";
  return intrinPair(
    { buffers: [warp, shared], reads: [shared], writes: [warp] },
    `        for ax0, ax1 in T.grid(16, 16):
            with T.block("shared_warp"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                ${at("W", LDMATRIX_16X16, "v0", "v1")} = S[v0, v1]`,
    `        for tx in T.thread_binding(32, thread="threadIdx.x"):
            T.ptx_legacy.ldmatrix(${transInInstruction ? "True" : "False"}, 4, ".b16", W.data, W_off + 8 * tx, S.access_ptr("r"), ${rowAddress}, dtype="float16")`,
  );
}

/** Which part of a float32 operand a tf32 fragment load keeps: tf32(x), or the residual tf32(x − tf32(x)) (3xTF32). */
type TF32Part = "hi" | "lo";

/**
 * A tf32 operand fragment (A: 16×8, B: 8×16) loaded from shared float32 memory into the m16n8k8
 * registers with plain 32-bit loads, each lane its own four, rounded to tf32 on the way
 * (`cvt.rna.tf32.f32`): ldmatrix moves 16-bit halves, whose `.trans` would split the 32-bit values.
 */
function tf32LoadIntrin(operand: "A" | "B", part: TF32Part, sharedScope = "shared"): { desc: string; impl: string } {
  const dims: Dim = operand === "A" ? [16, 8] : [8, 16];
  const map = operand === "A" ? TF32_A_16X8 : TF32_B_8X16;
  const shared: BufferSpec = { name: "S", param: "s", dims, dtype: "float32", scope: sharedScope };
  const warp = warpBuffer("W", "w", "float32", 4, 4);
  const rounded = (x: string) => (part === "hi" ? `T.tf32_round(${x})` : `T.tf32_round(${x} - T.tf32_round(${x}))`);
  // The inverse of the layouts: register r of lane tx holds A[tx // 4 + 8 (r % 2), tx % 4 + 4 (r // 2)], B[tx % 4 + 4 (r % 2), tx // 4 + 8 (r // 2)].
  const plus = (x: string, c: number) => (c === 0 ? x : `${x} + ${c}`);
  const source = (r: number) =>
    operand === "A"
      ? `S[${plus("tx // 4", 8 * (r % 2))}, ${plus("tx % 4", 4 * (r >> 1))}]`
      : `S[${plus("tx % 4", 4 * (r % 2))}, ${plus("tx // 4", 8 * (r >> 1))}]`;
  return intrinPair(
    { buffers: [warp, shared], reads: [shared], writes: [warp] },
    `        for ax0, ax1 in T.grid(${dims[0]}, ${dims[1]}):
            with T.block("shared_warp"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                ${at("W", map, "v0", "v1")} = ${rounded("S[v0, v1]")}`,
    `        for tx in T.thread_binding(32, thread="threadIdx.x"):
${[0, 1, 2, 3].map((r) => `            W[tx, ${r}] = ${rounded(source(r))}`).join("\n")}`,
  );
}

/**
 * The tf32 A fragment (16×8, k contiguous in shared memory) by one ldmatrix.x4 without .trans: its
 * 32-bit elements move as pairs of b16, so matrix m (rows 8 (m % 2)…, words 4 (m / 2)…, 8 rows of
 * 16 bytes) lands in register m of lane l as row l / 4, word l % 4 — the m16n8k8 A layout — then
 * each lane rounds its four registers to tf32 (`cvt.rna.tf32.f32`). One shared load instruction
 * instead of four per lane. (B, n-major in shared memory, would need .trans, which splits the words.)
 */
function ldmatrixTf32AIntrin(sharedScope: string): { desc: string; impl: string } {
  const shared: BufferSpec = { name: "S", param: "s", dims: [16, 8], dtype: "float32", scope: sharedScope };
  const warp = warpBuffer("W", "w", "float32", 4, 4);
  return intrinPair(
    { buffers: [warp, shared], reads: [shared], writes: [warp] },
    `        for ax0, ax1 in T.grid(16, 8):
            with T.block("shared_warp"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                ${at("W", TF32_A_16X8, "v0", "v1")} = T.tf32_round(S[v0, v1])`,
    `        for tx in T.thread_binding(32, thread="threadIdx.x"):
            T.ptx_legacy.ldmatrix(False, 4, ".b16", W.data, W_off + 4 * tx, S.access_ptr("r"), S_s1 * (tx % 8 + 8 * (tx // 8 % 2)) + 4 * (tx // 16), dtype="float32")
${[0, 1, 2, 3].map((r) => `            W[tx, ${r}] = T.tf32_round(W[tx, ${r}])`).join("\n")}`,
  );
}

interface MmaShape {
  /** PTX shape and operand type names. */
  readonly ptx: string;
  readonly inAbbrev: string;
  readonly outAbbrev: string;
  readonly inDtype: string;
  readonly outDtype: string;
  readonly k: number;
  readonly mapA: IndexMap;
  readonly mapB: IndexMap;
  /** Registers per lane of A and B. */
  readonly localA: number;
  readonly localB: number;
}

/** A 16×16×k tile: two MMAs, the second on the upper halves of B's and C's registers. */
function mmaIntrin(s: MmaShape, bTransposed: boolean): { desc: string; impl: string } {
  const a = warpBuffer("A", "a", s.inDtype, s.localA, s.k);
  const b = warpBuffer("B", "b", s.inDtype, s.localB, bTransposed ? s.k : 16);
  const c = warpBuffer("C", "c", s.outDtype, 8, 16);
  const widen = (x: string) => (s.inDtype === s.outDtype ? x : `T.Cast("${s.outDtype}", ${x})`);
  const [bRow, bCol] = bTransposed ? ["vj", "vk"] : ["vk", "vj"];
  const cAt = at("C", LDMATRIX_16X16, "vi", "vj");
  const mma = (bExtra: string, cExtra: string) =>
    `T.ptx_legacy.mma("${s.ptx}", "row", "col", "${s.inAbbrev}", "${s.inAbbrev}", "${s.outAbbrev}", A.data, A_off + tx * ${s.localA}, B.data, B_off + tx * ${s.localB}${bExtra}, C.data, C_off + tx * 8${cExtra}, False, dtype="${s.outDtype}")`;
  return intrinPair(
    { buffers: [a, b, c], reads: [c, a, b], writes: [c] },
    `        for i, j, k in T.grid(16, 16, ${s.k}):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                ${cAt} = ${cAt} + ${widen(at("A", s.mapA, "vi", "vk"))} * ${widen(at("B", s.mapB, bRow, bCol))}`,
    `        for tx in T.thread_binding(32, thread="threadIdx.x"):
            ${mma("", "")}
            ${mma(` + ${s.localB / 2}`, " + 4")}`,
  );
}

/**
 * 3xTF32 on a 16×16×8 tile: the hi and lo tf32 parts of A and B (as the tf32 loads give them), all
 * three products into one accumulator, small ones first: `C += (lo·hi + hi·lo) + hi·hi` per k. The
 * accumulator is a chunk of k (docs/architecture/tf32x3.md): the 3xTF32 GEMM adds it into its main
 * accumulator with `mma_add_16x16_f32` after each chunk. One `T.cuda.mma_tf32x3` (three m16n8k8
 * MMAs) per 8-column half.
 */
function tf32x3Intrin(): { desc: string; impl: string } {
  const [aHi, aLo] = [warpBuffer("AH", "ah", "float32", 4, 4), warpBuffer("AL", "al", "float32", 4, 4)];
  const [bHi, bLo] = [warpBuffer("BH", "bh", "float32", 4, 4), warpBuffer("BL", "bl", "float32", 4, 4)];
  const acc = warpBuffer("C", "c", "float32", 8, 16);
  const a = (buffer: string) => at(buffer, TF32_A_16X8, "vi", "vk");
  const b = (buffer: string) => at(buffer, TF32_B_8X16, "vk", "vj");
  const c = at("C", LDMATRIX_16X16, "vi", "vj");
  const half = (bExtra: string, cExtra: string) =>
    `T.cuda.mma_tf32x3(AH.data, AH_off + tx * 4, AL.data, AL_off + tx * 4, BH.data, BH_off + tx * 4${bExtra}, BL.data, BL_off + tx * 4${bExtra}, C.data, C_off + tx * 8${cExtra}, dtype="float32")`;
  return intrinPair(
    { buffers: [aHi, aLo, bHi, bLo, acc], reads: [acc, aLo, bHi, aHi, bLo], writes: [acc] },
    `        for i, j, k in T.grid(16, 16, 8):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(${c}, ${a("AL")}, ${b("BH")}, ${a("AH")}, ${b("BL")})
                T.writes(${c})
                ${c} = ${c} + (${a("AL")} * ${b("BH")} + ${a("AH")} * ${b("BL")} + ${a("AH")} * ${b("BH")})`,
    `        for tx in T.thread_binding(32, thread="threadIdx.x"):
            ${half("", "")}
            ${half(" + 2", " + 4")}`,
  );
}

/**
 * `W += X` on two float32 accumulator tiles of a warp (16×16, the same register layout): each lane
 * adds its own 8 registers with ordinary rounded float32 adds. The 3xTF32 GEMM's main accumulation,
 * `C += C_chunk` once per chunk of k; the reduction over the chunks runs outside the tile.
 */
function addIntrin(): { desc: string; impl: string } {
  const [w, x] = [warpBuffer("W", "w", "float32", 8, 1), warpBuffer("X", "x", "float32", 8, 1)];
  const [wAt, xAt] = [at("W", LDMATRIX_16X16, "v0", "v1"), at("X", LDMATRIX_16X16, "v0", "v1")];
  return intrinPair(
    { buffers: [w, x], reads: [w, x], writes: [w] },
    `        for i0, i1 in T.grid(16, 16):
            with T.block("C_add"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                T.reads(${wAt}, ${xAt})
                T.writes(${wAt})
                ${wAt} = ${wAt} + ${xAt}`,
    `        for tx in T.thread_binding(32, thread="threadIdx.x"):
${Array.from({ length: 8 }, (_, r) => `            W[tx, ${r}] = W[tx, ${r}] + X[tx, ${r}]`).join("\n")}`,
  );
}

/**
 * gemm+ReLU+add's epilogue on a float32 accumulator tile: `D = dtype(max(acc, 0)) + C`, each lane
 * storing its own 8 registers; with 16-bit C and D (`halfGemmReluAdd`) or float32 ones (3xTF32).
 * 16-bit C and D go in pairs of adjacent columns (a lane's registers 2p, 2p + 1): one 32-bit vector
 * load of C and store of D each (`__half2` in CUDA).
 */
function storeReluAddIntrin(dtype: string): { desc: string; impl: string } {
  const w = warpBuffer("W", "w", "float32", 8, 1);
  const tile = (name: string, param: string): BufferSpec => ({ name, param, dims: [16, 16], dtype, scope: "global", offsetFactor: 1 });
  const [x, d] = [tile("X", "x"), tile("D", "d")];
  const relu = (acc: string) => `T.max(${acc}, T.float32(0))`;
  const value = (acc: string, row: string, col: string) => `${dtype === "float32" ? relu(acc) : `T.Cast("${dtype}", ${relu(acc)})`} + X[${row}, ${col}]`;
  const element = (r: number) => {
    const row = (r & 3) >> 1 ? "tx // 4 + 8" : "tx // 4";
    const col = `tx % 4 * 2${(r & 1) + 8 * (r >> 2) === 0 ? "" : ` + ${(r & 1) + 8 * (r >> 2)}`}`;
    return `D[${row}, ${col}] = ${value(`W[tx, ${r}]`, row, col)}`;
  };
  // A 16-bit D: registers 2p and 2p + 1 are two adjacent columns, stored as one 32-bit pair (__half2).
  const pair = (p: number) => {
    const r = 2 * p;
    const row = (r & 3) >> 1 ? "tx // 4 + 8" : "tx // 4";
    const col = `tx % 4 * 2${8 * (r >> 2) === 0 ? "" : ` + ${8 * (r >> 2)}`}`;
    return `D[${row}, ${col}:${col} + 2] = T.Cast("${dtype}x2", T.max(W[tx, ${r}:${r + 2}], T.Broadcast(T.float32(0), 2))) + X[${row}, ${col}:${col} + 2]`;
  };
  const stores = dtype === "float32" ? Array.from({ length: 8 }, (_, r) => element(r)) : Array.from({ length: 4 }, (_, p) => pair(p));
  const acc = at("W", LDMATRIX_16X16, "v0", "v1");
  return intrinPair(
    { buffers: [w, x, d], reads: [w, x], writes: [d] },
    `        for i0, i1 in T.grid(16, 16):
            with T.block("add"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                T.reads(${acc}, X[v0, v1])
                T.writes(D[v0, v1])
                D[v0, v1] = ${value(acc, "v0", "v1")}`,
    `        for tx in T.thread_binding(32, thread="threadIdx.x"):
${stores.map((st) => `            ${st}`).join("\n")}`,
  );
}

function fillIntrin(dtype: string): { desc: string; impl: string } {
  const c = warpBuffer("C", "c", dtype, 8, 1);
  return intrinPair(
    { buffers: [c], reads: [], writes: [c] },
    `        for i0, i1 in T.grid(16, 16):
            with T.block("C_warp"):
                i, j = T.axis.remap("SS", [i0, i1])
                ${at("C", LDMATRIX_16X16, "i", "j")} = T.${dtype}(0)`,
    `        for tx in T.thread_binding(32, thread="threadIdx.x"):
            T.cuda.mma_fill_legacy(8, C.data, C_off, dtype="${dtype}")`,
  );
}

/**
 * Stores a 16×16 accumulator tile of `dtype` registers to a `dtype` tile in `scope`; with `outDtype`
 * (a narrower float), each element cast to it on the way (TVM's `C[i, j] = T.Cast("float16", acc)`
 * of its fp16-output tensor-core GEMMs: fp32 accumulation, one rounding at the store).
 */
function storeIntrin(dtype: string, scope: string, outDtype: string = dtype): { desc: string; impl: string } {
  const w = warpBuffer("W", "w", dtype, 8, 1);
  const c: BufferSpec = { name: "C", param: "c", dims: [16, 16] as Dim, dtype: outDtype, scope, offsetFactor: 1 };
  const acc = at("W", LDMATRIX_16X16, "v0", "v1");
  return intrinPair(
    { buffers: [w, c], reads: [w], writes: [c] },
    `        for i0, i1 in T.grid(16, 16):
            with T.block("C_warp"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                C[v0, v1] = ${outDtype === dtype ? acc : `T.Cast("${outDtype}", ${acc})`}`,
    `        for tx in T.thread_binding(32, thread="threadIdx.x"):
            T.cuda.mma_store_legacy(16, 16, C.access_ptr("w"), W.data, W_off, C_s1, dtype="${outDtype}")`,
  );
}

const FP16_K16 = { ptx: "m16n8k16", inAbbrev: "fp16", inDtype: "float16", k: 16, mapA: LDMATRIX_16X16, mapB: LDMATRIX_16X16, localA: 8, localB: 8 };
const TF32_K8: MmaShape = {
  ptx: "m16n8k8",
  inAbbrev: "tf32",
  outAbbrev: "fp32",
  inDtype: "float32",
  outDtype: "float32",
  k: 8,
  mapA: TF32_A_16X8,
  mapB: TF32_B_8X16,
  localA: 4,
  localB: 4,
};

/** The names of the mma.sync intrinsics defined here (TVM's, where TVM has them). */
export const MMA_INTRINSICS = {
  ldmatrixF16A: "mma_ldmatrix_f16_a",
  ldmatrixF16B: "mma_ldmatrix_f16_b",
  ldmatrixF16ATrans: "mma_ldmatrix_f16_a_trans",
  ldmatrixF16BTrans: "mma_ldmatrix_f16_b_trans",
  ldmatrixF16ADyn: "mma_ldmatrix_f16_a_dyn",
  ldmatrixF16BDyn: "mma_ldmatrix_f16_b_dyn",
  mmaF16F16F32: "mma_f16f16f32",
  mmaF16F16F32TransB: "mma_f16f16f32_trans_b",
  mmaF16F16F16: "mma_f16f16f16",
  mmaF16F16F16TransB: "mma_f16f16f16_trans_b",
  mmaTF32TF32F32: "mma_tf32tf32f32_m16n8k8",
  mmaTF32TF32F32TransB: "mma_tf32tf32f32_m16n8k8_trans_b",
  loadTF32A: "mma_load_tf32_a",
  loadTF32B: "mma_load_tf32_b",
  loadTF32ALo: "mma_load_tf32_a_lo",
  loadTF32BLo: "mma_load_tf32_b_lo",
  ldmatrixTF32A: "mma_ldmatrix_tf32_a",
  ldmatrixTF32ADyn: "mma_ldmatrix_tf32_a_dyn",
  loadTF32ADyn: "mma_load_tf32_a_dyn",
  loadTF32BDyn: "mma_load_tf32_b_dyn",
  loadTF32ALoDyn: "mma_load_tf32_a_lo_dyn",
  loadTF32BLoDyn: "mma_load_tf32_b_lo_dyn",
  mmaTF32x3: "mma_tf32x3_m16n8k8",
  addF32: "mma_add_16x16_f32",
  storeF32ReluAddGlobal: "mma_store_16x16_f32_relu_add_global",
  storeF32ReluAddF16Global: "mma_store_16x16_f32_relu_add_f16_global",
  fillF32: "mma_fill_16x16_f32",
  fillF16: "mma_fill_16x16_f16",
  storeF32Global: "mma_store_16x16_f32_global_",
  storeF32SharedDyn: "mma_store_16x16_f32_shared_dyn_",
  storeF16Global: "mma_store_16x16_f16_global_",
  storeF32ToF16Global: "mma_store_16x16_f32_to_f16_global",
} as const;

const M = MMA_INTRINSICS;
defineBuiltinTensorIntrin(M.ldmatrixF16A, () => ldmatrixIntrin("A", false, "shared"));
defineBuiltinTensorIntrin(M.ldmatrixF16B, () => ldmatrixIntrin("B", false, "shared"));
defineBuiltinTensorIntrin(M.ldmatrixF16ATrans, () => ldmatrixIntrin("A", true, "shared"));
defineBuiltinTensorIntrin(M.ldmatrixF16BTrans, () => ldmatrixIntrin("B", true, "shared"));
defineBuiltinTensorIntrin(M.ldmatrixF16ADyn, () => ldmatrixIntrin("A", false, "shared.dyn"));
defineBuiltinTensorIntrin(M.ldmatrixF16BDyn, () => ldmatrixIntrin("B", false, "shared.dyn"));
defineBuiltinTensorIntrin(M.mmaF16F16F32, () => mmaIntrin({ ...FP16_K16, outAbbrev: "fp32", outDtype: "float32" }, false));
defineBuiltinTensorIntrin(M.mmaF16F16F32TransB, () => mmaIntrin({ ...FP16_K16, outAbbrev: "fp32", outDtype: "float32" }, true));
defineBuiltinTensorIntrin(M.mmaF16F16F16, () => mmaIntrin({ ...FP16_K16, outAbbrev: "fp16", outDtype: "float16" }, false));
defineBuiltinTensorIntrin(M.mmaF16F16F16TransB, () => mmaIntrin({ ...FP16_K16, outAbbrev: "fp16", outDtype: "float16" }, true));
defineBuiltinTensorIntrin(M.mmaTF32TF32F32, () => mmaIntrin(TF32_K8, false));
defineBuiltinTensorIntrin(M.mmaTF32TF32F32TransB, () => mmaIntrin({ ...TF32_K8, mapB: (k, j) => TF32_B_8X16(j, k) }, true));
defineBuiltinTensorIntrin(M.loadTF32A, () => tf32LoadIntrin("A", "hi"));
defineBuiltinTensorIntrin(M.loadTF32B, () => tf32LoadIntrin("B", "hi"));
defineBuiltinTensorIntrin(M.loadTF32ALo, () => tf32LoadIntrin("A", "lo"));
defineBuiltinTensorIntrin(M.loadTF32BLo, () => tf32LoadIntrin("B", "lo"));
defineBuiltinTensorIntrin(M.ldmatrixTF32A, () => ldmatrixTf32AIntrin("shared"));
defineBuiltinTensorIntrin(M.ldmatrixTF32ADyn, () => ldmatrixTf32AIntrin("shared.dyn"));
defineBuiltinTensorIntrin(M.loadTF32ADyn, () => tf32LoadIntrin("A", "hi", "shared.dyn"));
defineBuiltinTensorIntrin(M.loadTF32BDyn, () => tf32LoadIntrin("B", "hi", "shared.dyn"));
defineBuiltinTensorIntrin(M.loadTF32ALoDyn, () => tf32LoadIntrin("A", "lo", "shared.dyn"));
defineBuiltinTensorIntrin(M.loadTF32BLoDyn, () => tf32LoadIntrin("B", "lo", "shared.dyn"));
defineBuiltinTensorIntrin(M.mmaTF32x3, tf32x3Intrin);
defineBuiltinTensorIntrin(M.addF32, addIntrin);
defineBuiltinTensorIntrin(M.storeF32ReluAddGlobal, () => storeReluAddIntrin("float32"));
defineBuiltinTensorIntrin(M.storeF32ReluAddF16Global, () => storeReluAddIntrin("float16"));
defineBuiltinTensorIntrin(M.fillF32, () => fillIntrin("float32"));
defineBuiltinTensorIntrin(M.fillF16, () => fillIntrin("float16"));
defineBuiltinTensorIntrin(M.storeF32Global, () => storeIntrin("float32", "global"));
defineBuiltinTensorIntrin(M.storeF32SharedDyn, () => storeIntrin("float32", "shared.dyn"));
defineBuiltinTensorIntrin(M.storeF16Global, () => storeIntrin("float16", "global"));
defineBuiltinTensorIntrin(M.storeF32ToF16Global, () => storeIntrin("float32", "global", "float16"));
