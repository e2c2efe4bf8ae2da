/**
 * Evaluates the integer expressions found in buffer shapes, strides and offsets, given values
 * for the variables they mention (used when checking and inferring arguments).
 */
import { evalIntExpr } from "../arith/int-eval.js";
import type { PrimExpr, Var } from "../expr.js";

/** The value of `e`, or undefined if it mentions an unknown variable or an unsupported node. */
export function evalShapeExpr(e: PrimExpr, env: ReadonlyMap<Var, number>): number | undefined {
  return evalIntExpr(e, env);
}

/** The variables mentioned by `e` (shapes only use simple integer expressions). */
export function varsOf(e: PrimExpr, out: Var[] = []): Var[] {
  switch (e.kind) {
    case "Var":
      if (!out.includes(e)) out.push(e);
      break;
    case "Cast":
      varsOf(e.value, out);
      break;
    case "Binary":
      varsOf(e.a, out);
      varsOf(e.b, out);
      break;
    default:
      break;
  }
  return out;
}
