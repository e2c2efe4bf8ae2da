/**
 * Turning a trace into a concrete candidate (TVM's `ThreadedTraceApply`): replay the trace's
 * instructions up to EnterPostproc on a fresh schedule of the workload — with its recorded
 * decisions, or sampling afresh — then mark EnterPostproc and run every postprocessor. Any
 * failure makes the sample invalid, with the reason.
 */
import { TesseraError } from "@tessera/ir";
import { Schedule, type Trace } from "@tessera/schedule";
import type { Postproc } from "../interfaces/postproc.js";
import type { TuneContext } from "../tune-context.js";
import type { PrefixStateCache } from "./prefix-states.js";

export type ReplayOutcome =
  | { readonly ok: true; readonly sch: Schedule }
  /** `reason` is short and shared by similar samples ("postproc verifyGpuCode: …"); `detail` is the full message. */
  | { readonly ok: false; readonly reason: string; readonly detail: string };

export interface ReplayOptions {
  /** Sample every decision afresh instead of replaying the recorded ones (a new point of the space). */
  readonly freshDecisions?: boolean;
  /** Seed of the replay's random engine (the fresh decisions and the postprocessors' samples). */
  readonly seed: number;
  /** Part-way states of earlier replays to resume from (prefix-states.ts); without it every replay starts afresh. */
  readonly prefixStates?: PrefixStateCache;
}

export function replayWithPostprocs(ctx: TuneContext, trace: Trace, postprocs: readonly Postproc[], opts: ReplayOptions): ReplayOutcome {
  const freshDecisions = opts.freshDecisions === true;
  let sch: Schedule;
  try {
    if (opts.prefixStates !== undefined) sch = opts.prefixStates.replay(ctx.workload.func, trace, { seed: opts.seed, freshDecisions });
    else {
      sch = new Schedule(ctx.workload.func, { seed: opts.seed });
      trace.applyTo(sch, { removePostproc: true, ...(freshDecisions ? { decisions: () => null } : {}) });
    }
  } catch (err) {
    if (!(err instanceof TesseraError)) throw err;
    return { ok: false, reason: "the trace does not replay", detail: err.message };
  }
  sch.enterPostproc();
  for (const postproc of postprocs) {
    let result;
    try {
      result = postproc.apply(sch, ctx);
    } catch (err) {
      if (!(err instanceof TesseraError)) throw err;
      return { ok: false, reason: `postproc ${postproc.name} failed`, detail: err.message };
    }
    if (!result.ok) return { ok: false, reason: `postproc ${postproc.name}: ${result.reason}`, detail: result.detail ?? result.reason };
  }
  return { ok: true, sch };
}
