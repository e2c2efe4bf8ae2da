/**
 * The candidate compute locations of a block (TVM's `CollectComputeLocation`, analysis.cc):
 *   -2  inline, when the block can be compute-inlined;
 *   -1  the root (always);
 *    k  the k-th loop above the block's first consumer (outermost = 0), for the loops from the
 *       outermost down to the consumers' lowest common ancestor, skipping unit loops, stopping at a
 *       data-parallel loop after a reduction loop and at reduction loops below the last
 *       data-parallel one, and keeping those where compute-at (preserve_unit_loops = true) applies.
 *
 * "Can compute at" is compute-at's own check-only mode (`canComputeAt`). "Can compute inline" has
 * no check-only export yet, so the registered `ComputeInline` instruction is run on a throw-away
 * fork of the state and its result discarded (the same code, as TVM's CanComputeInline).
 */
import { TesseraError, forEachExpr } from "@tessera/ir";
import { scopeOfBlock } from "../../analysis/scope.js";
import { PrimitiveContext } from "../../context.js";
import type { InstructionAttr, InstructionInput } from "../../instruction.js";
import { instructionKind } from "../../instruction.js";
import type { BlockEntry, LoopEntry } from "../../state/tree-index.js";
import { canComputeAt } from "../compute-at/index.js";

export interface LocationCandidate {
  /** -2 inline, -1 root, k >= 0 the position of `loop` among the first consumer's loops. */
  readonly index: number;
  readonly loop?: LoopEntry;
}

export function collectComputeLocations(ctx: PrimitiveContext, blk: BlockEntry): LocationCandidate[] {
  const out: LocationCandidate[] = [];
  if (trialApply(ctx, "ComputeInline", [ctx.blockRV(blk)], [])) out.push({ index: -2 });
  out.push({ index: -1 });

  const consumers = scopeOfBlock(ctx.index, blk).consumersOf(blk);
  if (consumers.length === 0) return out;
  const boundary = consumers.length > 1 ? ctx.index.lowestCommonAncestor(consumers) : consumers[0]!.parent;
  if (boundary === undefined || boundary.kind !== "loop") return out;

  const loops = ctx.index.loopsAbove(consumers[0]!);
  const lcaPos = loops.indexOf(boundary);
  if (lcaPos < 0) return out;
  const types = loops.slice(0, lcaPos + 1).map(loopIterType);
  const lastDataPar = types.lastIndexOf("spatial");

  let visitedReduce = false;
  for (let i = 0; i <= lcaPos; i++) {
    const loop = loops[i]!;
    if (loop.node.extent.kind === "IntImm" && loop.node.extent.value === 1) continue;
    if (types[i] === "spatial") {
      if (visitedReduce) break;
    } else {
      visitedReduce = true;
      if (i > lastDataPar) break;
    }
    if (canComputeAt(new PrimitiveContext(ctx.state.fork()), blk, loop, true)) out.push({ index: i, loop });
  }
  return out;
}

/**
 * TVM's GetLoopIterType: "spatial" when the loop variable only feeds data-parallel block iters of
 * the blocks directly under the loop, "reduce" when it only feeds reduction iters, else "opaque".
 */
export function loopIterType(loop: LoopEntry): "spatial" | "reduce" | "opaque" {
  let nSpatial = 0;
  let nReduce = 0;
  let nOther = 0;
  const visit = (entry: LoopEntry | BlockEntry): void => {
    for (const child of entry.children) {
      if (child.kind === "loop") {
        visit(child);
        continue;
      }
      child.node.iterVars.forEach((iv, k) => {
        const binding = child.realize.iterValues[k];
        if (binding === undefined) return;
        let uses = 0;
        forEachExpr(binding, (e) => {
          if (e === loop.node.loopVar) uses++;
        });
        if (iv.iterType === "spatial") nSpatial += uses;
        else if (iv.iterType === "reduce") nReduce += uses;
        else nOther += uses;
      });
    }
  };
  visit(loop);
  if (nOther > 0 || (nSpatial > 0 && nReduce > 0)) return "opaque";
  return nReduce > 0 ? "reduce" : "spatial";
}

/** Runs a registered kind on a fork of the state; true when it succeeds (the result is dropped). */
function trialApply(ctx: PrimitiveContext, kindName: string, inputs: InstructionInput[], attrs: InstructionAttr[]): boolean {
  const kind = instructionKind(kindName);
  if (kind === undefined) return false;
  const trial = new PrimitiveContext(ctx.state.fork());
  try {
    kind.apply(trial, inputs, attrs, undefined);
    return true;
  } catch (err) {
    if (err instanceof TesseraError) return false;
    throw err;
  }
}
