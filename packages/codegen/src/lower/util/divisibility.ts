/**
 * A small structural proof that an integer index is a multiple of `n` for every value of its
 * variables: sums of multiples, products with a multiple factor, `x mod m` of multiples, and
 * variables whose known value (a `let`) is one. Enough for the linear `Ramp` bases vectorization
 * produces; shared by vectorizeLoop's alignment check and the CUDA generator's choice of vector
 * accesses, so that both agree on what is aligned.
 */
import type { PrimExpr, Var } from "@tessera/ir";

function gcd(a: number, b: number): number {
  let [x, y] = [Math.abs(a), Math.abs(b)];
  while (y !== 0) [x, y] = [y, x % y];
  return x;
}

export function isProvablyMultipleOf(e: PrimExpr, n: number, valueOf: (v: Var) => PrimExpr | undefined = () => undefined): boolean {
  if (n === 1) return true;
  const multiple = (x: PrimExpr, m: number): boolean => isProvablyMultipleOf(x, m, valueOf);
  const product = (factor: PrimExpr, other: PrimExpr): boolean =>
    factor.kind === "IntImm" ? multiple(other, n / gcd(factor.value, n)) : multiple(factor, n);
  switch (e.kind) {
    case "IntImm":
      return e.value % n === 0;
    case "Var": {
      const value = valueOf(e);
      return value !== undefined && multiple(value, n);
    }
    case "Cast":
      return multiple(e.value, n);
    case "Binary":
      switch (e.op) {
        case "add":
        case "sub":
        case "min":
        case "max":
          return multiple(e.a, n) && multiple(e.b, n);
        case "mul":
          return product(e.a, e.b) || product(e.b, e.a);
        case "floormod":
        case "mod":
          // x - m·q is a multiple of n when x and m are.
          return multiple(e.a, n) && multiple(e.b, n);
        default:
          return false;
      }
    default:
      return false;
  }
}
