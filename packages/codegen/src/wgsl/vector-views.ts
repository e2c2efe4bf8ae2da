/**
 * Which arrays a WGSL kernel declares as `array<vec4<T>>`: WGSL cannot reinterpret an
 * `array<f32>` as vectors, so where the lowered IR reads or writes four contiguous 32-bit (or
 * 16-bit: `vec4<f16>`, 8 bytes) elements at a base provably a multiple of 4 (the accesses CUDA
 * writes as `float4`), the array itself is
 * declared of vec4 and those accesses are one vector access; its scalar accesses index the vector
 * (`A[i >> 2u][i & 3i]`). A workgroup or local array needs a multiple of 4 elements; a storage
 * buffer's host array is padded to 16 bytes by the runtime.
 */
import { type PrimExpr, type Stmt, type Var, constantSize, forEachExpr, forEachStmt, lanesOf } from "@tessera/ir";
import { isProvablyMultipleOf } from "../lower/util/divisibility.js";

const VIEWABLE = new Set(["float32", "int32", "uint32", "float16"]);

/** Whether `index` is `Ramp(base, 1, 4)` with `base` provably a multiple of 4 (lets resolved through `letValue`). */
export function isAlignedQuad(index: PrimExpr, letValue: (v: Var) => PrimExpr | undefined): index is Extract<PrimExpr, { kind: "Ramp" }> {
  return (
    index.kind === "Ramp" && index.lanes === 4 && index.stride.kind === "IntImm" && index.stride.value === 1 && isProvablyMultipleOf(index.base, 4, letValue)
  );
}

/** The data variables of the arrays of `body` (and of `params`) to declare as vec4 arrays. */
export function planVectorViews(body: Stmt, params: readonly { readonly data: Var; readonly dtype: string }[]): Set<Var> {
  const letValues = new Map<Var, PrimExpr>();
  const allocated = new Map<Var, { readonly dtype: string; readonly elements: number | undefined }>();
  forEachStmt(body, (s) => {
    if (s.kind === "LetStmt") letValues.set(s.variable, s.value);
    if (s.kind === "Allocate") allocated.set(s.buffer.data, { dtype: s.buffer.dtype, elements: constantSize(s.buffer) });
  });
  forEachExpr(body, (e) => {
    if (e.kind === "Let") letValues.set(e.variable, e.value);
  });
  const letValue = (v: Var) => letValues.get(v);
  const candidates = new Set<Var>();
  const consider = (data: Var, index: PrimExpr | undefined, valueLanes: number) => {
    if (index !== undefined && valueLanes === 4 && isAlignedQuad(index, letValue)) candidates.add(data);
  };
  forEachStmt(body, (s) => {
    if (s.kind === "BufferStore") consider(s.buffer.data, s.indices[0], lanesOf(s.value.dtype));
  });
  forEachExpr(body, (e) => {
    if (e.kind === "BufferLoad") consider(e.buffer.data, e.indices[0], lanesOf(e.dtype));
  });
  const views = new Set<Var>();
  for (const data of candidates) {
    const param = params.find((p) => p.data === data);
    const alloc = allocated.get(data);
    const dtype = param?.dtype ?? alloc?.dtype;
    if (dtype === undefined || !VIEWABLE.has(dtype)) continue;
    if (alloc !== undefined && (alloc.elements === undefined || alloc.elements % 4 !== 0)) continue;
    views.add(data);
  }
  return views;
}
