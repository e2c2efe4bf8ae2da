/**
 * Expressions → JS expression snippets. Vector expressions are emitted one lane at a time:
 * `emitExpr(ctx, e, lane)` gives the scalar JS of lane `lane` of `e`.
 */
import { type DType, dtypeInfo, elementType, lanesOf } from "../dtype.js";
import type { BufferLoad, Call, Let, PrimExpr, Ramp } from "../expr.js";
import { globalCallee, isOpaqueIntrinsic } from "../intrinsics.js";
import { roundToFloatPrecision } from "./half-precision.js";
import type { EmitContext } from "./context.js";
import { describeExpr } from "../printer/expr-text.js";
import { ExecutionError } from "./errors.js";
import { emitElementAccess } from "./buffer-layout.js";
import { emitBinaryOp, emitCast, emitIntrinsic } from "./scalar-ops.js";

/** A JS number literal, parenthesised when negative so it composes safely. */
export function numberLiteral(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "Infinity";
  if (value === -Infinity) return "(-Infinity)";
  if (Object.is(value, -0)) return "(-0)";
  return value < 0 ? `(${String(value)})` : String(value);
}

/** The value of a float immediate in its dtype's precision. */
function floatConstant(value: number, dt: DType): number {
  const { code, bits } = dtypeInfo(dt);
  return code === "float" || code === "bfloat" ? roundToFloatPrecision(code, bits, value) : value;
}

/** JS for `e` (or for lane `lane` of a vector `e`). */
export function emitExpr(ctx: EmitContext, e: PrimExpr, lane?: number): string {
  refuseScalable(ctx, e);
  const vector = lanesOf(e.dtype) > 1;
  if (vector && lane === undefined) {
    throw new ExecutionError(`vector expression ${describeExpr(e)} (${e.dtype}) is used${ctx.where} where a scalar is expected`);
  }
  const sub = vector ? lane : undefined;
  switch (e.kind) {
    case "IntImm":
      return e.dtype === "bool" ? (e.value ? "true" : "false") : numberLiteral(e.value);
    case "FloatImm":
      return numberLiteral(floatConstant(e.value, e.dtype));
    case "StringImm":
      return JSON.stringify(e.value);
    case "Var": {
      const name = ctx.varName(e);
      return vector ? `${name}[${sub}]` : name;
    }
    case "Binary": {
      const a = emitExpr(ctx, e.a, sub);
      const b = emitExpr(ctx, e.b, sub);
      return emitBinaryOp(e.op, elementType(e.a.dtype), a, b, () => ctx.sites.add({ kind: "division", text: describeExpr(e), where: ctx.where }));
    }
    case "Not":
      return `(!${emitExpr(ctx, e.a, sub)})`;
    case "Select":
      return `$select(${emitExpr(ctx, e.condition, sub)}, ${emitExpr(ctx, e.trueValue, sub)}, ${emitExpr(ctx, e.falseValue, sub)})`;
    case "Cast":
      return emitCast(elementType(e.value.dtype), elementType(e.dtype), emitExpr(ctx, e.value, sub));
    case "BufferLoad":
      return emitLoad(ctx, e, sub);
    case "Ramp":
      return emitRampLane(ctx, e, sub ?? 0);
    case "Broadcast":
      return emitExpr(ctx, e.value);
    case "Let":
      return emitLet(ctx, e, sub);
    case "Call":
      return emitCall(ctx, e, sub);
  }
}

/** Throws when `e` is a scalable vector: its lane count is known only on the hardware. */
export function refuseScalable(ctx: EmitContext, e: PrimExpr): void {
  if (lanesOf(e.dtype) < 0) {
    throw new ExecutionError(
      `cannot execute ${describeExpr(e)}${ctx.where}: its dtype ${e.dtype} is a scalable vector (vscale × lanes), which the CPU executor does not have`,
    );
  }
}

