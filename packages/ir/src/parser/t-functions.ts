/**
 * The `T.*` functions that may appear inside expressions: dtype constructors (`T.float32(0)`),
 * operators (`T.max`, `T.floordiv`, `T.Select`, `T.Cast`, …), vector builders and every intrinsic
 * of the registry in `intrinsics.ts` (`T.exp`, `T.if_then_else`, `T.tvm_storage_sync`, …).
 */
import { elementType, isFloat, isIntegral, isValidDType, lanesOf, withLanes } from "../dtype.js";
import {
  type BinaryOp,
  type PrimExpr,
  binary,
  broadcast,
  call as callExpr,
  cast,
  constant,
  intImm,
  letExpr,
  not,
  ramp,
  select,
  stringImm,
  variable,
} from "../expr.js";
import { checkIntrinsicCall, intrinsicInfo, isNamespacedIntrinsic } from "../intrinsics.js";
import { maxValue, minValue } from "../te/limits.js";
import { type PyExpr, dottedName } from "./ast.js";
import { bindArguments } from "./arguments.js";
import { bufferOperand } from "./buffer-operands.js";
import { evalAttrDict } from "./attr-values.js";
import { fail } from "./errors.js";
import type { ExprEvaluator } from "./expr-evaluator.js";
import { type ExprValue, isLiteral, literalToExpr, valueToExpr, valuesToExprs } from "./literal.js";
import { moduleCall } from "./module-functions.js";

type CallNode = Extract<PyExpr, { kind: "Call" }>;
type Handler = (ev: ExprEvaluator, call: CallNode) => ExprValue;

/** Functions that only make sense as statements; named so that misuse gets a precise message. */
export const STATEMENT_T_FUNCTIONS = new Set([
  "func_attr",
  "alloc_buffer",
  "sblock_alloc_buffer",
  "match_buffer",
  "reads",
  "writes",
  "where",
  "block_attr",
  "sblock_attr",
  "block",
  "sblock",
  "init",
  "axis",
  "grid",
  "serial",
  "parallel",
  "vectorized",
  "unroll",
  "thread_binding",
  "Buffer",
  "decl_buffer",
  "allocate",
  "launch_thread",
  "env_thread",
  "attr",
  "evaluate",
  "handle",
]);

/** `T.<dtype>` spellings that look like a dtype but are not one (`T.float33`). */
const DTYPE_LIKE = /^(u?int|float|bfloat|bool)\d*(x\d+)?$/;

function expectArgs(call: CallNode, name: string, count: number): readonly PyExpr[] {
  if (call.args.length !== count) {
    fail(`T.${name} takes ${count} argument${count === 1 ? "" : "s"}, got ${call.args.length}`, call.pos);
  }
  if (call.keywords.length > 0) fail(`T.${name} takes no keyword arguments`, call.keywords[0]!.pos);
  return call.args;
}

function binaryHandler(name: string, op: BinaryOp): Handler {
  return (ev, call) => {
    const [a, b] = expectArgs(call, name, 2);
    const [x, y] = valuesToExprs(ev.value(a!), ev.value(b!));
    return binary(op, x, y);
  };
}

