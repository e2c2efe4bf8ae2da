/**
 * Small pieces the tensor-core design spaces share: the uniform distribution their categorical
 * samples draw from, and the tiling of a block's two innermost loops into the tiles one intrinsic
 * covers (a fragment load, an accumulator's fill, add or store).
 */
import type { BlockRV, LoopRV, Schedule } from "@tessera/schedule";

/** Equal probabilities for `n` choices (a `sampleCategorical` of no preference). */
export function uniform(n: number): number[] {
  return Array.from({ length: n }, () => 1 / n);
}

/** Splits a block's two innermost loops into rows×cols tiles; returns the outer loop of one tile (the first loop inside it). */
export function tileLoop(sch: Schedule, b: BlockRV, rows: number, cols: number): LoopRV {
  const [r, c] = sch.getLoops(b).slice(-2);
  const [r0, r1] = sch.split(r!, [null, rows]);
  const [c0, c1] = sch.split(c!, [null, cols]);
  sch.reorder(r0!, c0!, r1!, c1!);
  return r1!;
}
