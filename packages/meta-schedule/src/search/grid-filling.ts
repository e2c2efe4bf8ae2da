/**
 * Grid-filling variants of the prior seeds. The built-in priors are the 2048³ winners moved onto a
 * task (database/prior-seeds.ts): they keep their block tiles, so on a smaller problem their grid
 * can leave most SMs idle (1024³: 64 blocks of 128×128 on 132 SMs, where the fastest programs
 * measured are 128 blocks of 64×128). For such a seed the search also measures first its
 * one-decision neighbour with more blocks that the cost model likes best: the tile choice adapts
 * to the SM count, and the search still starts from the winners' structure.
 */
import type { Candidate } from "./candidate-replayer.js";
import { gridBlocksOf } from "./launch-classes.js";

/** Whether a candidate's kernels launch fewer blocks than the GPU has SMs (false when unknown). */
export function underfillsGrid(candidate: Pick<Candidate, "launchClass">, sms: number): boolean {
  const blocks = gridBlocksOf(candidate);
  return blocks !== undefined && blocks < sms;
}

/**
 * Of a seed's neighbours, those that launch more blocks than the seed, scored by `score`; the
 * best one, or undefined when none has more blocks. Ties keep the neighbours' order.
 */
export function bestGridFiller<C extends Pick<Candidate, "launchClass">>(
  seed: Pick<Candidate, "launchClass">,
  neighbours: readonly C[],
  score: (pool: readonly C[]) => readonly number[],
): C | undefined {
  const blocks = gridBlocksOf(seed);
  if (blocks === undefined) return undefined;
  const pool = neighbours.filter((n) => (gridBlocksOf(n) ?? 0) > blocks);
  if (pool.length === 0) return undefined;
  const scores = score(pool);
  let best = 0;
  for (let k = 1; k < pool.length; k++) if (scores[k]! > scores[best]!) best = k;
  return pool[best];
}
