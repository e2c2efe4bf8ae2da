/**
 * TVM's RewriteParallelVectorizeUnroll: the root block's unroll, parallel and vectorize annotations become
 * loop kinds and pragmas (docs/architecture/meta-schedule-notes.md). Unlike TVM, a loop nest is made
 * parallel only where its work pays for a parallel region (parallel-payoff.ts): a small workload gets
 * no region, and a copy too small for one (RewriteLayout's) runs serially beside a parallel compute nest.
 * Where the space sampled the parallel structure (PARALLEL_REGION, near the rule's threshold), the
 * sample decides instead: the nest with the most work in one parallel region, or every nest serial.
 */
import { forEachStmt, usesVar } from "@tessera/ir";
import type { BlockRV, LoopRV, Schedule } from "@tessera/schedule";
import {
  PARALLEL,
  PARALLEL_REGION,
  UNROLL_EXPLICIT,
  UNROLL_EXPLICIT_FLAG,
  UNROLL_IMPLICIT,
  VECTORIZE,
  annotationNumber,
} from "../schedule-utils/annotations.js";
import { blockRealizeOf } from "../rules/multi-level-tiling/block-query.js";
import type { TuneContext } from "../tune-context.js";
import { POSTPROC_OK, type Postproc, type PostprocResult } from "../interfaces/postproc.js";
import { type ParallelPayoff, largestNest, nestWork, nestsOf, parallelPayoffOn } from "./parallel-payoff.js";

export interface RewriteParallelVectorizeUnrollOptions {
  /** Whether a nest's work pays for a parallel region (default: this machine's probed rule). */
  readonly payoff?: ParallelPayoff;
}

export class RewriteParallelVectorizeUnroll implements Postproc {
  readonly name = "rewriteParallelVectorizeUnroll";
  private readonly payoff: ParallelPayoff;

  constructor(options: RewriteParallelVectorizeUnrollOptions = {}) {
    this.payoff = options.payoff ?? parallelPayoffOn();
  }

  apply(sch: Schedule, ctx: TuneContext): PostprocResult {
    if (blockRealizeOf(sch.func, "root") === undefined) return POSTPROC_OK;
    const root = sch.getBlock("root");
    const ann = sch.get(root).annotations;
    const keys = [UNROLL_EXPLICIT, UNROLL_IMPLICIT, UNROLL_EXPLICIT_FLAG, PARALLEL, PARALLEL_REGION, VECTORIZE].filter((k) => ann[k] !== undefined);
    if (keys.length === 0) return POSTPROC_OK;
    const explicitStep = annotationNumber(ann, UNROLL_EXPLICIT);
    const implicitStep = annotationNumber(ann, UNROLL_IMPLICIT);
    const flag = annotationNumber(ann, UNROLL_EXPLICIT_FLAG);
    const parallel = annotationNumber(ann, PARALLEL);
    const vectorize = annotationNumber(ann, VECTORIZE);
    const region = annotationNumber(ann, PARALLEL_REGION);
    for (const k of keys) sch.unannotate(root, k);
    const children = sch.getChildBlocks(root);
    if (parallel !== undefined && parallel > 1)
      for (const nest of this.parallelNests(sch, nestsOf(sch, children), region, ctx)) for (const b of nest) parallelizeLeading(sch, b, parallel);
    if (vectorize !== undefined && vectorize > 1) for (const b of children) vectorizeInnermost(sch, b, vectorize);
    const step = explicitStep ?? implicitStep ?? 0;
    if (step > 0) {
      const explicit = flag ?? (explicitStep !== undefined ? 1 : 0);
      const done = new Set<unknown>();
      for (const b of children) {
        const outer = sch.getLoops(b)[0];
        if (outer === undefined || done.has(sch.get(outer))) continue;
        sch.annotate(outer, "pragma_auto_unroll_max_step", step);
        sch.annotate(outer, "pragma_unroll_explicit", explicit);
        done.add(sch.get(outer));
      }
    }
    return POSTPROC_OK;
  }

  /** The nests that run in parallel: the sampled structure's (PARALLEL_REGION 1: the largest nest; 0: none), else each that pays by the rule. */
  private parallelNests(sch: Schedule, nests: readonly BlockRV[][], region: number | undefined, ctx: TuneContext): readonly (readonly BlockRV[])[] {
    if (region === 0) return [];
    if (region === 1) {
      const largest = largestNest(sch, nests);
      if (largest !== undefined) return [largest.nest];
    }
    return nests.filter((nest) => {
      const work = nestWork(sch, nest);
      return work === undefined || this.payoff(work, Math.max(1, ctx.numThreads));
    });
  }
}

/** Loop variables used only by spatial iterators of every block below the loop. */
function isSpatialSerial(sch: Schedule, loop: LoopRV): boolean {
  const node = sch.get(loop);
  if (node.forKind !== "serial" || node.extent.kind !== "IntImm") return false;
  let spatial = true;
  forEachStmt(node.body, (s) => {
    if (s.kind !== "BlockRealize") return true;
    s.iterValues.forEach((v, k) => {
      if (s.block.iterVars[k]?.iterType !== "spatial" && usesVar(v, (x) => x === node.loopVar)) spatial = false;
    });
    return true;
  });
  return spatial;
}

function parallelizeLeading(sch: Schedule, block: BlockRV, budget: number): void {
  const loops = sch.getLoops(block);
  const chosen: LoopRV[] = [];
  let extent = 1;
  for (const loop of loops) {
    if (!isSpatialSerial(sch, loop)) break;
    // Only a perfect nest fuses: a loop whose body is more than the next loop (a write cache
    // computed at it, beside the tile's loops) ends the run (TVM stops there as well).
    const previous = chosen.at(-1);
    if (previous !== undefined && sch.get(previous).body !== sch.get(loop)) break;
    const e = (sch.get(loop).extent as { value: number }).value;
    if (chosen.length > 0 && extent * e > budget) break;
    chosen.push(loop);
    extent *= e;
    if (extent >= budget) break;
  }
  if (chosen.length === 0) return;
  sch.parallel(chosen.length === 1 ? chosen[0] : sch.fuse(...chosen));
}

function vectorizeInnermost(sch: Schedule, block: BlockRV, budget: number): void {
  const inner = sch.getLoops(block).at(-1);
  if (inner === undefined || !isSpatialSerial(sch, inner)) return;
  const e = (sch.get(inner).extent as { value: number }).value;
  if (e > 1 && e <= budget) sch.vectorize(inner);
}
