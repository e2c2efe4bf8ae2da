/**
 * WMMA (sm_70+) in CUDA C, as TVM's CUDA generator emits it: fragments are arrays of
 * `nvcuda::wmma::fragment<use, m, n, k, type[, layout]>` (one per 16×16 tile of the allocation),
 * and the four fragment intrinsics become calls of mma.h:
 * - `T.tvm_fill_fragment(frag, m, n, k, index, value)` → `fill_fragment(frag[index], value)`;
 * - `T.tvm_load_matrix_sync(frag, m, n, k, index, ptr, stride, layout)` → `load_matrix_sync(frag[index], ptr, stride)`;
 * - `T.tvm_store_matrix_sync(frag, m, n, k, index, ptr, stride, layout)` → `store_matrix_sync(ptr, frag[index], stride, mem_<layout>)`;
 * - `T.tvm_mma_sync(d, di, a, ai, b, bi, c, ci)` → `mma_sync(d[di], a[ai], b[bi], c[ci])`.
 * A fragment's shape comes from the calls that use it and an operand's layout from its load
 * (TVM's InferFragment pass), so that every fragment of a kernel has one declaration.
 */
import { type Buffer, type Call, type DType, type PrimExpr, type Stmt, type Var, forEachExpr } from "@tessera/ir";
import { type EmitContext, fail } from "./context.js";
import type { ExprEmitter } from "./expr-emitter.js";

export type WmmaFeature = "wmma";

export const WMMA_OPS: ReadonlySet<string> = new Set(["tvm_fill_fragment", "tvm_load_matrix_sync", "tvm_store_matrix_sync", "tvm_mma_sync"]);

const FRAGMENT_SCOPES = { "wmma.matrix_a": "matrix_a", "wmma.matrix_b": "matrix_b", "wmma.accumulator": "accumulator" } as const;
type FragmentScope = keyof typeof FRAGMENT_SCOPES;

function isFragmentScope(scope: string): scope is FragmentScope {
  return Object.hasOwn(FRAGMENT_SCOPES, scope);
}

/** What the calls of a kernel say about one fragment variable. */
interface FragmentUse {
  readonly shape: readonly [m: number, n: number, k: number];
  /** The layout of its load (matrix_a / matrix_b only). */
  layout?: string;
}

/** The m, n, k and (for loads) layout of every fragment the kernel's WMMA calls name. */
export function inferFragments(ctx: EmitContext, body: Stmt): Map<Var, FragmentUse> {
  const uses = new Map<Var, FragmentUse>();
  forEachExpr(body, (e) => {
    if (e.kind !== "Call" || e.op === "tvm_mma_sync" || !WMMA_OPS.has(e.op)) return;
    const frag = e.args[0];
    if (frag?.kind !== "Var") return fail(ctx, `the first argument of T.${e.op} must be a fragment's storage variable`);
    const shape = [1, 2, 3].map((i) => constantArg(ctx, e, i, "m, n and k")) as [number, number, number];
    const known = uses.get(frag) ?? { shape };
    if (known.shape.join(",") !== shape.join(",")) {
      fail(ctx, `fragment ${frag.name} is used as ${known.shape.join("×")} and as ${shape.join("×")} (m×n×k)`);
    }
    if (e.op === "tvm_load_matrix_sync") {
      const layout = stringArg(ctx, e, 7);
      if (known.layout !== undefined && known.layout !== layout) fail(ctx, `fragment ${frag.name} is loaded both ${known.layout} and ${layout}`);
      known.layout = layout;
    }
    uses.set(frag, known);
  });
  return uses;
}

function constantArg(ctx: EmitContext, call: Call, i: number, what: string): number {
  const a = call.args[i];
  if (a?.kind !== "IntImm") return fail(ctx, `T.${call.op}: ${what} must be integer constants (argument ${i})`);
  return a.value;
}

function stringArg(ctx: EmitContext, call: Call, i: number): string {
  const a = call.args[i];
  if (a?.kind !== "StringImm" || (a.value !== "row_major" && a.value !== "col_major")) {
    return fail(ctx, `T.${call.op}: argument ${i} must be "row_major" or "col_major"`);
  }
  return a.value;
}

const ELEMENT_TYPES: Readonly<Record<FragmentScope, Partial<Record<DType, string>>>> = {
  "wmma.matrix_a": { float16: "half", bfloat16: "__nv_bfloat16" },
  "wmma.matrix_b": { float16: "half", bfloat16: "__nv_bfloat16" },
  "wmma.accumulator": { float16: "half", float32: "float" },
};

