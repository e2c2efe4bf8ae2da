/**
 * The registry of built-in call operators. Every pass that meets a `Call` (printer, parser,
 * executor, codegen, simplifier) looks the operator up here, so adding an intrinsic means one
 * entry in this table plus its implementation in the executor and the CUDA code generator.
 */
import { type Call, type ExprLike, call, matchTypes, toExpr } from "./expr.js";
import { type DType, isBool, isFloat } from "./dtype.js";
import { IRError } from "./errors.js";
import { PTX_CP_ASYNC, ptxCpAsyncFromArgs } from "./async-copy.js";

export interface IntrinsicInfo {
  readonly name: string;
  /** Number of arguments, or -1 for variadic. */
  readonly arity: number;
  /** Free of side effects: may be removed, duplicated or reordered. */
  readonly pure: boolean;
  /** Float-only math functions (exp, log, …) reject integer operands. */
  readonly floatOnly: boolean;
  /** TVMScript writes the call's dtype as its first argument (`T.ptx_cp_async("float32", ...)`). */
  readonly dtypeFirst: boolean;
}

const table = new Map<string, IntrinsicInfo>();

function register(name: string, arity: number, opts: { pure?: boolean; floatOnly?: boolean; dtypeFirst?: boolean } = {}): void {
  table.set(name, { name, arity, pure: opts.pure ?? true, floatOnly: opts.floatOnly ?? false, dtypeFirst: opts.dtypeFirst ?? false });
}

/** Unary float math, named as in TVMScript (`T.exp`) and C (`expf`). */
export const UNARY_MATH = ["exp", "log", "sqrt", "tanh", "sigmoid", "floor", "ceil", "round", "trunc"] as const;
for (const name of UNARY_MATH) register(name, 1, { floatOnly: true });
register("fabs", 1);
register("pow", 2, { floatOnly: true });
register("if_then_else", 3);
// Lowered-code intrinsics.
register("tvm_storage_sync", 1, { pure: false });
// Asynchronous global → shared copy (see async-copy.ts): 5 operands, or 6 with a predicate.
register(PTX_CP_ASYNC, -1, { pure: false, dtypeFirst: true });

export function intrinsicInfo(name: string): IntrinsicInfo | undefined {
  return table.get(name);
}

export function isKnownIntrinsic(name: string): boolean {
  return table.has(name);
}

function unaryMath(name: string, xLike: ExprLike): Call {
  const x = toExpr(xLike, "float32");
  if (!isFloat(x.dtype)) {
    throw new IRError(`T.${name} expects a float operand, got ${x.dtype}`);
  }
  return call(x.dtype, name, [x]);
}

export const exp = (x: ExprLike): Call => unaryMath("exp", x);
export const log = (x: ExprLike): Call => unaryMath("log", x);
export const sqrt = (x: ExprLike): Call => unaryMath("sqrt", x);
export const tanh = (x: ExprLike): Call => unaryMath("tanh", x);
export const sigmoid = (x: ExprLike): Call => unaryMath("sigmoid", x);
export const floor = (x: ExprLike): Call => unaryMath("floor", x);
export const ceil = (x: ExprLike): Call => unaryMath("ceil", x);
export const round = (x: ExprLike): Call => unaryMath("round", x);
export const trunc = (x: ExprLike): Call => unaryMath("trunc", x);

export function fabs(xLike: ExprLike): Call {
  const x = toExpr(xLike);
  if (isBool(x.dtype)) throw new IRError("T.fabs expects a numeric operand, got bool");
  return call(x.dtype, "fabs", [x]);
}

export function pow(aLike: ExprLike, bLike: ExprLike): Call {
  const [a, b] = matchTypes(aLike, bLike, "T.pow");
  if (!isFloat(a.dtype)) throw new IRError(`T.pow expects float operands, got ${a.dtype}`);
  return call(a.dtype, "pow", [a, b]);
}

/** A conditional that evaluates only the chosen branch (safe for out-of-bounds guards). */
export function ifThenElse(condLike: ExprLike, t: ExprLike, f: ExprLike): Call {
  const cond = toExpr(condLike);
  if (!isBool(cond.dtype)) throw new IRError(`T.if_then_else: condition must be bool, got ${cond.dtype}`);
  const [tv, fv] = matchTypes(t, f, "T.if_then_else");
  return call(tv.dtype, "if_then_else", [cond, tv, fv]);
}

/** `__syncthreads()` for scope "shared". */
export function storageSync(scope: string): Call {
  return { kind: "Call", dtype: "int32", op: "tvm_storage_sync", args: [{ kind: "StringImm", dtype: "handle", value: scope }] };
}

/** Checks a call built by hand (e.g. by the parser) against the registry. */
export function checkIntrinsicCall(op: string, args: readonly ExprLike[], dt?: DType): Call {
  const info = table.get(op);
  if (info === undefined) throw new IRError(`unknown intrinsic "${op}"`);
  if (info.arity >= 0 && args.length !== info.arity) {
    throw new IRError(`T.${op} takes ${info.arity} argument${info.arity === 1 ? "" : "s"}, got ${args.length}`);
  }
  switch (op) {
    case "fabs":
      return fabs(args[0]!);
    case "pow":
      return pow(args[0]!, args[1]!);
    case "if_then_else":
      return ifThenElse(args[0]!, args[1]!, args[2]!);
    case PTX_CP_ASYNC:
      if (dt === undefined) throw new IRError(`T.${op} needs the element dtype as its first argument`);
      return ptxCpAsyncFromArgs(dt, args.map((a) => toExpr(a)));
    default:
      if ((UNARY_MATH as readonly string[]).includes(op)) return unaryMath(op, args[0]!);
      return call(dt ?? "int32", op, args);
  }
}
