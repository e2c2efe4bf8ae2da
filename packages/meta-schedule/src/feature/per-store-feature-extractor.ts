/**
 * TVM's `PerStoreFeature` extractor: the per-store feature rows of each candidate's scheduled
 * function (`sch.func`, not a lowered module: see store-sites.ts).
 */
import type { MeasureCandidate } from "../interfaces/candidate.js";
import type { TuneContext } from "../tune-context.js";
import type { FeatureExtractor, FeatureMatrix } from "../interfaces/feature-extractor.js";
import { PER_STORE_FEATURE_LENGTH } from "./feature-names.js";
import { perStoreFeatures } from "./per-store-feature.js";

export class PerStoreFeature implements FeatureExtractor {
  readonly name = "per-store-feature";
  readonly featureLength = PER_STORE_FEATURE_LENGTH;

  extractFrom(_ctx: TuneContext, candidates: readonly MeasureCandidate[]): FeatureMatrix[] {
    return candidates.map((c) => perStoreFeatures(c.sch.func));
  }
}

export function perStoreFeatureExtractor(): PerStoreFeature {
  return new PerStoreFeature();
}
