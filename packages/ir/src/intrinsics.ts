/**
 * The registry of built-in call operators. Every pass that meets a `Call` (printer, parser,
 * executor, codegen, simplifier) looks the operator up here, so adding an intrinsic means one
 * entry in this table plus its implementation in the executor and the CUDA code generator.
 */
import { type Call, type ExprLike, call, matchTypes, toExpr } from "./expr.js";
import { type DType, elementType, isBool, isFloat, isIntegral } from "./dtype.js";
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
  /** TVMScript writes the call's dtype as its last argument (`T.tvm_struct_get(a, 0, 1, "handle")`). */
  readonly dtypeLast: boolean;
  /**
   * Carried through untouched but never computed on the CPU (tensor-core fragments, pointers,
   * external functions): the executor rejects it by name.
   */
  readonly opaque: boolean;
  /** The dtype every call of this operator has, whatever its operands (`handle` for pointers). */
  readonly resultDType?: DType | undefined;
}

const table = new Map<string, IntrinsicInfo>();

interface RegisterOptions {
  pure?: boolean;
  floatOnly?: boolean;
  dtypeFirst?: boolean;
  dtypeLast?: boolean;
  opaque?: boolean;
  resultDType?: DType;
}

function register(name: string, arity: number, opts: RegisterOptions = {}): void {
  table.set(name, {
    name,
    arity,
    pure: opts.pure ?? true,
    floatOnly: opts.floatOnly ?? false,
    dtypeFirst: opts.dtypeFirst ?? false,
    dtypeLast: opts.dtypeLast ?? false,
    opaque: opts.opaque ?? false,
    resultDType: opts.resultDType,
  });
}

/** Unary float math, named as in TVMScript (`T.exp`) and C (`expf`). */
export const UNARY_MATH = ["exp", "log", "sqrt", "tanh", "sigmoid", "floor", "ceil", "round", "trunc"] as const;
for (const name of UNARY_MATH) register(name, 1, { floatOnly: true });
register("fabs", 1);
register("rsqrt", 1, { floatOnly: true });
/**
 * `T.tf32_round(x)`: a float32 rounded to tf32 precision (10 mantissa bits, ties away from zero,
 * PTX `cvt.rna.tf32.f32`), still a float32. Tessera's spelling: TVM has no tf32 dtype.
 */
register("tf32_round", 1, { floatOnly: true });
/**
 * `T.tf32_truncate(x)`: a float32 with its low 13 mantissa bits cleared — what the tensor cores
 * read of a float32 operand that was not rounded (cuBLAS's TF32 GEMM computes with it). The
 * reference of kernels that feed raw float32 to tf32 wgmma; Tessera's spelling.
 */
