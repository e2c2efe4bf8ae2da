/**
 * Expressions of TensorIR (TVM's PrimExpr family).
 *
 * Nodes are immutable plain objects discriminated by `kind`. Variables and buffers have identity:
 * two `Var`s with the same name are different variables. Everything else is compared structurally
 * (see `structural/`). Build nodes through the constructor functions below, which check dtypes.
 */
import type { Buffer } from "./buffer.js";
import { type DType, dtypeInfo, elementType, isBool, isFloat, isFloatCode, isIntegral, lanesOf, lanesText, withLanes, makeDType } from "./dtype.js";
import { IRError } from "./errors.js";

export interface IntImm {
  readonly kind: "IntImm";
  readonly dtype: DType;
  readonly value: number;
}

export interface FloatImm {
  readonly kind: "FloatImm";
  readonly dtype: DType;
  readonly value: number;
}

export interface StringImm {
  readonly kind: "StringImm";
  readonly dtype: "handle";
  readonly value: string;
}

export interface Var {
  readonly kind: "Var";
  readonly dtype: DType;
  /** A hint for printing; identity is the object itself. */
  readonly name: string;
}

/** Arithmetic, comparison and logical binary operators. */
export type BinaryOp =
  | "add"
  | "sub"
  | "mul"
  /** C division: truncates toward zero for integers. */
  | "div"
  /** C remainder: sign follows the dividend. */
  | "mod"
  | "floordiv"
  | "floormod"
  | "min"
  | "max"
  | "eq"
  | "ne"
  | "lt"
  | "le"
  | "gt"
  | "ge"
  | "and"
  | "or";

export const ARITH_OPS: readonly BinaryOp[] = ["add", "sub", "mul", "div", "mod", "floordiv", "floormod", "min", "max"];
export const COMPARE_OPS: readonly BinaryOp[] = ["eq", "ne", "lt", "le", "gt", "ge"];
export const LOGIC_OPS: readonly BinaryOp[] = ["and", "or"];

export interface Binary {
  readonly kind: "Binary";
  readonly op: BinaryOp;
  readonly dtype: DType;
  readonly a: PrimExpr;
  readonly b: PrimExpr;
}

export interface Not {
  readonly kind: "Not";
  readonly dtype: DType;
  readonly a: PrimExpr;
}

/** Evaluates both branches (unlike `if_then_else`), then picks one. */
export interface Select {
  readonly kind: "Select";
  readonly dtype: DType;
  readonly condition: PrimExpr;
  readonly trueValue: PrimExpr;
  readonly falseValue: PrimExpr;
}

export interface Cast {
  readonly kind: "Cast";
  readonly dtype: DType;
  readonly value: PrimExpr;
}

export interface BufferLoad {
  readonly kind: "BufferLoad";
  readonly dtype: DType;
  readonly buffer: Buffer;
  readonly indices: readonly PrimExpr[];
  /** A vector load's lane mask (TVM's `predicate`, `A.vload(..., predicate=m)`): lanes where it is false are not read. */
  readonly predicate?: PrimExpr | undefined;
}

/**
 * The vector `[base, base + stride, …, base + (lanes-1)·stride]`. `lanes` (here and in
 * `Broadcast`) is a constant > 1, or -k for TVM's scalable `vscale × k` lanes (see `DTypeInfo.lanes`).
 */
export interface Ramp {
  readonly kind: "Ramp";
  readonly dtype: DType;
  readonly base: PrimExpr;
  readonly stride: PrimExpr;
  readonly lanes: number;
}

export interface Broadcast {
  readonly kind: "Broadcast";
  readonly dtype: DType;
  readonly value: PrimExpr;
  readonly lanes: number;
}

export interface Let {
  readonly kind: "Let";
  readonly dtype: DType;
  readonly variable: Var;
  readonly value: PrimExpr;
  readonly body: PrimExpr;
}

/** A call of a built-in operator (see `intrinsics.ts`), e.g. `exp`, `if_then_else`, `tvm_storage_sync`. */
export interface Call {
  readonly kind: "Call";
  readonly dtype: DType;
  readonly op: string;
  readonly args: readonly PrimExpr[];
}

export type PrimExpr = IntImm | FloatImm | StringImm | Var | Binary | Not | Select | Cast | BufferLoad | Ramp | Broadcast | Let | Call;

export type PrimExprKind = PrimExpr["kind"];

/** What the constructors accept where an expression is expected: JS numbers and booleans become immediates. */
export type ExprLike = PrimExpr | number | boolean;

// ---------------------------------------------------------------------------------------------
// Leaves

export function intImm(value: number, dt: DType = "int32"): IntImm {
  if (!Number.isInteger(value)) throw new IRError(`intImm: ${value} is not an integer`);
  const info = dtypeInfo(dt);
  if (info.code !== "int" && info.code !== "uint" && info.code !== "bool") {
    throw new IRError(`intImm: dtype ${dt} is not an integer or bool type`);
  }
  return { kind: "IntImm", dtype: dt, value };
}

