/**
 * A small structural proof that an integer index is a multiple of `n` for every value of its
 * variables: sums of multiples, products with a multiple factor, `x mod m` of multiples, and
 * variables whose known value (a `let`) is one. Enough for the linear `Ramp` bases vectorization
 * produces; shared by vectorizeLoop's alignment check and the CUDA generator's choice of vector
 * accesses, so that both agree on what is aligned.
 */
import { type PrimExpr, type Var, gcdInt } from "@tessera/ir";

type ValueOf = (v: Var) => PrimExpr | undefined;

const NO_VALUES: ValueOf = () => undefined;

// Plain recursive functions, no closures per call: this runs for every vector access.
export function isProvablyMultipleOf(e: PrimExpr, n: number, knownValue: ValueOf = NO_VALUES): boolean {
  if (n === 1) return true;
  switch (e.kind) {
    case "IntImm":
      return e.value % n === 0;
    case "Var": {
      const value = knownValue(e);
      return value !== undefined && isProvablyMultipleOf(value, n, knownValue);
    }
    case "Cast":
      return isProvablyMultipleOf(e.value, n, knownValue);
    case "Binary":
      switch (e.op) {
        case "add":
        case "sub":
        case "min":
        case "max":
        // x mod m = x - m·q is a multiple of n when x and m are.
        case "floormod":
        case "mod":
          return isProvablyMultipleOf(e.a, n, knownValue) && isProvablyMultipleOf(e.b, n, knownValue);
        case "mul":
          return productIsMultiple(e.a, e.b, n, knownValue) || productIsMultiple(e.b, e.a, n, knownValue);
        default:
          return false;
      }
    default:
      return false;
  }
}

function productIsMultiple(factor: PrimExpr, other: PrimExpr, n: number, knownValue: ValueOf): boolean {
  return factor.kind === "IntImm" ? isProvablyMultipleOf(other, n / gcdInt(factor.value, n), knownValue) : isProvablyMultipleOf(factor, n, knownValue);
}
