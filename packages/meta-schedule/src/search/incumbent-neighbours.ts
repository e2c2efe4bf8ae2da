/**
 * Local search around the incumbents, beside the evolution. The fastest measured program of each
 * of the leading launch shapes (launch-classes.ts) is mutated once, many times over; the distinct
 * unmeasured results are ranked by the cost model and the best of each incumbent handed out in
 * turn. Where a shape's fast instance needs several knobs right at once (the fetch widths, the
 * staging, the launch bounds), the evolution's picks follow the cost model's idea of the shape,
 * and a model trained on a few dozen measurements is least sure exactly there: measuring the
 * one-step neighbours of each shape's best lets the hardware settle those knobs one at a time.
 */
import { TesseraError } from "@tessera/ir";
import type { Trace } from "@tessera/schedule";
import type { Candidate } from "./candidate-replayer.js";
import { launchClassOf } from "./launch-classes.js";
import type { RejectionTally } from "./rejection-tally.js";
import type { SearchRun } from "./search-run.js";
import { WeightedSampler } from "./weighted-sampler.js";

/**
 * The best candidate of each launch shape among `measuredBestFirst` (the database's records,
 * replayed, fastest first), for the first `classes` shapes. Candidates without a shape are left
 * out: without a structure to tell them apart, the evolution already covers them.
 */
export function incumbentsByClass(measuredBestFirst: readonly Candidate[], classes: number): Candidate[] {
  const seen = new Set<string>();
  const out: Candidate[] = [];
  for (const c of measuredBestFirst) {
    if (out.length >= classes) break;
    const key = launchClassOf(c.sch);
    if (key === undefined || seen.has(key)) continue;
    seen.add(key);
    out.push(c);
  }
  return out;
}

/**
 * Up to `count` unmeasured one-mutation neighbours of the incumbents, taken in turn (each
 * incumbent's best-scored first): `tries` mutations of each are replayed, duplicates and
 * measured programs dropped, and `score` ranks the rest.
 */
export function incumbentNeighbours(
  run: SearchRun,
  incumbents: readonly Candidate[],
  count: number,
  tries: number,
  score: (candidates: readonly Candidate[]) => number[],
  round: RejectionTally,
): Candidate[] {
  const mutators = run.mutators.filter((m) => m.probability > 0);
  if (count <= 0 || incumbents.length === 0 || mutators.length === 0) return [];
  const pickMutator = new WeightedSampler(mutators.map((m) => m.probability));
  const held = new Set<string>();
  const ranked = incumbents.map((incumbent) => {
    const neighbours: Candidate[] = [];
    for (let k = 0; k < tries; k++) {
      const mutator = mutators[pickMutator.sample(run.rng)]!.mutator;
      let mutated: Trace | undefined;
      try {
        mutated = mutator.apply(incumbent.sch.trace, run.rng, run.ctx);
      } catch (err) {
        if (!(err instanceof TesseraError)) throw err;
        round.add(`mutator ${mutator.name} failed`);
        continue;
      }
      if (mutated === undefined) continue;
      const c = run.replayer.replayRecorded(mutated, round);
      if (c === undefined || run.isMeasured(c) || held.has(c.hash)) continue;
      held.add(c.hash);
      neighbours.push(c);
    }
    const scores = score(neighbours);
    return neighbours.map((c, k) => ({ c, s: scores[k]! })).sort((a, b) => b.s - a.s).map((e) => e.c);
  });
  const out: Candidate[] = [];
  for (let depth = 0; out.length < count && ranked.some((r) => r.length > depth); depth++) {
    for (const r of ranked) if (out.length < count && r[depth] !== undefined) out.push(r[depth]!);
  }
  return out;
}