register("tf32_truncate", 1, { floatOnly: true });
/** `T.likely(cond)`: a branch hint; its value is the condition's. */
register("likely", 1, { resultDType: "bool" });
register("pow", 2, { floatOnly: true });
register("if_then_else", 3);
/** Integer bit operations, spelled `T.shift_right(a, b)` (TVM's names); `a >> b` parses to them. */
export const BITWISE_BINARY = ["shift_left", "shift_right", "bitwise_and", "bitwise_or", "bitwise_xor"] as const;
for (const name of BITWISE_BINARY) register(name, 2);
register("bitwise_not", 1);
/** A fact the simplifier may use (`T.assume(i < n)`); computes nothing. */
register("assume", 1, { resultDType: "bool" });
// Lowered-code intrinsics.
register("tvm_storage_sync", 1, { pure: false });
// Opaque intrinsics: TVM's tensor-core fragment operations, buffer pointers and external calls.
// Schedules carry them through; only code generators that know them could give them meaning.
register("tvm_fill_fragment", 6, { pure: false, opaque: true, resultDType: "handle" });
register("tvm_load_matrix_sync", 8, { pure: false, opaque: true, resultDType: "handle" });
register("tvm_store_matrix_sync", 8, { pure: false, opaque: true, resultDType: "handle" });
register("tvm_mma_sync", 8, { pure: false, opaque: true, resultDType: "handle" });
register("tvm_bmma_sync", 8, { pure: false, opaque: true, resultDType: "handle" });
/** `T.tvm_access_ptr(T.type_annotation(dtype), data, offset, extent, rw_mask)`: a pointer into a buffer. */
register("tvm_access_ptr", 5, { opaque: true, resultDType: "handle" });
/** `T.type_annotation("float16")`: stands for a dtype where an argument must be an expression. */
register("type_annotation", 0, { dtypeFirst: true, opaque: true });
/** `T.q_multiply_shift(x, y, q, s)`: TVM's fixed-point multiply (quantized models); not computed here. */
register("q_multiply_shift", 4, { opaque: true, resultDType: "int32" });
register("q_multiply_shift_per_axis", 7, { opaque: true, resultDType: "int32" });
register("call_extern", -1, { pure: false, dtypeFirst: true, opaque: true });
register("call_pure_extern", -1, { dtypeFirst: true, opaque: true });
// TVM's further math intrinsics (TVMScript names). Kept out of UNARY_MATH, which the cost
// model's features count: adding to it would change the features of existing programs.
/** Unary float math beyond UNARY_MATH: `T.sin(x)`, `T.erf(x)`, `T.log2(x)`, … */
export const MORE_UNARY_MATH = [
  "sin",
  "cos",
  "tan",
  "asin",
  "acos",
  "atan",
  "sinh",
  "cosh",
  "asinh",
  "acosh",
  "atanh",
  "erf",
  "exp2",
  "exp10",
  "log2",
  "log10",
  "log1p",
  "expm1",
  "nearbyint",
] as const;
for (const name of MORE_UNARY_MATH) register(name, 1, { floatOnly: true });
/** Binary float math: `T.fmod(a, b)`, `T.atan2(a, b)`, … */
export const BINARY_MATH = ["fmod", "atan2", "hypot", "copysign", "nextafter", "ldexp"] as const;
for (const name of BINARY_MATH) register(name, 2, { floatOnly: true });
/** Float classification (`T.isnan(x)`): bool results. */
export const FLOAT_PREDICATES = ["isnan", "isinf", "isfinite"] as const;
for (const name of FLOAT_PREDICATES) register(name, 1, { resultDType: "bool" });
/** Integer bit counts of the operand's dtype. */
register("popcount", 1);
register("clz", 1);
/** `T.reinterpret("float32", x)`: the same bits read as another dtype of the same width. */
register("reinterpret", 1, { dtypeFirst: true, opaque: true });
// Control flow spelled as calls, as TVM does: `return x` is T.ret(x), `break` is T.break_loop().
register("ret", 1, { pure: false, opaque: true });
register("break_loop", 0, { pure: false, opaque: true });
register("continue_loop", 0, { pure: false, opaque: true });
/**
 * `assert cond, "message"` / `assert cond, ("ValueError", ["part", ...])`: Evaluate(T.assert(cond,
 * kind, ...message parts)) here (TVM has an AssertStmt node with the same fields).
 */
register("assert", -1, { pure: false });
/** `T.target("cuda", host="llvm")` in function attributes: the config (a kind or a JSON dict) and the host. */
register("target", -1, { opaque: true, resultDType: "handle" });
/**
 * `T.comm_reducer(lambda x, y: x + y, [T.float32(0)])`, the subject of a `reduce_scope` attribute:
 * args are the n left operands, the n right operands, the n results and the n identities.
 */
