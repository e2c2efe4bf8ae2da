/**
 * WMMA tensor intrinsics (sm_70+), as TVM's `wmma_*` intrinsics: fill, load (A or B, row or
 * column major, from shared or dynamic shared memory), mma_sync and store of 16×16×16 fragments.
 * Descriptions are element loops over the fragment; implementations call TVM's opaque
 * `T.tvm_fill_fragment` / `T.tvm_load_matrix_sync` / `T.tvm_mma_sync` / `T.tvm_store_matrix_sync`
 * with the fragment index derived from the fragment buffer's offset and row stride.
 */
import { defineBuiltinTensorIntrin } from "../registry.js";
import { type BufferSpec, type Dim, intrinPair } from "./script.js";

/** Every WMMA fragment here is 16×16 (m16n16k16). */
const FRAGMENT: Dim = [16, 16];

const buffer = (name: string, param: string, dtype: string, scope: string): BufferSpec => ({ name, param, dims: FRAGMENT, dtype, scope });

/** Which fragment of a buffer of fragments a view starts at: row-major over whole 16×16 fragments. */
function fragmentIndex(name: string): string {
  const stride = `${name}_s1`;
  return `${name}_off // ${stride} // 16 * (${stride} // 16) + ${name}_off % ${stride} // 16`;
}

/** Copy loops `C[i, j] = A[i, j]` over a fragment (the description of loads and stores). */
function copyLoops(block: string): string {
  return `        for i, j in T.grid(16, 16):
            with T.block("${block}"):
                vii, vjj = T.axis.remap("SS", [i, j])
                C[vii, vjj] = A[vii, vjj]`;
}

function loadIntrin(dtype: string, sharedScope: string, operand: "a" | "b", colMajor: boolean): { desc: string; impl: string } {
  const a = buffer("A", "a", dtype, sharedScope);
  const c = buffer("C", "c", dtype, `wmma.matrix_${operand}`);
  // Column-major loads describe the same element copy; only the layout argument differs.
  const layout = colMajor ? "col_major" : "row_major";
  return intrinPair(
    { buffers: [a, c], reads: [a], writes: [c] },
    copyLoops("load"),
    `        T.tvm_load_matrix_sync(C.data, 16, 16, 16, ${fragmentIndex("C")}, A.access_ptr("r"), A_s1, "${layout}")`,
  );
}

function fillIntrin(dtype: string): { desc: string; impl: string } {
  const c = buffer("C", "c", dtype, "wmma.accumulator");
  const zero = `T.${dtype}(0)`;
  return intrinPair(
    { buffers: [c], reads: [], writes: [c] },
    `        for i, j in T.grid(16, 16):
            with T.block("init"):
                vii, vjj = T.axis.remap("SS", [i, j])
                C[vii, vjj] = ${zero}`,
    `        T.tvm_fill_fragment(C.data, 16, 16, 16, ${fragmentIndex("C")}, ${zero})`,
  );
}

function storeIntrin(dtype: string, scope: string): { desc: string; impl: string } {
  const a = buffer("A", "a", dtype, "wmma.accumulator");
  const c = buffer("C", "c", dtype, scope);
  return intrinPair(
    { buffers: [a, c], reads: [a], writes: [c] },
    copyLoops("store"),
    `        T.tvm_store_matrix_sync(A.data, 16, 16, 16, ${fragmentIndex("A")}, C.access_ptr("w"), C_s1, "row_major")`,
  );
}

function syncIntrin(inDtype: string, outDtype: string, bTransposed: boolean): { desc: string; impl: string } {
  const widen = (x: string) => (inDtype === outDtype ? x : `T.Cast("${outDtype}", ${x})`);
  const bIndex = bTransposed ? "vjj, vkk" : "vkk, vjj";
  const a = buffer("A", "a", inDtype, "wmma.matrix_a");
  const b = buffer("B", "b", inDtype, "wmma.matrix_b");
  const c = buffer("C", "c", outDtype, "wmma.accumulator");
  return intrinPair(
    { buffers: [a, b, c], reads: [c, a, b], writes: [c] },
    `        for i, j, k in T.grid(16, 16, 16):
            with T.block("update"):
                vii, vjj, vkk = T.axis.remap("SSR", [i, j, k])
                C[vii, vjj] = C[vii, vjj] + ${widen("A[vii, vkk]")} * ${widen(`B[${bIndex}]`)}`,
    `        T.tvm_mma_sync(C.data, ${fragmentIndex("C")}, A.data, ${fragmentIndex("A")}, B.data, ${fragmentIndex("B")}, C.data, ${fragmentIndex("C")})`,
  );
}

