/**
 * Finding the blocks and loops that carry an annotation in a schedule's current function, as
 * handles the postprocessors can schedule with.
 */
import { type Block, type For, type Stmt, forEachStmt } from "@tessera/ir";
import type { BlockRV, LoopRV, Schedule } from "@tessera/schedule";
import { WARP_EXECUTION, annotationNumber } from "../schedule-utils/annotations.js";

const WARP_SIZE = 32;

export interface AnnotatedBlock {
  readonly rv: BlockRV;
  readonly node: Block;
  readonly value: number | undefined;
}

export interface AnnotatedLoop {
  readonly rv: LoopRV;
  readonly node: For;
  readonly value: number | undefined;
}

/** The blocks whose annotations hold `key`, in program order. */
export function annotatedBlocks(sch: Schedule, key: string): AnnotatedBlock[] {
  const out: AnnotatedBlock[] = [];
  forEachStmt(sch.func.body, (s) => {
    if (s.kind === "BlockRealize" && s.block.annotations[key] !== undefined) {
      out.push({ rv: sch.getBlock(s.block.name), node: s.block, value: annotationNumber(s.block.annotations, key) });
    }
  });
  return out;
}

/** The loops whose annotations hold `key`, in program order (each reached through a block below it). */
export function annotatedLoops(sch: Schedule, key: string): AnnotatedLoop[] {
  const out: AnnotatedLoop[] = [];
  forEachStmt(sch.func.body, (s) => {
    if (s.kind !== "For" || s.annotations[key] === undefined) return;
    const below = firstBlockUnder(s);
    if (below === undefined) return;
    const rv = sch.getLoops(sch.getBlock(below.name)).find((l) => sch.get(l) === s);
    if (rv !== undefined) out.push({ rv, node: s, value: annotationNumber(s.annotations, key) });
  });
  return out;
}

/** The first block inside a statement. */
export function firstBlockUnder(s: Stmt): Block | undefined {
  let found: Block | undefined;
  forEachStmt(s, (n) => {
    if (found !== undefined) return false;
    if (n.kind === "BlockRealize") {
      found = n.block;
      return false;
    }
    return true;
  });
  return found;
}

/** The extents of the loops above `block` bound to `threadIdx.x`/`.y`/`.z`, by tag (innermost wins). */
export function threadExtentsAbove(sch: Schedule, block: BlockRV): Map<string, number> {
  const out = new Map<string, number>();
  for (const loop of sch.getLoops(block)) {
    const node = sch.get(loop);
    if (node.forKind === "thread_binding" && node.threadTag?.startsWith("threadIdx") === true && node.extent.kind === "IntImm") {
      out.set(node.threadTag, node.extent.value);
    }
  }
  return out;
}

/**
 * The thread extents a block runs under: those of the loops above it, and for a block annotated
 * `warp_execution` (whose lanes are bound inside its tensor intrinsics) threadIdx.x = 32.
 */
export function blockThreadExtents(sch: Schedule, block: BlockRV): Map<string, number> {
  const out = threadExtentsAbove(sch, block);
  if (sch.get(block).annotations[WARP_EXECUTION] !== undefined && !out.has("threadIdx.x")) out.set("threadIdx.x", WARP_SIZE);
  return out;
}

/** The threads per block of the kernels inside a statement (the largest product of threadIdx extents). */
export function threadsInside(root: Stmt): number {
  let best = 1;
  const visit = (s: Stmt, tags: Map<string, number>): void => {
    forEachStmt(s, (n) => {
      if (n.kind === "For" && n.forKind === "thread_binding" && n.threadTag?.startsWith("threadIdx") === true) {
        const inner = new Map(tags);
        inner.set(n.threadTag, n.extent.kind === "IntImm" ? n.extent.value : 1);
        best = Math.max(
          best,
          [...inner.values()].reduce((a, b) => a * b, 1),
        );
        visit(n.body, inner);
        return false;
      }
      return true;
    });
  };
  visit(root, new Map());
  return best;
}

/** The first block inside a statement that satisfies `pred`. */
export function firstBlockWith(s: Stmt, pred: (b: Block) => boolean): Block | undefined {
  let found: Block | undefined;
  forEachStmt(s, (n) => {
    if (found !== undefined) return false;
    if (n.kind === "BlockRealize" && pred(n.block)) found = n.block;
    return true;
  });
  return found;
}
