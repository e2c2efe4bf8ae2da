/**
 * What the generator knows about integer index expressions while it walks a kernel: variable
 * ranges (loops, thread indices) for sign proofs, and `let` values for divisibility proofs.
 */
import { Analyzer, type PrimExpr, type Var, rangeFromExtent, range } from "@tessera/ir";
import { isProvablyMultipleOf } from "../lower/util/divisibility.js";

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

  /** True when `e` is provably a multiple of `n` for every value of its variables (lets known). */
  isMultipleOf(e: PrimExpr, n: number): boolean {
    return isProvablyMultipleOf(e, n, this.letValue);
  }

  private readonly letValue = (v: Var): PrimExpr | undefined => this.letValues.get(v);
}
