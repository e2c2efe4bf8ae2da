/**
 * The shared body of compute-at and reverse-compute-at (TVM's `ComputeAtOrReverseComputeAtImpl`):
 * check, plan the removal, find the insertion point, solve the iterator domains, build the new loop
 * nest and rewrite the function. In check-only mode nothing is committed.
 */
import {
  Analyzer,
  type Block,
  type IntervalSet,
  type PrimExpr,
  type Stmt,
  and,
  add,
  blockRealize,
  boolImm,
  forLoop,
  ge,
  intImm,
  isFiniteInterval,
  lt,
  sub,
  variable,
} from "@tessera/ir";
import { planLeafBlockRemoval } from "../../analysis/leaf-block-removal.js";
import { scopeRootOf } from "../../analysis/schedule-checks.js";
import { isOutputBlock } from "../../analysis/block-properties.js";
import type { PrimitiveContext } from "../../context.js";
import { replaceStmts } from "../../state/replace.js";
import type { BlockEntry, LoopEntry } from "../../state/tree-index.js";
import { checkCompleteOrReductionBlock, checkSameScopeAndBindLoops, findInsertionPoint, subtreesOf } from "./checks.js";
import { calculateBlockVarDomain } from "./domain.js";
import { OutputBlockError } from "./errors.js";
import { calculateRegions } from "./regions.js";

export interface ComputeAtRequest {
  readonly isComputeAt: boolean;
  readonly block: BlockEntry;
  readonly loop: LoopEntry;
  readonly preserveUnitLoops: boolean;
  readonly index: number;
  readonly checkOnly: boolean;
}

export function computeAtImpl(ctx: PrimitiveContext, req: ComputeAtRequest): void {
  const { isComputeAt, block: blk, loop } = req;
  const primitive = isComputeAt ? "compute-at" : "reverse-compute-at";
  const index = ctx.index;
  const analyzer = new Analyzer();
  // Step 1: checks.
  const scope = scopeRootOf(index, blk, primitive, true);
  const root = scope.root!;
  const producers = scope.producersOf(blk);
  const consumers = scope.consumersOf(blk);
  checkCompleteOrReductionBlock(primitive, index, scope, blk);
  checkSameScopeAndBindLoops(primitive, blk, loop, root, analyzer);
  if (isComputeAt && isOutputBlock(scope, blk)) throw new OutputBlockError(primitive, blk.node);
  // Step 2: where the block leaves.
  const removal = planLeafBlockRemoval(primitive, blk);
  // Step 3: where it goes.
  const subtrees = subtreesOf(loop.node.body);
  const position = findInsertionPoint(primitive, subtrees, producers, consumers, !isComputeAt, isComputeAt, req.index);
  // Steps 4–5: regions and iterator domains.
  const dependents = isComputeAt ? consumers : producers;
  const regions = calculateRegions(isComputeAt, blk, loop, dependents, analyzer);
  const doms = calculateBlockVarDomain(primitive, blk.node.iterVars, regions, analyzer);
  // Step 6: the new nest under the loop.
  const nest = makeLoopNest(blk, doms, analyzer, req.preserveUnitLoops);
  const newBody = [...subtrees];
  newBody.splice(position, 0, nest);
  const newLoop: Stmt = { ...loop.node, body: newBody.length === 1 ? newBody[0]! : { kind: "SeqStmt", seq: newBody } };
  if (req.checkOnly) return;
  // Remove first (the removal's holder may enclose the target loop, which it shares), then
  // replace the target loop by identity.
  // Both rewrites skip the subtrees the index saw without a replaced node: the second walks a
  // body that shares every node of the first one but for the removal's path.
  const { src, tgt } = removal;
  const removed =
    src.kind === "For"
      ? replaceStmts(ctx.func.body, new Map([[src, tgt as Stmt]]), undefined, index)
      : replaceStmts(ctx.func.body, new Map(), new Map([[src, tgt as Block]]), index);
  ctx.commit(replaceStmts(removed, new Map([[loop.node, newLoop]]), undefined, index));
}

/**
 * Loops `ax0, ax1, …` over each iterator's domain (none for a unit domain unless unit loops are
 * preserved), the block re-bound to `min + axK`, and a `T.where` for bounds that cannot be proven.
 * The block node itself is reused so that its handle stays valid.
 */
function makeLoopNest(
  blk: BlockEntry,
  doms: readonly { dom: IntervalSet; bound: IntervalSet | undefined }[],
  analyzer: Analyzer,
  preserveUnitLoops: boolean,
): Stmt {
  const loops: { v: ReturnType<typeof variable>; extent: PrimExpr }[] = [];
  const values: PrimExpr[] = [];
  let predicate: PrimExpr = boolImm(true);
  blk.node.iterVars.forEach((iv, i) => {
    const { dom, bound } = doms[i]!;
    const cover = isFiniteInterval(dom) ? { min: dom.min, extent: analyzer.simplify(add(sub(dom.max, dom.min), 1)) } : iv.dom;
    const isUnit = cover.extent.kind === "IntImm" && cover.extent.value === 1;
    let value: PrimExpr;
    if (preserveUnitLoops || !isUnit) {
      const v = variable(`ax${loops.length}`, iv.var.dtype);
      loops.push({ v, extent: analyzer.simplify(cover.extent) });
      value = cover.min.kind === "IntImm" && cover.min.value === 0 ? v : add(cover.min, v);
      // A unit loop is its single value to the simplifier (as in TVM), so the predicate drops it.
      if (isUnit) analyzer.bind(v, intImm(0, v.dtype), true);
      else analyzer.bind(v, { min: intImm(0, v.dtype), extent: cover.extent }, true);
    } else {
      value = cover.min;
    }
    values.push(value);
    if (bound !== undefined) {
      if (bound.min.kind !== "NegInf") {
        const lower = ge(value, bound.min);
        if (!analyzer.canProve(lower)) predicate = and(predicate, lower);
      }
      if (bound.max.kind !== "PosInf") {
        const upper = lt(value, add(bound.max, 1));
        if (!analyzer.canProve(upper)) predicate = and(predicate, upper);
      }
    }
  });
  let nest: Stmt = blockRealize(values, analyzer.simplify(predicate), blk.node);
  for (let k = loops.length - 1; k >= 0; k--) nest = forLoop(loops[k]!.v, loops[k]!.extent, nest);
  return nest;
}
