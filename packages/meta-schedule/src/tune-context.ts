/**
 * The context of one tuning task (TVM's `TuneContext`): the workload, the target, the design
 * space generator and search strategy that serve it, a random engine from which every component
 * forks its own, and a logger. Components receive it in `initialize` and keep what they need.
 */
import type { CudaTarget, Target } from "@tessera/codegen";
import { RandomEngine } from "@tessera/schedule";
import { MetaScheduleError } from "./errors.js";
import type { Workload } from "./workload.js";

export type LogLevel = "debug" | "info" | "warn";

export type Logger = (level: LogLevel, message: string) => void;

export const silentLogger: Logger = () => {};

/** What a task is tuned for: a GPU (CUDA) target, or the host CPU (the C target, `c` / `llvm`). */
export type TuneTarget = Target;

export interface TuneContext {
  readonly workload: Workload;
  readonly target: TuneTarget;
  /** The task's name in logs and the summary table (the workload's name by default). */
  readonly taskName: string;
  /** The task's random engine; components take `forkSeed()` from it for their own. */
  readonly rng: RandomEngine;
  readonly log: Logger;
  /** Threads the CPU-side work may use (trace replay, feature extraction, lowering). */
  readonly numThreads: number;
}

export interface TuneContextOptions {
  readonly taskName?: string;
  /** Seed of the task's random engine (random when absent). */
  readonly seed?: number;
  readonly log?: Logger;
  readonly numThreads?: number;
}

/** The task's GPU target, for components that only make sense on a GPU; a clear error on a CPU task. */
export function gpuTargetOf(ctx: Pick<TuneContext, "target">, component: string): CudaTarget {
  if (ctx.target.kind !== "cuda") throw new MetaScheduleError(`${component} needs a GPU target; this task is tuned for the C target "${ctx.target.name}"`);
  return ctx.target;
}

export function tuneContext(workload: Workload, target: TuneTarget, opts: TuneContextOptions = {}): TuneContext {
  return {
    workload,
    target,
    taskName: opts.taskName ?? workload.name,
    rng: new RandomEngine(opts.seed),
    log: opts.log ?? silentLogger,
    numThreads: opts.numThreads ?? 1,
  };
}
