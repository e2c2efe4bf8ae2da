/**
 * The serialisable half of turning traces into candidates, so that a search can replay in worker
 * threads: a job names the workload, the target and the postprocessors (by the default list they
 * equal), and carries traces in the database's JSON format (as text from the search) with the seed
 * of each replay; the reply of a
 * trace is the postprocessed function, its full trace as JSON text with its digest, its structural
 * hash, and what the search reads of the module VerifyGPUCode lowered (the analytic estimate, the
 * launch shape) rather than the module itself: cloning a module back cost the search's thread more
 * than a worker's replay. A worker sends the function serialised (`v8.serialize`, bytes that cost
 * the search's thread nothing to receive): reading back a 2048³ gemm's function costs ~0.45 ms,
 * and a round reads 32 of its ~1,000 (the candidates handed out), `lazy-candidate.ts`. Everything
 * in a job and a reply survives structured cloning.
 */
import { serialize } from "node:v8";
import type { PrimFunc } from "@tessera/ir";
import { Trace, type TraceJSON } from "@tessera/schedule";
import type { Postproc } from "../interfaces/postproc.js";
import type { LatencyEstimate } from "../latency-model/latency-model.js";
import { estimateOfModule } from "../feature/latency-estimate-of.js";
import { loweredModuleFor } from "../postproc/verify-gpu-code.js";
import { programHashesOf } from "../support/program-hashes.js";
import { launchClassOfModule } from "./launch-classes.js";
import { traceKeyOfText } from "./trace-key.js";
import { defaultCpuPostprocs } from "../space/cpu-defaults.js";
import { defaultCudaSpace } from "../space/defaults.js";
import { type PrefixStateCache, threadPrefixStates } from "../space/prefix-states.js";
import { replayWithPostprocs } from "../space/replay.js";
import { type TuneTarget, tuneContext } from "../tune-context.js";
import type { Workload } from "../workload.js";

/** One replay: the trace, whether its decisions are sampled afresh, and the seed of the replay's random engine. */
export interface ReplayRequest {
  /**
   * The trace as JSON, or as its JSON text: the search sends the text, which it has made to key
   * the replay cache anyway, and which costs its thread a copy to send rather than a structured
   * clone of a document of hundreds of arrays.
   */
  readonly trace: TraceJSON | string;
  readonly freshDecisions: boolean;
  readonly seed: number;
}

export type ReplayReply =
  | {
      readonly ok: true;
      /** The postprocessed function; from a worker, `v8.serialize`d (`runReplayJob`'s `serialiseFuncs`). */
      readonly func: PrimFunc | Uint8Array;
      /** The full trace, `JSON.stringify` of its `toJSON()`, and that text's digest (trace-key.ts). */
      readonly traceText: string;
      readonly traceKey: string;
      readonly hash: string;
      /** The analytic model's estimate of VerifyGPUCode's module (what the cost model reads), and its launch shape. */
      readonly estimate: LatencyEstimate | undefined;
      readonly launchClass: string | undefined;
    }
  | { readonly ok: false; readonly reason: string };

/** The postprocessor lists a worker can rebuild: the defaults of each target kind. */
export type PostprocSet = "cuda-default" | "cpu-default";

export interface ReplayJob {
  readonly workload: Workload;
  readonly target: TuneTarget;
  readonly postprocs: PostprocSet;
  readonly requests: readonly ReplayRequest[];
}

function postprocsOf(set: PostprocSet, target: TuneTarget): Postproc[] {
  if (set === "cpu-default") return defaultCpuPostprocs();
  if (target.kind !== "cuda") throw new RangeError(`replay job: the postprocessor set ${set} needs a CUDA target, got ${target.name}`);
  return defaultCudaSpace(target).postprocs;
}

/** What a postprocessor's configuration looks like from outside: its name and its own fields. */
function fingerprint(postprocs: readonly Postproc[]): string {
  return JSON.stringify(postprocs.map((p) => [p.name, p]));
}

/**
 * The set a worker rebuilds `postprocs` as, or undefined when they are not one of the default
 * lists (a user's postprocessors replay in the search's own thread).
 */
export function postprocSetOf(target: TuneTarget, postprocs: readonly Postproc[]): PostprocSet | undefined {
  const set: PostprocSet = target.kind === "cuda" ? "cuda-default" : "cpu-default";
  return fingerprint(postprocsOf(set, target)) === fingerprint(postprocs) ? set : undefined;
}

/**
 * Every request of the job replayed in order (postprocessors rebuilt once per job). A worker
 * serialises each function (`serialiseFuncs`), so that the thread that receives the reply reads
 * back only those it uses; the search's own thread keeps its functions as they are. The replays
 * resume from `prefixStates` (the thread's own by default; a bench gives each simulated worker one).
 */
export function runReplayJob(job: ReplayJob, serialiseFuncs = false, prefixStates: PrefixStateCache = threadPrefixStates()): ReplayReply[] {
  const ctx = tuneContext(job.workload, job.target);
  const postprocs = postprocsOf(job.postprocs, job.target);
  return job.requests.map((request): ReplayReply => {
    const out = replayWithPostprocs(ctx, Trace.fromJSON(request.trace), postprocs, {
      freshDecisions: request.freshDecisions,
      seed: request.seed,
      prefixStates,
    });
    if (!out.ok) return { ok: false, reason: out.reason };
    const func = out.sch.func;
    const lowered = loweredModuleFor(func);
    const estimate = lowered === undefined ? undefined : estimateOfModule(lowered);
    const traceText = JSON.stringify(out.sch.trace.toJSON());
    return {
      ok: true,
      func: serialiseFuncs ? serialize(func) : func,
      traceText,
      traceKey: traceKeyOfText(traceText),
      hash: programHashesOf(func).withoutNames,
      estimate,
      launchClass: launchClassOfModule(lowered),
    };
  });
}
