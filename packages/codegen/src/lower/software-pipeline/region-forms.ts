/**
 * TVM's rewrite of a maximum plus the constant it subtracts, `max(x, y - c) + c → max(x + c, y)`
 * (and `max(x - c, y) + c → max(x, y + c)`), applied to the inferred regions of the blocks this
 * pass makes: the union of a dynamic pipeline's prologue and body reads is `[0, max(2, K - 1) + 1)`,
 * which TVM states as `[0, max(3, K))`. Our analyzer has neither this rule nor the one below.
 */
import { type Block, type BufferRegion, type PrimExpr, type Range, add, inferAccessRegions, max, simplify, sub } from "@tessera/ir";

function sameConst(e: PrimExpr, c: PrimExpr): boolean {
  return e.kind === "IntImm" && c.kind === "IntImm" && e.value === c.value;
}

/** `e - c` for the constant `c`, as it may be written after simplification (`e + -c`). */
function minusConst(e: PrimExpr, c: PrimExpr): PrimExpr | undefined {
  if (e.kind !== "Binary" || c.kind !== "IntImm") return undefined;
  if (e.op === "sub" && sameConst(e.b, c)) return e.a;
  if (e.op === "add" && e.b.kind === "IntImm" && e.b.value === -c.value) return e.a;
  return undefined;
}

/**
 * `x - min(a, b)` as `max(x - a, x - b)` where one side folds to a constant: a region from
 * `min(0, K - 3)` to `K` has extent `max(K, 3)` in TVM's output.
 */
function foldMinusMin(e: PrimExpr): PrimExpr {
  if (e.kind !== "Binary" || e.op !== "sub" || e.b.kind !== "Binary" || e.b.op !== "min") return e;
  const left = simplify(sub(e.a, e.b.a));
  const right = simplify(sub(e.a, e.b.b));
  if (left.kind !== "IntImm" && right.kind !== "IntImm") return e;
  return max(left, right);
}

export function foldMaxPlusConst(e: PrimExpr): PrimExpr {
  if (e.kind !== "Binary" || e.op !== "add" || e.b.kind !== "IntImm" || e.a.kind !== "Binary" || e.a.op !== "max") return e;
  const { a: x, b: y } = e.a;
  const c = e.b;
  const yBase = minusConst(y, c);
  if (yBase !== undefined) return simplify(max(add(x, c), yBase));
  const xBase = minusConst(x, c);
  if (xBase !== undefined) return simplify(max(xBase, add(y, c)));
  return e;
}

function foldRange(r: Range): Range {
  const extent = foldMinusMin(foldMaxPlusConst(r.extent));
  return extent === r.extent ? r : { ...r, extent };
}

function foldRegionExtents(regions: readonly BufferRegion[]): BufferRegion[] {
  return regions.map((r) => ({ ...r, region: r.region.map(foldRange) }));
}

/** `block` with the read and write regions of its body, in TVM's form. */
export function withInferredRegions(block: Block): Block {
  const { reads, writes } = inferAccessRegions(block);
  return { ...block, reads: foldRegionExtents(reads), writes: foldRegionExtents(writes) };
}
