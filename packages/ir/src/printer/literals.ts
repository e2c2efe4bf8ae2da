/**
 * Spelling of literal values: numbers, strings, dtypes and annotation dictionaries.
 */
import type { PrimExpr } from "../expr.js";
import type { AttrValue } from "../stmt.js";
import type { Style } from "./style.js";

/** A Python string literal (double-quoted; JSON escapes are valid Python escapes). */
export function pyString(s: string, style: Style): string {
  return style.string(JSON.stringify(s));
}

/**
 * A float as TVM writes it: integral values keep a `.0` so Python reads them back as floats;
 * other values use the shortest text that reads back exactly; non-finite values are strings
 * (`T.float32("inf")`).
 */
export function floatLiteral(value: number): string {
  if (Number.isNaN(value)) return '"nan"';
  if (value === Infinity) return '"inf"';
  if (value === -Infinity) return '"-inf"';
  if (Object.is(value, -0)) return "-0.0";
  if (Number.isInteger(value) && Math.abs(value) < 1e16) return value.toFixed(1);
  return String(value);
}

/** Prints annotation and attribute values (`T.func_attr`, `T.block_attr`, loop annotations). */
export function attrValueText(value: AttrValue, style: Style, expr: (e: PrimExpr) => string): string {
  if (typeof value === "string") return pyString(value, style);
  if (typeof value === "number") {
    return style.number(Number.isInteger(value) ? String(value) : floatLiteral(value));
  }
  if (typeof value === "boolean") return `T.bool(${style.keyword(value ? "True" : "False")})`;
  if (Array.isArray(value)) {
    return `[${(value as readonly AttrValue[]).map((v) => attrValueText(v, style, expr)).join(", ")}]`;
  }
  if (isPrimExpr(value)) return expr(value);
  const entries = Object.entries(value as { readonly [key: string]: AttrValue });
  return `{${entries.map(([k, v]) => `${pyString(k, style)}: ${attrValueText(v, style, expr)}`).join(", ")}}`;
}

const EXPR_KINDS = new Set(["IntImm", "FloatImm", "StringImm", "Var", "Binary", "Not", "Select", "Cast", "BufferLoad", "Ramp", "Broadcast", "Let", "Call"]);

function isPrimExpr(value: object): value is PrimExpr {
  const kind = (value as { kind?: unknown }).kind;
  return typeof kind === "string" && EXPR_KINDS.has(kind);
}
