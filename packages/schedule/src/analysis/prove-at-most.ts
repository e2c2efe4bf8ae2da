/**
 * `a <= b` for bounds that carry `min`/`max` (a region end clamped by a predicate or by the buffer,
 * e.g. `min(i * 64 + 63, 999) <= min(i * 64 + 127, 999)`), which the analyzer does not prove by
 * itself: each `min`/`max` is split into the comparisons that imply the whole.
 */
import type { Analyzer, PrimExpr } from "@tessera/ir";

const isOp = (e: PrimExpr, op: "min" | "max"): e is PrimExpr & { kind: "Binary"; a: PrimExpr; b: PrimExpr } => e.kind === "Binary" && e.op === op;

/** Sound: true only when `a <= b` holds for every value of the free variables the analyzer knows. */
export function proveAtMost(analyzer: Analyzer, a: PrimExpr, b: PrimExpr): boolean {
  if (analyzer.canProveLessEqual(a, b)) return true;
  // x <= min(y, z) iff x <= y and x <= z; max(x, y) <= z iff x <= z and y <= z.
  if (isOp(b, "min")) return proveAtMost(analyzer, a, b.a) && proveAtMost(analyzer, a, b.b);
  if (isOp(a, "max")) return proveAtMost(analyzer, a.a, b) && proveAtMost(analyzer, a.b, b);
  // min(x, y) <= z if x <= z or y <= z; x <= max(y, z) if x <= y or x <= z.
  if (isOp(a, "min")) return proveAtMost(analyzer, a.a, b) || proveAtMost(analyzer, a.b, b);
  if (isOp(b, "max")) return proveAtMost(analyzer, a, b.a) || proveAtMost(analyzer, a, b.b);
  return false;
}
