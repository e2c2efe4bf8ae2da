/**
 * Reductions: reduce axes, commutative reducers and the `Reduce` expression they produce.
 *
 * A reduce axis is an ordinary `Var` whose domain is recorded here, so it can be used directly
 * in index expressions (`A.at(i, k)`) as in TVM. A `ReduceExpr` is not a `PrimExpr`: it may
 * only be the whole body of a `compute`, as in TVM.
 */
import { type DType, isBool } from "../dtype.js";
import { IRError } from "../errors.js";
import { IRVisitor, substitute } from "../functor.js";
import { type ExprLike, type PrimExpr, type Var, add, max, min, mul, sub, toExpr, toIndex, variable } from "../expr.js";
import { type Range, range } from "../stmt.js";
import { maxValue, minValue } from "./limits.js";

const reduceAxisRanges = new WeakMap<Var, Range>();

/** `te.reduce_axis((lo, hi), name)` or `te.reduce_axis(extent, name)`: a fresh reduction variable. */
export function reduceAxis(dom: ExprLike | readonly [ExprLike, ExprLike], name = "rv"): Var {
  const v = variable(name, "int32");
  reduceAxisRanges.set(v, reduceDomain(dom, name));
  return v;
}

function reduceDomain(dom: ExprLike | readonly [ExprLike, ExprLike], name: string): Range {
  const where = `reduceAxis ${name}`;
  if (Array.isArray(dom)) {
    const [lo, hi] = dom as readonly [ExprLike, ExprLike];
    if (typeof lo === "number" && typeof hi === "number") {
      if (!(Number.isInteger(lo) && Number.isInteger(hi) && hi > lo)) {
        throw new IRError(`${where}: the range [${lo}, ${hi}) must be non-empty with integer bounds`);
      }
      return range(lo, hi - lo);
    }
    const l = toIndex(lo, where);
    return range(l, sub(toIndex(hi, where), l));
  }
  if (typeof dom === "number" && !(Number.isInteger(dom) && dom > 0)) {
    throw new IRError(`${where}: extent ${dom} must be a positive integer`);
  }
  return range(0, toIndex(dom as ExprLike, where));
}

export function isReduceAxis(v: Var): boolean {
  return reduceAxisRanges.has(v);
}

/** The domain of a reduce axis, or `undefined` for any other variable. */
export function reduceAxisRange(v: Var): Range | undefined {
  return reduceAxisRanges.get(v);
}

/** A commutative reducer: `combine(x, y)` and the identity element for a dtype. */
export interface CommReducer {
  readonly name: string;
  readonly combine: (x: PrimExpr, y: PrimExpr) => PrimExpr;
  readonly identity: (dtype: DType) => PrimExpr;
}

/** TE's `Reduce` node: `combiner` folded over `axes` of `source`, where `condition` holds. */
export interface ReduceExpr {
  readonly kind: "Reduce";
  readonly dtype: DType;
  readonly combiner: CommReducer;
  readonly source: PrimExpr;
  readonly axes: readonly Var[];
  /** Elements where this is false are skipped (combined as the identity). */
  readonly condition: PrimExpr | undefined;
}

export function isReduceExpr(x: unknown): x is ReduceExpr {
  return typeof x === "object" && x !== null && (x as { kind?: unknown }).kind === "Reduce";
}

/** A reducer as TE users call it: `sum(expr, axes, where?)`. */
export type Reducer = ((source: ExprLike, axes: Var | readonly Var[], where?: ExprLike) => ReduceExpr) & {
  readonly combiner: CommReducer;
};

/**
 * `te.comm_reducer(fcombine, fidentity, name)`. `fcombine` must be commutative and associative;
 * `fidentity(dtype)` gives its identity element.
 */
export function commReducer(fcombine: (x: PrimExpr, y: PrimExpr) => ExprLike, fidentity: (dtype: DType) => ExprLike, name = "reduce"): Reducer {
  const combiner: CommReducer = {
    name,
    combine: (x, y) => toExpr(fcombine(x, y), x.dtype),
    identity: (dt) => toExpr(fidentity(dt), dt),
  };
  const reducer = (sourceLike: ExprLike, axes: Var | readonly Var[], where?: ExprLike): ReduceExpr => makeReduce(combiner, sourceLike, axes, where);
  return Object.assign(reducer, { combiner });
}

