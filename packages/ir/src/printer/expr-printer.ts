/**
 * Expressions to TVMScript text with Python precedence and minimal parentheses.
 *
 * Sugar follows TVM's printer: `+ - * // %` and comparisons as Python operators, `a / b` only for
 * float division (integer C division is `T.Div(a, b)`, C remainder `T.truncmod(a, b)`),
 * `and`/`or`/`not` for booleans, everything else as `T.<Op>(...)` calls.
 */
import { isFloat, lanesOf } from "../dtype.js";
import { IRError } from "../errors.js";
import type { Binary, BinaryOp, BufferLoad, PrimExpr } from "../expr.js";
import type { PrintContext } from "./context.js";
import { attrValueText, floatLiteral, pyString } from "./literals.js";
import type { AttrValue } from "../stmt.js";
import { globalCallee, intrinsicInfo, isNamespacedIntrinsic } from "../intrinsics.js";
import { scalableLanesExpr } from "../vscale.js";

/** Python operator precedence, loosest first. */
export const Prec = {
  or: 1,
  and: 2,
  not: 3,
  compare: 4,
  add: 5,
  mul: 6,
  unary: 7,
  atom: 10,
} as const;

export interface ExprText {
  readonly text: string;
  readonly prec: number;
}

const atom = (text: string): ExprText => ({ text, prec: Prec.atom });

const INFIX: Partial<Record<BinaryOp, { token: string; prec: number }>> = {
  add: { token: "+", prec: Prec.add },
  sub: { token: "-", prec: Prec.add },
  mul: { token: "*", prec: Prec.mul },
  floordiv: { token: "//", prec: Prec.mul },
  floormod: { token: "%", prec: Prec.mul },
  eq: { token: "==", prec: Prec.compare },
  ne: { token: "!=", prec: Prec.compare },
  lt: { token: "<", prec: Prec.compare },
  le: { token: "<=", prec: Prec.compare },
  gt: { token: ">", prec: Prec.compare },
  ge: { token: ">=", prec: Prec.compare },
  and: { token: "and", prec: Prec.and },
  or: { token: "or", prec: Prec.or },
};

const CALL_NAME: Partial<Record<BinaryOp, string>> = { mod: "truncmod", min: "min", max: "max" };

function paren(e: ExprText, needed: boolean): string {
  return needed ? `(${e.text})` : e.text;
}

export function exprText(ctx: PrintContext, e: PrimExpr): string {
  return printExpr(ctx, e).text;
}