/** `nvcuda::wmma::fragment<…> name[count];` for an allocation of `elements` in a fragment scope. */
export function fragmentDeclaration(ctx: EmitContext, buffer: Buffer, name: string, elements: number, use: FragmentUse | undefined): string {
  const scope = buffer.scope;
  if (!isFragmentScope(scope)) return fail(ctx, `allocation ${buffer.name} has scope ${scope}, not a WMMA fragment scope`);
  if (use === undefined) return fail(ctx, `fragment ${buffer.name} (${scope}) is allocated but no WMMA call gives its shape`);
  const element = ELEMENT_TYPES[scope][buffer.dtype];
  if (element === undefined) {
    return fail(ctx, `fragment ${buffer.name} holds ${buffer.dtype}; ${scope} fragments hold ${Object.keys(ELEMENT_TYPES[scope]).join(" or ")}`);
  }
  const [m, n, k] = use.shape;
  const perFragment = scope === "wmma.matrix_a" ? m * k : scope === "wmma.matrix_b" ? k * n : m * n;
  if (elements % perFragment !== 0) fail(ctx, `fragment ${buffer.name} has ${elements} elements, not a multiple of one ${scope} fragment (${perFragment})`);
  let layout = "";
  if (scope !== "wmma.accumulator") {
    if (use.layout === undefined) fail(ctx, `fragment ${buffer.name} (${scope}) is never loaded, so its layout is unknown`);
    layout = `, nvcuda::wmma::${use.layout}`;
  }
  ctx.features.add("wmma");
  return `nvcuda::wmma::fragment<nvcuda::wmma::${FRAGMENT_SCOPES[scope]}, ${m}, ${n}, ${k}, ${element}${layout}> ${name}[${elements / perFragment}];`;
}

/** The C statement of a WMMA call. */
export function wmmaStatement(ctx: EmitContext, exprs: ExprEmitter, call: Call): string {
  const fragment = (i: number): string => {
    const data = call.args[i];
    const storage = data?.kind === "Var" ? ctx.storage.get(data) : undefined;
    if (storage === undefined) fail(ctx, `argument ${i} of T.${call.op} is not a fragment allocated in the kernel`);
    return `${storage.name}[${exprs.expr(call.args[i + (call.op === "tvm_mma_sync" ? 1 : 4)]!)}]`;
  };
  const arg = (i: number): string => exprs.expr(call.args[i]!);
  const arity = call.op === "tvm_fill_fragment" ? 6 : 8;
  if (call.args.length !== arity) fail(ctx, `T.${call.op} takes ${arity} arguments, got ${call.args.length}`);
  switch (call.op) {
    case "tvm_fill_fragment":
      return `nvcuda::wmma::fill_fragment(${fragment(0)}, ${arg(5)});`;
    case "tvm_load_matrix_sync":
      return `nvcuda::wmma::load_matrix_sync(${fragment(0)}, ${accessPointer(ctx, exprs, call.args[5]!, call.op)}, ${arg(6)});`;
    case "tvm_store_matrix_sync":
      return `nvcuda::wmma::store_matrix_sync(${accessPointer(ctx, exprs, call.args[5]!, call.op)}, ${fragment(0)}, ${arg(6)}, nvcuda::wmma::mem_${stringArg(ctx, call, 7)});`;
    default:
      return `nvcuda::wmma::mma_sync(${[0, 2, 4, 6].map(fragment).join(", ")});`;
  }
}

/** `T.tvm_access_ptr(type, data, offset, extent, mask)` as `name + offset`. */
export function accessPointer(ctx: EmitContext, exprs: ExprEmitter, e: PrimExpr, op: string): string {
  const data = e.kind === "Call" && e.op === "tvm_access_ptr" ? e.args[1] : undefined;
  const storage = data?.kind === "Var" ? ctx.storage.get(data) : undefined;
  if (storage === undefined || e.kind !== "Call") return fail(ctx, `T.${op} needs a T.tvm_access_ptr into a kernel parameter or allocation`);
  ctx.wmmaAccessed.add(data as Var);
  return `${storage.name} + ${exprs.expr(e.args[2]!)}`;
}

export function wmmaPreamble(has: (feature: WmmaFeature) => boolean): string[] {
  return has("wmma") ? ["#include <mma.h>"] : [];
}