/** TVM's names of the WMMA intrinsics defined here. */
export const WMMA_INTRINSICS = {
  syncF16F16F32: "wmma_sync_16x16x16_f16f16f32",
  syncF16F16F32Trans: "wmma_sync_16x16x16_f16f16f32_trans",
  syncF16F16F16: "wmma_sync_16x16x16_f16f16f16",
  syncF16F16F16Trans: "wmma_sync_16x16x16_f16f16f16_trans",
  loadF16A: "wmma_load_16x16x16_f16_a_shared",
  loadF16ADyn: "wmma_load_16x16x16_f16_a_shared_dyn",
  loadF16B: "wmma_load_16x16x16_f16_b_shared",
  loadF16BDyn: "wmma_load_16x16x16_f16_b_shared_dyn",
  loadF16ATrans: "wmma_load_16x16x16_f16_a_trans_shared",
  loadF16BTrans: "wmma_load_16x16x16_f16_b_trans_shared",
  fillF32: "wmma_fill_16x16x16_f32",
  fillF16: "wmma_fill_16x16x16_f16",
  storeF32Shared: "wmma_store_16x16x16_f32_shared",
  storeF32SharedDyn: "wmma_store_16x16x16_f32_shared_dyn",
  storeF32Global: "wmma_store_16x16x16_f32_global",
  storeF16Shared: "wmma_store_16x16x16_f16_shared",
  storeF16Global: "wmma_store_16x16x16_f16_global",
} as const;

const W = WMMA_INTRINSICS;
defineBuiltinTensorIntrin(W.syncF16F16F32, () => syncIntrin("float16", "float32", false));
defineBuiltinTensorIntrin(W.syncF16F16F32Trans, () => syncIntrin("float16", "float32", true));
defineBuiltinTensorIntrin(W.syncF16F16F16, () => syncIntrin("float16", "float16", false));
defineBuiltinTensorIntrin(W.syncF16F16F16Trans, () => syncIntrin("float16", "float16", true));
defineBuiltinTensorIntrin(W.loadF16A, () => loadIntrin("float16", "shared", "a", false));
defineBuiltinTensorIntrin(W.loadF16ADyn, () => loadIntrin("float16", "shared.dyn", "a", false));
defineBuiltinTensorIntrin(W.loadF16B, () => loadIntrin("float16", "shared", "b", false));
defineBuiltinTensorIntrin(W.loadF16BDyn, () => loadIntrin("float16", "shared.dyn", "b", false));
defineBuiltinTensorIntrin(W.loadF16ATrans, () => loadIntrin("float16", "shared", "a", true));
defineBuiltinTensorIntrin(W.loadF16BTrans, () => loadIntrin("float16", "shared", "b", true));
defineBuiltinTensorIntrin(W.fillF32, () => fillIntrin("float32"));
defineBuiltinTensorIntrin(W.fillF16, () => fillIntrin("float16"));
defineBuiltinTensorIntrin(W.storeF32Shared, () => storeIntrin("float32", "shared"));
defineBuiltinTensorIntrin(W.storeF32SharedDyn, () => storeIntrin("float32", "shared.dyn"));
defineBuiltinTensorIntrin(W.storeF32Global, () => storeIntrin("float32", "global"));
defineBuiltinTensorIntrin(W.storeF16Shared, () => storeIntrin("float16", "shared"));
defineBuiltinTensorIntrin(W.storeF16Global, () => storeIntrin("float16", "global"));
