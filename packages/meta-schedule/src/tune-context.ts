/**
 * The context of one tuning task (TVM's `TuneContext`): the workload, the target, the design
 * space generator and search strategy that serve it, a random engine from which every component
 * forks its own, and a logger. Components receive it in `initialize` and keep what they need.
 */
import type { Target } from "@tessera/codegen";
import { RandomEngine } from "@tessera/schedule";
import type { Workload } from "./workload.js";

export type LogLevel = "debug" | "info" | "warn";

export type Logger = (level: LogLevel, message: string) => void;

export const silentLogger: Logger = () => {};

export interface TuneContext {
  readonly workload: Workload;
  readonly target: Target;
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

export function tuneContext(workload: Workload, target: Target, opts: TuneContextOptions = {}): TuneContext {
  return {
    workload,
    target,
    taskName: opts.taskName ?? workload.name,
    rng: new RandomEngine(opts.seed),
    log: opts.log ?? silentLogger,
    numThreads: opts.numThreads ?? 1,
  };
}
