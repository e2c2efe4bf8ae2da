/**
 * TVM's RewriteCooperativeFetch: annotated copy blocks are split over the threads of the block and
 * vectorized, optionally staged through registers (docs/architecture/meta-schedule-notes.md).
 */
import { type Block, bytesOf, forEachExpr } from "@tessera/ir";
import type { BlockRV, LoopRV, Schedule } from "@tessera/schedule";
import { COOPERATIVE_FETCH, FETCH_THREAD_INNER, FETCH_VIA_REGISTERS, annotationNumber } from "../schedule-utils/annotations.js";
import { fuseAll } from "../rules/multi-level-tiling/tiling.js";
import { gpuTargetOf, type TuneContext } from "../tune-context.js";
import { annotatedBlocks, blockThreadExtents } from "./annotated.js";
import { ownLoops } from "./own-loops.js";
import { POSTPROC_OK, type Postproc, type PostprocResult } from "../interfaces/postproc.js";

export class RewriteCooperativeFetch implements Postproc {
  readonly name = "rewriteCooperativeFetch";

  apply(sch: Schedule, ctx: TuneContext): PostprocResult {
    for (const { rv, node, value } of annotatedBlocks(sch, COOPERATIVE_FETCH)) {
      const viaRegisters = node.annotations[FETCH_VIA_REGISTERS] !== undefined;
      // A conditional copy (padding) reads only part of its source region: no register stage for it.
      const staged = viaRegisters && annotationNumber(node.annotations, FETCH_VIA_REGISTERS) === 1 && !isConditional(node);
      const threadInner = annotationNumber(node.annotations, FETCH_THREAD_INNER) === 1;
      sch.unannotate(rv, COOPERATIVE_FETCH);
      if (viaRegisters) sch.unannotate(rv, FETCH_VIA_REGISTERS);
      if (node.annotations[FETCH_THREAD_INNER] !== undefined) sch.unannotate(rv, FETCH_THREAD_INNER);
      const own = ownLoops(sch, rv);
      if (own.length === 0) continue;
      const extents = own.map((l) => constExtent(sch, l));
      const tile = extents.reduce((a, b) => a * b, 1);
      const threads = blockThreadExtents(sch, rv);
      const tx = threads.get("threadIdx.x") ?? 1;
      const ty = threads.get("threadIdx.y") ?? 1;
      const lanes = usableLanes(sch, rv, value ?? 1, extents.at(-1)!, gpuTargetOf(ctx, "RewriteCooperativeFetch").maxVectorBytes);
      if (staged && tile % (tx * ty) === 0) {
        const parent = sch.getLoops(rv).at(-own.length - 1);
        if (parent !== undefined) {
          const local = sch.cacheRead(rv, 0, "local");
          sch.computeAt(local, parent, true);
          const perThread = tile / (tx * ty);
          // The widest width that divides each thread's share (2 of 4 rather than none).
          let stagedLanes = lanes;
          while (stagedLanes > 1 && perThread % stagedLanes !== 0) stagedLanes = Math.floor(stagedLanes / 2);
          for (const copy of [local, rv]) {
            if (threadInner) splitStagedThreadsInner(sch, copy, tx, ty, stagedLanes);
            else splitThreadsOuter(sch, copy, tx, ty, stagedLanes);
          }
          continue;
        }
      }
      splitThreadsInner(sch, rv, tile, tx, ty, lanes);
    }
    return POSTPROC_OK;
  }
}

/** The copy's value depends on a condition (an if_then_else or select: a padded read). */
function isConditional(block: Block): boolean {
  let conditional = false;
  forEachExpr(block.body, (e) => {
    if ((e.kind === "Call" && e.op.endsWith("if_then_else")) || e.kind === "Select") conditional = true;
  });
  return conditional;
}

function constExtent(sch: Schedule, loop: LoopRV): number {
  const e = sch.get(loop).extent;
  return e.kind === "IntImm" ? e.value : 1;
}

/**
 * The widest width ≤ `requested` (halving) that divides the tile's row, the last dimension of
 * every buffer the copy touches and the widest vector access; 1 for a conditional copy.
 */
function usableLanes(sch: Schedule, rv: BlockRV, requested: number, row: number, maxVectorBytes: number): number {
  const block = sch.get(rv);
  if (isConditional(block)) return 1;
  const buffers = [...block.reads, ...block.writes].map((r) => r.buffer);
  const fits = (lanes: number) =>
    row % lanes === 0 &&
    buffers.every((b) => {
      const last = b.shape.at(-1);
      return last !== undefined && last.kind === "IntImm" && last.value % lanes === 0 && lanes * bytesOf(b.dtype) <= maxVectorBytes;
    });
  let lanes = Math.max(1, Math.floor(requested));
  while (lanes > 1 && !fits(lanes)) lanes = Math.floor(lanes / 2);
  return lanes;
}

/** TVM's split: [outer, threadIdx.y, threadIdx.x, lanes], consecutive threads on consecutive vectors. */
function splitThreadsInner(sch: Schedule, rv: BlockRV, tile: number, tx: number, ty: number, lanes: number): void {
  const fused = fuseAll(sch, ownLoops(sch, rv));
  const threads = tx * ty;
  if (threads === 1) {
    if (lanes > 1) sch.vectorize(sch.split(fused, [null, lanes])[1]);
    return;
  }
  const useLanes = tile % (threads * lanes) === 0 ? lanes : 1;
  const factors: (number | null)[] = [null, ...(ty > 1 ? [ty] : []), tx, ...(useLanes > 1 ? [useLanes] : [])];
  const parts = sch.split(fused, factors);
  if (ty > 1) sch.bind(parts[1], "threadIdx.y");
  sch.bind(parts[ty > 1 ? 2 : 1], "threadIdx.x");
  if (useLanes > 1) sch.vectorize(parts.at(-1));
}

/** The register-staged split: [threadIdx.y, threadIdx.x, per thread, lanes], each thread's elements contiguous. */
function splitThreadsOuter(sch: Schedule, rv: BlockRV, tx: number, ty: number, lanes: number): void {
  const fused = fuseAll(sch, ownLoops(sch, rv));
  const factors: (number | null)[] = [...(ty > 1 ? [ty] : []), tx, null, lanes];
  const parts = sch.split(fused, factors);
  if (ty > 1) sch.bind(parts[0], "threadIdx.y");
  sch.bind(parts[ty > 1 ? 1 : 0], "threadIdx.x");
  if (lanes > 1) sch.vectorize(parts.at(-1));
}

/**
 * The register-staged split threads inner: [rounds, threadIdx.y, threadIdx.x, lanes], a warp's
 * vectors of one round consecutive. The threads × lanes divide the tile (the caller checked that
 * the threads do, and `lanes` divides each thread's share).
 */
function splitStagedThreadsInner(sch: Schedule, rv: BlockRV, tx: number, ty: number, lanes: number): void {
  const fused = fuseAll(sch, ownLoops(sch, rv));
  const factors: (number | null)[] = [null, ...(ty > 1 ? [ty] : []), tx, lanes];
  const parts = sch.split(fused, factors);
  if (ty > 1) sch.bind(parts[1], "threadIdx.y");
  sch.bind(parts[ty > 1 ? 2 : 1], "threadIdx.x");
  if (lanes > 1) sch.vectorize(parts.at(-1));
}