function makeReduce(combiner: CommReducer, sourceLike: ExprLike, axesLike: Var | readonly Var[], where?: ExprLike): ReduceExpr {
  const what = `te.${combiner.name}`;
  if (isReduceExpr(sourceLike)) throw new IRError(`${what}: nested reductions are not supported`);
  const source = toExpr(sourceLike);
  rejectNestedReduce(source, what);
  if (isBool(source.dtype)) throw new IRError(`${what}: cannot reduce bool values`);
  const axes = Array.isArray(axesLike) ? [...(axesLike as readonly Var[])] : [axesLike as Var];
  if (axes.length === 0) throw new IRError(`${what}: at least one reduce axis is required`);
  for (const ax of axes) {
    if (typeof ax !== "object" || ax === null || ax.kind !== "Var" || !isReduceAxis(ax)) {
      const label = typeof ax === "object" && ax !== null && "name" in ax ? String(ax.name) : String(ax);
      throw new IRError(`${what}: ${label} is not a reduce axis (create it with reduceAxis)`);
    }
  }
  if (new Set(axes).size !== axes.length) throw new IRError(`${what}: a reduce axis is listed twice`);
  let condition: PrimExpr | undefined;
  if (where !== undefined) {
    condition = toExpr(where);
    if (!isBool(condition.dtype)) throw new IRError(`${what}: the where condition must be bool, got ${condition.dtype}`);
  }
  checkCombiner(combiner, source.dtype, what);
  return { kind: "Reduce", dtype: source.dtype, combiner, source, axes, condition };
}

/** Applies the combiner once on placeholders, so a badly typed reducer fails here, not later. */
function checkCombiner(combiner: CommReducer, dt: DType, what: string): void {
  const x = variable("x", dt);
  const y = variable("y", dt);
  const combined = combiner.combine(x, y);
  if (combined.dtype !== dt) {
    throw new IRError(`${what}: the combiner returns ${combined.dtype} for ${dt} operands`);
  }
  const identity = combiner.identity(dt);
  if (identity.dtype !== dt) {
    throw new IRError(`${what}: the identity element has dtype ${identity.dtype}, expected ${dt}`);
  }
}

/** `combine(lhs, rhs)` of a reduction, with the combiner's placeholder operands replaced. */
export function combineReduce(r: ReduceExpr, lhs: PrimExpr, rhs: PrimExpr): PrimExpr {
  const x = variable("x", r.dtype);
  const y = variable("y", r.dtype);
  const template = r.combiner.combine(x, y);
  return substitute(template, (v) => (v === x ? lhs : v === y ? rhs : undefined));
}

/** Throws when a `Reduce` hides inside an expression (reductions must be a compute's whole body). */
export function rejectNestedReduce(e: PrimExpr, what: string): void {
  class Finder extends IRVisitor {
    override visitExpr(node: PrimExpr): void {
      if (isReduceExpr(node)) {
        throw new IRError(`${what}: a reduction may only be the whole body of a compute, not part of an expression`);
      }
      super.visitExpr(node);
    }
  }
  new Finder().visitExpr(e);
}

export const reduceSum: Reducer = commReducer(
  (x, y) => add(x, y),
  (dt) => toExpr(0, dt),
  "sum",
);
export const reduceProd: Reducer = commReducer(
  (x, y) => mul(x, y),
  (dt) => toExpr(1, dt),
  "prod",
);
/** Identity: the dtype's minimum value, as TVM's `te.max`. */
export const reduceMax: Reducer = commReducer(
  (x, y) => max(x, y),
  (dt) => minValue(dt),
  "max",
);
/** Identity: the dtype's maximum value, as TVM's `te.min`. */
export const reduceMin: Reducer = commReducer(
  (x, y) => min(x, y),
  (dt) => maxValue(dt),
  "min",
);
