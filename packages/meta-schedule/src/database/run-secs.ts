/**
 * Which measurements a database keeps: run_secs of a candidate that ran is a non-empty list of
 * finite, positive seconds (a kernel takes time), TVM's failure time (1e10 s) marking a failed
 * run; a failed candidate may also have none. Anything else (an empty list, 0, a negative, NaN, Infinity) is impossible: it came
 * from a broken runner or a forged record, and would be picked as the best.
 */
import type { RunnerResult } from "../interfaces/runner.js";

/** Why `runSecs` cannot be a measurement, or undefined when it can (undefined itself: a failed candidate). */
export function impossibleRunSecs(runSecs: readonly number[] | undefined): string | undefined {
  if (runSecs === undefined) return undefined;
  if (runSecs.length === 0) return "run_secs is empty (a failed candidate has null, or [1e10])";
  for (const [i, s] of runSecs.entries()) {
    if (typeof s !== "number" || Number.isNaN(s)) return `run_secs[${i}] is not a number`;
    if (!Number.isFinite(s)) return `run_secs[${i}] is ${s}, not a finite time`;
    if (s <= 0) return `run_secs[${i}] is ${s}: a run takes a positive time`;
  }
  return undefined;
}

/** A runner's result with impossible times turned into a failure that says so (a result the scheduler may rank). */
export function checkedRunnerResult(result: RunnerResult): RunnerResult {
  if (!result.ok) return result;
  const problem = impossibleRunSecs(result.runSecs);
  return problem === undefined ? result : { ok: false, error: `impossible measurement: ${problem}` };
}
