/**
 * TVM's `Reduce` node with its `CommReducer`, as the analyzer sees it: a tuple of accumulators
 * combined over the reduction axes (`result[i]` in terms of `lhs` and `rhs`, the accumulators
 * before and the new element), of which the expression's value is component `valueIndex`.
 * TE's `ReduceExpr` (one component, a combiner given as a function) is built for `compute`;
 * this is the general form TVM's canonical simplifier rewrites.
 */
import type { DType } from "../../dtype.js";
import { IRError } from "../../errors.js";
import { type PrimExpr, type Var, constant } from "../../expr.js";
import { substitute } from "../../functor.js";
import type { Range } from "../../stmt.js";
import { sameExpr } from "../exprKey.js";

export interface CommReducerForm {
  readonly lhs: readonly Var[];
  readonly rhs: readonly Var[];
  readonly result: readonly PrimExpr[];
  readonly identity: readonly PrimExpr[];
}

export interface ReductionAxis {
  readonly var: Var;
  readonly dom: Range;
}

export interface Reduction {
  readonly kind: "Reduction";
  readonly dtype: DType;
  readonly combiner: CommReducerForm;
  readonly source: readonly PrimExpr[];
  readonly axes: readonly ReductionAxis[];
  readonly condition: PrimExpr;
  readonly valueIndex: number;
  /** The accumulators' first values; empty: the identity elements. */
  readonly init: readonly PrimExpr[];
}

export interface ReductionParts {
  readonly combiner: CommReducerForm;
  readonly source: readonly PrimExpr[];
  readonly axes: readonly ReductionAxis[];
  readonly condition?: PrimExpr;
  readonly valueIndex: number;
  readonly init?: readonly PrimExpr[];
}

/** A reduction, checked as TVM's `Reduce` constructor checks it. */
export function reduction(parts: ReductionParts): Reduction {
  const { combiner, source, valueIndex } = parts;
  const n = combiner.result.length;
  const init = parts.init ?? [];
  const what = "Reduce";
  if (n === 0) throw new IRError(`${what}: the combiner has no components`);
  for (const [name, list] of [
    ["lhs", combiner.lhs],
    ["rhs", combiner.rhs],
    ["identity", combiner.identity],
    ["source", source],
  ] as const) {
    if (list.length !== n) throw new IRError(`${what}: the combiner has ${n} results but ${list.length} ${name} entries`);
  }
  if (init.length !== 0 && init.length !== n) throw new IRError(`${what}: ${init.length} init values for ${n} components`);
  if (!Number.isInteger(valueIndex) || valueIndex < 0 || valueIndex >= n) {
    throw new IRError(`${what}: value index ${valueIndex} is outside the ${n} components`);
  }
  for (let i = 0; i < n; i++) {
    const dt = source[i]!.dtype;
    const parts = [
      ["lhs", combiner.lhs[i]!.dtype],
      ["rhs", combiner.rhs[i]!.dtype],
      ["result", combiner.result[i]!.dtype],
      ["identity", combiner.identity[i]!.dtype],
      ...(init.length === 0 ? [] : [["init", init[i]!.dtype] as const]),
    ] as const;
    for (const [name, got] of parts) {
      if (got !== dt) throw new IRError(`${what}: component ${i} has source dtype ${dt} but ${name} dtype ${got}`);
    }
  }
  const condition = parts.condition ?? constant(1, "bool");
  if (condition.dtype !== "bool") throw new IRError(`${what}: the condition must be bool, got ${condition.dtype}`);
  return { kind: "Reduction", dtype: source[valueIndex]!.dtype, combiner, source, axes: parts.axes, condition, valueIndex, init };
}

export function isReduction(x: unknown): x is Reduction {
  return typeof x === "object" && x !== null && (x as { kind?: unknown }).kind === "Reduction";
}

/** The combiner applied once: every `result[i]` with `lhs := a`, `rhs := b`. */
export function applyCombiner(c: CommReducerForm, a: readonly PrimExpr[], b: readonly PrimExpr[]): PrimExpr[] {
  const sub = new Map<Var, PrimExpr>();
  c.lhs.forEach((v, i) => sub.set(v, a[i]!));
  c.rhs.forEach((v, i) => sub.set(v, b[i]!));
  return c.result.map((r) => substitute(r, sub));
}

/** TVM's structural equality of two reductions: the combiners' placeholders are matched by position. */
export function sameReduction(a: Reduction, b: Reduction): boolean {
  const n = a.source.length;
  if (b.source.length !== n || a.valueIndex !== b.valueIndex || a.init.length !== b.init.length || a.axes.length !== b.axes.length) return false;
  if (a.combiner.lhs.some((v, i) => v.dtype !== b.combiner.lhs[i]!.dtype)) return false;
  const rename = new Map<Var, PrimExpr>();
  b.combiner.lhs.forEach((v, i) => rename.set(v, a.combiner.lhs[i]!));
  b.combiner.rhs.forEach((v, i) => rename.set(v, a.combiner.rhs[i]!));
  const sameList = (x: readonly PrimExpr[], y: readonly PrimExpr[]) => x.every((e, i) => sameExpr(e, y[i]!));
  return (
    a.axes.every((ax, i) => ax.var === b.axes[i]!.var && sameExpr(ax.dom.min, b.axes[i]!.dom.min) && sameExpr(ax.dom.extent, b.axes[i]!.dom.extent)) &&
    sameList(
      a.combiner.result,
      b.combiner.result.map((r) => substitute(r, rename)),
    ) &&
    sameList(a.combiner.identity, b.combiner.identity) &&
    sameList(a.source, b.source) &&
    sameList(a.init, b.init) &&
    sameExpr(a.condition, b.condition)
  );
}
