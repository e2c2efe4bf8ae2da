/**
 * Beyond TVM: re-draws whether the largest loop nest runs in a parallel region (the SampleCategorical
 * feeding a `meta_schedule.parallel_region` annotation, which ParallelizeVectorizeUnroll samples near
 * the parallel-payoff threshold).
 */
import type { Trace } from "@tessera/schedule";
import { PARALLEL_REGION } from "../schedule-utils/annotations.js";
import type { Mutator } from "../interfaces/mutator.js";
import { categoricalsFeeding } from "./sampled-annotations.js";
import { type CategoricalCandidate, categoricalCandidate, categoricalResampler } from "./trace-queries.js";

const KEYS: ReadonlySet<string> = new Set([PARALLEL_REGION]);

export function mutateParallelRegion(): Mutator {
  return categoricalResampler("mutateParallelRegion", regionCandidates);
}

function regionCandidates(trace: Trace): CategoricalCandidate[] {
  return categoricalsFeeding(trace, KEYS).flatMap((inst) => categoricalCandidate(trace, inst) ?? []);
}
