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
      return `(load #${identityId(e.buffer)} ${e.indices.map(exprKey).join(" ")})`;
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

export function sameExpr(a: PrimExpr, b: PrimExpr): boolean {
  return a === b || exprKey(a) === exprKey(b);
}
