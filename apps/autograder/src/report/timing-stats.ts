/**
 * How a timing reads in the reports: mean, median and min per run, and the spread, which at a few
 * milliseconds is microseconds and used to round away to "± 0.000". The standard deviation is
 * shown in µs (ms from 1 ms on) and as a share of the mean; a noisy measurement (see
 * grade/timing-noise.ts) says why.
 */
import type { TimingOutcome } from "../grade/numerics-types.js";
import { percent, timingNoise } from "../grade/timing-noise.js";

type Stats = Pick<TimingOutcome, "meanMs" | "medianMs" | "minMs" | "stdMs">;

/** "4.934 ms mean, 4.933 median, 4.930 min; std 0.26 µs (0.0053% of the mean)". */
export function formatTimingStats(t: Stats): string {
  return `${ms(t.meanMs)} ms mean, ${ms(t.medianMs)} median, ${ms(t.minMs)} min; std ${spread(t.stdMs)} (${percent(t.stdMs / t.meanMs)} of the mean)`;
}

/** "0.26 µs (0.0053%)": the standard deviation and its share of the mean, for a table cell. */
export function formatStd(t: Pick<Stats, "meanMs" | "stdMs">): string {
  return `${spread(t.stdMs)} (${percent(t.stdMs / t.meanMs)})`;
}

/** The stats, with " — NOISY: …" when they are. */
export function formatTimingWithNoise(t: Stats): string {
  const noise = timingNoise(t);
  return noise === undefined ? formatTimingStats(t) : `${formatTimingStats(t)} — NOISY: ${noise}`;
}

function ms(x: number): string {
  return x.toFixed(3);
}

/** A spread in µs below 1 ms (two significant digits at least), else in ms. */
function spread(stdMs: number): string {
  if (stdMs >= 1) return `${stdMs.toFixed(3)} ms`;
  const us = stdMs * 1000;
  return `${us >= 100 ? us.toFixed(0) : us.toPrecision(2)} µs`;
}
