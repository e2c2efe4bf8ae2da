/**
 * Step 2 of tuning, the trusted side of sampling: every sampled trace is replayed on the grader's
 * own workload (as grading replays trace_submission.ts), and the traces that replay become the
 * design spaces of the search — one per distinct structure (the same instructions, whatever their
 * sampled decisions), each keeping the decisions of its first sample. The search replays them with
 * fresh and mutated decisions; the recorded ones are measured first (meta-schedule's RecordedFirst).
 */
import type { Decision, Schedule, Trace } from "@tessera/schedule";
import { replayTrace } from "../grade/replay.js";
import type { Sample } from "./search-space.js";

export interface DesignSpaces {
  /** The grader's replays of the first sample of each structure, in sample order. */
  readonly traces: readonly Trace[];
  /** Samples that replayed (their structure already seen or not). */
  readonly replayed: number;
  /** Samples whose trace did not replay on the grader's workload. */
  readonly notReplayed: readonly { readonly seed: number; readonly detail: string }[];
}

/** `start` is the grader's fresh workload at the sampled size; it is not modified. */
export function designSpacesOf(samples: readonly Sample[], start: Schedule): DesignSpaces {
  const traces: Trace[] = [];
  const notReplayed: { seed: number; detail: string }[] = [];
  const structures = new Set<string>();
  let replayed = 0;
  for (const sample of samples) {
    const replay = replayTrace(sample.trace, start);
    if (!replay.ok) {
      notReplayed.push({ seed: sample.seed, detail: replay.error });
      continue;
    }
    replayed++;
    const trace = replay.schedule.trace;
    const key = structureKey(trace);
    if (structures.has(key)) continue;
    structures.add(key);
    traces.push(trace);
  }
  return { traces, replayed, notReplayed };
}

/** The trace without its decisions: equal keys, the same space. */
function structureKey(trace: Trace): string {
  return JSON.stringify({ ...trace.toJSON(), decisions: [] });
}

/** The sampled decisions of a trace in trace order (the last argument of each sampling call). */
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