/** All lanes of a (possibly scalar) expression, as a JS array literal or a scalar snippet. */
export function emitValue(ctx: EmitContext, e: PrimExpr): string {
  const lanes = lanesOf(e.dtype);
  if (lanes === 1) return emitExpr(ctx, e);
  return `[${Array.from({ length: lanes }, (_, k) => emitExpr(ctx, e, k)).join(", ")}]`;
}

function emitLoad(ctx: EmitContext, e: BufferLoad, lane: number | undefined): string {
  const indexJs = e.indices.map((i) => emitExpr(ctx, i, lanesOf(i.dtype) > 1 ? lane : undefined));
  const element = emitElementAccess(ctx, e.buffer, e.indices, indexJs, "load", lane);
  // bool buffers hold 0/1 bytes; expressions use JS booleans.
  const value = dtypeInfo(e.buffer.dtype).code === "bool" ? `(${element} !== 0)` : element;
  if (e.predicate === undefined) return value;
  // A masked-off lane reads nothing (its index is not even checked) and yields zero.
  const zero = dtypeInfo(e.buffer.dtype).code === "bool" ? "false" : "0";
  return `(${emitExpr(ctx, e.predicate, lane)} ? ${value} : ${zero})`;
}

function emitRampLane(ctx: EmitContext, e: Ramp, lane: number): string {
  const base = emitExpr(ctx, e.base);
  if (lane === 0) return base;
  const dt = elementType(e.dtype);
  const stride = e.stride.kind === "IntImm" ? numberLiteral(e.stride.value * lane) : emitBinaryOp("mul", dt, emitExpr(ctx, e.stride), String(lane), noDivision);
  return emitBinaryOp("add", dt, base, stride, noDivision);
}

function noDivision(): number {
  return -1;
}

/** `(t = value, body)`: the value is computed once per evaluation of the Let, only when reached. */
function emitLet(ctx: EmitContext, e: Let, lane: number | undefined): string {
  const t = ctx.temp(e.variable.name.replace(/[^A-Za-z0-9_]/g, "_"));
  const value = emitValue(ctx, e.value);
  const { unbind } = ctx.bindVar(e.variable, t);
  try {
    return `(${t} = ${value}, ${emitExpr(ctx, e.body, lane)})`;
  } finally {
    unbind();
  }
}

function emitCall(ctx: EmitContext, e: Call, lane: number | undefined): string {
  const arg = (i: number): string => {
    const a = e.args[i];
    if (a === undefined) throw new ExecutionError(`T.${e.op}${ctx.where}: missing argument ${i}`);
    return emitExpr(ctx, a, lanesOf(a.dtype) > 1 ? lane : undefined);
  };
  const callee = globalCallee(e.op);
  if (callee !== undefined)
    throw new ExecutionError(`cannot execute the call of function "${callee}"${ctx.where}: the CPU executor runs one function at a time`);
  if (isOpaqueIntrinsic(e.op)) {
    throw new ExecutionError(
      `cannot execute opaque intrinsic T.${e.op}${ctx.where}: it has no meaning on the CPU (only a code generator that knows it can run it)`,
    );
  }
  if (e.op === "if_then_else") return `(${arg(0)} ? ${arg(1)} : ${arg(2)})`;
  if (e.op === "tvm_storage_sync") return "0";
  // A hint's value is its condition; an assumption computes nothing.
  if (e.op === "likely") return arg(0);
  if (e.op === "assume") return "true";
  if (e.op === "assert") {
    const strings = e.args.slice(1).map((a) => (a.kind === "StringImm" ? a.value : ""));
    const message = strings.length > 1 ? `${strings[0]}: ${strings.slice(1).join("")}` : "";
    return `(${arg(0)} ? 0 : $assertFailed(${JSON.stringify(message)}))`;
  }
  return emitIntrinsic(
    e.op,
    elementType(e.dtype),
    e.args.map((_, i) => arg(i)),
  );
}