const HANDLERS: Record<string, Handler> = {
  max: binaryHandler("max", "max"),
  min: binaryHandler("min", "min"),
  floordiv: binaryHandler("floordiv", "floordiv"),
  floormod: binaryHandler("floormod", "floormod"),
  FloorDiv: binaryHandler("FloorDiv", "floordiv"),
  FloorMod: binaryHandler("FloorMod", "floormod"),
  truncdiv: binaryHandler("truncdiv", "div"),
  truncmod: binaryHandler("truncmod", "mod"),
  Div: binaryHandler("Div", "div"),
  Mod: binaryHandler("Mod", "mod"),
  // TVM's expression node constructors, which `T` exports under their class names.
  ...Object.fromEntries(
    (
      [
        ["Add", "add"],
        ["Sub", "sub"],
        ["Mul", "mul"],
        ["Min", "min"],
        ["Max", "max"],
        ["EQ", "eq"],
        ["NE", "ne"],
        ["LT", "lt"],
        ["LE", "le"],
        ["GT", "gt"],
        ["GE", "ge"],
        ["And", "and"],
        ["Or", "or"],
      ] as const
    ).map(([name, op]) => [name, binaryHandler(name, op)]),
  ),
  Not: (ev, call) => {
    const [x] = expectArgs(call, "Not", 1);
    return not(ev.condition(x!, "the operand of T.Not"));
  },
  Select: (ev, call) => {
    const [c, t, f] = expectArgs(call, "Select", 3);
    const [tv, fv] = valuesToExprs(ev.value(t!), ev.value(f!));
    return select(ev.condition(c!, "the condition of T.Select"), tv, fv);
  },
  Cast: (ev, call) => {
    const [dt, x] = expectArgs(call, "Cast", 2);
    return cast(dtypeArg(ev, dt!), ev.prim(x!));
  },
  cast: (ev, call) => {
    const args = bindArguments(call, "T.cast", ["x", "dtype"], 2);
    return cast(dtypeArg(ev, args.get("dtype")!), ev.prim(args.get("x")!));
  },
  Ramp: (ev, call) => {
    const [base, stride, lanes] = expectArgs(call, "Ramp", 3);
    const [b, s] = valuesToExprs(ev.value(base!), ev.value(stride!));
    return ramp(b, s, ev.lanes(lanes!, "the lanes of T.Ramp"));
  },
  ramp: (ev, call) => HANDLERS.Ramp!(ev, call),
  broadcast: (ev, call) => HANDLERS.Broadcast!(ev, call),
  Broadcast: (ev, call) => {
    const [value, lanes] = expectArgs(call, "Broadcast", 2);
    return broadcast(ev.prim(value!), ev.lanes(lanes!, "the lanes of T.Broadcast"));
  },
  /** `T.Let(body, where={x: value})`, as the printer writes a Let expression. */
  Let: (ev, call) => {
    if (call.args.length !== 1) fail(`T.Let takes the body and where={var: value}, got ${call.args.length} positional arguments`, call.pos);
    const where = call.keywords.find((k) => k.name === "where");
    if (where === undefined || where.value.kind !== "Dict" || where.value.keys.length !== 1) {
      fail("T.Let needs exactly one binding, as in where={x: value}", call.pos);
    }
    const v = ev.prim(where.value.keys[0]!);
    if (v.kind !== "Var") fail("the key of a T.Let binding must be a variable", where.value.keys[0]!.pos);
    return letExpr(v, ev.prim(where.value.values[0]!, v.dtype), ev.prim(call.args[0]!));
  },
  /** `T.let(x, value, body)`. */
  let: (ev, call) => {
    const [x, value, body] = expectArgs(call, "let", 3);
    const v = ev.prim(x!);
    if (v.kind !== "Var") fail("the first argument of T.let must be a variable", x!.pos);
    return letExpr(v, ev.prim(value!, v.dtype), ev.prim(body!));
  },
  min_value: (ev, call) => minValue(dtypeOnlyArgument(ev, call, "min_value")),
  max_value: (ev, call) => maxValue(dtypeOnlyArgument(ev, call, "max_value")),
  /** TVM builds `(a + b - 1) // b`, folded when both are constants. */
  ceildiv: (ev, call) => {
    const [a, b] = expectArgs(call, "ceildiv", 2);
    const [x, y] = valuesToExprs(ev.value(a!), ev.value(b!));
    if (!isIntegral(x.dtype)) fail(`T.ceildiv expects integer operands, got ${x.dtype}`, call.pos);
    if (x.kind === "IntImm" && y.kind === "IntImm" && y.value !== 0) return constant(Math.floor((x.value + y.value - 1) / y.value), x.dtype);
    return binary("floordiv", binary("sub", binary("add", x, y), constant(1, x.dtype)), y);
  },
  /** `T.meta_var(x)`: a value substituted where it is used (no binding of its own). */
  meta_var: (ev, call) => {
    const [x] = expectArgs(call, "meta_var", 1);
    return ev.value(x!);
  },
  target: (ev, call) => targetCall(ev, call),
  comm_reducer: (ev, call) => commReducer(ev, call),
  Call: (ev, call) => callConstructor(ev, call),
  Shuffle: (ev, call) => shuffle(ev, call),
  /** `T.StringImm("text")`: TVM's string constant node, a string literal. */
  StringImm: (ev, call) => {
    const [text] = expectArgs(call, "StringImm", 1);
    return stringImm(ev.string(text!, "the text of T.StringImm"));
  },
  /**
   * `T.iter_var(v, T.Range(0, n), "ThreadIndex", "threadIdx.x")` as the subject of an attribute:
   * our attributes hold the variable alone (its domain and tag are checked, then dropped).
   */
  iter_var: (ev, call) => {
    const args = bindArguments(call, "T.iter_var", ["v", "dom", "iter_type", "thread_tag"], 4);
    const v = ev.prim(args.get("v")!);
    if (v.kind !== "Var") fail("the first argument of T.iter_var must be a variable", args.get("v")!.pos);
    const dom = args.get("dom")!;
    if (dom.kind !== "Call" || dottedName(dom.func) !== "T.Range" || dom.args.length !== 2)
      fail("the domain of T.iter_var must be T.Range(min, extent)", dom.pos);
    for (const bound of dom.args) ev.index(bound, "a bound of T.Range");
    ev.string(args.get("iter_type")!, "the iterator type of T.iter_var");
    ev.string(args.get("thread_tag")!, "the thread tag of T.iter_var");
    return v;
  },
  /** `T.Return(x)`: TVM's node constructor for `return x`. */
  Return: (ev, call) => {
    const [x] = expectArgs(call, "Return", 1);
    return checkIntrinsicCall("ret", [ev.prim(x!)]);
  },
  abs: (ev, call) => {
    const [x] = expectArgs(call, "abs", 1);
    return checkIntrinsicCall("fabs", [ev.prim(x!)]);
  },
};

