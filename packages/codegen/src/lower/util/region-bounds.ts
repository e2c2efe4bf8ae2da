/**
 * Bounds of buffer indices while some loop variables range over their domains: the interval
 * evaluation of each index, tightened by conditions that bound a sub-expression of the index
 * (a block predicate `i0 * 64 + i1 < 66` limits `base + (i0 * 64 + i1)` to `base + 65`).
 */
import {
  type Analyzer,
  type IntervalSet,
  NEG_INF,
  POS_INF,
  type PrimExpr,
  type Var,
  add,
  evalSet,
  floordiv,
  gt,
  intImm,
  lt,
  mul,
  sub,
  usesVar,
} from "@tessera/ir";

const FLIPPED: Readonly<Record<string, string>> = { lt: "gt", le: "ge", gt: "lt", ge: "le" };

interface Bound {
  /** The condition's side that depends on relaxed variables. */
  readonly relaxedSide: PrimExpr;
  readonly op: "lt" | "le" | "gt" | "ge";
  readonly other: PrimExpr;
}

function asBound(cond: PrimExpr, relaxed: ReadonlySet<Var>): Bound | undefined {
  if (cond.kind !== "Binary" || FLIPPED[cond.op] === undefined) return undefined;
  const inA = usesVar(cond.a, (v) => relaxed.has(v));
  const inB = usesVar(cond.b, (v) => relaxed.has(v));
  if (inA && !inB) return { relaxedSide: cond.a, op: cond.op as Bound["op"], other: cond.b };
  if (inB && !inA) return { relaxedSide: cond.b, op: FLIPPED[cond.op] as Bound["op"], other: cond.a };
  return undefined;
}

/**
 * `x != c` where `c` is an end of `x`'s range, as the strict bound it is (`i != 0` with `i` in
 * [0, 9] is `i > 0`, as TVM reads a non-boolean condition `if i:`); other conditions as they are.
 */
function excludedEnd(cond: PrimExpr, dom: ReadonlyMap<Var, IntervalSet>, analyzer: Analyzer): PrimExpr {
  if (cond.kind !== "Binary" || cond.op !== "ne") return cond;
  const set = evalSet(cond.a, dom, analyzer);
  if (set.min.kind !== "NegInf" && analyzer.canProveEqual(set.min, cond.b)) return gt(cond.a, cond.b);
  if (set.max.kind !== "PosInf" && analyzer.canProveEqual(set.max, cond.b)) return lt(cond.a, cond.b);
  return cond;
}

/** The interval of `index` with `dom` relaxed, narrowed by `conditions` where that is provable. */
export function boundIndex(index: PrimExpr, dom: ReadonlyMap<Var, IntervalSet>, conditions: readonly PrimExpr[], analyzer: Analyzer): IntervalSet {
  const set = narrowed(index, dom, conditions, analyzer);
  if (conditions.length === 0) return set;
  const viaDividend = divModOfBound(index, dom, conditions, analyzer);
  return viaDividend !== undefined && isTighter(viaDividend, set, analyzer) ? viaDividend : set;
}

/** `d` and `offset` of `offset + d` or `d + offset` where `d` is `x // c` or `x % c` and `offset` is not relaxed. */
function offsetDivMod(index: PrimExpr, relaxed: (v: Var) => boolean): { d: PrimExpr; offset?: PrimExpr } | undefined {
  if (isConstDivMod(index)) return { d: index };
  if (index.kind !== "Binary" || index.op !== "add") return undefined;
  if (isConstDivMod(index.b) && !usesVar(index.a, relaxed)) return { d: index.b, offset: index.a };
  if (isConstDivMod(index.a) && !usesVar(index.b, relaxed)) return { d: index.a, offset: index.b };
  return undefined;
}

/** `x // c` or `x % c` for a constant `c > 0`. */
function isConstDivMod(e: PrimExpr): e is PrimExpr & { kind: "Binary"; a: PrimExpr; b: PrimExpr & { kind: "IntImm" } } {
  return e.kind === "Binary" && (e.op === "floordiv" || e.op === "floormod") && e.b.kind === "IntImm" && e.b.value > 0;
}

/**
 * `x // c` and `x % c` (plus an offset that is not relaxed) through the bounds of `x` under the
 * conditions (TVM's region estimate solves such splits under a predicate): with
 * `a * 16 + b < 255`, `(i * 255 + a * 16 + b) // 255` is `i`, and its `% 255` lies in [0, 254].
 */
function divModOfBound(index: PrimExpr, dom: ReadonlyMap<Var, IntervalSet>, conditions: readonly PrimExpr[], analyzer: Analyzer): IntervalSet | undefined {
  const split = offsetDivMod(index, (v) => dom.has(v));
  if (split === undefined || !isConstDivMod(split.d)) return undefined;
  const { a: dividend, b: c } = split.d;
  const x = boundIndex(dividend, dom, conditions, analyzer);
  if (x.min.kind === "NegInf" || x.max.kind === "PosInf") return undefined;
  const shifted = (lo: PrimExpr, hi: PrimExpr): IntervalSet =>
    split.offset === undefined ? { min: lo, max: hi } : { min: analyzer.simplify(add(split.offset, lo)), max: analyzer.simplify(add(split.offset, hi)) };
  const qLo = analyzer.simplify(floordiv(x.min, c));
  const qHi = analyzer.simplify(floordiv(x.max, c));
  if (split.d.op === "floordiv") return shifted(qLo, qHi);
  if (!analyzer.canProveEqual(qLo, qHi)) return undefined;
  const base = mul(qLo, c);
  return shifted(analyzer.simplify(sub(x.min, base)), analyzer.simplify(sub(x.max, base)));
}

/** Whether interval `a` provably holds no more values than `b` (any finite interval is tighter than an unbounded one). */
function isTighter(a: IntervalSet, b: IntervalSet, analyzer: Analyzer): boolean {
  if (b.min.kind === "NegInf" || b.max.kind === "PosInf") return true;
  if (a.min.kind === "NegInf" || a.max.kind === "PosInf") return false;
  return analyzer.canProveLess(sub(a.max, a.min), sub(b.max, b.min));
}

/** `evalSet` of `index`, narrowed by conditions that bound one of its sub-expressions. */
function narrowed(index: PrimExpr, dom: ReadonlyMap<Var, IntervalSet>, conditions: readonly PrimExpr[], analyzer: Analyzer): IntervalSet {
  const set = evalSet(index, dom, analyzer);
  let lo = set.min;
  let hi = set.max;
  const relaxed = new Set(dom.keys());
  for (const cond of conditions) {
    const b = asBound(excludedEnd(cond, dom, analyzer), relaxed);
    if (b === undefined || b.relaxedSide.dtype !== index.dtype) continue;
    const rest = analyzer.simplify(sub(index, b.relaxedSide));
    if (usesVar(rest, (v) => relaxed.has(v))) continue;
    const one = intImm(1, index.dtype);
    if (b.op === "lt" || b.op === "le") {
      const limit = analyzer.simplify(b.op === "lt" ? sub(add(rest, b.other), one) : add(rest, b.other));
      if (hi.kind === "PosInf" || analyzer.canProveLess(limit, hi)) hi = limit;
    } else {
      const limit = analyzer.simplify(b.op === "gt" ? add(add(rest, b.other), one) : add(rest, b.other));
      if (lo.kind === "NegInf" || analyzer.canProveGreater(limit, lo)) lo = limit;
    }
  }
  return { min: lo.kind === "NegInf" ? NEG_INF : lo, max: hi.kind === "PosInf" ? POS_INF : hi };
}
