/**
 * Hopper's `wgmma.mma_async` (sm_90a) as a tensor intrinsic: m64nNk16, fp16 × fp16 → fp32, A and B
 * read by the tensor cores from shared memory through 64-bit matrix descriptors (start address,
 * leading and stride byte offsets, 128-byte swizzle), the accumulator in registers.
 *
 * A wgmma is issued by a warpgroup (4 consecutive warps, the first at a warp index divisible by 4)
 * and computes a 64×N tile; the rows of warp w of the group are rows 16w…16w + 15, and they depend
 * on those rows of A only. So the intrinsic is described per warp: `C(16×N) += A(16×16)·B(16×N)`,
 * the warp's rows of A and of the accumulator; the implementation passes the warp's A rows and the
 * codegen (and the simulator) find the warpgroup's start 16·(warp mod 4) rows before them. The four
 * warps of a group must therefore run the intrinsic together on consecutive 16-row slices.
 *
 * The accumulator fragment of a warp is the m16n8 one repeated N/8 times (PTX ISA, "wgmma
 * .m64nNk16 register fragment D"): register 4c + r of lane l holds row l/4 + 8·(r/2), column
 * 8c + 2·(l%4) + r%2. Per 16×16 tile that is the ldmatrix / m16n8k16 accumulator layout, its 8
 * registers consecutive, so `mma_fill_16x16_f32` and `mma_store_16x16_f32_global_` fill and store
 * it tile by tile (`wgmmaAccumulatorLayout`).
 *
 * Shared layouts (both 128-byte swizzled, `wgmmaSharedLayout`): A K-major (rows of exactly 64 fp16,
 * 128 bytes; 8-row atoms of 1024 bytes, SBO = 8 rows), B MN-major (`trans-b`: B[k][n] with n
 * contiguous) in 64-column panels, each panel's `WGMMA_B_STAGE_K` k rows contiguous (8-row atoms of
 * 1024 bytes, SBO = 1024; the next panel LBO = 64 rows × 128 bytes on) — so that a stage's B tile is
 * N/64 TMA boxes of 64×64, as the hand-written TMA kernels store it. The 128B swizzle is the hardware's: the
 * 16-byte chunk index (address bits 4–6) XOR the 128-byte row within the 1024-byte atom (bits 7–9),
 * so the shared tiles must start 1024-byte aligned.
 *
 * The implementation issues the MMA and commits it (`commit_group`); it is asynchronous: lowering
 * (`injectWgmmaSync` of @tessera/codegen) puts `wgmma.fence` before each run of wgmmas and
 * `wgmma.wait_group 0` before the next barrier or use of the accumulator, so the wgmmas of one
 * shared stage are in flight together.
 */
import { type PrimExpr, type Var, add, bitwiseXor, floordiv, floormod, mul } from "@tessera/ir";
import { defineBuiltinTensorIntrin } from "../registry.js";
import { type BufferSpec, intrinPair } from "./script.js";

/** N of the m64nNk16 instructions defined here (a multiple of 16 so that the accumulator is whole 16×16 tiles). */
export const WGMMA_N = [64, 128, 256] as const;
export type WgmmaN = (typeof WGMMA_N)[number];

/** The intrinsic `wgmma_m64n<N>k16_f16f16f32` (A K-major, B MN-major, both 128B-swizzled in shared.dyn). */
export function wgmmaIntrinName(n: WgmmaN): string {
  return `wgmma_m64n${n}k16_f16f16f32`;
}

/** The k rows of a B tile (one stage of the k loop), the rows of each of its 64-column panels. */
export const WGMMA_B_STAGE_K = 64;

/** Bytes of one swizzle atom row and of one atom (8 rows). */
const SWIZZLE_ROW_BYTES = 128;
const ATOM_ROWS = 8;
/** fp16 elements per 128-byte row. */
const ROW_HALVES = SWIZZLE_ROW_BYTES / 2;

/** Lane and register of element (i, j) of a warp's 16×N accumulator slice. */
const accLane = (i: string, j: string) => `4 * (${i} % 8) + ${j} % 8 // 2`;
const accRegister = (i: string, j: string) => `${j} // 16 * 8 + ${j} % 16 // 8 * 4 + ${i} % 16 // 8 * 2 + ${j} % 2`;

