/**
 * `tuning-history.json`, which tuneTIR writes into the work dir: the run's name and, per trial,
 * its task, latency and the run's best so far. Read back as a curve series, several runs (seeds,
 * strategies) can be drawn on one chart with writeTuningCurve.
 */
import { readFile } from "node:fs/promises";
import { z } from "zod";
import { MetaScheduleError } from "../errors.js";
import type { CurveSeries } from "./tuning-curve.js";

export const TuningHistorySchema = z.object({
  run: z.string(),
  trials: z.array(
    z.object({
      task: z.string(),
      trial: z.number().int().positive(),
      /** Seconds; null for a failed trial. */
      latencySecs: z.number().positive().nullable(),
      /** The run's best so far in seconds; null while no trial succeeded. */
      bestSecs: z.number().positive().nullable(),
      error: z.string().optional(),
    }),
  ),
});

export type TuningHistory = z.infer<typeof TuningHistorySchema>;

/** The best-so-far curve of a history (trials before the first success have no point). */
export function historySeries(history: TuningHistory, name: string = history.run): CurveSeries {
  const points = history.trials.flatMap((t) => (t.bestSecs === null ? [] : [{ trials: t.trial, bestLatencyUs: t.bestSecs * 1e6 }]));
  return { name, points };
}

/** Reads a `tuning-history.json`; a file that is not one is a MetaScheduleError naming it. */
export async function readTuningHistory(file: string): Promise<TuningHistory> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, "utf8"));
  } catch (err) {
    throw new MetaScheduleError(`${file}: cannot read the tuning history: ${err instanceof Error ? err.message : String(err)}`);
  }
  const parsed = TuningHistorySchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new MetaScheduleError(`${file}: not a tuning history: ${issue.path.join(".") || "(root)"}: ${issue.message}`);
  }
  return parsed.data;
}