export function printExpr(ctx: PrintContext, e: PrimExpr): ExprText {
  if (typeof e !== "object" || e === null) throw new IRError(`cannot print ${String(e)} where an expression is expected`);
  const s = ctx.style;
  const call = (name: string, args: readonly string[]): ExprText => atom(`${ctx.tir(name)}(${args.join(", ")})`);
  const sub = (x: PrimExpr): string => exprText(ctx, x);
  const lanesArg = (lanes: number): string => (lanes > 0 ? s.number(String(lanes)) : sub(scalableLanesExpr(lanes)));
  switch (e.kind) {
    case "IntImm":
      if (e.dtype === "int32") return { text: s.number(String(e.value)), prec: e.value < 0 ? Prec.unary : Prec.atom };
      if (e.dtype === "bool") return call("bool", [s.keyword(e.value ? "True" : "False")]);
      return call(e.dtype, [s.number(String(e.value))]);
    case "FloatImm":
      return call(e.dtype, [floatLiteralStyled(ctx, e.value)]);
    case "StringImm":
      return atom(pyString(e.value, s));
    case "Var":
      return atom(ctx.varName(e));
    case "Binary":
      return printBinary(ctx, e);
    case "Not": {
      const a = printExpr(ctx, e.a);
      return { text: `${s.keyword("not")} ${paren(a, a.prec < Prec.not)}`, prec: Prec.not };
    }
    case "Select":
      return call("Select", [sub(e.condition), sub(e.trueValue), sub(e.falseValue)]);
    case "Cast":
      return call("Cast", [pyString(e.dtype, s), sub(e.value)]);
    case "BufferLoad":
      return atom(e.predicate === undefined ? bufferAccessText(ctx, e) : predicatedAccessText(ctx, e, e.predicate));
    case "Ramp":
      return call("Ramp", [sub(e.base), sub(e.stride), lanesArg(e.lanes)]);
    case "Broadcast":
      return call("Broadcast", [sub(e.value), lanesArg(e.lanes)]);
    case "Let":
      return atom(`${ctx.tir("Let")}(${sub(e.body)}, where={${ctx.varName(e.variable)}: ${sub(e.value)}})`);
    case "Call": {
      if (e.op === "target") return call("target", targetArgs(ctx, e.args));
      const callee = globalCallee(e.op);
      if (callee !== undefined) return atom(`Module.${callee}(${e.args.map(sub).join(", ")})`);
      if (e.op === "comm_reducer" && e.args.length % 4 === 0) return atom(commReducerText(ctx, e.args));
      const args = e.args.map(sub);
      if (e.op === "Shuffle") {
        const vectors = args.length - lanesOf(e.dtype);
        return call("Shuffle", [`[${args.slice(0, vectors).join(", ")}]`, `[${args.slice(vectors).join(", ")}]`]);
      }
      if (isNamespacedIntrinsic(e.op)) return call(e.op, e.dtype === "void" ? args : [...args, `dtype=${pyString(e.dtype, s)}`]);
      const info = intrinsicInfo(e.op);
      // A dtype other than the operator's own (an opaque call returning void) needs TVM's Call constructor.
      if (info?.resultDType !== undefined && e.dtype !== info.resultDType) {
        return call("Call", [pyString(`tirx.${e.op}`, s), `[${args.join(", ")}]`, `ret_ty=${pyString(e.dtype, s)}`]);
      }
      if (info?.dtypeLast === true) return call(e.op, [...args, pyString(e.dtype, s)]);
      return call(e.op, info?.dtypeFirst === true ? [pyString(e.dtype, s), ...args] : args);
    }
    default:
      throw new IRError(`cannot print expression of kind "${(e as { kind?: unknown }).kind}"`);
  }
}

/** `T.comm_reducer(lambda x, y: x + y, [T.float32(0)])` from its operands, results and identities. */
function commReducerText(ctx: PrintContext, args: readonly PrimExpr[]): string {
  const n = args.length / 4;
  return ctx.names.scoped(() => {
    const params = args.slice(0, 2 * n).map((v) => (v.kind === "Var" ? ctx.names.define(v, v.name, "v") : exprText(ctx, v)));
    const results = args.slice(2 * n, 3 * n).map((r) => exprText(ctx, r));
    const identities = args.slice(3 * n).map((x) => exprText(ctx, x));
    const body = n === 1 ? results[0]! : `(${results.join(", ")})`;
    return `${ctx.tir("comm_reducer")}(${ctx.style.keyword("lambda")} ${params.join(", ")}: ${body}, [${identities.join(", ")}])`;
  });
}

/** `T.target("cuda", host=...)`: a config kept as JSON text prints as the dict it was. */
function targetArgs(ctx: PrintContext, args: readonly PrimExpr[]): string[] {
  const text = (a: PrimExpr): string => {
    if (a.kind !== "StringImm") return exprText(ctx, a);
    if (a.value.startsWith("{")) {
      try {
        return attrValueText(JSON.parse(a.value) as AttrValue, ctx.style, (x) => exprText(ctx, x));
      } catch {
        // Not JSON: print it as the string it is.
      }
    }
    return pyString(a.value, ctx.style);
  };
  return args.map((a, i) => (i === 1 ? `host=${text(a)}` : text(a)));
}

