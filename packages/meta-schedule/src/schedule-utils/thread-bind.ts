/**
 * Binding a block's outer loops to `blockIdx.x` / `threadIdx.x` (TVM's `BindBlockThreadIdx` in
 * `schedule/cuda/thread_bind.cc`), shared by the AutoBind rule (sampled thread factor) and the
 * RewriteUnboundBlock postprocessor (fixed factor).
 */
import type { BlockRV, ExprRV, Schedule } from "@tessera/schedule";
import { constExtent, hasBeenMultiLevelTiled, isBlockIdx, isRootBlock, isSingleStmt, isThreadIdx, loopIterType } from "./block-info.js";

/** Chooses the thread factor for a fused loop whose extent (capped by the thread limit) is `maxExtent`. */
export type ThreadFactorChooser = (sch: Schedule, maxExtent: number) => number | ExprRV;

export type BindOutcome =
  | { readonly kind: "bound" }
  /** Nothing to do: the root, a tiled block, or a block already under blockIdx and threadIdx. */
  | { readonly kind: "skipped" }
  /** The block cannot be bound; `reason` says why. */
  | { readonly kind: "unbindable"; readonly reason: string };

export interface ThreadBindLimits {
  readonly maxThreadblocks: number;
  readonly maxThreadsPerBlock: number;
}

export function bindBlockThreadIdx(sch: Schedule, block: BlockRV, limits: ThreadBindLimits, chooseFactor: ThreadFactorChooser): BindOutcome {
  if (isRootBlock(sch, block) || hasBeenMultiLevelTiled(sch.get(block))) return { kind: "skipped" };
  const name = sch.get(block).name;
  const loops = sch.getLoops(block);
  const nodes = loops.map((l) => sch.get(l));
  const n = nodes.length;
  let blockIdxAt = -1;
  let threadIdxAt = -1;
  let multiChildAt = -1;
  let leadingSpatial = 0;
  nodes.forEach((loop, i) => {
    if (isBlockIdx(loop) && blockIdxAt < 0) blockIdxAt = i;
    if (isThreadIdx(loop) && threadIdxAt < 0) threadIdxAt = i;
    if (loop.forKind !== "serial" && multiChildAt < 0) multiChildAt = i;
    if (!isSingleStmt(loop.body) && multiChildAt < 0) multiChildAt = i + 1;
    if (leadingSpatial === i && loopIterType(loop) === "spatial") leadingSpatial++;
  });
  if (multiChildAt < 0) multiChildAt = n;
  if (blockIdxAt >= 0 && threadIdxAt >= 0) return { kind: "skipped" };
  if (blockIdxAt >= 0) return { kind: "unbindable", reason: `block ${name} is under blockIdx but not threadIdx` };
  // TVM adds a unit loop here; our schedule has no addUnitLoop primitive.
  if (leadingSpatial === 0) return { kind: "unbindable", reason: `block ${name} has no outer data-parallel loop to bind` };
  const fusible = Math.min(multiChildAt, leadingSpatial, threadIdxAt >= 0 ? threadIdxAt : n);
  if (fusible === 0) return { kind: "unbindable", reason: `block ${name} has no serial data-parallel loop above its thread binding` };
  const fused = fusible > 1 ? sch.fuse(...loops.slice(0, fusible)) : loops[0]!;
  if (threadIdxAt >= 0) {
    sch.bind(fused, "blockIdx.x");
    return { kind: "bound" };
  }
  const extent = constExtent(sch.get(fused)) ?? Number.MAX_SAFE_INTEGER;
  const { maxThreadblocks, maxThreadsPerBlock } = limits;
  if (extent <= maxThreadblocks * maxThreadsPerBlock) {
    const factor = chooseFactor(sch, Math.min(extent, maxThreadsPerBlock));
    const [outer, inner] = sch.split(fused, [null, factor]);
    sch.bind(outer, "blockIdx.x");
    sch.bind(inner, "threadIdx.x");
  } else {
    const [rest, blocks, threads] = sch.split(fused, [null, maxThreadblocks, maxThreadsPerBlock]);
    sch.reorder(blocks, threads, rest);
    sch.bind(blocks, "blockIdx.x");
    sch.bind(threads, "threadIdx.x");
  }
  return { kind: "bound" };
}

/** TVM's `MakeFactorSampler`: uniform over the candidate extents that fit, a constant when one or none fits. */
export function sampledThreadFactor(candidates: readonly number[]): ThreadFactorChooser {
  return (sch, maxExtent) => {
    const fitting = candidates.filter((c) => c <= maxExtent);
    if (fitting.length === 0) return maxExtent;
    if (fitting.length === 1) return fitting[0]!;
    return sch.sampleCategorical(
      fitting,
      fitting.map(() => 1 / fitting.length),
    );
  };
}

/** RewriteUnboundBlock's factor: as many threads as the loop has iterations, up to the limit. */
export const fixedThreadFactor: ThreadFactorChooser = (_sch, maxExtent) => maxExtent;
