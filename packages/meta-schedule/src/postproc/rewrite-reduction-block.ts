/**
 * TVM's RewriteReductionBlock: every reduction block still carrying its init is decomposed
 * (decompose_reduction) at its outermost loop that a reduction iterator depends on, so that the
 * initialisation runs once, before the reduction loops. Reductions over thread-bound loops
 * (cross-thread reductions) are left to their own lowering.
 */
import type { Schedule } from "@tessera/schedule";
import { blockNamesPostOrder, blockRealizeOf, varsOf } from "../rules/multi-level-tiling/block-query.js";
import type { TuneContext } from "../tune-context.js";
import { POSTPROC_OK, type Postproc, type PostprocResult } from "../interfaces/postproc.js";

export class RewriteReductionBlock implements Postproc {
  readonly name = "rewriteReductionBlock";

  apply(sch: Schedule, _ctx: TuneContext): PostprocResult {
    for (const name of blockNamesPostOrder(sch.func)) {
      const realize = blockRealizeOf(sch.func, name);
      if (realize === undefined || realize.block.init === undefined || name === "root") continue;
      const reduceVars = new Set<unknown>();
      realize.iterValues.forEach((v, k) => {
        if (realize.block.iterVars[k]?.iterType === "reduce") for (const x of varsOf(v)) reduceVars.add(x);
      });
      const block = sch.getBlock(name);
      const loop = sch.getLoops(block).find((l) => reduceVars.has(sch.get(l).loopVar));
      if (loop === undefined || sch.get(loop).forKind === "thread_binding") continue;
      sch.decomposeReduction(block, loop);
    }
    return POSTPROC_OK;
  }
}
