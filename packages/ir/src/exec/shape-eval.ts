/**
 * Evaluates the integer expressions found in buffer shapes, strides and offsets, given values
 * for the variables they mention (used when checking and inferring arguments).
 */
import type { PrimExpr, Var } from "../expr.js";

/** The value of `e`, or undefined if it mentions an unknown variable or an unsupported node. */
export function evalShapeExpr(e: PrimExpr, env: ReadonlyMap<Var, number>): number | undefined {
  switch (e.kind) {
    case "IntImm":
      return e.value;
    case "Var":
      return env.get(e);
    case "Cast":
      return evalShapeExpr(e.value, env);
    case "Binary": {
      const a = evalShapeExpr(e.a, env);
      const b = evalShapeExpr(e.b, env);
      if (a === undefined || b === undefined) return undefined;
      switch (e.op) {
        case "add":
          return a + b;
        case "sub":
          return a - b;
        case "mul":
          return a * b;
        case "div":
          return b === 0 ? undefined : Math.trunc(a / b);
        case "mod":
          return b === 0 ? undefined : a % b;
        case "floordiv":
          return b === 0 ? undefined : Math.floor(a / b);
        case "floormod":
          return b === 0 ? undefined : a - Math.floor(a / b) * b;
        case "min":
          return Math.min(a, b);
        case "max":
          return Math.max(a, b);
        default:
          return undefined;
      }
    }
    default:
      return undefined;
  }
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
