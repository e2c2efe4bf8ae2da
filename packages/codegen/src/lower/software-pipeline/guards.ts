/**
 * The bounds checks of the statements of a prologue or epilogue, in the forms TVM's pass gives
 * them: the last prologue iteration's guard reads `i == 2` (not `2 <= i`), `i < K + 1` reads
 * `i <= K`, and an epilogue that starts at a symbolic iteration `K` checks
 * `1 <= i + K and i + K == K` (TVM states the check on the pipelined iteration `j`, simplifies it
 * knowing `j >= K`, and substitutes `i + K` for `j` afterwards, unsimplified).
 */
import { Analyzer, type PrimExpr, add, and, boolImm, eq, ge, intImm, isConstInt, le, lt, not, sub, substitute, variable } from "@tessera/ir";
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
      if (!isConstInt(c, 1)) kept.push(toI(c));
    }
    return kept.length === 0 ? boolImm(true) : kept.reduce((acc, c) => and(acc, c));
  };
}

/** `a <= b` known to hold with `a >= b` becomes `a == b`; `x < y + 1` becomes `x <= y` (and may then become an equality). */
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
  if (cond.op !== "le" || !proveGreaterEqual(cond.a, cond.b)) return cond;
  const [x, y] = cond.a.kind === "IntImm" ? [cond.b, cond.a] : [cond.a, cond.b];
  return analyzer.simplify(eq(x, y));
}
