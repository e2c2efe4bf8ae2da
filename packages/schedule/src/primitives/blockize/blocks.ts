/**
 * blockize of several blocks (TVM's `BlockizeBlocks`): consecutive statements of one loop or block
 * body, each holding one of the blocks, become the body of a new block `outer_<names>_`. The loops
 * at and above their lowest common ancestor are the outer subspace, the loops below it the inner
 * one; all blocks must divide to the same outer iterators, and none may reduce over an outer one.
 */
import {
  type Block,
  type BufferRegion,
  type For,
  type PrimExpr,
  type Range,
  type Stmt,
  type Var,
  add,
  block as makeBlock,
  blockRealize,
  max,
  min,
  seq,
  simplify,
  structuralEqual,
  sub,
  substitute,
} from "@tessera/ir";
import type { PrimitiveContext } from "../../context.js";
import { ScheduleError } from "../../errors.js";
import { replaceStmts } from "../../state/replace.js";
import type { BlockEntry, NodeEntry } from "../../state/tree-index.js";
import { BLOCKIZE, SubspaceNotDivisibleError } from "./blockize.js";
import { type DerivedIterators, deriveIterators, relaxOverInner, substituteBlock } from "./outer-block.js";
import { divideSubspace } from "./subspace.js";

/** The blocks cannot be blockized together (not consecutive siblings, different outer iterators, …). */
export class BlockizeBlocksError extends ScheduleError {
  override name = "BlockizeBlocksError";
  constructor(detail: string, blocks: readonly Block[]) {
    super(BLOCKIZE, detail, blocks);
  }
}

const names = (bs: readonly BlockEntry[]) => bs.map((b) => `"${b.node.name}"`).join(", ");

/** The statements of a loop's or block's body (one unless it is a sequence). */
function bodyStatements(entry: NodeEntry): readonly Stmt[] {
  const body = entry.node.body;
  return body.kind === "SeqStmt" ? body.seq : [body];
}

/** The statement of `body`'s sequence that holds each block, in program order; throws unless consecutive, one block each. */
function siblingStatements(ctx: PrimitiveContext, lca: NodeEntry, blocks: readonly BlockEntry[]): { seqIndex: number[]; ordered: BlockEntry[] } {
  const body = bodyStatements(lca);
  const fail = (why: string) =>
    new BlockizeBlocksError(
      `Cannot blockize the blocks ${names(blocks)} together: ${why}.`,
      blocks.map((b) => b.node),
    );
  const placed = blocks.map((b) => {
    let top: NodeEntry = b;
    while (top.parent !== lca) top = top.parent!;
    const index = body.findIndex((s) => s === top.node || (s.kind === "BlockRealize" && s.block === top.node));
    if (index < 0) throw fail("they must be statements of one loop or block body");
    if (top !== b && ctx.index.childBlocks(top).length !== 1) throw fail(`the statement holding "${b.node.name}" holds other blocks too`);
    return { b, index };
  });
  placed.sort((x, y) => x.index - y.index);
  const seqIndex = placed.map((p) => p.index);
  if (new Set(seqIndex).size !== seqIndex.length) throw fail("each must be in a statement of its own");
  if (seqIndex.some((n, i) => i > 0 && n !== seqIndex[i - 1]! + 1)) throw fail("they must be consecutive statements");
  return { seqIndex, ordered: placed.map((p) => p.b) };
}

/** Per dimension, the smallest range covering all regions of a buffer, buffers in order of first appearance. */
function unionRegions(regions: readonly BufferRegion[]): BufferRegion[] {
  const byBuffer = new Map<BufferRegion["buffer"], Range[]>();
  for (const { buffer, region } of regions) {
    const known = byBuffer.get(buffer);
    if (known === undefined) {
      byBuffer.set(buffer, [...region]);
      continue;
    }
    region.forEach((r, d) => {
      const k = known[d]!;
      const lo = simplify(min(k.min, r.min));
      const hi = simplify(max(add1(k), add1(r)));
      known[d] = { min: lo, extent: simplify(sub(hi, lo)) };
    });
  }
  return [...byBuffer].map(([buffer, region]) => ({ buffer, region }));
}

const add1 = (r: Range): PrimExpr => simplify(add(r.min, r.extent));

