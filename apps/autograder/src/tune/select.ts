/**
 * Step 3 of tuning: choose among the valid candidates. With a GPU, every candidate is timed with
 * light settings, the few fastest are timed again with the grading settings, and the fastest of
 * those that computes correct results wins (one that does not is skipped for the next). Without a
 * GPU nothing can be timed: the first candidate (in sample order) that computes correct results
 * is taken, and it is only that — a valid candidate, not the best one.
 */
import type { Schedule } from "@tessera/schedule";
import type { GpuBackend, NumericsOutcome, TimingOutcome } from "../grade/numerics-types.js";
import type { Timing } from "../manifest/index.js";
import type { Candidate } from "./candidates.js";

/** A first, cheap look at every candidate: enough to tell 5 ms from 50 ms. */
export const QUICK_TIMING: Timing = { number: 1, repeat: 3, minRepeatMs: 0 };
/** How many of the quickest are timed again with the grading settings. */
export const FINALISTS = 3;
/** Numerics checks before giving up: when this many candidates compute wrong results, the space is wrong. */
export const MAX_NUMERICS_CHECKS = 5;

export type CandidateStatus =
  /** The one returned. */
  | "chosen"
  | "wrong-numerics"
  | "timing-failed"
  /** Timed, not needed further. */
  | "timed"
  /** No GPU: not timed. */
  | "untimed";

export interface Assessment {
  readonly candidate: Candidate;
  readonly status: CandidateStatus;
  /** Mean ms with QUICK_TIMING. */
  readonly quickMs?: number;
  /** With the grading settings (finalists and the chosen one). */
  readonly final?: TimingOutcome;
  readonly numerics?: NumericsOutcome;
  /** Why timing failed. */
  readonly error?: string;
}

export interface Selection {
  /** Best first: with a GPU the finalists by final time, then the rest by quick time, then those that failed timing; else sample order. */
  readonly ranked: readonly Assessment[];
  readonly chosen: Assessment | undefined;
  /** Why none was chosen. */
  readonly noChoiceReason?: string;
}

export interface SelectionRequest {
  readonly candidates: readonly Candidate[];
  readonly gpu: GpuBackend | undefined;
  /** The manifest's timing settings (what grading measures with). */
  readonly timing: Timing;
  /** Numerics of one candidate: the GPU's at full size, or the simulator's. */
  readonly checkNumerics: (schedule: Schedule) => Promise<NumericsOutcome>;
  readonly onProgress?: (message: string) => void;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export async function selectCandidate(req: SelectionRequest): Promise<Selection> {
  const all: Mutable<Assessment>[] = req.candidates.map((candidate) => ({ candidate, status: req.gpu === undefined ? "untimed" : "timed" }));
  const order = req.gpu === undefined ? all : await rankByTime(all, req.gpu, req);
  const chosen = await firstCorrect(order, req);
  const failed = (a: Assessment): boolean => a.status === "timing-failed";
  const ranked = req.gpu === undefined ? all : [...order.filter((a) => !failed(a)), ...all.filter(failed)];
  if (chosen !== undefined) return { ranked, chosen };
  return { ranked, chosen, noChoiceReason: noChoiceReason(all, req.gpu) };
}

/** Times every candidate quickly and the fastest FINALISTS again; returns the timed ones, best first. */
async function rankByTime(all: Mutable<Assessment>[], gpu: GpuBackend, req: SelectionRequest): Promise<Mutable<Assessment>[]> {
  for (const [k, a] of all.entries()) {
    req.onProgress?.(`timing candidate ${k + 1} of ${all.length} (seed ${a.candidate.seed}) on ${gpu.name}`);
    const t = await timeOn(gpu, a, QUICK_TIMING);
    if (t !== undefined) a.quickMs = t.meanMs;
  }
  const byQuick = all.filter((a) => a.quickMs !== undefined).sort((x, y) => x.quickMs! - y.quickMs!);
  const finalists = byQuick.slice(0, FINALISTS);
  if (finalists.length > 0) req.onProgress?.(`timing the ${finalists.length} fastest again with the grading settings`);
  for (const a of finalists) {
    const t = await timeOn(gpu, a, req.timing);
    if (t !== undefined) a.final = t;
  }
  const timedFinalists = finalists.filter((a) => a.final !== undefined).sort((x, y) => x.final!.meanMs - y.final!.meanMs);
  return [...timedFinalists, ...byQuick.slice(FINALISTS)];
}

/** Checks numerics in `order` until one passes; a chosen one that has no grading-settings time gets one. */
async function firstCorrect(order: Mutable<Assessment>[], req: SelectionRequest): Promise<Assessment | undefined> {
  let checks = 0;
  for (const a of order) {
    if (checks === MAX_NUMERICS_CHECKS) return undefined;
    checks++;
    req.onProgress?.(`checking the numerics of the candidate of seed ${a.candidate.seed}`);
    a.numerics = await req.checkNumerics(a.candidate.schedule);
    if (!a.numerics.passed) {
      a.status = "wrong-numerics";
      continue;
    }
    if (req.gpu !== undefined && a.final === undefined) {
      const t = await timeOn(req.gpu, a, req.timing);
      if (t === undefined) continue;
      a.final = t;
    }
    a.status = "chosen";
    return a;
  }
  return undefined;
}

/** The timing, or undefined with the assessment marked as failed (gpu.time throws for schedules it cannot build or run). */
async function timeOn(gpu: GpuBackend, a: Mutable<Assessment>, timing: Timing): Promise<TimingOutcome | undefined> {
  try {
    return await gpu.time(a.candidate.schedule, timing);
  } catch (err) {
    a.status = "timing-failed";
    a.error = err instanceof Error ? err.message : String(err);
    return undefined;
  }
}

function noChoiceReason(all: readonly Assessment[], gpu: GpuBackend | undefined): string {
  if (all.length === 0) return "no candidate replays and fits the GPU's limits";
  const wrong = all.filter((a) => a.status === "wrong-numerics");
  const failedTiming = all.filter((a) => a.status === "timing-failed");
  if (wrong.length > 0) {
    const stopped = wrong.length === MAX_NUMERICS_CHECKS ? `; the first ${wrong.length} checked all do, so the search space itself is probably wrong` : "";
    return `${plural(wrong.length, "candidate")} checked compute${wrong.length === 1 ? "s" : ""} wrong results${stopped}`;
  }
  if (gpu !== undefined && failedTiming.length === all.length) return `no candidate could be timed on the ${gpu.name} (first: ${failedTiming[0]?.error ?? "?"})`;
  return "no candidate could be checked";
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