/** `T.Shuffle([vectors], [indices])`: the call's args are the vectors, then the indices (see intrinsics.ts). */
function shuffle(ev: ExprEvaluator, call: CallNode): ExprValue {
  const [vectorsNode, indicesNode] = expectArgs(call, "Shuffle", 2);
  if (vectorsNode!.kind !== "List" || vectorsNode!.elts.length === 0) fail("the vectors of T.Shuffle must be a non-empty list", vectorsNode!.pos);
  if (indicesNode!.kind !== "List" || indicesNode!.elts.length === 0) fail("the indices of T.Shuffle must be a non-empty list", indicesNode!.pos);
  const vectors = vectorsNode!.elts.map((v) => ev.prim(v));
  const element = elementType(vectors[0]!.dtype);
  if (vectors.some((v) => elementType(v.dtype) !== element)) fail("the vectors of T.Shuffle must share one element type", vectorsNode!.pos);
  const total = vectors.reduce((n, v) => n + lanesOf(v.dtype), 0);
  const indices = indicesNode!.elts.map((i) => {
    const k = ev.constInt(i, "an index of T.Shuffle");
    if (k < 0 || k >= total) fail(`T.Shuffle index ${k} is out of range: the vectors have ${total} lanes`, i.pos);
    return intImm(k);
  });
  return callExpr(withLanes(element, indices.length), "Shuffle", [...vectors, ...indices]);
}

/** TVM's spellings of an operator: `"tirx.prefetch"` or `tvm.ir.Op.get("tirx.prefetch")`, our name without the prefix. */
function operatorName(ev: ExprEvaluator, e: PyExpr): string {
  const spelled = e.kind === "Call" && dottedName(e.func) === "tvm.ir.Op.get" && e.args.length === 1 ? e.args[0]! : e;
  return ev.string(spelled, "the operator of T.Call").replace(/^tirx?\./, "");
}

/** `T.Call(op, [args], ret_ty="dtype")`: TVM's Call constructor, for an operator of our registry. */
function callConstructor(ev: ExprEvaluator, call: CallNode): ExprValue {
  const args = bindArguments(call, "T.Call", ["op", "args", "ret_ty"], 2);
  const op = operatorName(ev, args.get("op")!);
  const info = intrinsicInfo(op);
  if (info === undefined) fail(`T.Call: unknown operator "${op}"`, args.get("op")!.pos);
  const list = args.get("args")!;
  if (list.kind !== "List" && list.kind !== "Tuple") fail("the arguments of T.Call must be a list, as in [a, b]", list.pos);
  const operands = list.elts.map((a) => valueToExpr(ev.value(a)));
  const retTy = args.get("ret_ty");
  const dt = retTy === undefined ? info.resultDType : dtypeArg(ev, retTy);
  if (dt === undefined) fail(`T.Call of "${op}" needs ret_ty=`, call.pos);
  // An opaque call may be declared to return nothing (TVM's `ret_ty="void"` on `tvm_call_packed`).
  const voidOpaque = dt === "void" && info.opaque === true;
  if (info.resultDType !== undefined && dt !== info.resultDType && !voidOpaque) fail(`T.Call: "${op}" has dtype ${info.resultDType}, not ${dt}`, retTy!.pos);
  if (info.arity >= 0 && operands.length !== info.arity) fail(`T.Call: "${op}" takes ${info.arity} arguments, got ${operands.length}`, list.pos);
  return callExpr(dt, op, operands);
}