export function floatImm(value: number, dt: DType = "float32"): FloatImm {
  if (!isFloat(dt)) throw new IRError(`floatImm: dtype ${dt} is not a float type`);
  return { kind: "FloatImm", dtype: dt, value };
}

export function boolImm(value: boolean): IntImm {
  return { kind: "IntImm", dtype: "bool", value: value ? 1 : 0 };
}

export function stringImm(value: string): StringImm {
  return { kind: "StringImm", dtype: "handle", value };
}

/** A constant of any scalar dtype. */
export function constant(value: number, dt: DType): IntImm | FloatImm {
  return isFloat(dt) ? floatImm(value, dt) : intImm(isBool(dt) ? (value ? 1 : 0) : value, dt);
}

/** A fresh variable. Each call creates a distinct variable, even with the same name. */
export function variable(name: string, dt: DType = "int32"): Var {
  dtypeInfo(dt);
  return { kind: "Var", dtype: dt, name };
}

export const isVar = (e: PrimExpr): e is Var => e.kind === "Var";
export const isIntImm = (e: PrimExpr): e is IntImm => e.kind === "IntImm";
export const isFloatImm = (e: PrimExpr): e is FloatImm => e.kind === "FloatImm";
export const isConst = (e: PrimExpr): e is IntImm | FloatImm => e.kind === "IntImm" || e.kind === "FloatImm";

/** The integer value of `e` if it is an integer immediate. */
export function constIntValue(e: PrimExpr): number | undefined {
  return e.kind === "IntImm" ? e.value : undefined;
}

export function isConstInt(e: PrimExpr, value: number): boolean {
  return e.kind === "IntImm" && e.value === value;
}

// ---------------------------------------------------------------------------------------------
// Type matching

/**
 * Converts an `ExprLike` to an expression. A JS number takes `hint`'s dtype when given
 * (an integer literal next to a float operand becomes a float), else int32 or float32.
 */
export function toExpr(x: ExprLike, hint?: DType): PrimExpr {
  if (typeof x === "boolean") return boolImm(x);
  if (typeof x === "number") {
    if (hint !== undefined) {
      const h = elementType(hint);
      if (isFloat(h)) return broadcastIfVector(floatImm(x, h), lanesOf(hint));
      if (isIntegral(h) && Number.isInteger(x)) return broadcastIfVector(intImm(x, h), lanesOf(hint));
      if (isBool(h) && (x === 0 || x === 1)) return broadcastIfVector(intImm(x, "bool"), lanesOf(hint));
    }
    return Number.isInteger(x) ? intImm(x, "int32") : floatImm(x, "float32");
  }
  return x;
}

function broadcastIfVector(e: PrimExpr, lanes: number): PrimExpr {
  return lanes === 1 ? e : broadcast(e, lanes);
}

/**
 * Brings two operands to one dtype, as TVM's binary-operator type matching does:
 * literals adopt the other side's type, the narrower integer is widened, an integer meeting
 * a float becomes that float, and a scalar meeting a vector is broadcast.
 */
export function matchTypes(aLike: ExprLike, bLike: ExprLike, what: string): [PrimExpr, PrimExpr] {
  let a: PrimExpr;
  let b: PrimExpr;
  if (typeof aLike !== "object" && typeof bLike === "object") {
    b = bLike;
    a = toExpr(aLike, b.dtype);
  } else if (typeof bLike !== "object" && typeof aLike === "object") {
    a = aLike;
    b = toExpr(bLike, a.dtype);
  } else {
    a = toExpr(aLike);
    b = toExpr(bLike);
  }
  if (a.dtype === b.dtype) return [a, b];
  const ai = dtypeInfo(a.dtype);
  const bi = dtypeInfo(b.dtype);
  if (ai.lanes !== bi.lanes) {
    if (ai.lanes === 1) a = broadcast(a, bi.lanes);
    else if (bi.lanes === 1) b = broadcast(b, ai.lanes);
    else throw new IRError(`${what}: cannot combine vectors of ${lanesText(ai.lanes)} and ${lanesText(bi.lanes)} lanes`);
    if (a.dtype === b.dtype) return [a, b];
  }
  const lanes = ai.lanes === 1 ? bi.lanes : ai.lanes;
  if (ai.code === bi.code && ai.code !== "handle") {
    const bits = Math.max(ai.bits, bi.bits);
    const target = makeDType(ai.code, bits, lanes);
    return [cast(target, a), cast(target, b)];
  }
  const intLike = (c: string) => c === "int" || c === "uint" || c === "bool";
  if (isFloatCode(ai.code) && intLike(bi.code)) return [a, cast(a.dtype, b)];
  if (isFloatCode(bi.code) && intLike(ai.code)) return [cast(b.dtype, a), b];
  if (intLike(ai.code) && intLike(bi.code)) {
    const bits = Math.max(ai.bits, bi.bits, 32);
    const code = ai.code === "int" || bi.code === "int" ? "int" : "uint";
    const target = makeDType(code, bits, lanes);
    return [cast(target, a), cast(target, b)];
  }
  throw new IRError(`${what}: operand types ${a.dtype} and ${b.dtype} do not match`);
}

