/**
 * Expressions as text for diagnostics (structural differences, executor errors): the printer's
 * `printExpr` (`T.float32(0.0)`, `i * 32 + j`, `A[vi, vj]`), with a compact local rendering as a
 * fallback so that a diagnostic never fails because of a node the printer rejects.
 */
import type { Buffer } from "../buffer.js";
import type { BinaryOp, PrimExpr } from "../expr.js";
import { lanesText } from "../dtype.js";
import { printExpr } from "./index.js";

/** `A[i, j]`, for messages about one access. */
export function describeAccess(buffer: Buffer, indices: readonly PrimExpr[]): string {
  return `${buffer.name}[${indices.map(describeExpr).join(", ")}]`;
}

export function describeExpr(e: PrimExpr): string {
  try {
    return printExpr(e);
  } catch {
    return renderExprFallback(e);
  }
}

const INFIX: Partial<Record<BinaryOp, string>> = {
  add: "+",
  sub: "-",
  mul: "*",
  floordiv: "//",
  floormod: "%",
  eq: "==",
  ne: "!=",
  lt: "<",
  le: "<=",
  gt: ">",
  ge: ">=",
  and: "and",
  or: "or",
};

const CALL_STYLE: Partial<Record<BinaryOp, string>> = {
  div: "T.Div",
  mod: "T.truncmod",
  min: "T.min",
  max: "T.max",
};

export function formatNumber(value: number): string {
  if (Number.isNaN(value)) return "nan";
  if (!Number.isFinite(value)) return value > 0 ? "inf" : "-inf";
  return Object.is(value, -0) ? "0" : String(value);
}

function renderOperand(e: PrimExpr): string {
  const text = renderExprFallback(e);
  return e.kind === "Binary" && INFIX[e.op] !== undefined ? `(${text})` : text;
}

export function renderExprFallback(e: PrimExpr): string {
  switch (e.kind) {
    case "IntImm":
      if (e.dtype === "bool") return e.value ? "True" : "False";
      return e.dtype === "int32" ? String(e.value) : `T.${e.dtype}(${e.value})`;
    case "FloatImm":
      return `T.${e.dtype}(${formatNumber(e.value)})`;
    case "StringImm":
      return JSON.stringify(e.value);
    case "Var":
      return e.name;
    case "Binary": {
      const infix = INFIX[e.op];
      if (infix !== undefined) return `${renderOperand(e.a)} ${infix} ${renderOperand(e.b)}`;
      return `${CALL_STYLE[e.op] ?? e.op}(${renderExprFallback(e.a)}, ${renderExprFallback(e.b)})`;
    }
    case "Not":
      return `not ${renderOperand(e.a)}`;
    case "Select":
      return `T.Select(${renderExprFallback(e.condition)}, ${renderExprFallback(e.trueValue)}, ${renderExprFallback(e.falseValue)})`;
    case "Cast":
      return `T.Cast("${e.dtype}", ${renderExprFallback(e.value)})`;
    case "BufferLoad":
      return `${e.buffer.name}[${e.indices.map(renderExprFallback).join(", ")}]`;
    case "Ramp":
      return `T.Ramp(${renderExprFallback(e.base)}, ${renderExprFallback(e.stride)}, ${lanesText(e.lanes)})`;
    case "Broadcast":
      return `T.Broadcast(${renderExprFallback(e.value)}, ${lanesText(e.lanes)})`;
    case "Let":
      return `T.Let(${renderExprFallback(e.body)}, where={${e.variable.name}: ${renderExprFallback(e.value)}})`;
    case "Call":
      return `T.${e.op}(${e.args.map(renderExprFallback).join(", ")})`;
    default:
      return `<${String((e as { kind?: unknown }).kind)}>`;
  }
}