register("comm_reducer", -1, { opaque: true, resultDType: "handle" });
// Lowered host-side and LLVM intrinsics, carried through opaquely.
register("tvm_struct_get", 3, { dtypeLast: true, opaque: true });
register("tvm_struct_set", 4, { pure: false, opaque: true, resultDType: "int32" });
register("call_llvm_pure_intrin", -1, { dtypeFirst: true, opaque: true });
register("call_llvm_intrin", -1, { pure: false, dtypeFirst: true, opaque: true });
register("call_intrin", -1, { pure: false, dtypeFirst: true, opaque: true });
register("call_packed", -1, { pure: false, opaque: true, resultDType: "int32" });
register("call_cpacked", -1, { pure: false, opaque: true, resultDType: "int32" });
register("tvm_call_packed", -1, { pure: false, opaque: true, resultDType: "int32" });
register("tvm_call_cpacked", -1, { pure: false, opaque: true, resultDType: "int32" });
for (const name of ["call_packed_lowered", "call_cpacked_lowered", "tvm_call_packed_lowered", "tvm_call_cpacked_lowered"]) {
  register(name, -1, { pure: false, opaque: true, resultDType: "int32" });
}
register("address_of", 1, { opaque: true, resultDType: "handle" });
register("isnullptr", 1, { opaque: true, resultDType: "bool" });
/** `T.prefetch(address, rw, locality, cache_type)`: a cache hint (LLVM's prefetch). */
register("prefetch", 4, { pure: false, opaque: true, resultDType: "void" });
/** `T.handle_add_byte_offset(p, n)`: the pointer `n` bytes past `p`. */
register("handle_add_byte_offset", 2, { opaque: true, resultDType: "handle" });
/** `T.ptr_byte_offset(data, byte_offset[, dtype])`: TVM's newer form names the pointee dtype third. */
register("ptr_byte_offset", -1, { opaque: true, resultDType: "handle" });
register("vscale", 0, { opaque: true, resultDType: "int32" });
register("undef", 0, { opaque: true, resultDType: "int32" });
register("start_profile_intrinsic", 1, { pure: false, opaque: true, resultDType: "handle" });
register("end_profile_intrinsic", 1, { pure: false, opaque: true, resultDType: "handle" });
register("tvm_thread_invariant", 1, { opaque: true, resultDType: "bool" });
register("thread_return", 0, { pure: false, opaque: true, resultDType: "void" });
register("tvm_warp_shuffle", 5, { pure: false, opaque: true });
register("tvm_warp_shuffle_up", 5, { pure: false, opaque: true });
register("tvm_warp_shuffle_down", 5, { pure: false, opaque: true });
register("tvm_warp_activemask", 0, { pure: false, opaque: true, resultDType: "uint32" });
register("tvm_thread_allreduce", -1, { pure: false, opaque: true, resultDType: "handle" });
register("tvm_stack_alloca", 2, { pure: false, opaque: true, resultDType: "handle" });
register("tvm_stack_make_shape", -1, { opaque: true, resultDType: "handle" });
register("tvm_stack_make_array", 6, { opaque: true, resultDType: "handle" });
register("llvm_lookup_intrinsic_id", 1, { opaque: true, resultDType: "uint32" });
register("get_active_lane_mask", 2, { dtypeFirst: true, opaque: true });
register("ignore_loop_partition", 1, { opaque: true, resultDType: "bool" });
/**
 * `T.Shuffle([v0, v1, ...], [i0, i1, ...])`, TVM's Shuffle node: lanes picked from the concatenated
 * vectors. Args: the vectors, then one constant index per result lane.
 */
register("Shuffle", -1, { opaque: true });
/** `T.tvm_tuple(a, b, ...)`: a tuple as the value of an attribute (a flat allocation's list annotation). */
register("tvm_tuple", -1, { opaque: true, resultDType: "handle" });
// Asynchronous global → shared copy (see async-copy.ts): 5 operands, or 6 with a predicate.
register(PTX_CP_ASYNC, -1, { pure: false, dtypeFirst: true });

/**
 * Namespaces of TVM's target-specific intrinsics (`T.ptx_legacy.mma(...)`, `T.cuda.mbarrier_wait(...)`):
 * carried through as opaque calls named by their dotted path.
 */
export const INTRINSIC_NAMESPACES: ReadonlySet<string> = new Set(["ptx", "ptx_legacy", "s_tir", "cuda", "nvshmem", "metal", "rocm"]);

/** Whether `op` is a namespaced target intrinsic (see INTRINSIC_NAMESPACES). */
export function isNamespacedIntrinsic(op: string): boolean {
  const dot = op.indexOf(".");
  return dot > 0 && INTRINSIC_NAMESPACES.has(op.slice(0, dot));
}

/** Op prefix of a call of another function of the module (`Module.subroutine(...)`): not an intrinsic. */
export const GLOBAL_CALL_PREFIX = "@";

/** The callee of a call between module functions, or undefined for an intrinsic. */
export function globalCallee(op: string): string | undefined {
  return op.startsWith(GLOBAL_CALL_PREFIX) ? op.slice(GLOBAL_CALL_PREFIX.length) : undefined;
}

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

