/**
 * Buffer regions as written in `T.reads(...)`, `T.writes(...)` and block-level `T.match_buffer`:
 * `A[vi, vk]` (points), `A[vi * 8:vi * 8 + 8, 0:16]` (slices), `A[()]` (0-d), or a bare `A`
 * (the whole buffer).
 */
import { fullRegion, type BufferRegion, type Range, bufferRegion } from "../stmt.js";
import { intImm } from "../expr.js";
import type { PyExpr } from "./ast.js";
import { fail } from "./errors.js";
import type { ExprEvaluator } from "./expr-evaluator.js";
import { rangeFromBounds } from "./extent.js";

/** The index list of a subscript: `A[()]` means no indices, and `A[(i, j)]` is `A[i, j]` (as in Python). */
export function subscriptItems(indices: readonly PyExpr[]): readonly PyExpr[] {
  const only = indices[0];
  if (indices.length === 1 && only !== undefined && only.kind === "Tuple") return only.elts;
  return indices;
}

export function parseRegion(ev: ExprEvaluator, e: PyExpr): BufferRegion {
  if (e.kind === "Name") return fullRegion(ev.buffer(e));
  if (e.kind !== "Subscript") fail("expected a buffer region such as A[vi, 0:16]", e.pos);
  const buffer = ev.buffer(e.value);
  const items = subscriptItems(e.indices);
  if (items.length !== buffer.shape.length) {
    fail(`buffer "${buffer.name}" has ${buffer.shape.length} dimension${buffer.shape.length === 1 ? "" : "s"} but the region has ${items.length}`, e.pos);
  }
  const region: Range[] = items.map((item, d) => {
    if (item.kind !== "Slice") {
      const min = ev.index(item);
      return { min, extent: intImm(1, min.dtype) };
    }
    if (item.step !== undefined) fail("a region slice cannot have a step", item.step.pos);
    const lo = item.lower === undefined ? intImm(0, buffer.shape[d]!.dtype) : ev.index(item.lower);
    const hi = item.upper === undefined ? buffer.shape[d]! : ev.index(item.upper);
    return rangeFromBounds(lo, hi);
  });
  return bufferRegion(buffer, region);
}

/** Arguments of `T.reads`/`T.writes`: regions, or one list/tuple of regions. */
export function parseRegionList(ev: ExprEvaluator, args: readonly PyExpr[]): BufferRegion[] {
  const out: BufferRegion[] = [];
  for (const a of args) {
    if (a.kind === "List" || a.kind === "Tuple") out.push(...a.elts.map((x) => parseRegion(ev, x)));
    else out.push(parseRegion(ev, a));
  }
  return out;
}
