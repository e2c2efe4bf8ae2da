/**
 * What the schedule rules and postprocessors ask about a block or a loop of a schedule (TVM's
 * `analysis.cc` helpers): its realize, whether it is the root, the iterator type of a loop,
 * trivial bindings, reductions, and whether a block needs multi-level tiling.
 */
import { type Block, type BlockRealize, type For, type Stmt, type Var, forEachBlockRealize, forEachStmt, usesVar } from "@tessera/ir";
import type { BlockRV, Schedule } from "@tessera/schedule";
import { TILING_STRUCTURE } from "./annotations.js";

/** The realize of `block` in the schedule's function. */
export function realizeOf(sch: Schedule, block: BlockRV): BlockRealize {
  const node = sch.get(block);
  let found: BlockRealize | undefined;
  forEachStmt(sch.func.body, (s) => {
    if (found !== undefined) return false;
    if (s.kind === "BlockRealize" && s.block === node) found = s;
    return undefined;
  });
  if (found === undefined) throw new Error(`internal error: block ${node.name} has no realize in the schedule's function`);
  return found;
}

export function isRootBlock(sch: Schedule, block: BlockRV): boolean {
  const body = sch.func.body;
  return body.kind === "BlockRealize" && body.block === sch.get(block);
}

/** The constant extent of a loop, or undefined for a symbolic one. */
export function constExtent(loop: For): number | undefined {
  return loop.extent.kind === "IntImm" ? loop.extent.value : undefined;
}

export function isThreadIdx(loop: For): boolean {
  return loop.forKind === "thread_binding" && loop.threadTag?.startsWith("threadIdx.") === true;
}

export function isBlockIdx(loop: For): boolean {
  return loop.forKind === "thread_binding" && loop.threadTag?.startsWith("blockIdx.") === true;
}

/** TVM's `IsSingleStmt`: the body is one statement, not a sequence of several. */
export function isSingleStmt(s: Stmt): boolean {
  return s.kind !== "SeqStmt" || s.seq.length === 1;
}

export type LoopIterType = "spatial" | "reduce" | "opaque";

/**
 * TVM's `GetLoopIterType`: spatial when every block iterator bound through the loop variable is
 * data-parallel, reduce when every one is a reduction iterator, opaque otherwise.
 */
export function loopIterType(loop: For): LoopIterType {
  let spatial = 0;
  let reduce = 0;
  let other = 0;
  const uses = (e: Parameters<typeof usesVar>[0]) => usesVar(e, (v: Var) => v === loop.loopVar);
  // The blocks directly under the loop (not those nested in them), as TVM's GetLoopIterType.
  forEachStmt(loop.body, (s) => {
    if (s.kind !== "BlockRealize") return undefined;
    s.block.iterVars.forEach((iv, k) => {
      if (!uses(s.iterValues[k]!)) return;
      if (iv.iterType === "spatial") spatial++;
      else if (iv.iterType === "reduce") reduce++;
      else other++;
    });
    return false;
  });
  if (other > 0 || (spatial > 0 && reduce > 0)) return "opaque";
  return reduce > 0 ? "reduce" : "spatial";
}

export function hasBeenMultiLevelTiled(block: Block): boolean {
  return block.annotations[TILING_STRUCTURE] !== undefined;
}

/** A reduction block in TVM's sense: an init, at least one reduce iterator, and only spatial and reduce iterators. */
export function isReductionBlock(block: Block): boolean {
  return (
    block.init !== undefined &&
    block.iterVars.some((iv) => iv.iterType === "reduce") &&
    block.iterVars.every((iv) => iv.iterType === "spatial" || iv.iterType === "reduce")
  );
}

export function isSpatialBlock(block: Block): boolean {
  return block.iterVars.every((iv) => iv.iterType === "spatial");
}

/** Variables an expression mentions. */
function varsOf(e: Parameters<typeof usesVar>[0], candidates: readonly Var[]): Var[] {
  return candidates.filter((c) => usesVar(e, (v) => v === c));
}

/**
 * TVM's `NeedsMultiLevelTiling`: an untiled block with one write, some reads, a reduction (not
 * purely spatial), trivial bindings, no buffer read twice, constant-extent read regions, and data
 * reuse — a non-unit spatial iterator that some read (other than the output) does not use.
 */
export function needsMultiLevelTiling(sch: Schedule, blockRV: BlockRV): boolean {
  const block = sch.get(blockRV);
  if (hasBeenMultiLevelTiled(block)) return false;
  if (block.writes.length !== 1 || block.reads.length === 0 || isSpatialBlock(block)) return false;
  if (!isTrivialBinding(sch, blockRV)) return false;
  const output = block.writes[0]!.buffer;
  const spatialVars = block.iterVars
    .filter((iv) => iv.iterType === "spatial" && !(iv.dom.extent.kind === "IntImm" && iv.dom.extent.value === 1))
    .map((iv) => iv.var);
  const seen = new Set<unknown>();
  let unused = 0;
  for (const read of block.reads) {
    if (seen.has(read.buffer)) return false;
    seen.add(read.buffer);
    if (read.buffer === output) continue;
    const used = new Set<Var>();
    for (const r of read.region) {
      if (r.extent.kind !== "IntImm") return false;
      for (const v of varsOf(r.min, spatialVars)) used.add(v);
    }
    unused += spatialVars.filter((v) => !used.has(v)).length;
  }
  return unused >= 1;
}

/** The loops above a block, as nodes, without recording a `getLoops` in the trace. */
export function loopNodesAbove(sch: Schedule, block: BlockRV): For[] {
  const target = sch.get(block);
  let result: For[] | undefined;
  forEachBlockRealize(
    sch.func.body,
    (realize, loops) => {
      if (result !== undefined) return false;
      if (realize.block !== target) return true;
      result = [...loops];
      return false;
    },
    { withinScope: true },
  );
  return result ?? [];
}

/** TVM's `IsTrivialBinding`: one loop per block iterator, each bound to its loop's variable. */
export function isTrivialBinding(sch: Schedule, block: BlockRV): boolean {
  const realize = realizeOf(sch, block);
  const loops = loopNodesAbove(sch, block);
  if (loops.length !== realize.iterValues.length) return false;
  return realize.iterValues.every((v, k) => v.kind === "Var" && v === loops[k]!.loopVar);
}
