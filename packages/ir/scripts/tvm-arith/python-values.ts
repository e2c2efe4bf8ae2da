/**
 * Evaluates the Python expressions of TVM's arithmetic tests into values: Python ints (BigInt),
 * floats, strings, tuples, dicts, and our expressions where the test builds TVM expressions.
 * TVM's Python operators build nodes through its constant-folding constructors (`x * 1` is `x`,
 * `2 + 3` is `5`), and `expected` sides are written through them, so `tvmOp` folds the same way;
 * node classes (`tvm.tirx.Min(a, b)`, `tvm.tirx.LE`) build without folding, as TVM's do.
 * Whatever has no counterpart here raises `Untranslatable` with what it was.
 */
import { type Buffer, declBuffer } from "../../src/buffer.js";
import { dtypeInfo } from "../../src/dtype.js";
import { lanesOfExpr, vscale } from "../../src/vscale.js";
import {
  type BinaryOp,
  type PrimExpr,
  binary,
  broadcast,
  bufferLoad,
  call,
  cast,
  constant,
  floatImm,
  intImm,
  letExpr,
  matchTypes,
  not,
  ramp,
  select,
  variable,
} from "../../src/expr.js";
import { foldCastConstant, foldingBinary, foldingNot } from "../../src/arith/index.js";
import type { PyArg, PyNode } from "./python-syntax.js";

export class Untranslatable extends Error {}

export type PyValue =
  /** `isBool`: a Python bool (True/False), which `tirx.const` types as bool. */
  | { readonly t: "int"; readonly v: bigint; readonly isBool?: boolean }
  | { readonly t: "float"; readonly v: number }
  | { readonly t: "str"; readonly v: string }
  | { readonly t: "none" }
  | { readonly t: "tuple"; readonly items: readonly PyValue[] }
  | { readonly t: "dict"; readonly entries: readonly (readonly [PyValue, PyValue])[] }
  | { readonly t: "expr"; readonly e: PrimExpr }
  | { readonly t: "fn"; readonly name: string; readonly call: (args: readonly PyValue[], kw: ReadonlyMap<string, PyValue>) => PyValue }
  | {
      readonly t: "obj";
      readonly name: string;
      readonly attr: (name: string) => PyValue | undefined;
      /** Set for classes, which are called to construct and also have attributes. */
      readonly call?: (args: readonly PyValue[], kw: ReadonlyMap<string, PyValue>) => PyValue;
    };

export const NONE: PyValue = { t: "none" };
export const pyInt = (v: bigint | number): PyValue => ({ t: "int", v: BigInt(v) });
export const pyBool = (b: boolean): PyValue => pyInt(b ? 1 : 0);
export const pyExpr = (e: PrimExpr): PyValue => ({ t: "expr", e });
export function fn(name: string, f: (args: readonly PyValue[], kw: ReadonlyMap<string, PyValue>) => PyValue): PyValue {
  return { t: "fn", name, call: f };
}
export function namespace(
  name: string,
  members: Record<string, PyValue | (() => PyValue)>,
  call?: (args: readonly PyValue[], kw: ReadonlyMap<string, PyValue>) => PyValue,
): PyValue {
  return {
    t: "obj",
    name,
    ...(call === undefined ? {} : { call }),
    attr: (n) => {
      const m = members[n];
      return typeof m === "function" ? m() : m;
    },
  };
}

/** TVM's ConstIntBound sentinels (±(2^63 - 1)), which the tests compare bounds with. */
export const POS_INF = (1n << 63n) - 1n;
export const NEG_INF = -POS_INF;

export function truthy(v: PyValue): boolean {
  switch (v.t) {
    case "int":
      return v.v !== 0n;
    case "float":
      return v.v !== 0;
    case "str":
      return v.v !== "";
    case "none":
      return false;
    case "tuple":
      return v.items.length > 0;
    case "dict":
      return v.entries.length > 0;
    case "expr":
      if (v.e.kind === "IntImm") return v.e.value !== 0;
      throw new Untranslatable("truth value of a symbolic expression");
    default:
      return true;
  }
}

