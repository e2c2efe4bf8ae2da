/**
 * Access-pattern questions that decide which optional knobs apply to an operand of a tiled block,
 * from its indices alone (never from buffer names).
 */
import type { Block, Buffer, Var } from "@tessera/ir";
import { loadIndicesOf } from "./block-query.js";

/**
 * The dimension of `buffer` that a transposed shared tile would move last, or undefined when the
 * layout is already right. It applies when the operand's last dimension is indexed by a reduction
 * iterator alone while the innermost spatial iterator it uses indexes another dimension alone:
 * a thread's slice along that spatial axis is then strided in the natural layout, contiguous in
 * the transposed one (A[i, k] of a GEMM; not B[k, j], whose slice is along its last dimension).
 */
export function transposeAxisFor(block: Block, buffer: Buffer): number | undefined {
  const indices = loadIndicesOf(block, buffer);
  if (indices === undefined || indices.length < 2) return undefined;
  const iterOf = (v: Var) => block.iterVars.find((iv) => iv.var === v);
  const last = indices.at(-1)!;
  if (last.kind !== "Var" || iterOf(last)?.iterType !== "reduce") return undefined;
  const spatial = block.iterVars.filter((iv) => iv.iterType === "spatial");
  for (let s = spatial.length - 1; s >= 0; s--) {
    const dim = indices.findIndex((e) => e === spatial[s]!.var);
    if (dim >= 0) return dim === indices.length - 1 ? undefined : dim;
  }
  return undefined;
}

/** The permutation that moves dimension `axis` of an `ndim`-dimensional index last. */
export function moveAxisLast(axis: number, ndim: number): number[] {
  const rest = Array.from({ length: ndim }, (_, d) => d).filter((d) => d !== axis);
  return [...rest, axis];
}

/**
 * The spatial iterators of `block` that index every operand directly (the batch axis of a batched
 * matmul): no operand is reused across them, so tiling them below the grid only shrinks the tiles
 * of the axes that are. Empty when every spatial iterator would be one (nothing is reused at all).
 */
export function batchAxesOf(block: Block, operands: readonly Buffer[]): Set<Var> {
  const spatial = block.iterVars.filter((iv) => iv.iterType === "spatial").map((iv) => iv.var);
  const indexing = operands.map((buffer) => loadIndicesOf(block, buffer));
  if (operands.length === 0 || indexing.some((ix) => ix === undefined)) return new Set();
  const batch = spatial.filter((v) => indexing.every((ix) => ix!.includes(v)));
  return batch.length < spatial.length ? new Set(batch) : new Set();
}