/**
 * `T.target("cuda", host="llvm")` or `T.target({"kind": "llvm", ...})`: kept as a call of strings,
 * a dict config (or host) as its JSON text.
 */
function targetCall(ev: ExprEvaluator, call: CallNode): ExprValue {
  const args = bindArguments(call, "T.target", ["target_config", "host"], 1);
  const configText = (e: PyExpr): string => {
    if (e.kind === "String") return e.value;
    if (e.kind === "Dict") return JSON.stringify(evalAttrDict(ev, e, "a T.target config"));
    return fail("T.target expects a target kind string or a config dictionary", e.pos);
  };
  const host = args.get("host");
  const parts = [configText(args.get("target_config")!), ...(host === undefined ? [] : [configText(host)])];
  return checkIntrinsicCall(
    "target",
    parts.map((p) => stringImm(p)),
  );
}

/**
 * `T.comm_reducer(lambda x, y: x + y, [identity])`, or with tuples for several values at once
 * (`lambda x0, x1, y0, y1: (x0 + y0, x1 * y1)`). The operands take the identities' dtypes.
 */
function commReducer(ev: ExprEvaluator, call: CallNode): ExprValue {
  const args = bindArguments(call, "T.comm_reducer", ["combiner", "identity"], 2);
  const combiner = args.get("combiner")!;
  const identityNode = args.get("identity")!;
  if (combiner.kind !== "Lambda") fail("T.comm_reducer expects a lambda as its combiner", combiner.pos);
  const identityItems = identityNode.kind === "List" || identityNode.kind === "Tuple" ? identityNode.elts : [identityNode];
  const identities = identityItems.map((e) => ev.prim(e));
  const n = identities.length;
  if (combiner.params.length !== 2 * n) {
    fail(`the combiner of T.comm_reducer takes ${2 * n} parameters for ${n} identit${n === 1 ? "y" : "ies"}, got ${combiner.params.length}`, combiner.pos);
  }
  const operands = combiner.params.map((name, i) => variable(name, identities[i % n]!.dtype));
  const results = ev.scopes.within(() => {
    combiner.params.forEach((name, i) => ev.scopes.define(name, { kind: "var", var: operands[i]! }));
    const body = combiner.body;
    const items = body.kind === "Tuple" ? body.elts : [body];
    if (items.length !== n) fail(`the combiner of T.comm_reducer returns ${items.length} values for ${n} identities`, body.pos);
    return items.map((e, i) => ev.prim(e, identities[i]!.dtype));
  });
  return checkIntrinsicCall("comm_reducer", [...operands, ...results, ...identities]);
}

/** `T.min_value("float32")` / `T.min_value(dtype="float32")`. */
function dtypeOnlyArgument(ev: ExprEvaluator, call: CallNode, name: string): string {
  const given = [
    ...call.args,
    ...call.keywords.map((k) => {
      if (k.name !== "dtype") fail(`T.${name} takes no keyword argument "${k.name}" (only dtype=)`, k.pos);
      return k.value;
    }),
  ];
  if (given.length !== 1) fail(`T.${name} takes exactly one dtype, as in T.${name}("float32")`, call.pos);
  return dtypeArg(ev, given[0]!);
}

/** TVM's short dtype strings: `"float"` is float32, `"int"` int32, `"uint"` uint32. */
const SHORT_DTYPES: Readonly<Record<string, string>> = { float: "float32", int: "int32", uint: "uint32" };

