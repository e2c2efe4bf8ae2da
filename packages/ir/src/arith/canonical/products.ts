/**
 * Products for the canonical simplifier (TVM's product_normal_form.h and ProdDivSimplify):
 * flattening a product into its factors, and cancelling factors common to a dividend and a
 * symbolic divisor. Both identities hold for truncating and flooring division because their
 * results are determined by the real quotient:
 *   div(a * c, b * c) = div(a, b)      mod(a * c, b * c) = mod(a, b) * c
 */
import { type PrimExpr, intImm } from "../../expr.js";
import { sameExpr } from "../exprKey.js";
import { gcdInt } from "../gcd.js";
import { foldingBinary } from "../tvm-rewrite/folding.js";
import { checked } from "./forms.js";
import { constOf } from "./normalize.js";

/** The leaves of a tree of multiplications, left to right. */
function factorsOf(e: PrimExpr, out: PrimExpr[] = []): PrimExpr[] {
  if (e.kind === "Binary" && e.op === "mul") {
    factorsOf(e.a, out);
    factorsOf(e.b, out);
  } else out.push(e);
  return out;
}

/** TVM's MulAndNormalize: the symbolic factors multiplied in order, the constants folded at the end. */
export function mulAndNormalize(a: PrimExpr, b: PrimExpr): PrimExpr {
  let constant = 1;
  let res: PrimExpr = intImm(1, a.dtype);
  for (const f of [...factorsOf(a), ...factorsOf(b)]) {
    if (f.kind === "IntImm") constant = checked(constant * f.value);
    else res = foldingBinary("mul", res, f);
  }
  return constant === 1 ? res : foldingBinary("mul", res, constOf(constant, res.dtype));
}

export interface CancelledProducts {
  readonly lhs: PrimExpr;
  readonly rhs: PrimExpr;
  /** The factor cancelled from both (what a remainder is multiplied back by). */
  readonly common: PrimExpr;
}

/** TVM's ProdDivSimplify: `undefined` when the divisor is constant or nothing cancels. */
export function cancelCommonFactors(lhs: PrimExpr, rhs: PrimExpr): CancelledProducts | undefined {
  if (rhs.kind === "IntImm") return undefined;
  const lhsFactors: (PrimExpr | undefined)[] = [];
  let lhsScale = 1;
  for (const f of factorsOf(lhs)) {
    if (f.kind === "IntImm") lhsScale = checked(lhsScale * f.value);
    else lhsFactors.push(f);
  }
  let rhsScale = 1;
  let newRhs: PrimExpr = intImm(1, rhs.dtype);
  let common: PrimExpr = intImm(1, rhs.dtype);
  let eliminated = 0;
  for (const f of factorsOf(rhs)) {
    if (f.kind === "IntImm") {
      rhsScale = checked(rhsScale * f.value);
      continue;
    }
    const k = lhsFactors.findIndex((l) => l !== undefined && sameExpr(l, f));
    if (k >= 0) {
      lhsFactors[k] = undefined;
      eliminated++;
      common = foldingBinary("mul", common, f);
    } else newRhs = foldingBinary("mul", newRhs, f);
  }
  const g = gcdInt(lhsScale, rhsScale);
  if (eliminated === 0 && g === 1) return undefined;
  // gcd(0, 0) = 0 only when both scales are 0, which the constant divisor check rules out.
  const [ls, rs] = g === 0 ? [lhsScale, rhsScale] : [lhsScale / g, rhsScale / g];
  let newLhs: PrimExpr = intImm(1, lhs.dtype);
  for (const f of lhsFactors) if (f !== undefined) newLhs = foldingBinary("mul", newLhs, f);
  return {
    lhs: foldingBinary("mul", newLhs, constOf(ls, lhs.dtype)),
    rhs: foldingBinary("mul", newRhs, constOf(rs, rhs.dtype)),
    common: foldingBinary("mul", common, constOf(g, rhs.dtype)),
  };
}
