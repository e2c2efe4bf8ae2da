/**
 * Bounds of the variables of lowered code as the barrier planner meets them: thread indices,
 * loop iterators, and the stand-ins of iterators summarised away (an access relaxed over a loop
 * keeps its index, with the iterator replaced by a fresh variable of the same domain).
 */
import { type IntBound, type PrimExpr, type Var, type VarBoundFacts, add, constIntBoundOf, sub, variable } from "@tessera/ir";

export class VarDomains implements VarBoundFacts {
  private readonly bounds = new Map<Var, IntBound>();
  private readonly standIns = new Set<Var>();
  private changes = 0;

  /** Changes whenever a known bound changes (a new variable, a widened domain). */
  get version(): number {
    return this.changes;
  }

  boundOf(v: Var): IntBound | undefined {
    return this.bounds.get(v);
  }

  /** `v ∈ [min, min + extent)`; a variable bound again (a duplicated loop) keeps the hull of both. */
  bindRange(v: Var, min: PrimExpr, extent: PrimExpr): void {
    this.join(v, { min: constIntBoundOf(min, this).min, max: constIntBoundOf(sub(add(min, extent), 1), this).max });
  }

  private join(v: Var, b: IntBound): void {
    const previous = this.bounds.get(v);
    const joined = previous === undefined ? b : { min: Math.min(previous.min, b.min), max: Math.max(previous.max, b.max) };
    if (previous !== undefined && previous.min === joined.min && previous.max === joined.max) return;
    this.bounds.set(v, joined);
    this.changes++;
  }

  /** `v = value` (a let binding): `v` takes the bounds of `value`. */
  bindValue(v: Var, value: PrimExpr): void {
    this.join(v, constIntBoundOf(value, this));
  }

  /** A fresh variable that stands for any value of `v`'s domain. */
  standIn(v: Var): Var {
    const s = variable(v.name, v.dtype);
    const b = this.bounds.get(v);
    if (b !== undefined) {
      this.bounds.set(s, b);
      this.changes++;
    }
    this.standIns.add(s);
    return s;
  }

  isStandIn(v: Var): boolean {
    return this.standIns.has(v);
  }
}
