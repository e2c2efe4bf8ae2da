/**
 * A string key that is equal for structurally equal expressions (variables and buffers compared
 * by identity). The simplifier uses it to collect like terms; it is not meant for printing.
 */
import type { PrimExpr, Var } from "../expr.js";
import type { Buffer } from "../buffer.js";

const identityIds = new WeakMap<Var | Buffer, number>();
let nextIdentityId = 0;

function identityId(node: Var | Buffer): number {
  let id = identityIds.get(node);
  if (id === undefined) {
    id = nextIdentityId++;
    identityIds.set(node, id);
  }
  return id;
}

export function exprKey(e: PrimExpr): string {
  switch (e.kind) {
    case "IntImm":
    case "FloatImm":
      return `${e.value}:${e.dtype}`;
    case "StringImm":
      return JSON.stringify(e.value);
    case "Var":
      return `$${identityId(e)}`;
    case "Binary":
      return `(${e.op} ${exprKey(e.a)} ${exprKey(e.b)})`;
    case "Not":
      return `(not ${exprKey(e.a)})`;
    case "Select":
      return `(select ${exprKey(e.condition)} ${exprKey(e.trueValue)} ${exprKey(e.falseValue)})`;
    case "Cast":
      return `(cast ${e.dtype} ${exprKey(e.value)})`;
    case "BufferLoad":
      return `(load #${identityId(e.buffer)} ${e.indices.map(exprKey).join(" ")}${e.predicate === undefined ? "" : ` if ${exprKey(e.predicate)}`})`;
    case "Ramp":
      return `(ramp ${exprKey(e.base)} ${exprKey(e.stride)} ${e.lanes})`;
    case "Broadcast":
      return `(bcast ${exprKey(e.value)} ${e.lanes})`;
    case "Let":
      return `(let ${exprKey(e.variable)} ${exprKey(e.value)} ${exprKey(e.body)})`;
    case "Call":
      return `(call ${e.op} ${e.dtype} ${e.args.map(exprKey).join(" ")})`;
  }
}

/**
 * Structural equality, exactly when `exprKey(a) === exprKey(b)`, decided by walking both trees
 * (no key strings are built; the walk stops at the first difference or at shared subtrees).
 */
export function sameExpr(a: PrimExpr, b: PrimExpr): boolean {
  if (a === b) return true;
  const aImm = a.kind === "IntImm" || a.kind === "FloatImm";
  const bImm = b.kind === "IntImm" || b.kind === "FloatImm";
  // The key of a number does not tell IntImm from FloatImm, only value and dtype.
  if (aImm || bImm) return aImm && bImm && a.dtype === b.dtype && String(a.value) === String(b.value);
  switch (a.kind) {
    case "StringImm":
      return b.kind === "StringImm" && a.value === b.value;
    case "Var":
      return false;
    case "Binary":
      return b.kind === "Binary" && a.op === b.op && sameExpr(a.a, b.a) && sameExpr(a.b, b.b);
    case "Not":
      return b.kind === "Not" && sameExpr(a.a, b.a);
    case "Select":
      return b.kind === "Select" && sameExpr(a.condition, b.condition) && sameExpr(a.trueValue, b.trueValue) && sameExpr(a.falseValue, b.falseValue);
    case "Cast":
      return b.kind === "Cast" && a.dtype === b.dtype && sameExpr(a.value, b.value);
    case "BufferLoad":
      return (
        b.kind === "BufferLoad" &&
        a.buffer === b.buffer &&
        sameExprList(a.indices, b.indices) &&
        (a.predicate === undefined ? b.predicate === undefined : b.predicate !== undefined && sameExpr(a.predicate, b.predicate))
      );
    case "Ramp":
      return b.kind === "Ramp" && a.lanes === b.lanes && sameExpr(a.base, b.base) && sameExpr(a.stride, b.stride);
    case "Broadcast":
      return b.kind === "Broadcast" && a.lanes === b.lanes && sameExpr(a.value, b.value);
    case "Let":
      return b.kind === "Let" && a.variable === b.variable && sameExpr(a.value, b.value) && sameExpr(a.body, b.body);
    case "Call":
      return b.kind === "Call" && a.op === b.op && a.dtype === b.dtype && sameExprList(a.args, b.args);
    default:
      return false;
  }
}

function sameExprList(a: readonly PrimExpr[], b: readonly PrimExpr[]): boolean {
  return a.length === b.length && a.every((x, i) => sameExpr(x, b[i]!));
}
