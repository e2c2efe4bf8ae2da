/**
 * A postprocessor (TVM's `Postproc`): after a trace is replayed, it makes the sample concrete
 * (binds cooperative fetches, unrolls, decomposes reductions) or rejects it before anything is
 * compiled (GPU limits). A rejection carries a short reason shared by similar candidates, so a
 * search can tally why candidates were dropped.
 */
import type { Schedule } from "@tessera/schedule";
import type { TuneContext } from "../tune-context.js";

export type PostprocResult =
  | { readonly ok: true }
  /** `reason` is short and shared by similar candidates; `detail` (the full message) is optional. */
  | { readonly ok: false; readonly reason: string; readonly detail?: string };

export const POSTPROC_OK: PostprocResult = { ok: true };

export function rejected(reason: string, detail?: string): PostprocResult {
  return detail === undefined ? { ok: false, reason } : { ok: false, reason, detail };
}

export interface Postproc {
  readonly name: string;
  initialize?(ctx: TuneContext): void;
  /** Modifies `sch` in place (recording its primitives in the trace); never throws for an invalid sample. */
  apply(sch: Schedule, ctx: TuneContext): PostprocResult;
}
