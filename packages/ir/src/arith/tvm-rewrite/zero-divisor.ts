/**
 * TVM's "Divide by zero" check: simplifying an integer division or remainder whose divisor is a
 * constant zero (or a broadcast of one) raises, as TVM's constant folding and vector rules do.
 * Float division is left alone: IEEE gives it a value.
 */
import { isIntegral } from "../../dtype.js";
import { IRError } from "../../errors.js";
import type { BinaryOp, PrimExpr } from "../../expr.js";
import { IRVisitor } from "../../functor.js";
import { describeExpr } from "../../printer/expr-text.js";

export class DivisionByZeroError extends IRError {
  override name = "DivisionByZeroError";
}

const DIVISIONS: ReadonlySet<BinaryOp> = new Set<BinaryOp>(["div", "mod", "floordiv", "floormod"]);

function isZeroDivision(op: BinaryOp, divisor: PrimExpr): boolean {
  if (!DIVISIONS.has(op)) return false;
  const d = divisor.kind === "Broadcast" ? divisor.value : divisor;
  return d.kind === "IntImm" && d.value === 0 && isIntegral(d.dtype);
}

export function rejectZeroDivisor(op: BinaryOp, dividend: PrimExpr, divisor: PrimExpr): void {
  if (isZeroDivision(op, divisor)) {
    throw new DivisionByZeroError(`simplify: ${op} of ${describeExpr(dividend)} by a constant zero`);
  }
}

/** Finds an integer division by a literal zero, stopping at the first. */
class ZeroDivisionFinder extends IRVisitor {
  found = false;
  override visitExpr(e: PrimExpr): void {
    if (this.found) return;
    if (e.kind === "Binary" && isZeroDivision(e.op, e.b)) this.found = true;
    else super.visitExpr(e);
  }
}

/** Does `e` itself divide by a literal zero (not one that only simplification under a condition makes)? */
export function hasLiteralZeroDivisor(e: PrimExpr): boolean {
  const finder = new ZeroDivisionFinder();
  finder.visitExpr(e);
  return finder.found;
}
