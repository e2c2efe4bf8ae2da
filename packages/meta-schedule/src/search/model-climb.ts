/**
 * Hill climbing on the cost model (beyond TVM): from the model's favourite programs of a round,
 * each in its own launch class, steps to the best-scored one-decision neighbour (neighbourhood.ts)
 * while that scores higher. The genetic generations find the region the model likes; on the
 * 2048³ gemm they stopped short of its optimum (the best of 64 picks scored 2.99–3.09 where the
 * winners of longer runs score 3.12–3.13, and measured 1.18–1.20× cuBLAS against 1.04–1.06×),
 * and a few greedy steps of single decisions reach it.
 */
import type { Candidate } from "./candidate-replayer.js";

export interface Scored {
  readonly candidate: Candidate;
  readonly score: number;
}

/**
 * The starting points: the best-scored candidates, at most one per launch class (candidates of no
 * known class count as classes of their own), `count` in all.
 */
export function climbStarts(bestFirst: readonly Scored[], count: number): Scored[] {
  const out: Scored[] = [];
  const classes = new Set<string>();
  for (const item of bestFirst) {
    if (out.length >= count) break;
    const cls = item.candidate.launchClass;
    if (cls !== undefined) {
      if (classes.has(cls)) continue;
      classes.add(cls);
    }
    out.push(item);
  }
  return out;
}

/**
 * One step of every climb: `neighbours[k]` are point k's scored neighbours; the next point is the
 * best of them when it scores above the point (the first of equals), none when none does.
 */
export function climbStep(points: readonly Scored[], neighbours: readonly (readonly Scored[])[]): (Scored | undefined)[] {
  return points.map((point, k) => {
    let best: Scored | undefined;
    for (const n of neighbours[k] ?? []) if (n.score > point.score && (best === undefined || n.score > best.score)) best = n;
    return best;
  });
}