// ---------------------------------------------------------------------------------------------
// Operators

/** What kind of operator `op` is; a switch, as a keyed lookup with a varying key is slower in this hot path. */
function opClassOf(op: BinaryOp): "arith" | "compare" | "logic" {
  switch (op) {
    case "eq":
    case "ne":
    case "lt":
    case "le":
    case "gt":
    case "ge":
      return "compare";
    case "and":
    case "or":
      return "logic";
    // Every operator listed (no default), so that a new one does not compile until it has a class.
    case "add":
    case "sub":
    case "mul":
    case "div":
    case "mod":
    case "floordiv":
    case "floormod":
    case "min":
    case "max":
      return "arith";
  }
}

export function binary(op: BinaryOp, aLike: ExprLike, bLike: ExprLike): Binary {
  // Operands of one dtype (the common case, e.g. in the simplifier) need no type matching (and
  // no pair array: this runs for every node the simplifier builds).
  let a: PrimExpr;
  let b: PrimExpr;
  if (typeof aLike === "object" && typeof bLike === "object" && aLike.dtype === bLike.dtype) {
    a = aLike;
    b = bLike;
  } else {
    const matched = matchTypes(aLike, bLike, op);
    a = matched[0];
    b = matched[1];
  }
  let dt: DType = a.dtype;
  const opClass = opClassOf(op);
  if (opClass === "compare") {
    dt = withLanes("bool", lanesOf(a.dtype));
  } else if (opClass === "logic") {
    if (!isBool(a.dtype)) throw new IRError(`${op}: operands must be bool, got ${a.dtype}`);
  } else if (isBool(a.dtype)) {
    throw new IRError(`${op}: arithmetic on bool operands is not allowed`);
  }
  return { kind: "Binary", op, dtype: dt, a, b };
}

export const add = (a: ExprLike, b: ExprLike): Binary => binary("add", a, b);
export const sub = (a: ExprLike, b: ExprLike): Binary => binary("sub", a, b);
export const mul = (a: ExprLike, b: ExprLike): Binary => binary("mul", a, b);
/** C division (truncation); for floats, ordinary division. */
export const div = (a: ExprLike, b: ExprLike): Binary => binary("div", a, b);
/** C remainder (truncation). */
export const truncmod = (a: ExprLike, b: ExprLike): Binary => binary("mod", a, b);
export const floordiv = (a: ExprLike, b: ExprLike): Binary => binary("floordiv", a, b);
export const floormod = (a: ExprLike, b: ExprLike): Binary => binary("floormod", a, b);
export const min = (a: ExprLike, b: ExprLike): Binary => binary("min", a, b);
export const max = (a: ExprLike, b: ExprLike): Binary => binary("max", a, b);
export const eq = (a: ExprLike, b: ExprLike): Binary => binary("eq", a, b);
export const ne = (a: ExprLike, b: ExprLike): Binary => binary("ne", a, b);
export const lt = (a: ExprLike, b: ExprLike): Binary => binary("lt", a, b);
export const le = (a: ExprLike, b: ExprLike): Binary => binary("le", a, b);
export const gt = (a: ExprLike, b: ExprLike): Binary => binary("gt", a, b);
export const ge = (a: ExprLike, b: ExprLike): Binary => binary("ge", a, b);
export const and = (a: ExprLike, b: ExprLike): Binary => binary("and", a, b);
export const or = (a: ExprLike, b: ExprLike): Binary => binary("or", a, b);

export function not(aLike: ExprLike): Not {
  const a = toExpr(aLike);
  if (!isBool(a.dtype)) throw new IRError(`not: operand must be bool, got ${a.dtype}`);
  return { kind: "Not", dtype: a.dtype, a };
}

export function select(condLike: ExprLike, t: ExprLike, f: ExprLike): Select {
  const condition = toExpr(condLike);
  if (!isBool(condition.dtype)) throw new IRError(`Select: condition must be bool, got ${condition.dtype}`);
  const [trueValue, falseValue] = matchTypes(t, f, "Select");
  return { kind: "Select", dtype: trueValue.dtype, condition, trueValue, falseValue };
}

