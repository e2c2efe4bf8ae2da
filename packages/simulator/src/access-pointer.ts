/** A `T.tvm_access_ptr(type, data, offset, extent, mask)` in generated JS: the array, the element offset and the element type. */
import type { PrimExpr } from "@tessera/ir";
import { type EmitContext, emitExpr } from "@tessera/ir/executor-kit";

export interface PointerJs {
  readonly array: string;
  readonly offset: string;
  readonly dtype: string;
}

/** The pointer's parts, or undefined when `e` is no access pointer into a buffer of the kernel. */
export function accessPointerJs(ctx: EmitContext, e: PrimExpr): PointerJs | undefined {
  const data = e.kind === "Call" && e.op === "tvm_access_ptr" ? e.args[1] : undefined;
  const array = data?.kind === "Var" ? ctx.arrayOf(data) : undefined;
  const owner = data?.kind === "Var" ? ctx.storageOwner(data) : undefined;
  if (e.kind !== "Call" || array === undefined || owner === undefined) return undefined;
  return { array, offset: emitExpr(ctx, e.args[2]!), dtype: owner.dtype };
}