function wgmmaIntrin(n: WgmmaN): { desc: string; impl: string } {
  const a: BufferSpec = { name: "A", param: "a", dims: [16, 16], dtype: "float16", scope: "shared.dyn", offsetFactor: 16 };
  const b: BufferSpec = { name: "B", param: "b", dims: [16, n], dtype: "float16", scope: "shared.dyn", offsetFactor: 16 };
  const c: BufferSpec = { name: "C", param: "c", dims: [32, n / 2], dtype: "float32", scope: "warp", offsetFactor: 1 };
  const cAt = `C[${accLane("vi", "vj")}, ${accRegister("vi", "vj")}]`;
  // Descriptor byte offsets: A K-major, SBO = 8 rows (A_s1 elements each); LBO unused by swizzled
  // K-major layouts (1 by convention). B MN-major in panels: LBO = one 64-column panel of the
  // stage's k rows (the next panel), SBO = one 8-row atom of a panel (1024 bytes).
  // The pointers' extents end at the operands' last elements (15 strides and one row on), not at
  // their strided buffers' ends: a k slice of A then stays inside its pipeline version, which is
  // what lets lowering prove the next stage's copies miss it.
  return intrinPair(
    { buffers: [a, b, c], reads: [c, a, b], writes: [c] },
    `        for i, j, k in T.grid(16, ${n}, 16):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                ${cAt} = ${cAt} + T.Cast("float32", A[vi, vk]) * T.Cast("float32", B[vk, vj])`,
    `        for tx in T.thread_binding(32, thread="threadIdx.x"):
            T.ptx.wgmma_mma_async_ss("m64n${n}k16", "fp16", "fp16", "fp32", 0, 1, ${SWIZZLE_ROW_BYTES}, A.access_ptr("r", extent=A_s1 * 15 + 16), 16, A_s1 * 16, B.access_ptr("r", extent=B_s1 * 15 + ${n}), ${WGMMA_B_STAGE_K * SWIZZLE_ROW_BYTES}, ${ATOM_ROWS * SWIZZLE_ROW_BYTES}, C.data, C_off + tx * ${n / 2})
            T.ptx.wgmma_commit_group()`,
  );
}

for (const n of WGMMA_N) defineBuiltinTensorIntrin(wgmmaIntrinName(n), () => wgmmaIntrin(n));

/**
 * The intrinsic `wgmma_m64n<N>k8_tf32tf32f32`: m64nNk8 with float32 A and B that hold tf32 values
 * (a stage of the function rounds them, `T.tf32_round`: the tensor cores would truncate), the
 * accumulator as the fp16 one's. PTX has no transpose for 32-bit operands: both are read K-major
 * from 128B-swizzled shared.dyn tiles (`wgmmaKMajorLayout(…, 4)`: rows of 32 float32), A as the
 * warp's 16×8 slice, B as the N×8 tile Bᵀ (B[j, k]), so a row-major k×n B must be stored
 * transposed first (e.g. its producing stage's layout rewritten, `transformLayout` (k, j) → (j, k)).
 */
export function wgmmaTf32IntrinName(n: WgmmaN): string {
  return `wgmma_m64n${n}k8_tf32tf32f32`;
}

/** What a tf32 wgmma tensorize mismatch tells the user (the usual cause: a row-major B). */
const TF32_OPERAND_HINT =
  "tf32 wgmma reads both operands K-major (PTX has no transpose for 32-bit types): the block must read A[i, k] and B as B[j, k]; " +
  'store a row-major B transposed first, e.g. sch.transformLayout(<B\'s producing block>, ["write", 0], (k, j) => [j, k])';

function wgmmaTf32Intrin(n: WgmmaN): { desc: string; impl: string; mismatchHint: string } {
  const a: BufferSpec = { name: "A", param: "a", dims: [16, 8], dtype: "float32", scope: "shared.dyn", offsetFactor: 8 };
  const b: BufferSpec = { name: "B", param: "b", dims: [n, 8], dtype: "float32", scope: "shared.dyn", offsetFactor: 8 };
  const c: BufferSpec = { name: "C", param: "c", dims: [32, n / 2], dtype: "float32", scope: "warp", offsetFactor: 1 };
  const cAt = `C[${accLane("vi", "vj")}, ${accRegister("vi", "vj")}]`;
  // Both K-major: SBO = 8 rows of 32 float32 (the operand's row stride _s1, 4 bytes × 8 rows); LBO unused (1).
  const pair = intrinPair(
    { buffers: [a, b, c], reads: [c, a, b], writes: [c] },
    `        for i, j, k in T.grid(16, ${n}, 8):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                ${cAt} = ${cAt} + A[vi, vk] * B[vj, vk]`,
    `        for tx in T.thread_binding(32, thread="threadIdx.x"):
            T.ptx.wgmma_mma_async_ss("m64n${n}k8", "tf32", "tf32", "fp32", 0, 0, ${SWIZZLE_ROW_BYTES}, A.access_ptr("r"), 16, A_s1 * ${4 * ATOM_ROWS}, B.access_ptr("r"), 16, B_s1 * ${4 * ATOM_ROWS}, C.data, C_off + tx * ${n / 2})
            T.ptx.wgmma_commit_group()`,
  );
  return { ...pair, mismatchHint: TF32_OPERAND_HINT };
}

