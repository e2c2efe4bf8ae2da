/**
 * When a timing is too noisy to trust as it stands: its standard deviation exceeds
 * `NOISY_STD_SHARE` of the mean, or its fastest run is more than `NOISY_MIN_GAP` below the median
 * (one lucky run, or most runs slowed by something else on the GPU). The reports flag it and the
 * tuned-time feedback says so; the score is still computed from the mean.
 */
import type { TimingOutcome } from "./numerics-types.js";

/** Standard deviation above this share of the mean: noisy. */
export const NOISY_STD_SHARE = 0.02;
/** Min more than this share below the median: noisy. */
export const NOISY_MIN_GAP = 0.05;

/** Why the measurement is noisy, or undefined: "std 3.1% of the mean (over 2.0%)", "min 7.5% below the median (over 5.0%)". */
export function timingNoise(t: Pick<TimingOutcome, "meanMs" | "medianMs" | "minMs" | "stdMs">): string | undefined {
  const reasons: string[] = [];
  const stdShare = t.stdMs / t.meanMs;
  if (!(stdShare <= NOISY_STD_SHARE)) reasons.push(`std ${percent(stdShare)} of the mean (over ${percent(NOISY_STD_SHARE)})`);
  const gap = (t.medianMs - t.minMs) / t.medianMs;
  if (!(gap <= NOISY_MIN_GAP)) reasons.push(`min ${percent(gap)} below the median (over ${percent(NOISY_MIN_GAP)})`);
  return reasons.length === 0 ? undefined : reasons.join(", ");
}

/** A share as a percentage with two significant digits ("0.0053%", "3.1%", "25%"). */
export function percent(share: number): string {
  if (!Number.isFinite(share)) return "?%";
  const p = share * 100;
  return `${p >= 10 ? p.toFixed(0) : p === 0 ? "0" : p.toPrecision(2)}%`;
}