/** A dtype given as a string literal, checked. */
export function dtypeArg(ev: ExprEvaluator, e: PyExpr): string {
  if (isHandleType(e)) return "handle";
  const given = ev.string(e, "a dtype");
  const text = Object.hasOwn(SHORT_DTYPES, given) ? SHORT_DTYPES[given]! : given;
  if (!isValidDType(text)) fail(`unknown dtype "${text}"`, e.pos);
  return text;
}

/** `T.float32(0)`, `T.int64(n)`, `T.bool(True)`: a typed constant, or a cast of an expression. */
function dtypeConstructor(ev: ExprEvaluator, call: CallNode, dt: string): ExprValue {
  if (call.args.length !== 1 || call.keywords.length > 0) {
    fail(`T.${dt}(...) takes exactly one value here (declare a variable with "n = T.${dt}()")`, call.pos);
  }
  const arg = call.args[0]!;
  if (arg.kind === "String") {
    // TVM spells special float values as strings: T.float32("inf").
    const special: Record<string, number> = { inf: Infinity, "-inf": -Infinity, nan: NaN };
    const v = special[arg.value.toLowerCase()];
    if (v === undefined) fail(`T.${dt} expects a number, got the string "${arg.value}"`, arg.pos);
    return constant(v, dt);
  }
  const v = ev.value(arg);
  if (isLiteral(v)) {
    if (v.type === "float" && !isFloat(dt) && !Number.isInteger(v.value)) {
      fail(`T.${dt} expects an integer, got ${v.value}`, arg.pos);
    }
    return constant(v.value, dt);
  }
  return cast(dt, v);
}

/**
 * `T.<intrinsic>(...)`. The only keyword is `dtype=`: for intrinsics that take their dtype first it
 * stands for that argument (`T.call_extern("handle", ...)` = `T.call_extern(..., dtype="handle")`);
 * for the others TVM drops it, so here it must agree with the call's own dtype.
 */
function intrinsicCall(ev: ExprEvaluator, call: CallNode, name: string): ExprValue {
  const dtypeKeyword = onlyDtypeKeyword(call, name);
  let operands = call.args;
  let dt: string | undefined;
  if (intrinsicInfo(name)?.dtypeLast === true && dtypeKeyword === undefined) {
    const last = operands[operands.length - 1];
    if (!spellsDtype(ev, last)) fail(`T.${name} takes the dtype last, as in T.${name}(..., "int32")`, last?.pos ?? call.pos);
    dt = dtypeArg(ev, last!);
    operands = operands.slice(0, -1);
  } else if (intrinsicInfo(name)?.dtypeLast === true) {
    dt = dtypeArg(ev, dtypeKeyword!);
  } else if (intrinsicInfo(name)?.dtypeFirst === true) {
    const dtypeNode = dtypeKeyword ?? operands[0];
    if (dtypeKeyword === undefined) {
      if (!spellsDtype(ev, dtypeNode)) fail(`T.${name} takes the dtype first, as in T.${name}("float32", ...)`, dtypeNode?.pos ?? call.pos);
      operands = operands.slice(1);
    }
    // TVM reads an empty dtype as void (a call made for its effect).
    dt = dtypeNode!.kind === "String" && dtypeNode!.value === "" ? "void" : dtypeArg(ev, dtypeNode!);
  }
  const values = operands.map((a) => intrinsicOperand(ev, name, a));
  // Literals are handed over as plain numbers so the intrinsic's own type rules give them a dtype;
  // with a dtype= that the intrinsic does not take, a float literal is a constant of that dtype (`1.0`, not `1`).
  const asked = dt === undefined && dtypeKeyword !== undefined ? dtypeArg(ev, dtypeKeyword) : undefined;
  const args: (PrimExpr | number | boolean)[] = values.map((v) => {
    if (!isLiteral(v)) return v;
    if (v.type === "float" && asked !== undefined && isFloat(asked)) return constant(v.value, asked);
    return v.type === "bool" ? v.value !== 0 : v.value;
  });
  const result = checkIntrinsicCall(name, args, dt);
  if (dtypeKeyword !== undefined && asked !== undefined) {
    if (asked !== result.dtype) {
      fail(`T.${name}(..., dtype="${asked}"): the call has dtype ${result.dtype} (dtype= does not convert; use T.Cast)`, dtypeKeyword.pos);
    }
  }
  return result;
}