function floatLiteralStyled(ctx: PrintContext, value: number): string {
  const text = floatLiteral(value);
  return text.startsWith('"') ? ctx.style.string(text) : ctx.style.number(text);
}

function printBinary(ctx: PrintContext, e: Binary): ExprText {
  const infix = e.op === "div" ? (isFloat(e.dtype) ? { token: "/", prec: Prec.mul } : undefined) : INFIX[e.op];
  if (infix === undefined) {
    const name = e.op === "div" ? "Div" : CALL_NAME[e.op];
    if (name === undefined) throw new IRError(`cannot print binary operator "${e.op}"`);
    return atom(`${ctx.tir(name)}(${exprText(ctx, e.a)}, ${exprText(ctx, e.b)})`);
  }
  const a = printExpr(ctx, e.a);
  const b = printExpr(ctx, e.b);
  // Left-associative: an equal-precedence right operand needs parentheses (`a - (b - c)`).
  // Comparisons chain in Python (`a < b == c`), so they are parenthesised on both sides.
  const isCompare = infix.prec === Prec.compare;
  const left = paren(a, isCompare ? a.prec <= infix.prec : a.prec < infix.prec);
  const right = paren(b, b.prec <= infix.prec);
  const token = infix.prec <= Prec.and ? ctx.style.keyword(infix.token) : infix.token;
  return { text: `${left} ${token} ${right}`, prec: infix.prec };
}

/** `A[i, j]`; a constant-stride `Ramp` index prints as a slice `A[b:b + 4]`, as in TVM. */
export function bufferAccessText(ctx: PrintContext, load: Pick<BufferLoad, "buffer" | "indices">): string {
  const name = ctx.bufferName(load.buffer);
  if (load.indices.length === 0) return `${name}[()]`;
  const parts = load.indices.map((index) => {
    if (index.kind === "Ramp" && index.stride.kind === "IntImm" && (index.lanes > 0 || index.stride.value === 1)) {
      const stride = index.stride.value;
      const stop = addFolded(index.base, index.lanes > 0 ? index.lanes * stride : scalableLanesExpr(index.lanes));
      const step = stride === 1 ? "" : `:${exprText(ctx, index.stride)}`;
      return `${exprText(ctx, index.base)}:${exprText(ctx, stop)}${step}`;
    }
    return exprText(ctx, index);
  });
  return `${name}[${parts.join(", ")}]`;
}

/**
 * A predicated access as TVM prints it: `A.vload([i, T.Ramp(...)], predicate=m)`, or for a store
 * (given its value) `A.vstore([i, T.Ramp(...)], value, predicate=m)`.
 */
export function predicatedAccessText(ctx: PrintContext, access: Pick<BufferLoad, "buffer" | "indices">, predicate: PrimExpr, stored?: PrimExpr): string {
  const indices = `[${access.indices.map((i) => exprText(ctx, i)).join(", ")}]`;
  const value = stored === undefined ? "" : `, ${exprText(ctx, stored)}`;
  return `${ctx.bufferName(access.buffer)}.${stored === undefined ? "vload" : "vstore"}(${indices}${value}, predicate=${exprText(ctx, predicate)})`;
}

/**
 * `a + b` with the constant folding TVM applies when it prints ranges (`0:16`, `vi * 8:vi * 8 + 8`):
 * constants are summed and a zero operand disappears.
 */
export function addFolded(a: PrimExpr, b: PrimExpr | number): PrimExpr {
  const bExpr: PrimExpr = typeof b === "number" ? { kind: "IntImm", dtype: a.dtype, value: b } : b;
  if (a.kind === "IntImm" && bExpr.kind === "IntImm") return { kind: "IntImm", dtype: a.dtype, value: a.value + bExpr.value };
  if (a.kind === "IntImm" && a.value === 0) return bExpr;
  if (bExpr.kind === "IntImm" && bExpr.value === 0) return a;
  return { kind: "Binary", op: "add", dtype: a.dtype, a, b: bExpr };
}
