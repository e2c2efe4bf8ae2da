/**
 * The bounds checks of the statements of a prologue or epilogue, in the forms TVM's output has
 * after its pass and StmtSimplify: the last prologue iteration's guard reads `i == 2` (not
 * `2 <= i`), `i < K + 1` reads `i <= K`, and an epilogue that starts at a symbolic iteration `K`
 * checks `1 <= i + K and i + K == K` (TVM states the check on the pipelined iteration `j` and
 * substitutes `i + K` for `j` afterwards). Our analyzer lacks these rewrites, so they are made here.
 */
import { Analyzer, type PrimExpr, add, and, boolImm, eq, ge, intImm, isConstInt, le, lt, not, sameExprStructure, sub, substitute, variable } from "@tessera/ir";
import type { PipelineLayout, Section } from "./emit.js";

/** The guard of a statement of the given stage (`False` where it never runs). */
export type StageGuard = (stage: number, analyzer: Analyzer) => PrimExpr;

/** Proves `a >= b`. */
type ProveGreaterEqual = (a: PrimExpr, b: PrimExpr) => boolean;

/** `0 <= start + i - stage < extent` (and `start + i >= lowerBound`) on the section's iteration `i`. */
export function edgeGuard(layout: PipelineLayout, section: Section, i: PrimExpr, tripCount: PrimExpr): StageGuard {
  const extent = layout.loop.extent;
  if (!layout.tvmGuards || section.start.kind === "IntImm" || i.kind !== "Var") {
    return (stage, analyzer) => {
      const offset = analyzer.simplify(sub(intImm(stage, i.dtype), section.start));
      const inLoop = and(ge(i, offset), lt(i, analyzer.simplify(add(extent, offset))));
      const bounds = section.lowerBound === undefined ? inLoop : and(inLoop, ge(i, analyzer.simplify(sub(section.lowerBound, section.start))));
      const simplified = analyzer.simplify(bounds);
      return layout.tvmGuards ? inTvmForm(simplified, analyzer, (a, b) => analyzer.canProveGreaterEqual(a, b)) : simplified;
    };
  }
  const j = variable(i.name, i.dtype);
  const onJ = new Analyzer();
  for (const outer of layout.enclosing) {
    if (onJ.canProveGreater(outer.extent, 0)) onJ.bind(outer.loopVar, { min: outer.min, extent: outer.extent }, true);
  }
  if (onJ.canProveGreater(tripCount, 0)) onJ.bind(j, { min: section.start, extent: tripCount });
  const iPlusStart = add(i, section.start);
  const toI = (e: PrimExpr): PrimExpr => substitute(e, (v) => (v === j ? iPlusStart : undefined));
  return (stage, analyzer) => {
    const proveOnI: ProveGreaterEqual = (a, b) => analyzer.canProveGreaterEqual(toI(a), toI(b));
    const checks = [le(intImm(stage, j.dtype), j), lt(j, add(extent, intImm(stage, j.dtype)))];
    if (section.lowerBound !== undefined) checks.push(le(section.lowerBound, j));
    // Each check is simplified on its own and the conjunction is not (TVM keeps `3 <= j and 3 <= j`).
    const kept: PrimExpr[] = [];
    for (const check of checks) {
      const c = inTvmForm(onJ.simplify(check), onJ, proveOnI);
      if (isConstInt(c, 0) || onJ.canProve(not(c))) return boolImm(false);
      if (!isConstInt(c, 1)) kept.push(cancelCommonAddend(toI(c)));
    }
    return kept.length === 0 ? boolImm(true) : kept.reduce((acc, c) => and(acc, c));
  };
}

/** `a <= b` known to hold with `a >= b` becomes `a == b`; `x < y + 1` becomes `x <= y`; `x * -1 <= c` becomes `-c <= x`. */
function inTvmForm(cond: PrimExpr, analyzer: Analyzer, proveGreaterEqual: ProveGreaterEqual): PrimExpr {
  if (cond.kind !== "Binary") return cond;
  if (cond.op === "and") {
    const a = inTvmForm(cond.a, analyzer, proveGreaterEqual);
    const b = inTvmForm(cond.b, analyzer, proveGreaterEqual);
    return a === cond.a && b === cond.b ? cond : and(a, b);
  }
  if (cond.op === "lt" && cond.a.kind !== "IntImm" && cond.b.kind === "Binary" && cond.b.op === "add" && isConstInt(cond.b.b, 1)) {
    return inTvmForm(le(cond.a, cond.b.a), analyzer, proveGreaterEqual);
  }
  const negated = negatedOperand(cond.a);
  if ((cond.op === "le" || cond.op === "lt") && negated !== undefined && cond.b.kind === "IntImm") {
    const bound = intImm(-cond.b.value, cond.b.dtype);
    return cond.op === "le" ? le(bound, negated) : lt(bound, negated);
  }
  if (cond.op !== "le" || !proveGreaterEqual(cond.a, cond.b)) return cond;
  const [x, y] = cond.a.kind === "IntImm" ? [cond.b, cond.a] : [cond.a, cond.b];
  return analyzer.simplify(eq(x, y));
}

/** `x` of `x * -1`. */
function negatedOperand(e: PrimExpr): PrimExpr | undefined {
  return e.kind === "Binary" && e.op === "mul" && isConstInt(e.b, -1) ? e.a : undefined;
}

/** `x + k < y + k` as `x < y` (TVM's rewrite of a comparison of sums with a common term). */
function cancelCommonAddend(cond: PrimExpr): PrimExpr {
  if (cond.kind !== "Binary" || cond.op !== "lt" || cond.a.kind !== "Binary" || cond.a.op !== "add") return cond;
  if (cond.b.kind !== "Binary" || cond.b.op !== "add") return cond;
  const { a: x, b: k } = cond.a;
  if (sameExprStructure(k, cond.b.a)) return lt(x, cond.b.b);
  if (sameExprStructure(k, cond.b.b)) return lt(x, cond.b.a);
  return cond;
}
