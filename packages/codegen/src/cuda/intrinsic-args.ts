/**
 * The arguments of the warp-level intrinsic calls (mma.sync, ldmatrix, wgmma) as the CUDA generator
 * needs them: constants read with a clear error naming the call and the argument, and register arrays
 * as `name + offset`.
 */
import type { Call, PrimExpr, Var } from "@tessera/ir";
import { type EmitContext, fail } from "./context.js";
import type { ExprEmitter } from "./expr-emitter.js";

export function stringArg(ctx: EmitContext, call: Call, i: number): string {
  const a = call.args[i];
  if (a?.kind !== "StringImm") return fail(ctx, `T.${call.op}: argument ${i} must be a string`);
  return a.value;
}

export function intArg(ctx: EmitContext, call: Call, i: number): number {
  const a = call.args[i];
  if (a?.kind !== "IntImm") return fail(ctx, `T.${call.op}: argument ${i} must be an integer constant`);
  return a.value;
}

export function boolArg(ctx: EmitContext, call: Call, i: number): boolean {
  const a = call.args[i];
  if (a?.kind !== "IntImm") return fail(ctx, `T.${call.op}: argument ${i} must be a boolean constant`);
  return a.value !== 0;
}

/** `name + offset` of a register array the kernel allocates. */
export function registers(ctx: EmitContext, exprs: ExprEmitter, data: PrimExpr | undefined, offset: PrimExpr, op: string): string {
  const storage = data?.kind === "Var" ? ctx.storage.get(data) : undefined;
  if (storage === undefined) return fail(ctx, `T.${op}: a register operand is not an array allocated in the kernel`);
  // The instructions read and write the registers as 32-bit words.
  ctx.vectorAccessed.add(data as Var);
  return `${storage.name} + ${exprs.expr(offset)}`;
}
