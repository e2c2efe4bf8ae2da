/**
 * TVM's `IsWriteCache` (with `AnalyzeReadWritePattern`): a block that writes one buffer at plain
 * block variables and reads every buffer at those variables (possibly shifted by constants, or at
 * constant indices), each write dimension at most once and in order — an elementwise epilogue such
 * as a ReLU qualifies, and MultiLevelTiling uses it as the write cache of the block it follows.
 */
import type { Block, BufferRegion, PrimExpr, Var } from "@tessera/ir";

export function isWriteCache(block: Block): boolean {
  if (block.writes.length !== 1) return false;
  const write = block.writes[0]!;
  return block.reads.every((read) => injectiveOrderedRead(read, write));
}

function injectiveOrderedRead(read: BufferRegion, write: BufferRegion): boolean {
  const writeDims = new Map<Var, number>();
  for (const [d, r] of write.region.entries()) {
    if (r.extent.kind !== "IntImm" || r.min.kind !== "Var") return false;
    writeDims.set(r.min, d);
  }
  const mapped: number[] = [];
  for (const r of read.region) {
    if (r.extent.kind !== "IntImm") return false;
    if (r.min.kind === "IntImm") continue;
    const v = offsetVar(r.min);
    const d = v === undefined ? undefined : writeDims.get(v);
    if (d === undefined) return false;
    mapped.push(d);
  }
  const ordered = mapped.every((d, k) => k === 0 || mapped[k - 1]! <= d);
  const injective = new Set(mapped).size === mapped.length;
  return ordered && injective;
}

/** The variable of `v`, `v + c` or `v - c`. */
function offsetVar(e: PrimExpr): Var | undefined {
  if (e.kind === "Var") return e;
  if (e.kind === "Binary" && (e.op === "add" || e.op === "sub") && e.b.kind === "IntImm" && e.a.kind === "Var") return e.a;
  if (e.kind === "Binary" && e.op === "add" && e.a.kind === "IntImm" && e.b.kind === "Var") return e.b;
  return undefined;
}
