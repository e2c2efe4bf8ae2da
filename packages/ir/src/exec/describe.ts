/**
 * Compact, TVMScript-like text of expressions, used only in the executor's error messages
 * (so errors stay readable without depending on the printer).
 */
import type { Buffer } from "../buffer.js";
import type { BinaryOp, PrimExpr } from "../expr.js";

const INFIX: Partial<Record<BinaryOp, string>> = {
  add: "+",
  sub: "-",
  mul: "*",
  div: "/",
  mod: "%",
  floordiv: "//",
  floormod: "%%",
  eq: "==",
  ne: "!=",
  lt: "<",
  le: "<=",
  gt: ">",
  ge: ">=",
  and: "and",
  or: "or",
};

export function describeExpr(e: PrimExpr): string {
  switch (e.kind) {
    case "IntImm":
      return e.dtype === "bool" ? (e.value ? "True" : "False") : String(e.value);
    case "FloatImm":
      return String(e.value);
    case "StringImm":
      return JSON.stringify(e.value);
    case "Var":
      return e.name;
    case "Binary": {
      const sym = INFIX[e.op];
      if (e.op === "floormod") return `T.floormod(${describeExpr(e.a)}, ${describeExpr(e.b)})`;
      if (e.op === "div") return `T.truncdiv(${describeExpr(e.a)}, ${describeExpr(e.b)})`;
      if (e.op === "mod") return `T.truncmod(${describeExpr(e.a)}, ${describeExpr(e.b)})`;
      if (sym === undefined) return `T.${e.op}(${describeExpr(e.a)}, ${describeExpr(e.b)})`;
      return `(${describeExpr(e.a)} ${sym} ${describeExpr(e.b)})`;
    }
    case "Not":
      return `not ${describeExpr(e.a)}`;
    case "Select":
      return `T.Select(${describeExpr(e.condition)}, ${describeExpr(e.trueValue)}, ${describeExpr(e.falseValue)})`;
    case "Cast":
      return `T.Cast("${e.dtype}", ${describeExpr(e.value)})`;
    case "BufferLoad":
      return describeAccess(e.buffer, e.indices);
    case "Ramp":
      return `T.Ramp(${describeExpr(e.base)}, ${describeExpr(e.stride)}, ${e.lanes})`;
    case "Broadcast":
      return `T.Broadcast(${describeExpr(e.value)}, ${e.lanes})`;
    case "Let":
      return `T.Let(${describeExpr(e.body)}, where={${e.variable.name}: ${describeExpr(e.value)}})`;
    case "Call":
      return `T.${e.op}(${e.args.map(describeExpr).join(", ")})`;
  }
}

export function describeAccess(buffer: Buffer, indices: readonly PrimExpr[]): string {
  return `${buffer.name}[${indices.map(describeExpr).join(", ")}]`;
}
