/**
 * A job that warms a search worker (ReplayPool.warmUp): a few fresh samples of the task's design
 * space, replayed with its postprocessors, so that the worker has loaded the compiler and run the
 * code of a replay — trace application, postprocessors, VerifyGPUCode's lowering, the estimate —
 * before the search's first round needs it. The design space is generated with a context of its
 * own and the samples' seeds are fixed: the search's random engine is not touched, so a warmed
 * run picks the same candidates as a cold one.
 */
import type { PrimFunc } from "@tessera/ir";
import type { SpaceGenerator } from "../interfaces/space-generator.js";
import { type TuneTarget, tuneContext } from "../tune-context.js";
import { workloadOf } from "../workload.js";
import { type ReplayJob, postprocSetOf } from "./replay-job.js";
import type { ReplayPool } from "./replay-pool.js";

/** Fresh samples each worker replays to warm up: the first replays of a thread run in cold code, ~3× a warm one's CPU. */
export const WARM_UP_REPLAYS = 2;

/** The seed of the throwaway context the design space is generated in (any fixed number). */
const WARM_UP_SEED = 1;

/**
 * The warm-up job of `func`'s tuning task: `replays` fresh samples of its design spaces in turn, or
 * undefined when the space's postprocessors are not a list workers can rebuild (its replays stay
 * in the search's thread, no worker to warm).
 */
export function warmUpJob(func: PrimFunc, target: TuneTarget, space: SpaceGenerator, replays = WARM_UP_REPLAYS): ReplayJob | undefined {
  const postprocs = postprocSetOf(target, space.postprocs);
  if (postprocs === undefined) return undefined;
  const workload = workloadOf(func);
  const ctx = tuneContext(workload, target, { seed: WARM_UP_SEED });
  space.initialize?.(ctx);
  const traces = space.generateDesignSpace(ctx).map((s) => JSON.stringify(s.trace.simplified({ removePostproc: true }).toJSON()));
  if (traces.length === 0) return undefined;
  const requests = Array.from({ length: replays }, (_, k) => ({ trace: traces[k % traces.length]!, freshDecisions: true, seed: k + 1 }));
  return { workload, target, postprocs, requests };
}

/** Warms `pool`'s workers on `func`'s design space (`warmUpJob`); settles when they are warm (at once when there is nothing to warm). */
export async function warmReplayPool(pool: ReplayPool, func: PrimFunc, target: TuneTarget, space: SpaceGenerator): Promise<void> {
  const job = warmUpJob(func, target, space);
  if (job !== undefined) await pool.warmUp(job);
}