/** Whether `e` spells a dtype: a string literal, a name bound to a string, or `T.handle(...).ty`. */
function spellsDtype(ev: ExprEvaluator, e: PyExpr | undefined): boolean {
  if (e === undefined) return false;
  if (e.kind === "String" || isHandleType(e)) return true;
  return e.kind === "Name" && ev.scopes.lookup(e.id)?.kind === "string";
}

/** `T.handle("int64").ty`: the type of a pointer variable, which our handles keep untyped. */
function isHandleType(e: PyExpr): boolean {
  return e.kind === "Attribute" && e.attr === "ty" && e.value.kind === "Call" && dottedName(e.value.func) === "T.handle";
}

/** An operand of `T.<op>`; a buffer name stands for what TVM's helper of that op makes of a buffer. */
function intrinsicOperand(ev: ExprEvaluator, op: string, e: PyExpr): ExprValue {
  const bound = e.kind === "Name" ? ev.scopes.lookup(e.id) : undefined;
  if (bound?.kind === "buffer") return bufferOperand(op, bound.buffer) ?? ev.value(e);
  return ev.value(e);
}

/** The value of a `dtype=` keyword, rejecting every other keyword. */
function onlyDtypeKeyword(call: CallNode, name: string): PyExpr | undefined {
  let dtype: PyExpr | undefined;
  for (const k of call.keywords) {
    if (k.name !== "dtype") fail(`T.${name} takes no keyword argument "${k.name}" (only dtype=)`, k.pos);
    dtype = k.value;
  }
  return dtype;
}

/** `T.ptx_legacy.mma(..., dtype="float16")`: an opaque call, void unless `dtype=` says otherwise. */
function namespacedCall(ev: ExprEvaluator, call: CallNode, op: string): ExprValue {
  const dtypeNode = onlyDtypeKeyword(call, op);
  const dt = dtypeNode === undefined ? "void" : dtypeNode.kind === "String" && dtypeNode.value === "" ? "void" : dtypeArg(ev, dtypeNode);
  const args = call.args.map((a) => {
    const v = ev.value(a);
    return isLiteral(v) ? literalToExpr(v) : v;
  });
  return callExpr(dt, op, args);
}

/** Evaluates a call expression: `T.<function>(...)`. */
/** Python spellings that TVM's parser evaluates to the same object as a T.* function. */
const PYTHON_SPELLINGS: Readonly<Record<string, string>> = {
  "tvm.target.Target": "T.target",
  "tvm.tirx.div": "T.Div",
  "tirx.vscale": "T.vscale",
  "tvm.tirx.vscale": "T.vscale",
};

export function callTFunction(ev: ExprEvaluator, written: CallNode): ExprValue {
  const call = written.args.some((a) => a.kind === "Starred") ? { ...written, args: ev.spliced(written.args) } : written;
  const spelled = dottedName(call.func);
  const callee = spelled !== undefined && Object.hasOwn(PYTHON_SPELLINGS, spelled) ? PYTHON_SPELLINGS[spelled] : spelled;
  if (callee !== undefined && !callee.startsWith("T.") && call.keywords.length === 0) {
    const global = moduleCall(
      ev.module,
      callee,
      call.args.map((a) => valueToExpr(ev.value(a))),
    );
    if (global !== undefined) return global;
  }
  if (callee?.startsWith("T.") && isNamespacedIntrinsic(callee.slice(2))) return namespacedCall(ev, call, callee.slice(2));
  if (callee === undefined || !callee.startsWith("T.") || callee.split(".").length !== 2) {
    fail(`unknown function "${callee ?? "<expression>"}": only T.* functions can be called in TVMScript expressions`, call.pos);
  }
  const name = callee.slice(2);
  const handler = HANDLERS[name];
  if (handler !== undefined) return handler(ev, call);
  if (isValidDType(name)) return dtypeConstructor(ev, call, name);
  if (intrinsicInfo(name) !== undefined) return intrinsicCall(ev, call, name);
  if (DTYPE_LIKE.test(name)) fail(`unknown dtype "${name}"`, call.pos);
  if (STATEMENT_T_FUNCTIONS.has(name)) fail(`T.${name}(...) cannot be used inside an expression`, call.pos);
  fail(`unknown TVMScript function "T.${name}"`, call.pos);
}