/** A Python value where TVM wants an expression (ints become int32, or int64 when they need it). */
export function toPrim(v: PyValue, hint?: string): PrimExpr {
  if (v.t === "expr") return v.e;
  if (v.t === "int") {
    const dt = hint ?? (v.v >= -(2n ** 31n) && v.v < 2n ** 31n ? "int32" : "int64");
    if (v.v > BigInt(Number.MAX_SAFE_INTEGER) || v.v < -BigInt(Number.MAX_SAFE_INTEGER)) throw new Untranslatable(`integer ${v.v} beyond 2^53`);
    return intImm(Number(v.v), dt);
  }
  if (v.t === "float") return floatImm(v.v, hint ?? "float32");
  throw new Untranslatable(`${v.t} used as an expression`);
}

function intOf(v: PyValue, what: string): bigint {
  if (v.t === "int") return v.v;
  if (v.t === "expr" && v.e.kind === "IntImm") return BigInt(v.e.value);
  throw new Untranslatable(`${what}: expected an integer, got ${v.t}`);
}

/** The lanes of a Ramp or Broadcast: an integer, or `vscale() * k` for scalable lanes (-k). */
function lanesOf(v: PyValue, what: string): number {
  const lanes = v.t === "expr" ? lanesOfExpr(v.e) : Number(intOf(v, `${what} lanes`));
  if (lanes === undefined) throw new Untranslatable(`${what} lanes: expected an integer or vscale() * k`);
  return lanes;
}

export function strOf(v: PyValue, what: string): string {
  if (v.t === "str") return v.v;
  throw new Untranslatable(`${what}: expected a string`);
}

/** TVM's constant-folding operator constructors. */
export const tvmOp = foldingBinary;

export function tvmCast(dt: string, v: PyValue): PrimExpr {
  const e = toPrim(v, v.t === "int" ? "int32" : undefined);
  if (e.dtype === dt) return e;
  return foldCastConstant(dt, e) ?? cast(dt, e);
}

export const tvmNot = foldingNot;

const PY_BINARY: Record<string, BinaryOp> = { "+": "add", "-": "sub", "*": "mul", "/": "div", "//": "floordiv", "%": "floormod" };
const PY_BITWISE: Record<string, string> = { "<<": "shift_left", ">>": "shift_right", "&": "bitwise_and", "|": "bitwise_or", "^": "bitwise_xor" };
const PY_COMPARE: Record<string, BinaryOp> = { "<": "lt", "<=": "le", ">": "gt", ">=": "ge", "==": "eq", "!=": "ne" };