for (const n of WGMMA_N) defineBuiltinTensorIntrin(wgmmaTf32IntrinName(n), () => wgmmaTf32Intrin(n));

/**
 * The intrinsic `wgmma_m64n<N>k8_tf32x3`: 3xTF32 (docs/architecture/tf32x3.md) on the tf32 wgmma,
 * the hi and lo tf32 parts of A and B in four K-major shared tiles as `wgmma_m64n<N>k8_tf32tf32f32`
 * reads them, `C += (lo·hi + hi·lo) + hi·hi` per k into a chunk accumulator. The implementation
 * issues three m64nNk8 wgmmas, small products first (A_lo·B_hi, A_hi·B_lo, A_hi·B_hi), as one
 * committed group; each sums its 8 k in turn, so the hardware (and the simulator, which runs the
 * three instructions) adds the three products of a k in another order than the description's.
 */
export function wgmmaTf32x3IntrinName(n: WgmmaN): string {
  return `wgmma_m64n${n}k8_tf32x3`;
}

function wgmmaTf32x3Intrin(n: WgmmaN): { desc: string; impl: string; mismatchHint: string } {
  const a = (name: string, param: string): BufferSpec => ({ name, param, dims: [16, 8], dtype: "float32", scope: "shared.dyn", offsetFactor: 8 });
  const b = (name: string, param: string): BufferSpec => ({ name, param, dims: [n, 8], dtype: "float32", scope: "shared.dyn", offsetFactor: 8 });
  const [aHi, aLo, bHi, bLo] = [a("AH", "ah"), a("AL", "al"), b("BH", "bh"), b("BL", "bl")];
  const c: BufferSpec = { name: "C", param: "c", dims: [32, n / 2], dtype: "float32", scope: "warp", offsetFactor: 1 };
  const cAt = `C[${accLane("vi", "vj")}, ${accRegister("vi", "vj")}]`;
  const mma = (x: string, y: string) =>
    `T.ptx.wgmma_mma_async_ss("m64n${n}k8", "tf32", "tf32", "fp32", 0, 0, ${SWIZZLE_ROW_BYTES}, ${x}.access_ptr("r"), 16, ${x}_s1 * ${4 * ATOM_ROWS}, ${y}.access_ptr("r"), 16, ${y}_s1 * ${4 * ATOM_ROWS}, C.data, C_off + tx * ${n / 2})`;
  const pair = intrinPair(
    { buffers: [aHi, aLo, bHi, bLo, c], reads: [c, aLo, bHi, aHi, bLo], writes: [c] },
    `        for i, j, k in T.grid(16, ${n}, 8):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                ${cAt} = ${cAt} + (AL[vi, vk] * BH[vj, vk] + AH[vi, vk] * BL[vj, vk] + AH[vi, vk] * BH[vj, vk])`,
    `        for tx in T.thread_binding(32, thread="threadIdx.x"):
            ${mma("AL", "BH")}
            ${mma("AH", "BL")}
            ${mma("AH", "BH")}
            T.ptx.wgmma_commit_group()`,
  );
  return { ...pair, mismatchHint: TF32_OPERAND_HINT };
}

for (const n of WGMMA_N) defineBuiltinTensorIntrin(wgmmaTf32x3IntrinName(n), () => wgmmaTf32x3Intrin(n));

