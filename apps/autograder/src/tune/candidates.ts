/**
 * Step 2 of tuning, the trusted side of sampling: every sampled trace is replayed on the grader's
 * own workload (as grading replays trace_submission.ts), duplicates — the same instructions with
 * the same sampled decisions — are dropped, and the rest is lowered for the target GPU. A
 * candidate that exceeds the GPU's limits (threads or shared memory per block) cannot run, so it
 * is discarded with the reason.
 */
import { lower, type Target } from "@tessera/codegen";
import type { Decision, Schedule, Trace } from "@tessera/schedule";
import { replayTrace } from "../grade/replay.js";
import { loweringFailureReason } from "./discard-reasons.js";
import type { Sample } from "./search-space.js";

/** A distinct schedule of the search space that replays and fits the target. */
export interface Candidate {
  /** The first seed that sampled it. */
  readonly seed: number;
  /** The sampled decisions in trace order (the last argument of each sampling call). */
  readonly decisions: readonly Decision[];
  /** The grader's replay: its trace is what `trace.show()` prints for the student. */
  readonly schedule: Schedule;
}

export interface Discarded {
  readonly seed: number;
  /** Short and shared by similar candidates: "exceed 1024 threads per block". */
  readonly reason: string;
  /** The full message. */
  readonly detail: string;
}

export interface CandidatePool {
  /** In sample order. */
  readonly valid: readonly Candidate[];
  readonly discarded: readonly Discarded[];
  /** Samples equal to an earlier one. */
  readonly duplicates: number;
}

/** `start` is the grader's fresh workload at the sampled size; it is not modified. */
export function collectCandidates(samples: readonly Sample[], start: Schedule, target: Target): CandidatePool {
  const valid: Candidate[] = [];
  const discarded: Discarded[] = [];
  const seen = new Set<string>();
  let duplicates = 0;
  for (const sample of samples) {
    const replay = replayTrace(sample.trace, start);
    if (!replay.ok) {
      discarded.push({ seed: sample.seed, reason: "do not replay on the grader's workload", detail: replay.error });
      continue;
    }
    const schedule = replay.schedule;
    // The printed trace holds every instruction and decision: equal text, equal schedule.
    const key = schedule.trace.show();
    if (seen.has(key)) {
      duplicates++;
      continue;
    }
    seen.add(key);
    try {
      lower(schedule, target);
    } catch (err) {
      discarded.push({ seed: sample.seed, reason: loweringFailureReason(err, target), detail: err instanceof Error ? err.message : String(err) });
      continue;
    }
    valid.push({ seed: sample.seed, decisions: sampledDecisions(schedule.trace), schedule });
  }
  return { valid, discarded, duplicates };
}

export function sampledDecisions(trace: Trace): Decision[] {
  return trace.instructions.flatMap((inst) => {
    const d = trace.getDecision(inst);
    return d === undefined ? [] : [d];
  });
}

/** "[4,64,8] [128,4,4] [128,8,2]": the decisions in trace order, compactly. */
export function formatDecisions(decisions: readonly Decision[]): string {
  return decisions.length === 0 ? "(no sampling)" : decisions.map((d) => JSON.stringify(d)).join(" ");
}
