/**
 * Beyond TVM: re-draws which read-only parameters RewriteLayout packs (the SampleCategorical feeding
 * a `meta_schedule.layout_rewrite_params` annotation, MultiLevelTilingCpu's knob), choosing another
 * subset in proportion to the probabilities.
 */
import type { Trace } from "@tessera/schedule";
import { LAYOUT_REWRITE } from "../schedule-utils/annotations.js";
import type { Mutator } from "../interfaces/mutator.js";
import { categoricalsFeeding } from "./sampled-annotations.js";
import { type CategoricalCandidate, categoricalCandidate, categoricalResampler } from "./trace-queries.js";

const KEYS: ReadonlySet<string> = new Set([LAYOUT_REWRITE]);

export function mutateLayoutRewrite(): Mutator {
  return categoricalResampler("mutateLayoutRewrite", layoutCandidates);
}

function layoutCandidates(trace: Trace): CategoricalCandidate[] {
  return categoricalsFeeding(trace, KEYS).flatMap((inst) => categoricalCandidate(trace, inst) ?? []);
}
