/**
 * The TVM-side simplifiers raise DivisionByZeroError (TVM's "Divide by zero") for a division by a
 * constant zero. Property tests accept that only where the expression has a division whose
 * divisor is zero, or has no value, at every sampled point.
 */
import { DivisionByZeroError } from "../../src/arith/index.js";
import type { PrimExpr } from "../../src/expr.js";
import { IRVisitor } from "../../src/functor.js";

const DIVISIONS = new Set(["div", "mod", "floordiv", "floormod"]);

function hasZeroDivisor(e: PrimExpr, zeroEverywhere: (divisor: PrimExpr) => boolean): boolean {
  let found = false;
  class Finder extends IRVisitor {
    override visitExpr(node: PrimExpr): void {
      if (found) return;
      if (node.kind === "Binary" && DIVISIONS.has(node.op) && zeroEverywhere(node.b)) found = true;
      else super.visitExpr(node);
    }
  }
  new Finder().visitExpr(e);
  return found;
}

/** `f()`, or undefined when it refuses a division by zero that `e` really has. */
export function unlessZeroDivisor<T>(e: PrimExpr, zeroEverywhere: (divisor: PrimExpr) => boolean, f: () => T): T | undefined {
  try {
    return f();
  } catch (err) {
    if (err instanceof DivisionByZeroError && hasZeroDivisor(e, zeroEverywhere)) return undefined;
    throw err;
  }
}
