/**
 * Small pieces the tensor-core design spaces share: the uniform distribution their categorical
 * samples draw from, and the 16×16 tiling of an accumulator's fill and store blocks.
 */
import type { BlockRV, LoopRV, Schedule } from "@tessera/schedule";

/** The side of an accumulator tile that one fill or store intrinsic covers. */
const TILE = 16;

/** Equal probabilities for `n` choices (a `sampleCategorical` of no preference). */
export function uniform(n: number): number[] {
  return Array.from({ length: n }, () => 1 / n);
}

/** Splits a block's two innermost loops into 16×16 tiles; returns the first loop inside a tile. */
export function split16x16Tiles(sch: Schedule, b: BlockRV): LoopRV {
  const [r, c] = sch.getLoops(b).slice(-2);
  const [r0, r1] = sch.split(r!, [null, TILE]);
  const [c0, c1] = sch.split(c!, [null, TILE]);
  sch.reorder(r0!, c0!, r1!, c1!);
  return r1!;
}
