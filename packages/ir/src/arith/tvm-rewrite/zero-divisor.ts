/**
 * TVM's "Divide by zero" check: simplifying an integer division or remainder whose divisor is a
 * constant zero (or a broadcast of one) raises, as TVM's constant folding and vector rules do.
 * Float division is left alone: IEEE gives it a value.
 */
import { isIntegral } from "../../dtype.js";
import { IRError } from "../../errors.js";
import type { BinaryOp, PrimExpr } from "../../expr.js";
import { describeExpr } from "../../printer/expr-text.js";

export class DivisionByZeroError extends IRError {
  override name = "DivisionByZeroError";
}

const DIVISIONS: ReadonlySet<BinaryOp> = new Set<BinaryOp>(["div", "mod", "floordiv", "floormod"]);

export function rejectZeroDivisor(op: BinaryOp, dividend: PrimExpr, divisor: PrimExpr): void {
  if (!DIVISIONS.has(op)) return;
  const d = divisor.kind === "Broadcast" ? divisor.value : divisor;
  if (d.kind === "IntImm" && d.value === 0 && isIntegral(d.dtype)) {
    throw new DivisionByZeroError(`simplify: ${op} of ${describeExpr(dividend)} by a constant zero`);
  }
}
