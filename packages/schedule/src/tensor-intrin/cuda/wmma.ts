/**
 * WMMA tensor intrinsics (sm_70+), as TVM's `wmma_*` intrinsics: fill, load (A or B, row or
 * column major, from shared or dynamic shared memory), mma_sync and store of 16×16×16 fragments.
 * Descriptions are element loops over the fragment; implementations call TVM's opaque
 * `T.tvm_fill_fragment` / `T.tvm_load_matrix_sync` / `T.tvm_mma_sync` / `T.tvm_store_matrix_sync`
 * with the fragment index derived from the fragment buffer's offset and row stride.
 */
import { defineBuiltinTensorIntrin } from "../registry.js";

type Dim = readonly [rows: number, cols: number];

/** Every WMMA fragment here is 16×16 (m16n16k16). */
const FRAGMENT: Dim = [16, 16];

/** `T.match_buffer` of parameter `p` as buffer `name`; `layoutVars` adds symbolic strides and offset (implementations). */
function matchBuffer(name: string, param: string, [rows, cols]: Dim, dtype: string, scope: string, layoutVars: boolean): string {
  const layout = layoutVars ? `, strides=[${name}_s1, ${name}_s0], elem_offset=${name}_off` : "";
  return `    ${name} = T.match_buffer(${param}, (${rows}, ${cols}), "${dtype}", align=64, offset_factor=${cols}, scope="${scope}"${layout})`;
}

/** Declarations of the variables `matchBuffer(…, true)` uses. */
function layoutVarDecls(names: readonly string[]): string {
  return names.flatMap((n) => [`${n}_s1`, `${n}_s0`, `${n}_off`].map((v) => `    ${v} = T.int32()`)).join("\n");
}

/** Which fragment of a buffer of fragments `[rows, cols]` a view starts at: row-major over whole fragments. */
function fragmentIndex(name: string, [rows, cols]: Dim): string {
  const stride = `${name}_s1`;
  return `${name}_off // ${stride} // ${rows} * (${stride} // ${cols}) + ${name}_off % ${stride} // ${cols}`;
}

interface FuncParts {
  readonly params: readonly string[];
  readonly buffers: readonly string[];
  readonly reads: string;
  readonly writes: string;
  readonly body: string;
  readonly layoutVars?: readonly string[];
}

function primFunc(p: FuncParts): string {
  const decls = p.layoutVars === undefined ? "" : `${layoutVarDecls(p.layoutVars)}\n`;
  return `
@T.prim_func
def f(${p.params.map((x) => `${x}: T.handle`).join(", ")}):
${decls}${p.buffers.join("\n")}
    with T.block("root"):
        T.reads(${p.reads})
        T.writes(${p.writes})
${p.body}
`;
}

const region = (name: string, [rows, cols]: Dim) => `${name}[0:${rows}, 0:${cols}]`;

/** Copy loops `dst[i, j] = src[i, j]` over a fragment (the description of loads and stores). */
function copyLoops(block: string, dims: Dim): string {
  return `        for i, j in T.grid(${dims[0]}, ${dims[1]}):
            with T.block("${block}"):
                vii, vjj = T.axis.remap("SS", [i, j])
                C[vii, vjj] = A[vii, vjj]`;
}

function loadIntrin(dtype: string, sharedScope: string, operand: "a" | "b", colMajor: boolean): { desc: string; impl: string } {
  // Column-major loads describe the same element copy; only the layout argument differs.
  const dims = FRAGMENT;
  const fragScope = `wmma.matrix_${operand}`;
  const parts = (impl: boolean): FuncParts => ({
    params: ["a", "c"],
    buffers: [matchBuffer("A", "a", dims, dtype, sharedScope, impl), matchBuffer("C", "c", dims, dtype, fragScope, impl)],
    reads: region("A", dims),
    writes: region("C", dims),
    layoutVars: impl ? ["A", "C"] : undefined,
    body: impl
      ? `        T.tvm_load_matrix_sync(C.data, 16, 16, 16, ${fragmentIndex("C", dims)}, A.access_ptr("r"), A_s1, "${colMajor ? "col_major" : "row_major"}")`
      : copyLoops("load", dims),
  });
  return { desc: primFunc(parts(false)), impl: primFunc(parts(true)) };
}

function fillIntrin(dtype: string): { desc: string; impl: string } {
  const dims = FRAGMENT;
  const zero = `T.${dtype}(0)`;
  const parts = (impl: boolean): FuncParts => ({
    params: ["c"],
    buffers: [matchBuffer("C", "c", dims, dtype, "wmma.accumulator", impl)],
    reads: "",
    writes: region("C", dims),
    layoutVars: impl ? ["C"] : undefined,
    body: impl
      ? `        T.tvm_fill_fragment(C.data, 16, 16, 16, ${fragmentIndex("C", dims)}, ${zero})`
      : `        for i, j in T.grid(16, 16):
            with T.block("init"):
                vii, vjj = T.axis.remap("SS", [i, j])
                C[vii, vjj] = ${zero}`,
  });
  return { desc: primFunc(parts(false)), impl: primFunc(parts(true)) };
}

function storeIntrin(dtype: string, scope: string): { desc: string; impl: string } {
  const dims = FRAGMENT;
  const parts = (impl: boolean): FuncParts => ({
    params: ["a", "c"],
    buffers: [matchBuffer("A", "a", dims, dtype, "wmma.accumulator", impl), matchBuffer("C", "c", dims, dtype, scope, impl)],
    reads: region("A", dims),
    writes: region("C", dims),
    layoutVars: impl ? ["A", "C"] : undefined,
    body: impl
      ? `        T.tvm_store_matrix_sync(A.data, 16, 16, 16, ${fragmentIndex("A", dims)}, C.access_ptr("w"), C_s1, "row_major")`
      : copyLoops("store", dims),
  });
  return { desc: primFunc(parts(false)), impl: primFunc(parts(true)) };
}

function syncIntrin(inDtype: string, outDtype: string, bTransposed: boolean): { desc: string; impl: string } {
  const dims = FRAGMENT;
  const widen = (x: string) => (inDtype === outDtype ? x : `T.Cast("${outDtype}", ${x})`);
  const bIndex = bTransposed ? "vjj, vkk" : "vkk, vjj";
  const parts = (impl: boolean): FuncParts => ({
    params: ["a", "b", "c"],
    buffers: [
      matchBuffer("A", "a", dims, inDtype, "wmma.matrix_a", impl),
      matchBuffer("B", "b", dims, inDtype, "wmma.matrix_b", impl),
      matchBuffer("C", "c", dims, outDtype, "wmma.accumulator", impl),
    ],
    reads: `${region("C", dims)}, ${region("A", dims)}, ${region("B", dims)}`,
    writes: region("C", dims),
    layoutVars: impl ? ["A", "B", "C"] : undefined,
    body: impl
      ? `        T.tvm_mma_sync(C.data, ${fragmentIndex("C", dims)}, A.data, ${fragmentIndex("A", dims)}, B.data, ${fragmentIndex("B", dims)}, C.data, ${fragmentIndex("C", dims)})`
      : `        for i, j, k in T.grid(16, 16, 16):
            with T.block("update"):
                vii, vjj, vkk = T.axis.remap("SSR", [i, j, k])
                C[vii, vjj] = C[vii, vjj] + ${widen("A[vii, vkk]")} * ${widen(`B[${bIndex}]`)}`,
  });
  return { desc: primFunc(parts(false)), impl: primFunc(parts(true)) };
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
