/**
 * A thread-private buffer stored by iteration rather than by element. A register stage whose
 * thread's elements are strided through its tile (a cooperative fetch split [rounds, threads,
 * lanes]: rows t/32 and t/32 + 4 of an 8×128 tile) has a per-dimension hull far larger than what
 * the thread touches (5×128 floats for 8). When every access of the buffer reaches its element
 * through the same injective affine function of its own loop iterators — the same offset, the
 * same coefficient for the iterator in the same position — the element an iteration touches and
 * the iteration are interchangeable: the buffer can be indexed by the iterators instead (shape =
 * their extents), a renaming of the touched elements that leaves every value where each access
 * expects it.
 *
 * Used by compactBufferAllocation, and mirrored by the register estimates of the meta-schedule.
 */
import {
  Analyzer,
  type LinearTerm,
  type PrimExpr,
  type Var,
  add,
  intImm,
  linearFormOf,
  linearFormToExpr,
  mul,
  simplify,
  sub,
  substitute,
  usesVar,
} from "@tessera/ir";

/** A loop inside the buffer's allocation that the buffer's storage spans (not a thread index). */
export interface IteratedLoop {
  readonly var: Var;
  readonly min: PrimExpr;
  readonly extent: PrimExpr;
}

export interface IteratedAccess {
  /** The access's indices into the buffer as allocated; variables other than `loops` are fixed. */
  readonly indices: readonly PrimExpr[];
  /** The loops around the access inside the allocation, over which the storage is relaxed. */
  readonly loops: readonly IteratedLoop[];
}

export interface IteratorLayout {
  /** Extents of the iterators, outermost (largest stride in the element order) first. */
  readonly shape: readonly number[];
  /** Per access (in the given order), its new indices: its iterators minus their minimums. */
  readonly indices: readonly (readonly PrimExpr[])[];
}

interface Key {
  readonly loop: IteratedLoop;
  readonly extent: number;
  readonly coef: number;
}

/** One access's iterators (by decreasing |coefficient|) and the element of its first iteration, or undefined if not affine in them. */
function keysOf(box: readonly number[], access: IteratedAccess): { keys: Key[]; offset: PrimExpr } | undefined {
  if (access.indices.length !== box.length) return undefined;
  // Unit loops are constants: their minimum stands for them.
  const unit = new Map<Var, PrimExpr>();
  const loops = new Map<Var, IteratedLoop & { extentValue: number }>();
  for (const l of access.loops) {
    const extent = l.extent.kind === "IntImm" ? l.extent.value : undefined;
    if (extent === 1) unit.set(l.var, l.min);
    else if (extent !== undefined && extent > 1) loops.set(l.var, { ...l, extentValue: extent });
    else if (access.indices.some((i) => usesVar(i, (v) => v === l.var))) return undefined;
  }
  let flat: PrimExpr = intImm(0, "int32");
  let stride = 1;
  for (let d = box.length - 1; d >= 0; d--) {
    const index = unit.size === 0 ? access.indices[d]! : substitute(access.indices[d]!, unit);
    flat = add(flat, mul(index, intImm(stride, index.dtype)));
    stride *= box[d]!;
  }
  const form = linearFormOf(simplify(flat));
  const keys: Key[] = [];
  const rest: LinearTerm[] = [];
  for (const term of form.terms) {
    const loop = term.atom.kind === "Var" ? loops.get(term.atom) : undefined;
    if (loop !== undefined) keys.push({ loop, extent: loop.extentValue, coef: term.coef });
    else if (usesVar(term.atom, (v) => loops.has(v))) return undefined;
    else rest.push(term);
  }
  keys.sort((a, b) => Math.abs(b.coef) - Math.abs(a.coef));
  // The element of the first iteration: the new indices count from each loop's minimum, so two
  // accesses agree only when their first elements do (not merely their offsets).
  let offset = linearFormToExpr({ ...form, terms: rest });
  for (const k of keys) offset = add(offset, mul(intImm(k.coef, k.loop.min.dtype), k.loop.min));
  return { keys, offset: simplify(offset) };
}

/**
 * Whether `Σ coef·i` over the box of the extents takes distinct values at distinct points: each
 * |coefficient| exceeds the span of the smaller ones (a mixed radix; keys by decreasing |coef|).
 */
function injective(keys: readonly Key[]): boolean {
  let span = 0;
  for (let k = keys.length - 1; k >= 0; k--) {
    const { coef, extent } = keys[k]!;
    if (Math.abs(coef) <= span) return false;
    span += Math.abs(coef) * (extent - 1);
  }
  return true;
}

/**
 * The layout by iterators of a buffer accessed by `accesses`, or undefined when some access is not
 * an affine function of its loops, the accesses disagree (iterator extents, coefficients or
 * offset), or the function is not injective. `box`: constant extents of a box (the buffer's shape,
 * or the hull of the accesses) whose row-major order flattens the indices, keeping distinct
 * elements distinct (the flattened index of a hull simplifies where the buffer's does not).
 */
export function iteratorLayout(box: readonly PrimExpr[], accesses: readonly IteratedAccess[]): IteratorLayout | undefined {
  if (accesses.length === 0 || !box.every((d) => d.kind === "IntImm")) return undefined;
  const dims = box.map((d) => (d.kind === "IntImm" ? d.value : 0));
  const analyzer = new Analyzer();
  let first: { keys: Key[]; offset: PrimExpr } | undefined;
  const indices: PrimExpr[][] = [];
  for (const access of accesses) {
    const mine = keysOf(dims, access);
    if (mine === undefined || mine.keys.length === 0) return undefined;
    if (first === undefined) {
      if (!injective(mine.keys)) return undefined;
      first = mine;
    } else {
      const agree =
        mine.keys.length === first.keys.length &&
        mine.keys.every((k, p) => k.coef === first!.keys[p]!.coef && k.extent === first!.keys[p]!.extent) &&
        analyzer.canProveEqual(sub(mine.offset, first.offset), 0);
      if (!agree) return undefined;
    }
    indices.push(mine.keys.map((k) => simplify(sub(k.loop.var, k.loop.min))));
  }
  return { shape: first!.keys.map((k) => k.extent), indices };
}