export function cast(dt: DType, valueLike: ExprLike): PrimExpr {
  const value = toExpr(valueLike, dt);
  if (value.dtype === dt) return value;
  dtypeInfo(dt);
  if (lanesOf(dt) !== lanesOf(value.dtype)) {
    if (lanesOf(value.dtype) === 1) return broadcast(cast(elementType(dt), value), lanesOf(dt));
    throw new IRError(`cast: cannot cast ${value.dtype} to ${dt} (lane counts differ)`);
  }
  return { kind: "Cast", dtype: dt, value };
}

export function bufferLoad(buffer: Buffer, indices: readonly ExprLike[]): BufferLoad {
  if (indices.length !== buffer.shape.length) {
    throw new IRError(`BufferLoad of ${buffer.name}: ${indices.length} indices given for a ${buffer.shape.length}-dimensional buffer`);
  }
  const idx = indices.map((i) => toIndex(i, `BufferLoad of ${buffer.name}`));
  return { kind: "BufferLoad", dtype: accessDType(buffer, idx), buffer, indices: idx };
}

/** The dtype of an access of `buffer` at `indices`: the element type, with the vector index's lanes. */
export function accessDType(buffer: Buffer, indices: readonly PrimExpr[]): DType {
  const indexLanes = indices.reduce((l, i) => (l === 1 ? lanesOf(i.dtype) : l), 1);
  const elementLanes = lanesOf(buffer.dtype);
  if (indexLanes < 0 && elementLanes < 0) {
    throw new IRError(`access of ${buffer.name}: a scalable index cannot access scalable vector elements (${buffer.dtype})`);
  }
  return withLanes(buffer.dtype, indexLanes * elementLanes);
}

/** Checks the lanes of a Ramp or Broadcast: a constant > 1, or -k (vscale × k) for k ≥ 1. */
function checkLanes(lanes: number, what: string): void {
  if (!(Number.isInteger(lanes) && (lanes > 1 || lanes < 0))) throw new IRError(`${what}: lanes must be an integer > 1 or vscale × k, got ${lanes}`);
}

/** Checks a lane mask for a vector access of `dt` (TVM: a bool vector of the access's lanes). */
export function checkAccessPredicate(predicate: PrimExpr, dt: DType, what: string): PrimExpr {
  const lanes = lanesOf(dt);
  if (lanes === 1) throw new IRError(`${what}: a predicate needs a vector access, but it accesses one ${dt} element`);
  // uint1 is TVM's other spelling of bool (T.get_active_lane_mask("uint1x4", ...)).
  const info = dtypeInfo(predicate.dtype);
  const isMask = info.code === "bool" || (info.code === "uint" && info.bits === 1);
  if (!isMask || info.lanes !== lanes) {
    throw new IRError(`${what}: the predicate must be a bool vector of ${lanes} lanes (boolx${lanes}), got ${predicate.dtype}`);
  }
  return predicate;
}

/** A vector load that reads only the lanes where `predicate` holds. */
export function predicatedLoad(load: BufferLoad, predicate: PrimExpr): BufferLoad {
  return { ...load, predicate: checkAccessPredicate(predicate, load.dtype, `load of ${load.buffer.name}`) };
}

/** Converts an index to an integer expression, rejecting floats. */
export function toIndex(x: ExprLike, where: string): PrimExpr {
  const e = toExpr(x, "int32");
  if (!isIntegral(e.dtype)) throw new IRError(`${where}: index must be an integer expression, got ${e.dtype}`);
  return e;
}

export function ramp(baseLike: ExprLike, strideLike: ExprLike, lanes: number): Ramp {
  checkLanes(lanes, "Ramp");
  const [base, stride] = matchTypes(baseLike, strideLike, "Ramp");
  if (lanesOf(base.dtype) !== 1) throw new IRError("Ramp: base must be a scalar");
  return { kind: "Ramp", dtype: withLanes(base.dtype, lanes), base, stride, lanes };
}

export function broadcast(valueLike: ExprLike, lanes: number): Broadcast {
  checkLanes(lanes, "Broadcast");
  const value = toExpr(valueLike);
  if (lanesOf(value.dtype) !== 1) throw new IRError("Broadcast: value must be a scalar");
  return { kind: "Broadcast", dtype: withLanes(value.dtype, lanes), value, lanes };
}

export function letExpr(v: Var, valueLike: ExprLike, bodyLike: ExprLike): Let {
  const value = toExpr(valueLike, v.dtype);
  if (value.dtype !== v.dtype) throw new IRError(`Let: ${v.name} has dtype ${v.dtype} but its value has ${value.dtype}`);
  const body = toExpr(bodyLike);
  return { kind: "Let", dtype: body.dtype, variable: v, value, body };
}

/** A call node; prefer the typed helpers in `intrinsics.ts`, which check arity and dtypes. */
export function call(dt: DType, op: string, args: readonly ExprLike[]): Call {
  return { kind: "Call", dtype: dt, op, args: args.map((a) => toExpr(a)) };
}
