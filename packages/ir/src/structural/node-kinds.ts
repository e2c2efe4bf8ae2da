/** The node types structural comparison accepts at the top level, and how to tell them apart. */
import type { Buffer } from "../buffer.js";
import type { PrimExpr } from "../expr.js";
import type { IRModule, PrimFunc } from "../func.js";
import type { Block, Stmt } from "../stmt.js";

export type StructuralNode = PrimExpr | Stmt | Block | Buffer | PrimFunc | IRModule;

export const EXPR_KINDS: ReadonlySet<string> = new Set([
  "IntImm",
  "FloatImm",
  "StringImm",
  "Var",
  "Binary",
  "Not",
  "Select",
  "Cast",
  "BufferLoad",
  "Ramp",
  "Broadcast",
  "Let",
  "Call",
]);

export { STMT_KINDS } from "../functor.js";

export function kindOf(x: unknown): string | undefined {
  if (typeof x !== "object" || x === null) return undefined;
  const k = (x as { kind?: unknown }).kind;
  return typeof k === "string" ? k : undefined;
}

export function isExprNode(x: unknown): x is PrimExpr {
  const k = kindOf(x);
  return k !== undefined && EXPR_KINDS.has(k);
}

/** A short description of a value that is not an IR node, for error messages. */
export function describeValue(x: unknown): string {
  if (x === null) return "null";
  if (Array.isArray(x)) return "an array";
  const k = kindOf(x);
  if (k !== undefined) return `a node of kind "${k}"`;
  return typeof x === "object" ? "a plain object" : `${typeof x} ${String(x)}`;
}