function binaryMath(name: string, aLike: ExprLike, bLike: ExprLike): Call {
  const [a, b] = matchTypes(aLike, bLike, `T.${name}`);
  if (!isFloat(a.dtype)) throw new IRError(`T.${name} expects float operands, got ${a.dtype}`);
  return call(a.dtype, name, [a, b]);
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

/** `T.tf32_round(x)` of a float32 `x` (see its registration). */
export function tf32Round(xLike: ExprLike): Call {
  const x = toExpr(xLike, "float32");
  if (elementType(x.dtype) !== "float32") throw new IRError(`T.tf32_round expects a float32 operand, got ${x.dtype}`);
  return call(x.dtype, "tf32_round", [x]);
}

/** `T.tf32_truncate(x)` of a float32 `x` (see its registration). */
export function tf32Truncate(xLike: ExprLike): Call {
  const x = toExpr(xLike, "float32");
  if (elementType(x.dtype) !== "float32") throw new IRError(`T.tf32_truncate expects a float32 operand, got ${x.dtype}`);
  return call(x.dtype, "tf32_truncate", [x]);
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

function bitwise(op: string, args: readonly ExprLike[]): Call {
  const operands = args.length === 1 ? [toExpr(args[0]!)] : matchTypes(args[0]!, args[1]!, `T.${op}`);
  // TVM's bool is uint1, so its integer check lets `&`, `|` and `^` take bools (as its parser does).
  const boolOk = BOOL_BITWISE.has(op);
  for (const x of operands) {
    if (!isIntegral(x.dtype) && !(boolOk && isBool(x.dtype))) throw new IRError(`T.${op} expects integer operands, got ${x.dtype}`);
  }
  return call(operands[0]!.dtype, op, operands);
}

const BOOL_BITWISE: ReadonlySet<string> = new Set(["bitwise_and", "bitwise_or", "bitwise_xor"]);

/** `T.shift_right(a, b)` (`a >> b`), `T.bitwise_and(a, b)` (`a & b`), … on integers (`&`, `|`, `^` also on bools). */
export const shiftLeft = (a: ExprLike, b: ExprLike): Call => bitwise("shift_left", [a, b]);
export const shiftRight = (a: ExprLike, b: ExprLike): Call => bitwise("shift_right", [a, b]);
export const bitwiseAnd = (a: ExprLike, b: ExprLike): Call => bitwise("bitwise_and", [a, b]);
export const bitwiseOr = (a: ExprLike, b: ExprLike): Call => bitwise("bitwise_or", [a, b]);
export const bitwiseXor = (a: ExprLike, b: ExprLike): Call => bitwise("bitwise_xor", [a, b]);
export const bitwiseNot = (a: ExprLike): Call => bitwise("bitwise_not", [a]);

/** Is this call one the CPU executor cannot compute (see `IntrinsicInfo.opaque`)? */
export function isOpaqueIntrinsic(op: string): boolean {
  return table.get(op)?.opaque === true || isNamespacedIntrinsic(op);
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
      return ptxCpAsyncFromArgs(
        dt,
        args.map((a) => toExpr(a)),
      );
    case "assume":
    case "likely": {
      const cond = toExpr(args[0]!);
      if (!isBool(cond.dtype)) throw new IRError(`T.${op} expects a bool condition, got ${cond.dtype}`);
      return call("bool", op, [cond]);
    }
    case "rsqrt":
      return unaryMath(op, args[0]!);
    case "tf32_round":
      return tf32Round(args[0]!);
    case "tf32_truncate":
      return tf32Truncate(args[0]!);
    case "ret":
    case "popcount":
    case "clz": {
      const x = toExpr(args[0]!);
      if (op !== "ret" && !isIntegral(x.dtype)) throw new IRError(`T.${op} expects an integer operand, got ${x.dtype}`);
      return call(x.dtype, op, [x]);
    }
    case "tvm_warp_shuffle":
    case "tvm_warp_shuffle_up":
    case "tvm_warp_shuffle_down": {
      const operands = args.map((a) => toExpr(a));
      return call(operands[1]!.dtype, op, operands);
    }
    case "assert": {
      const [cond, ...strings] = args.map((a) => toExpr(a));
      if (cond === undefined || !isBool(cond.dtype)) throw new IRError(`assert expects a bool condition, got ${cond?.dtype ?? "nothing"}`);
      if (strings.length === 0 || strings.some((x) => x.kind !== "StringImm"))
        throw new IRError("an assert takes an error kind and message parts, all strings");
      return call("int32", op, [cond, ...strings]);
    }
    default:
      if ((UNARY_MATH as readonly string[]).includes(op) || (MORE_UNARY_MATH as readonly string[]).includes(op)) return unaryMath(op, args[0]!);
      if ((BINARY_MATH as readonly string[]).includes(op)) return binaryMath(op, args[0]!, args[1]!);
      if ((BITWISE_BINARY as readonly string[]).includes(op) || op === "bitwise_not") return bitwise(op, args);
      if (info.dtypeFirst && dt === undefined) throw new IRError(`T.${op} needs the result dtype as its first argument`);
      return call(info.resultDType ?? dt ?? "int32", op, args);
  }
}
