/**
 * The `capacity` best-scored candidates seen so far, one per program, none of the excluded
 * (already measured) ones (TVM's `SizedHeap` in the evolutionary search).
 */
import type { Candidate } from "./candidate-replayer.js";

export class BestCandidates {
  private readonly items: Array<{ readonly candidate: Candidate; readonly score: number }> = [];
  private readonly held = new Set<string>();

  constructor(
    private readonly capacity: number,
    private readonly excluded: (c: Candidate) => boolean,
  ) {}

  offer(candidate: Candidate, score: number): void {
    if (this.capacity <= 0 || this.excluded(candidate) || this.held.has(candidate.hash)) return;
    if (this.items.length < this.capacity) {
      this.items.push({ candidate, score });
      this.held.add(candidate.hash);
      return;
    }
    let worst = 0;
    for (let k = 1; k < this.items.length; k++) if (this.items[k]!.score < this.items[worst]!.score) worst = k;
    if (score <= this.items[worst]!.score) return;
    this.held.delete(this.items[worst]!.candidate.hash);
    this.items[worst] = { candidate, score };
    this.held.add(candidate.hash);
  }

  get size(): number {
    return this.items.length;
  }

  bestFirst(): Candidate[] {
    return this.scoredBestFirst().map((e) => e.candidate);
  }

  /** The held candidates with their scores, best first. */
  scoredBestFirst(): { readonly candidate: Candidate; readonly score: number }[] {
    return [...this.items].sort((a, b) => b.score - a.score);
  }
}

/**
 * Two best-first lists of scored candidates as one, best first, one entry per program (its first
 * occurrence), `capacity` at most; among equal scores `a`'s come before `b`'s.
 */
export function mergeBestFirst<T extends { readonly candidate: Candidate; readonly score: number }>(a: readonly T[], b: readonly T[], capacity: number): T[] {
  const seen = new Set<string>();
  const all = [...a, ...b].filter((e) => {
    if (seen.has(e.candidate.hash)) return false;
    seen.add(e.candidate.hash);
    return true;
  });
  // Array.prototype.sort is stable: equal scores keep a's entries ahead of b's.
  return all.sort((x, y) => y.score - x.score).slice(0, Math.max(0, capacity));
}
