/** Whether an expression may have effects beyond its value (a call of an impure or unknown intrinsic). */
import { type PrimExpr, forEachExpr, intrinsicInfo } from "@tessera/ir";

export function isPure(e: PrimExpr): boolean {
  let pure = true;
  forEachExpr(e, (x) => {
    if (x.kind === "Call" && intrinsicInfo(x.op)?.pure !== true) pure = false;
  });
  return pure;
}