/** Blockizes `blocks` in place and returns the new block as committed. */
export function blockizeBlocks(ctx: PrimitiveContext, blocks: readonly BlockEntry[], preserveUnitIters: boolean): Block {
  const { index } = ctx;
  // One block: its parent (TVM's lowest common ancestor would be the block itself).
  const lca = blocks.length === 1 ? blocks[0]!.parent : index.lowestCommonAncestor(blocks);
  if (lca === undefined || blocks.some((b) => b === lca)) {
    throw new BlockizeBlocksError(
      `Cannot blockize the blocks ${names(blocks)} together: they must be statements of one loop or block body.`,
      blocks.map((b) => b.node),
    );
  }
  const { seqIndex, ordered } = siblingStatements(ctx, lca, blocks);
  let shared: DerivedIterators | undefined;
  let outerPredicate: PrimExpr | undefined;
  const reads: BufferRegion[] = [];
  const writes: BufferRegion[] = [];
  const nests: Stmt[] = [];
  for (const blk of ordered) {
    const allLoops = index.loopsAbove(blk).map((l) => l.node);
    const cut = lca.kind === "loop" ? allLoops.indexOf(lca.node) + 1 : 0;
    const inner = allLoops.slice(cut);
    const division = divideSubspace(blk.realize, allLoops.slice(0, cut), inner, preserveUnitIters);
    if (division === undefined) throw new SubspaceNotDivisibleError(BLOCKIZE, inner[0] ?? lca.node, blk.node);
    const derived = deriveIterators(blk.node.iterVars, division.bindings, preserveUnitIters, shared?.outerIters);
    if (shared !== undefined && !sameOuter(shared, derived)) {
      throw new BlockizeBlocksError(
        `Cannot blockize the blocks ${names(blocks)} together: "${blk.node.name}" divides into other outer iterators than "${ordered[0]!.node.name}".`,
        [blk.node],
      );
    }
    if (outerPredicate !== undefined && !structuralEqual(outerPredicate, division.outerPredicate)) {
      throw new BlockizeBlocksError(`Cannot blockize the blocks ${names(blocks)} together: their predicates on the outer loops differ.`, [blk.node]);
    }
    shared ??= derived;
    outerPredicate = division.outerPredicate;
    if (blk.node.init !== undefined && derived.outerIters.some((iv) => iv.iterType === "reduce")) {
      throw new BlockizeBlocksError(`Cannot blockize the blocks ${names(blocks)} together: "${blk.node.name}" reduces over an outer iterator.`, [blk.node]);
    }
    const substituted = substituteBlock(blk.node, derived);
    reads.push(...relaxOverInner(substituted.reads, derived.innerIters));
    writes.push(...relaxOverInner(substituted.writes, derived.innerIters));
    // Loop extents that used an outer loop now use its outer iterator.
    const loopToIter = outerLoopSubstitution(shared);
    // Unlike TVM (which drops it here), an init stays on its block: every reduction is inner.
    const innerBlock: Block = { ...substituted, iterVars: derived.innerIters };
    const realize = blockRealize(derived.innerBindings, division.innerPredicate, innerBlock);
    nests.push([...inner].reverse().reduce<Stmt>((stmt, l: For) => ({ ...l, extent: substitute(l.extent, loopToIter), body: stmt }), realize));
  }
  const outer = blockRealize(
    shared!.outerBindings,
    outerPredicate!,
    makeBlock({
      name: `outer_${ordered.map((b) => b.node.name).join("_")}_`,
      iterVars: shared!.outerIters,
      reads: unionRegions(reads),
      writes: unionRegions(writes),
      body: seq(nests),
    }),
  );
  const body = bodyStatements(lca);
  const rest = body.slice(0, seqIndex[0]!).concat([outer], body.slice(seqIndex[seqIndex.length - 1]! + 1));
  const newBody = seq(rest);
  const replaced =
    lca.kind === "loop"
      ? new Map<Stmt, Stmt>([[lca.node, { ...lca.node, body: newBody }]])
      : new Map<Stmt, Stmt>([[lca.realize, { ...lca.realize, block: { ...lca.node, body: newBody } }]]);
  ctx.commit(replaceStmts(ctx.func.body, replaced, undefined, ctx.index));
  return outer.block;
}

function sameOuter(a: DerivedIterators, b: DerivedIterators): boolean {
  return (
    a.outerIters.length === b.outerIters.length &&
    a.outerIters.every((iv, k) => structuralEqual(iv.dom.extent, b.outerIters[k]!.dom.extent)) &&
    a.outerBindings.every((x, k) => structuralEqual(x, b.outerBindings[k]!))
  );
}

function outerLoopSubstitution(shared: DerivedIterators): Map<Var, PrimExpr> {
  const map = new Map<Var, PrimExpr>();
  shared.outerBindings.forEach((b, k) => {
    if (b.kind === "Var") map.set(b, shared.outerIters[k]!.var);
  });
  return map;
}
