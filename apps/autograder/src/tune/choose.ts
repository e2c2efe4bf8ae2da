/**
 * Step 4 of tuning: the hand-in. The search's best records, best first, are replayed as the
 * grader replays trace_submission.ts; the first whose numerics pass (the GPU's at full size, or
 * the simulator's) is chosen and, on a GPU, timed with the grading settings. A candidate whose
 * numerics were not checked is never handed in.
 */
import type { TuningRecord } from "@tessera/meta-schedule";
import type { Schedule } from "@tessera/schedule";
import { replayTrace } from "../grade/replay.js";
import type { GpuBackend, NumericsOutcome, TimingOutcome } from "../grade/numerics-types.js";
import type { Timing } from "../manifest/index.js";

/** Numerics checks before giving up: when this many of the best compute wrong results, the space is wrong. */
export const MAX_NUMERICS_CHECKS = 5;

/** One of the search's best records, as the hand-in step saw it. */
export interface CheckedRecord {
  /** 1 for the search's best. */
  readonly rank: number;
  /** Median of the search's run times (measured, or estimated without a GPU), in ms. */
  readonly searchMs: number;
  /** The grader's replay; undefined when the record's trace did not replay. */
  readonly schedule?: Schedule;
  readonly numerics?: NumericsOutcome;
  /** With the grading settings (only on a GPU, only the chosen one). */
  readonly timing?: TimingOutcome;
  /** Why it was not chosen: replay or timing failed. */
  readonly error?: string;
}

export interface Choice {
  readonly checked: readonly CheckedRecord[];
  /** The checked record handed in (numerics passed, timed on a GPU). */
  readonly chosen: CheckedRecord | undefined;
  readonly noChoiceReason?: string;
}

export interface ChoiceRequest {
  /** The search's best records, best first. */
  readonly records: readonly TuningRecord[];
  /** The grader's fresh workload at the tuned size (not modified). */
  readonly start: Schedule;
  readonly gpu: GpuBackend | undefined;
  /** The assignment whose workload the candidates compute (the GPU worker fills its inputs). */
  readonly assignment: string;
  /** The manifest's timing settings (what grading measures with). */
  readonly timing: Timing;
  readonly checkNumerics: (schedule: Schedule) => Promise<NumericsOutcome>;
  readonly onProgress?: (message: string) => void;
}

export async function chooseRecord(req: ChoiceRequest): Promise<Choice> {
  const checked: CheckedRecord[] = [];
  for (const [k, record] of req.records.slice(0, MAX_NUMERICS_CHECKS).entries()) {
    const base = { rank: k + 1, searchMs: medianMs(record.runSecs) };
    const replay = replayTrace(record.trace, req.start);
    if (!replay.ok) {
      checked.push({ ...base, error: replay.error });
      continue;
    }
    const schedule = replay.schedule;
    req.onProgress?.(`checking the numerics of the search's #${base.rank} candidate`);
    const numerics = await req.checkNumerics(schedule);
    if (!numerics.passed || req.gpu === undefined) {
      checked.push({ ...base, schedule, numerics });
      if (numerics.passed) return { checked, chosen: checked[checked.length - 1] };
      continue;
    }
    req.onProgress?.(`timing the search's #${base.rank} candidate with the grading settings on ${req.gpu.name}`);
    try {
      const timing = await req.gpu.time(schedule, req.timing, req.assignment);
      checked.push({ ...base, schedule, numerics, timing });
      return { checked, chosen: checked[checked.length - 1] };
    } catch (err) {
      checked.push({ ...base, schedule, numerics, error: `timing failed: ${err instanceof Error ? err.message : String(err)}` });
    }
  }
  return { checked, chosen: undefined, noChoiceReason: noChoiceReason(checked, req.records.length) };
}

function noChoiceReason(checked: readonly CheckedRecord[], records: number): string {
  if (records === 0) return "the search measured no candidate successfully";
  const wrong = checked.filter((c) => c.numerics?.passed === false).length;
  const stopped = checked.length === MAX_NUMERICS_CHECKS && wrong === checked.length ? "; so the search space itself is probably wrong" : "";
  if (wrong > 0) return `${wrong} of the search's best ${checked.length} candidates compute${wrong === 1 ? "s" : ""} wrong results${stopped}`;
  return `none of the search's best ${checked.length} candidates could be checked (first: ${checked[0]?.error ?? "?"})`;
}

function medianMs(runSecs: readonly number[] | undefined): number {
  if (runSecs === undefined || runSecs.length === 0) return Number.NaN;
  const sorted = [...runSecs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]! * 1000;
}
