/**
 * TMA loads (ir's tensor-map.ts) in CUDA C. A kernel that loads buffer A with
 * `T.ptx.cp_async_bulk_tensor_2d` takes `const __grid_constant__ tessera_tensor_map A_tmap` after
 * A's pointer (the driver's CUtensorMap: 128 opaque bytes, 64-byte aligned, encoded by the host);
 * each load is
 * `cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [&A_tmap, {c_inner, c_outer}], [bar]`.
 * The box and the swizzle are in the map, so the call's own box and swizzle only checked (by
 * `tensorMapsOf`, when the kernel was made). sm_90 and newer; module.ts refuses older targets.
 * Warp-specialised TMA kernels also move registers between warpgroups: `setmaxnreg` (sm_90a).
 */
import { type Call, CP_ASYNC_BULK_TENSOR_ARITY, IRError, SETMAXNREG_INC, type Var, setmaxnregCount } from "@tessera/ir";
import { guarded } from "./async-copy.js";
import { type EmitContext, fail } from "./context.js";
import type { ExprEmitter } from "./expr-emitter.js";
import { accessPointer } from "./wmma.js";

export type TmaFeature = "tma" | "setmaxnreg";

/** The C type of a tensor-map parameter. */
export const TENSOR_MAP_C_TYPE = "tessera_tensor_map";

/** The C statement of a TMA load; `maps` names each loaded buffer's tensor-map parameter by its data variable. */
export function tmaStatement(ctx: EmitContext, exprs: ExprEmitter, call: Call, maps: ReadonlyMap<Var, string>): string {
  if (call.args.length !== CP_ASYNC_BULK_TENSOR_ARITY) fail(ctx, `T.${call.op} takes ${CP_ASYNC_BULK_TENSOR_ARITY} arguments, got ${call.args.length}`);
  const source = call.args[1]!;
  const map = source.kind === "Var" ? maps.get(source) : undefined;
  if (map === undefined) fail(ctx, `T.${call.op}: argument 1 must be the data of a buffer parameter with a tensor map (e.g. A.data)`);
  ctx.features.add("tma");
  ctx.features.add("mbarrier");
  const dst = accessPointer(ctx, exprs, call.args[0]!, call.op);
  const bar = accessPointer(ctx, exprs, call.args[7]!, call.op);
  return `tessera_tma_load_2d(${dst}, &${map}, ${exprs.expr(call.args[5]!)}, ${exprs.expr(call.args[6]!)}, ${bar});`;
}

const HELPERS = guarded("TESSERA_TMA_DEFINED", [
  "// A CUtensorMap (the driver encodes it on the host; a kernel takes it as a const __grid_constant__ parameter).",
  `struct __align__(64) ${TENSOR_MAP_C_TYPE} { unsigned long long opaque[16]; };`,
  "// The box of `map` at (c_inner, c_outer) into shared `dst`; its bytes complete on `bar`'s transaction count.",
  `__device__ __forceinline__ void tessera_tma_load_2d(void* dst, const ${TENSOR_MAP_C_TYPE}* map, int c_inner, int c_outer, void* bar) {`,
  '  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\\n"',
  '               :: "r"(tessera_shared_address(dst)), "l"(reinterpret_cast<unsigned long long>(map)), "r"(c_inner), "r"(c_outer),',
  '                  "r"(tessera_shared_address(bar)) : "memory");',
  "}",
]);

/** The helper definitions, when a kernel loads with TMA (after the mbarrier helpers, whose address helper they use). */
export function tmaPreamble(has: (f: TmaFeature) => boolean): string[] {
  return has("tma") ? [HELPERS] : [];
}

/** `T.ptx.setmaxnreg_inc/dec(n)` (ir's setmaxnreg.ts): the count is an immediate of the instruction. */
export function setmaxnregStatement(ctx: EmitContext, call: Call): string {
  let count: number;
  try {
    count = setmaxnregCount(call);
  } catch (e) {
    if (e instanceof IRError) fail(ctx, e.message);
    throw e;
  }
  ctx.features.add("setmaxnreg");
  return `asm volatile("setmaxnreg.${call.op === SETMAXNREG_INC ? "inc" : "dec"}.sync.aligned.u32 ${count};\\n" ::: "memory");`;
}