/**
 * tf32 wgmma with A from registers (the `.tf32` register-A form, `T.ptx.wgmma_mma_async_rs`):
 * `wgmma_m64n<N>k8_tf32tf32f32_rs` (`C += A·B`) and `wgmma_m64n<N>k8_tf32x3_rs` (3xTF32, `C += (lo·hi
 * + hi·lo) + hi·hi`, three wgmmas small products first, one committed group). B (and its parts) as
 * the shared forms read it, K-major in 128B-swizzled shared.dyn; A (and its parts) as warp
 * registers, 4 a lane, the warp's 16×8 slice in the PTX ISA's register fragment of wgmma A for
 * 32-bit types (CUTLASS's ALayout_64x8): register r of lane l holds row l/4 + 8·(r%2), k l%4 +
 * 4·(r/2) — the m16n8k8 tf32 A fragment, so the mma.sync tf32 loads (`mma_load_tf32_a(_lo)`) fill
 * it, rounding (and splitting) A on the way from shared memory. No pre-pass for A then.
 */
export function wgmmaTf32RegisterAIntrinName(n: WgmmaN, x3 = false): string {
  return `wgmma_m64n${n}k8_${x3 ? "tf32x3" : "tf32tf32f32"}_rs`;
}

/** What a register-A tensorize mismatch tells the user. */
const REGISTER_A_HINT =
  "register-A tf32 wgmma reads A from warp registers in the m16n8k8 tf32 A fragment layout (lane 4·(i%8) + k%4, register i//8 + 2·(k//4) of each 16×8 tile): " +
  "put A's block in warp scope at the k loop and transform its layout to (i, k) → (i/16, k/8, lane, register) (TF32_OPERANDS.A.layout of @tessera/corpus); " +
  "B is read K-major from shared memory as B[j, k], as the shared-A form reads it";

function wgmmaTf32RegisterAIntrin(n: WgmmaN, x3: boolean): { desc: string; impl: string; mismatchHint: string } {
  const a = (name: string, param: string): BufferSpec => ({ name, param, dims: [32, 4], dtype: "float32", scope: "warp", offsetFactor: 4 });
  const b = (name: string, param: string): BufferSpec => ({ name, param, dims: [n, 8], dtype: "float32", scope: "shared.dyn", offsetFactor: 8 });
  const c: BufferSpec = { name: "C", param: "c", dims: [32, n / 2], dtype: "float32", scope: "warp", offsetFactor: 1 };
  const cAt = `C[${accLane("vi", "vj")}, ${accRegister("vi", "vj")}]`;
  const aAt = (buffer: string) => `${buffer}[4 * (vi % 8) + vk % 4, vi // 8 + vk // 4 * 2]`;
  const mma = (x: string, y: string) =>
    `T.ptx.wgmma_mma_async_rs("m64n${n}k8", "tf32", "tf32", "fp32", 0, ${SWIZZLE_ROW_BYTES}, ${x}.data, ${x}_off + tx * 4, ${y}.access_ptr("r"), 16, ${y}_s1 * ${4 * ATOM_ROWS}, C.data, C_off + tx * ${n / 2})`;
  const grid = `        for i, j, k in T.grid(16, ${n}, 8):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])`;
  const pair = x3
    ? intrinPair(
        {
          buffers: [a("AH", "ah"), a("AL", "al"), b("BH", "bh"), b("BL", "bl"), c],
          reads: [c, a("AL", "al"), b("BH", "bh"), a("AH", "ah"), b("BL", "bl")],
          writes: [c],
        },
        `${grid}
                ${cAt} = ${cAt} + (${aAt("AL")} * BH[vj, vk] + ${aAt("AH")} * BL[vj, vk] + ${aAt("AH")} * BH[vj, vk])`,
        `        for tx in T.thread_binding(32, thread="threadIdx.x"):
            ${mma("AL", "BH")}
            ${mma("AH", "BL")}
            ${mma("AH", "BH")}
            T.ptx.wgmma_commit_group()`,
      )
    : intrinPair(
        { buffers: [a("A", "a"), b("B", "b"), c], reads: [c, a("A", "a"), b("B", "b")], writes: [c] },
        `${grid}
                ${cAt} = ${cAt} + ${aAt("A")} * B[vj, vk]`,
        `        for tx in T.thread_binding(32, thread="threadIdx.x"):
            ${mma("A", "B")}
            T.ptx.wgmma_commit_group()`,
      );
  return { ...pair, mismatchHint: REGISTER_A_HINT };
}

for (const n of WGMMA_N) for (const x3 of [false, true]) defineBuiltinTensorIntrin(wgmmaTf32RegisterAIntrinName(n, x3), () => wgmmaTf32RegisterAIntrin(n, x3));

