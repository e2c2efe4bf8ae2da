/**
 * The trusted side of a sandboxed job: the trace the child sent is parsed (Trace.fromJSON
 * validates every field) and replayed on a schedule the grader built itself. Only that replay is
 * graded, so nothing the student's process did to its own objects can change a score.
 */
import { Schedule, Trace } from "@tessera/schedule";

/** More instructions than any sensible schedule of the assignment needs; bounds the parent's work. */
export const MAX_TRACE_INSTRUCTIONS = 5000;

export type Replay = { readonly ok: true; readonly schedule: Schedule; readonly trace: Trace } | { readonly ok: false; readonly error: string };

/** Replays `traceJson` on a copy of `start` (which is not modified). */
export function replayTrace(traceJson: unknown, start: Schedule): Replay {
  const doc = parsedDocument(traceJson);
  // Counted before validating: refusing an oversized trace must not cost the parent work in its size.
  const listed = listedInstructions(doc);
  if (listed !== undefined && listed > MAX_TRACE_INSTRUCTIONS) return tooLong(listed);
  let trace: Trace;
  try {
    trace = Trace.fromJSON(doc);
  } catch (err) {
    return { ok: false, error: `the recorded schedule trace is not valid (${message(err)})` };
  }
  if (trace.instructions.length > MAX_TRACE_INSTRUCTIONS) return tooLong(trace.instructions.length);
  const schedule = start.copy();
  try {
    trace.applyTo(schedule);
  } catch (err) {
    return { ok: false, error: `replaying the recorded schedule failed: ${message(err)}` };
  }
  return { ok: true, schedule, trace };
}

function tooLong(count: number): Replay {
  return { ok: false, error: `the schedule ran ${count} instructions; at most ${MAX_TRACE_INSTRUCTIONS} are graded` };
}

/** A trace sent as JSON text is parsed once here; anything else (or text that is not JSON) is left to Trace.fromJSON. */
function parsedDocument(json: unknown): unknown {
  if (typeof json !== "string") return json;
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return json;
  }
}

/** The length of the instruction list of a trace document in our format or TVM's, if it has one. */
function listedInstructions(doc: unknown): number | undefined {
  const list: unknown = Array.isArray(doc) ? doc[0] : typeof doc === "object" && doc !== null ? (doc as { instructions?: unknown }).instructions : undefined;
  return Array.isArray(list) ? list.length : undefined;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
