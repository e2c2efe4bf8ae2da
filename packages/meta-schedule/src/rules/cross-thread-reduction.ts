/**
 * TVM's CrossThreadReduction rule: a variant of a reduction block that the threads of a block reduce
 * together (not in the default space: codegen has no cross-thread all-reduce; docs/architecture/meta-schedule-notes.md).
 */
import type { BlockRV, ExprRV, LoopRV, Schedule } from "@tessera/schedule";
import {
  hasBeenMultiLevelTiled,
  isReductionBlock,
  isThreadIdx,
  isTrivialBinding,
  loopIterType,
  loopNodesAbove,
  needsMultiLevelTiling,
} from "../schedule-utils/block-info.js";
import { gpuTargetOf, type TuneContext } from "../tune-context.js";
import { checkPositiveInts } from "../schedule-utils/options.js";
import type { ScheduleRule } from "../interfaces/schedule-rule.js";

export const CROSS_THREAD_REDUCTION_EXTENTS: readonly number[] = [4, 8, 16, 32, 64, 128, 256, 512];

export interface CrossThreadReductionOptions {
  readonly threadExtents?: readonly number[];
}

export function crossThreadReduction(opts: CrossThreadReductionOptions = {}): ScheduleRule {
  const threadExtents = opts.threadExtents ?? CROSS_THREAD_REDUCTION_EXTENTS;
  checkPositiveInts("crossThreadReduction", "threadExtents", threadExtents);
  return {
    name: "crossThreadReduction",
    apply(sch: Schedule, block: BlockRV, ctx: TuneContext): Schedule[] {
      const { maxThreadsPerBlock, warpSize } = gpuTargetOf(ctx, "CrossThreadReduction");
      const candidates = threadExtents.filter((t) => t <= maxThreadsPerBlock);
      if (candidates.length === 0 || !needsCrossThreadReduction(sch, block, maxThreadsPerBlock, warpSize)) return [sch];
      const variant = sch.copy();
      variant.seed(sch.forkSeed());
      const fusion = computeTarget(variant, block);
      // A consumer already on threads fixes the extent; otherwise it is sampled.
      const bound = fusion === undefined ? undefined : variant.getLoops(fusion.consumer).find((l) => isThreadIdx(variant.get(l)));
      const boundExtent = bound === undefined ? undefined : variant.get(bound).extent;
      const threadExtent: number | ExprRV =
        boundExtent?.kind === "IntImm"
          ? boundExtent.value
          : variant.sampleCategorical(
              candidates,
              candidates.map(() => 1 / candidates.length),
            );
      if (fusion !== undefined) {
        let target = fusion.loop;
        if (bound === undefined) {
          const [outer, inner] = variant.split(fusion.innermost, [null, threadExtent]);
          variant.bind(inner, "threadIdx.x");
          if (fusion.innermost.uid === target.uid) target = outer;
        }
        variant.computeAt(block, target, true);
        variant.setScope(block, 0, "shared");
      }
      const { fused } = reorderAndFuseReductionLoops(variant, block);
      const [, inner] = variant.split(fused, [null, threadExtent]);
      variant.bind(inner, "threadIdx.x");
      return [variant, sch];
    },
  };
}

/**
 * TVM's `NeedsRFactorOrCrossThreadReduction`: a reduction block with trivial bindings, not tiled,
 * under a perfect nest of spatial and reduce loops with at least one reduce loop; when it would be
 * multi-level tiled, only if its spatial extent is below its reduction extent and the thread limit;
 * otherwise when its reduction extent exceeds a warp.
 */
