/**
 * Buffer regions for blocks: a slice-like helper for writing `T.reads`/`T.writes` by hand, and
 * the completion step that fills whichever of the two lists the author left out.
 */
import { inferAccessRegions } from "../analysis/index.js";
import type { Buffer } from "../buffer.js";
import { IRError } from "../errors.js";
import { type ExprLike, sub, toIndex } from "../expr.js";
import { type Block, type BufferRegion, type Range, bufferRegion, range } from "../stmt.js";

/**
 * One dimension of a region: a single index (`A[vi]`, extent 1) or a half-open
 * `[begin, end)` pair (`A[vi, 0:128]`).
 */
export type RegionDim = ExprLike | readonly [ExprLike, ExprLike];

/** `regionOf(A, [vi, [0, 128]])` is TVMScript's `A[vi, 0:128]`. */
export function regionOf(buffer: Buffer, dims: readonly RegionDim[]): BufferRegion {
  if (dims.length !== buffer.shape.length) {
    throw new IRError(`region of ${buffer.name}: ${dims.length} dimensions given for a ${buffer.shape.length}-dimensional buffer`);
  }
  return bufferRegion(
    buffer,
    dims.map((d) => regionDim(d, buffer.name)),
  );
}

function regionDim(d: RegionDim, bufferName: string): Range {
  const where = `region of ${bufferName}`;
  if (Array.isArray(d)) {
    const [begin, end] = d as readonly [ExprLike, ExprLike];
    const b = toIndex(begin, where);
    if (typeof begin === "number" && typeof end === "number") return range(b, end - begin);
    return range(b, sub(toIndex(end, where), b));
  }
  return range(toIndex(d as ExprLike, where), 1);
}

/** What the author declared; `undefined` means "infer it". */
export interface DeclaredAccess {
  readonly reads?: readonly BufferRegion[] | undefined;
  readonly writes?: readonly BufferRegion[] | undefined;
}

/** Fills the reads/writes the author did not declare, as TVM's parser does (`ScriptComplete`). */
export function completeAccessRegions(blk: Block, declared: DeclaredAccess): Block {
  if (declared.reads !== undefined && declared.writes !== undefined) {
    return { ...blk, reads: declared.reads, writes: declared.writes };
  }
  const inferred = inferAccessRegions(blk);
  return {
    ...blk,
    reads: declared.reads ?? inferred.reads,
    writes: declared.writes ?? inferred.writes,
  };
}
