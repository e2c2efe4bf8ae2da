/**
 * The greatest common divisor, a leaf module: the bound, modular-set and folding analyses all use
 * it, and they import one another, so it lives apart from them.
 */

/** Greatest common divisor of two integers, non-negative (gcd(0, 0) = 0). */
export function gcdInt(a: number, b: number): number {
  let [x, y] = [Math.abs(a), Math.abs(b)];
  while (y !== 0) [x, y] = [y, x % y];
  return x;
}
