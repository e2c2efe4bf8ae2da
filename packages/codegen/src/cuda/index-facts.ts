/**
 * What the generator knows about integer index expressions while it walks a kernel: variable
 * ranges (loops, thread indices) for sign proofs, and `let` values for divisibility proofs.
 */
import { Analyzer, type PrimExpr, type Var, rangeFromExtent, range } from "@tessera/ir";

function gcd(a: number, b: number): number {
  let [x, y] = [Math.abs(a), Math.abs(b)];
  while (y !== 0) [x, y] = [y, x % y];
  return x;
}

export class IndexFacts {
  private readonly analyzer = new Analyzer();
  private readonly letValues = new Map<Var, PrimExpr>();

  /** `v` ranges over `[0, extent)` (a thread index). */
  bindThread(v: Var, extent: number): void {
    this.analyzer.bind(v, rangeFromExtent(extent), true);
  }

  /** `v` ranges over `[min, min + extent)` (a loop variable). */
  bindLoop(v: Var, min: PrimExpr, extent: PrimExpr): void {
    // A loop that may run zero times gives no range to reason with (and the Analyzer rejects empty ones).
    if (this.analyzer.constIntBound(extent).min < 1) return;
    this.analyzer.bind(v, range(min, extent), true);
  }

  bindLet(v: Var, value: PrimExpr): void {
    this.letValues.set(v, value);
    const b = this.analyzer.constIntBound(value);
    if (Number.isFinite(b.min) && Number.isFinite(b.max)) this.analyzer.bind(v, range(b.min, b.max - b.min + 1), true);
  }

  isNonNegative(e: PrimExpr): boolean {
    return this.analyzer.constIntBound(e).min >= 0;
  }

  isPositive(e: PrimExpr): boolean {
    return this.analyzer.constIntBound(e).min > 0;
  }

  /**
   * True when `e` is provably a multiple of `n` for every value of its variables. A small
   * structural proof (sums of multiples, products with a multiple factor), enough for the
   * linear `Ramp` bases that vectorization produces.
   */
  isMultipleOf(e: PrimExpr, n: number): boolean {
    if (n === 1) return true;
    switch (e.kind) {
      case "IntImm":
        return e.value % n === 0;
      case "Var": {
        const value = this.letValues.get(e);
        return value !== undefined && this.isMultipleOf(value, n);
      }
      case "Cast":
        return this.isMultipleOf(e.value, n);
      case "Binary":
        switch (e.op) {
          case "add":
          case "sub":
          case "min":
          case "max":
            return this.isMultipleOf(e.a, n) && this.isMultipleOf(e.b, n);
          case "mul":
            return this.productIsMultiple(e.a, e.b, n) || this.productIsMultiple(e.b, e.a, n);
          case "floormod":
          case "mod":
            // x - m·q is a multiple of n when x and m are.
            return this.isMultipleOf(e.a, n) && this.isMultipleOf(e.b, n);
          default:
            return false;
        }
      default:
        return false;
    }
  }

  private productIsMultiple(factor: PrimExpr, other: PrimExpr, n: number): boolean {
    if (factor.kind === "IntImm") return this.isMultipleOf(other, n / gcd(factor.value, n));
    return this.isMultipleOf(factor, n);
  }
}