export function needsCrossThreadReduction(sch: Schedule, blockRV: BlockRV, maxParallelExtent: number, maxParallelBasic: number): boolean {
  const block = sch.get(blockRV);
  if (block.writes.length === 0 || !isReductionBlock(block) || hasBeenMultiLevelTiled(block) || !isTrivialBinding(sch, blockRV)) return false;
  const loops = loopNodesAbove(sch, blockRV);
  let spatial = 1;
  let reduce = 1;
  let hasReduce = false;
  for (let i = 0; i < loops.length; i++) {
    const loop = loops[i]!;
    if (loop.forKind !== "serial") return false;
    const type = loopIterType(loop);
    if (type === "opaque") return false;
    const next = i + 1 < loops.length ? loops[i + 1] : undefined;
    const body = loop.body;
    if (next !== undefined ? body !== next : !(body.kind === "BlockRealize" && body.block === block)) return false;
    if (loop.extent.kind !== "IntImm") return false;
    if (type === "reduce") {
      hasReduce = true;
      reduce *= loop.extent.value;
    } else spatial *= loop.extent.value;
  }
  if (!hasReduce) return false;
  if (needsMultiLevelTiling(sch, blockRV)) return !(spatial >= reduce || spatial > maxParallelExtent);
  return reduce > 1 && reduce > maxParallelBasic;
}

interface ComputeTarget {
  /** The consumer's loop the block is computed at. */
  readonly loop: LoopRV;
  readonly consumer: BlockRV;
  /** The consumer's innermost loop. */
  readonly innermost: LoopRV;
}

/**
 * TVM's `GetComputeTargetLoopAndBlock`: the block is fusible when it writes one buffer, its first
 * consumer does not need multi-level tiling, several consumers share a loop, and the block's
 * leading data-parallel loops meet the consumer's (at most down to the consumers' common loop).
 */
function computeTarget(sch: Schedule, blockRV: BlockRV): ComputeTarget | undefined {
  if (sch.get(blockRV).writes.length !== 1) return undefined;
  const consumers = sch.getConsumers(blockRV);
  const first = consumers[0];
  if (first === undefined || needsMultiLevelTiling(sch, first)) return undefined;
  const consumerLoops = sch.getLoops(first);
  // The lowest common loop of the consumers (undefined: their common ancestor is a block).
  let lca: number | undefined;
  if (consumers.length > 1) {
    const chains = consumers.map((c) => loopNodesAbove(sch, c));
    let depth = 0;
    while (chains.every((c) => c[depth] !== undefined && c[depth] === chains[0]![depth])) depth++;
    if (depth === 0) return undefined;
    lca = depth - 1;
  }
  const blockLoops = loopNodesAbove(sch, blockRV);
  const n = Math.min(blockLoops.length, consumerLoops.length);
  let position = n - 1;
  for (let i = 0; i < n; i++) {
    if (loopIterType(blockLoops[i]!) !== "spatial") {
      position = i - 1;
      break;
    }
    if (lca === i) {
      position = i;
      break;
    }
  }
  if (position < 0) return undefined;
  return { loop: consumerLoops[position]!, consumer: first, innermost: consumerLoops.at(-1)! };
}

/**
 * TVM's `ReorderAndFuseReductionLoops`: puts the block's reduce loops innermost (spatial loops keep
 * their order) and fuses them; returns the fused loop and how many spatial loops precede it.
 */
export function reorderAndFuseReductionLoops(sch: Schedule, blockRV: BlockRV): { fused: LoopRV; spatialLoops: number } {
  const loops = sch.getLoops(blockRV);
  const types = loops.map((l) => loopIterType(sch.get(l)));
  const spatial = loops.filter((_, k) => types[k] === "spatial");
  const reduce = loops.filter((_, k) => types[k] === "reduce");
  const order = [...spatial, ...reduce];
  // Reordering a chain already in order is a no-op; skipping it keeps loops with several children legal.
  const firstMoved = order.findIndex((l, k) => l.uid !== loops[k]?.uid);
  if (firstMoved >= 0) sch.reorder(...order.slice(firstMoved));
  return { fused: reduce.length > 1 ? sch.fuse(...reduce) : reduce[0]!, spatialLoops: spatial.length };
}