/**
 * The register layout of a warp-scope accumulator that the wgmma intrinsics read, as an index map
 * for `Schedule.transformLayout`: element (i, j) goes to (16-row slice, lane, register), the
 * registers of each 16×16 tile j/16 at 8·(j/16)…, in the m16n8k16 accumulator order.
 */
export function wgmmaAccumulatorLayout(i: Var, j: Var): PrimExpr[] {
  const [ti, tj] = [floormod(i, 16), floormod(j, 16)];
  const lane = add(mul(floormod(ti, 8), 4), floordiv(floormod(tj, 8), 2));
  const register = add(add(add(mul(floordiv(j, 16), 8), mul(floordiv(tj, 8), 4)), mul(floordiv(ti, 8), 2)), floormod(tj, 2));
  return [floordiv(i, 16), lane, register];
}

/**
 * The 128-byte-swizzled K-major shared layout of a 2-D tile whose rows are one 128-byte swizzle row
 * (`128 / elementBytes` elements: 64 fp16, 32 float32), as an index map for `Schedule.swizzleLayout`:
 * 16-byte chunk c of row r moves to chunk c XOR r mod 8 (the hardware's swizzle; 8-row atoms of
 * 1024 bytes). The fp16 A tiles and both tf32 operands (B stored as Bᵀ) use it. Throws a
 * RangeError naming the tile when its rows are not one swizzle row.
 */
export function wgmmaKMajorLayout(rows: number, cols: number, elementBytes: 2 | 4): (r: Var, c: Var) => PrimExpr[] {
  const rowElements = SWIZZLE_ROW_BYTES / elementBytes;
  if (cols !== rowElements)
    throw new RangeError(`wgmmaKMajorLayout: a K-major tile of ${elementBytes}-byte elements needs rows of ${rowElements} (128 bytes), got ${rows}×${cols}`);
  const vector = 16 / elementBytes;
  return (r, c) => [r, add(mul(bitwiseXor(floordiv(c, vector), floormod(r, ATOM_ROWS)), vector), floormod(c, vector))];
}

/**
 * The 128-byte-swizzled shared layout wgmma reads, as an index map for `Schedule.swizzleLayout` of
 * a 2-D fp16 tile:
 * - "A" (K-major, rows of 64 elements): chunk c of row r moves to chunk c XOR r mod 8, the
 *   hardware's swizzle of 128-byte rows in 1024-byte atoms (as `sharedSwizzle(64, 2)`);
 * - "B" (MN-major, [k][n], `WGMMA_B_STAGE_K` k rows, n = `cols` a multiple of 64): the n/64
 *   panels of 64 columns one after another, each its k rows of 128 bytes in order, swizzled like A
 *   (the intrinsic's descriptor: LBO = a panel, SBO = 8 rows).
 * Throws a RangeError naming the tile when its shape does not fit.
 */
export function wgmmaSharedLayout(operand: "A" | "B", rows: number, cols: number): (r: Var, c: Var) => PrimExpr[] {
  if (operand === "A" && cols !== ROW_HALVES)
    throw new RangeError(`wgmmaSharedLayout: a K-major A tile needs rows of ${ROW_HALVES} fp16 (128 bytes), got ${rows}×${cols}`);
  if (operand === "B" && (cols % ROW_HALVES !== 0 || rows !== WGMMA_B_STAGE_K))
    throw new RangeError(
      `wgmmaSharedLayout: an MN-major B tile needs ${WGMMA_B_STAGE_K} rows (the wgmma descriptor's panel stride) and a multiple of ${ROW_HALVES} columns, got ${rows}×${cols}`,
    );
  const chunk = (row: PrimExpr, col: PrimExpr) => add(mul(bitwiseXor(floordiv(col, 8), floormod(row, ATOM_ROWS)), 8), floormod(col, 8));
  if (operand === "A") return (r, c) => [r, chunk(r, c)];
  // Within each aligned block of `rows` × `cols` (so that the map also permutes a larger buffer,
  // e.g. a cache read's full shape before compaction): offset o of the panel layout.
  return (k, j) => {
    const [kk, jj] = [floormod(k, rows), floormod(j, cols)];
    const o = add(add(mul(floordiv(jj, ROW_HALVES), rows * ROW_HALVES), mul(kk, ROW_HALVES)), chunk(kk, floormod(jj, ROW_HALVES)));
    return [add(mul(floordiv(k, rows), rows), floordiv(o, cols)), add(mul(floordiv(j, cols), cols), floormod(o, cols))];
  };
}