function pyFloorDiv(a: bigint, b: bigint): bigint {
  if (b === 0n) throw new Untranslatable("integer division by zero");
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

function numberOf(v: PyValue): number | undefined {
  return v.t === "int" ? Number(v.v) : v.t === "float" ? v.v : undefined;
}

/** `a op b` on Python values: Python arithmetic on numbers, TVM's operators on expressions. */
export function binaryOp(op: string, a: PyValue, b: PyValue): PyValue {
  if (a.t === "int" && b.t === "int") {
    switch (op) {
      case "+":
        return pyInt(a.v + b.v);
      case "-":
        return pyInt(a.v - b.v);
      case "*":
        return pyInt(a.v * b.v);
      case "//":
        return pyInt(pyFloorDiv(a.v, b.v));
      case "%":
        return pyInt(a.v - pyFloorDiv(a.v, b.v) * b.v);
      case "**":
        return pyInt(a.v ** b.v);
      case "<<":
        return pyInt(a.v << b.v);
      case ">>":
        return pyInt(a.v >> b.v);
      case "&":
        return pyInt(a.v & b.v);
      case "|":
        return pyInt(a.v | b.v);
      case "^":
        return pyInt(a.v ^ b.v);
      case "/":
        return { t: "float", v: Number(a.v) / Number(b.v) };
    }
  }
  const an = numberOf(a);
  const bn = numberOf(b);
  if (an !== undefined && bn !== undefined) {
    if (op === "+") return { t: "float", v: an + bn };
    if (op === "-") return { t: "float", v: an - bn };
    if (op === "*") return { t: "float", v: an * bn };
    if (op === "/") return { t: "float", v: an / bn };
  }
  if (a.t === "str" && b.t === "str" && op === "+") return { t: "str", v: a.v + b.v };
  if (a.t !== "expr" && b.t !== "expr") throw new Untranslatable(`${a.t} ${op} ${b.t}`);
  const ea = a.t === "expr" ? a.e : literal(a);
  const eb = b.t === "expr" ? b.e : literal(b);
  const arith = PY_BINARY[op];
  if (arith !== undefined) return pyExpr(tvmOp(arith, ea, eb));
  const bit = PY_BITWISE[op];
  if (bit !== undefined) return pyExpr(bitwise(bit, ea, eb));
  throw new Untranslatable(`operator ${op} on expressions`);
}

/** A literal operand of an expression operator: a number, which takes the other side's dtype. */
function literal(v: PyValue): number | PrimExpr {
  if (v.t === "int") {
    if (v.v > BigInt(Number.MAX_SAFE_INTEGER) || v.v < -BigInt(Number.MAX_SAFE_INTEGER)) throw new Untranslatable(`integer ${v.v} beyond 2^53`);
    return Number(v.v);
  }
  if (v.t === "float") return v.v;
  return toPrim(v);
}

/** `call_intrin(dtype, "tirx.name", *args)`: a call of our intrinsic `name`, integer arguments int32. */
const callIntrin = fn("call_intrin", (args) => {
  const [dt, name, ...rest] = args;
  if (dt === undefined || name === undefined || dt.t !== "str" || name.t !== "str") throw new Untranslatable("call_intrin arguments");
  return pyExpr(
    call(
      dt.v,
      name.v.replace(/^tirx\./, ""),
      rest.map((a) => toPrim(a, a.t === "int" ? "int32" : undefined)),
    ),
  );
});

export function bitwise(op: string, aLike: PrimExpr | number, bLike: PrimExpr | number): PrimExpr {
  const [a, b] = matchTypes(aLike, bLike, op);
  if (a.dtype === "bool" && (op === "bitwise_and" || op === "bitwise_or")) return tvmOp(op === "bitwise_and" ? "and" : "or", a, b);
  if (a.kind === "IntImm" && b.kind === "IntImm") {
    const [x, y] = [BigInt(a.value), BigInt(b.value)];
    const r = op === "shift_left" ? x << y : op === "shift_right" ? x >> y : op === "bitwise_and" ? x & y : op === "bitwise_or" ? x | y : x ^ y;
    return intImm(Number(r), a.dtype);
  }
  return call(a.dtype, op, [a, b]);
}

export function compareOp(op: string, a: PyValue, b: PyValue): PyValue {
  if (op === "is" || op === "is not") {
    const same = a.t === b.t && (a.t === "none" || (a.t === "int" && b.t === "int" && a.v === b.v));
    return pyBool(op === "is" ? same : !same);
  }
  const cmp = PY_COMPARE[op];
  if (cmp === undefined) throw new Untranslatable(`comparison ${op}`);
  if (a.t !== "expr" && b.t !== "expr") {
    const [x, y] = [numberOrBig(a), numberOrBig(b)];
    if (x === undefined || y === undefined) {
      if (op === "==" || op === "!=") return pyBool((op === "==") === (JSON.stringify(a) === JSON.stringify(b)));
      throw new Untranslatable(`comparison of ${a.t} and ${b.t}`);
    }
    const r = cmp === "eq" ? x === y : cmp === "ne" ? x !== y : cmp === "lt" ? x < y : cmp === "le" ? x <= y : cmp === "gt" ? x > y : x >= y;
    return pyBool(r);
  }
  // Python reflects a comparison whose left operand is a number: `0 < e` is `e > 0`, `0 == e` is `e == 0`.
  if (a.t !== "expr" && b.t === "expr") return pyExpr(tvmOp(REFLECTED[cmp] ?? cmp, b.e, literal(a)));
  return pyExpr(tvmOp(cmp, a.t === "expr" ? a.e : literal(a), b.t === "expr" ? b.e : literal(b)));
}

const REFLECTED: Partial<Record<BinaryOp, BinaryOp>> = { lt: "gt", le: "ge", gt: "lt", ge: "le" };

function numberOrBig(v: PyValue): bigint | number | undefined {
  if (v.t === "int") return v.v;
  if (v.t === "float") return v.v;
  return undefined;
}

export function unaryOp(op: string, a: PyValue): PyValue {
  if (op === "not") return pyBool(!truthy(a));
  if (a.t === "int") return op === "-" ? pyInt(-a.v) : op === "~" ? pyInt(~a.v) : a;
  if (a.t === "float") return op === "-" ? { t: "float", v: -a.v } : a;
  if (a.t === "expr") {
    if (op === "-") return pyExpr(tvmOp("mul", a.e, constant(-1, a.e.dtype)));
    if (op === "+") return a;
    if (op === "~") return pyExpr(a.e.dtype === "bool" ? tvmNot(a.e) : call(a.e.dtype, "bitwise_not", [a.e]));
  }
  throw new Untranslatable(`unary ${op} on ${a.t}`);
}

/** Positional-or-keyword argument `i` named `name`, or `fallback` when absent. */
export function arg(args: readonly PyValue[], kw: ReadonlyMap<string, PyValue>, i: number, name: string, fallback?: PyValue): PyValue {
  const v = args[i] ?? kw.get(name) ?? fallback;
  if (v === undefined) throw new Untranslatable(`missing argument ${name}`);
  return v;
}

/** The TVM API the tests use, as far as it has a counterpart here. */
export function tirxNamespace(): PyValue {
  const two = (name: string, f: (a: PyValue, b: PyValue) => PrimExpr): PyValue =>
    fn(name, (args, kw) => pyExpr(f(arg(args, kw, 0, "a"), arg(args, kw, 1, "b"))));
  const folding = (op: BinaryOp) => two(op, (a, b) => tvmOp(op, a.t === "expr" ? a.e : literal(a), b.t === "expr" ? b.e : literal(b)));
  const node = (op: BinaryOp) => two(op, (a, b) => binary(op, a.t === "expr" ? a.e : literal(a), b.t === "expr" ? b.e : literal(b)));
  const reduceAll = (op: "and" | "or") =>
    fn(op, (args) => {
      if (args.length === 0) throw new Untranslatable(`tirx.${op === "and" ? "all" : "any"}()`);
      let acc = toPrim(args[0]!);
      for (const x of args.slice(1)) acc = tvmOp(op, acc, toPrim(x));
      return pyExpr(acc);
    });
  const typed = (dt: string) => fn(dt, (args) => pyExpr(tvmCast(dt, args[0] ?? pyInt(0))));
  const untranslatable = (what: string) =>
    fn(what, () => {
      throw new Untranslatable(what);
    });
  const members: Record<string, PyValue> = {
    Var: fn("Var", (args, kw) => pyExpr(variable(strOf(arg(args, kw, 0, "name"), "Var"), strOf(arg(args, kw, 1, "dtype", { t: "str", v: "int32" }), "Var")))),
    SizeVar: untranslatable("SizeVar"),
    const: fn("const", (args, kw) => {
      const v = arg(args, kw, 0, "value");
      const dtArg = args[1] ?? kw.get("dtype");
      const inferred = v.t === "float" ? "float32" : v.t === "int" && v.isBool === true ? "bool" : "int32";
      const dt = dtArg === undefined ? inferred : strOf(dtArg, "const");
      if (dtypeInfo(dt).code === "float") return pyExpr(floatImm(numberOf(v)!, dt));
      return pyExpr(intImm(Number(intOf(v, "const")), dt));
    }),
    IntImm: fn("IntImm", (args, kw) => pyExpr(intImm(Number(intOf(arg(args, kw, 1, "value"), "IntImm")), strOf(arg(args, kw, 0, "dtype"), "IntImm")))),
    FloatImm: fn("FloatImm", (args, kw) => pyExpr(floatImm(numberOf(arg(args, kw, 1, "value"))!, strOf(arg(args, kw, 0, "dtype"), "FloatImm")))),
    Cast: fn("Cast", (args) => pyExpr(cast(strOf(args[0]!, "Cast"), toPrim(args[1]!)))),
    Ramp: fn("Ramp", (args) => {
      const [base, stride] = matchTypes(toPrim(args[0]!), args[1]!.t === "int" ? Number(args[1]!.v) : toPrim(args[1]!), "Ramp");
      return pyExpr(ramp(base, stride, lanesOf(args[2]!, "Ramp")));
    }),
    Broadcast: fn("Broadcast", (args) => pyExpr(broadcast(toPrim(args[0]!), lanesOf(args[1]!, "Broadcast")))),
    Select: fn("Select", (args) => pyExpr(select(toPrim(args[0]!), exprOrLiteral(args[1]!), exprOrLiteral(args[2]!)))),
    if_then_else: fn("if_then_else", (args) => {
      const [t, f] = matchTypes(exprOrLiteral(args[1]!), exprOrLiteral(args[2]!), "if_then_else");
      return pyExpr(call(t.dtype, "if_then_else", [toPrim(args[0]!), t, f]));
    }),
    Let: fn("Let", (args) => {
      const v = toPrim(args[0]!);
      if (v.kind !== "Var") throw new Untranslatable("Let of a non-variable");
      return pyExpr(letExpr(v, toPrim(args[1]!), toPrim(args[2]!)));
    }),
    min: folding("min"),
    max: folding("max"),
    Min: node("min"),
    Max: node("max"),
    Add: node("add"),
    Sub: node("sub"),
    Mul: node("mul"),
    Div: node("div"),
    Mod: node("mod"),
    FloorDiv: node("floordiv"),
    FloorMod: node("floormod"),
    EQ: node("eq"),
    NE: node("ne"),
    LT: node("lt"),
    LE: node("le"),
    GT: node("gt"),
    GE: node("ge"),
    And: node("and"),
    Or: node("or"),
    Not: fn("Not", (args) => pyExpr(not(toPrim(args[0]!)))),
    floordiv: folding("floordiv"),
    floormod: folding("floormod"),
    truncdiv: folding("div"),
    truncmod: folding("mod"),
    div: folding("div"),
    indexdiv: folding("floordiv"),
    indexmod: folding("floormod"),
    all: reduceAll("and"),
    any: reduceAll("or"),
    max_value: fn("max_value", (args) => pyExpr(extremeOf(strOf(args[0]!, "max_value"), true))),
    min_value: fn("min_value", (args) => pyExpr(extremeOf(strOf(args[0]!, "min_value"), false))),
    shift_left: two("shift_left", (a, b) => bitwise("shift_left", exprOrLiteral(a), exprOrLiteral(b))),
    shift_right: two("shift_right", (a, b) => bitwise("shift_right", exprOrLiteral(a), exprOrLiteral(b))),
    bitwise_and: two("bitwise_and", (a, b) => bitwise("bitwise_and", exprOrLiteral(a), exprOrLiteral(b))),
    bitwise_or: two("bitwise_or", (a, b) => bitwise("bitwise_or", exprOrLiteral(a), exprOrLiteral(b))),
    vscale: fn("vscale", () => pyExpr(vscale())),
    call_intrin: callIntrin,
    Call: untranslatable("Call"),
    BufferLoad: fn("BufferLoad", (args, kw) => {
      const indices = arg(args, kw, 1, "indices");
      if (indices.t !== "tuple") throw new Untranslatable("BufferLoad indices");
      return pyExpr(bufferLoad(bufferOf(arg(args, kw, 0, "buffer")), indices.items.map(exprOrLiteral)));
    }),
    decl_buffer: fn("decl_buffer", (args, kw) => {
      const shape = arg(args, kw, 0, "shape");
      if (shape.t !== "tuple") throw new Untranslatable("decl_buffer shape");
      const dt = strOf(arg(args, kw, 1, "dtype", { t: "str", v: "float32" }), "decl_buffer");
      const name = strOf(arg(args, kw, 2, "name", { t: "str", v: "buffer" }), "decl_buffer");
      return bufferValue(declBuffer(name, shape.items.map(exprOrLiteral), dt));
    }),
    EqualOp: untranslatable("EqualOp"),
  };
  for (const dt of ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool", "float16", "float32", "float64"]) members[dt] = typed(dt);
  members["op"] = namespace("op", { call_intrin: callIntrin });
  return namespace("tirx", members);
}

/** A Python `tirx.Buffer`: an object standing for one of our buffers. */
const BUFFERS = new WeakMap<PyValue, Buffer>();

function bufferValue(b: Buffer): PyValue {
  const v = namespace("Buffer", { name: { t: "str", v: b.name }, dtype: { t: "str", v: b.dtype } });
  BUFFERS.set(v, b);
  return v;
}

function bufferOf(v: PyValue): Buffer {
  const b = BUFFERS.get(v);
  if (b === undefined) throw new Untranslatable(`a ${v.t} where a Buffer is expected`);
  return b;
}

function exprOrLiteral(v: PyValue): PrimExpr | number {
  return v.t === "expr" ? v.e : literal(v);
}

function extremeOf(dt: string, max: boolean): PrimExpr {
  const info = dtypeInfo(dt);
  if (info.code === "float") throw new Untranslatable(`${max ? "max" : "min"}_value of ${dt}`);
  if (info.bits > 32) throw new Untranslatable(`${max ? "max" : "min"}_value of ${dt} (beyond 2^53)`);
  const signed = info.code === "int";
  const v = max ? (signed ? 2 ** (info.bits - 1) - 1 : 2 ** info.bits - 1) : signed ? -(2 ** (info.bits - 1)) : 0;
  return intImm(v, dt);
}

/** An expression's Python attributes (`x.dtype`, `x.astype(...)`, `x.value`, `x.a`, …). */
export function exprAttr(e: PrimExpr, name: string): PyValue {
  switch (name) {
    case "dtype":
      return { t: "str", v: e.dtype };
    case "astype":
      return fn("astype", (args) => pyExpr(tvmCast(strOf(args[0]!, "astype"), pyExpr(e))));
    case "value":
      if (e.kind === "IntImm") return pyInt(e.value);
      break;
    case "name":
      if (e.kind === "Var") return { t: "str", v: e.name };
      break;
    case "a":
    case "b":
      if (e.kind === "Binary") return pyExpr(e[name]);
      break;
    case "equal":
      return fn("equal", (args) => pyExpr(tvmOp("eq", e, exprOrLiteral(args[0]!))));
  }
  throw new Untranslatable(`attribute ${name} of an expression`);
}

/** Evaluates a parsed Python expression in `scope`. */
export function evaluate(node: PyNode, scope: (name: string) => PyValue | undefined): PyValue {
  const ev = (n: PyNode): PyValue => evaluate(n, scope);
  switch (node.t) {
    case "num":
      if (/[.eE]/.test(node.text) && !node.text.startsWith("0x")) return { t: "float", v: Number(node.text) };
      return pyInt(BigInt(node.text));
    case "str":
      return { t: "str", v: node.value };
    case "name": {
      if (node.id === "True") return { t: "int", v: 1n, isBool: true };
      if (node.id === "False") return { t: "int", v: 0n, isBool: true };
      if (node.id === "None") return NONE;
      const v = scope(node.id);
      if (v === undefined) throw new Untranslatable(`name ${node.id}`);
      return v;
    }
    case "attr": {
      const o = ev(node.obj);
      if (o.t === "expr") return exprAttr(o.e, node.name);
      if (o.t === "obj") {
        const v = o.attr(node.name);
        if (v === undefined) throw new Untranslatable(`${o.name}.${node.name}`);
        return v;
      }
      throw new Untranslatable(`attribute ${node.name} of ${o.t}`);
    }
    case "call": {
      const f = ev(node.fn);
      const callee = f.t === "fn" || f.t === "obj" ? f.call : undefined;
      if (callee === undefined) throw new Untranslatable(`calling ${f.t}`);
      const { args, kw } = evalArgs(node.args, ev);
      return callee(args, kw);
    }
    case "index": {
      const o = ev(node.obj);
      const i = ev(node.index);
      const getItem = o.t === "obj" ? o.attr("__getitem__") : undefined;
      if (getItem !== undefined && getItem.t === "fn") return getItem.call(i.t === "tuple" ? i.items : [i], new Map());
      if (o.t === "tuple" && i.t === "int") {
        const v = o.items[Number(i.v < 0n ? BigInt(o.items.length) + i.v : i.v)];
        if (v !== undefined) return v;
      }
      throw new Untranslatable(`subscript of ${o.t}`);
    }
    case "tuple":
    case "list":
      return { t: "tuple", items: node.items.flatMap((x) => (x.t === "star" ? spread(ev(x.a)) : [ev(x)])) };
    case "dict":
      return { t: "dict", entries: node.entries.map(([k, v]) => [ev(k), ev(v)] as const) };
    case "unary":
      return unaryOp(node.op, ev(node.a));
    case "binop":
      return binaryOp(node.op, ev(node.a), ev(node.b));
    case "compare": {
      // Python chains `a < b < c` as `a < b and b < c`; on expressions that is a truth test.
      if (node.ops.length > 1) throw new Untranslatable("chained comparison");
      return compareOp(node.ops[0]!, ev(node.operands[0]!), ev(node.operands[1]!));
    }
    case "bool": {
      const a = ev(node.a);
      if (node.op === "and") return truthy(a) ? ev(node.b) : a;
      return truthy(a) ? a : ev(node.b);
    }
    case "ifexp":
      return truthy(ev(node.cond)) ? ev(node.whenTrue) : ev(node.whenFalse);
    case "star":
      throw new Untranslatable("starred expression");
    case "lambda":
      return lambdaValue(node.params, node.body, scope);
  }
}

/** A Python lambda: its body evaluated with the parameters bound (`*rest` gathers a tuple). */
function lambdaValue(params: readonly string[], body: PyNode, outer: (name: string) => PyValue | undefined): PyValue {
  return fn("lambda", (args) => {
    const locals = new Map<string, PyValue>();
    params.forEach((p, i) => {
      if (p.startsWith("*")) locals.set(p.slice(1), { t: "tuple", items: args.slice(i) });
      else if (args[i] !== undefined) locals.set(p, args[i]!);
      else throw new Untranslatable(`lambda called without ${p}`);
    });
    return evaluate(body, (n) => locals.get(n) ?? outer(n));
  });
}

function spread(v: PyValue): readonly PyValue[] {
  if (v.t === "tuple") return v.items;
  throw new Untranslatable(`* of ${v.t}`);
}

function evalArgs(args: readonly PyArg[], ev: (n: PyNode) => PyValue): { args: PyValue[]; kw: Map<string, PyValue> } {
  const positional: PyValue[] = [];
  const kw = new Map<string, PyValue>();
  for (const a of args) {
    if (a.name !== undefined) kw.set(a.name, ev(a.value));
    else if (a.value.t === "star") positional.push(...spread(ev(a.value.a)));
    else positional.push(ev(a.value));
  }
  return { args: positional, kw };
}
