/**
 * What the task scheduler knows of one task (TVM's `TaskRecord`): its context and components, its
 * floating-point work and weight, the latency of every trial so far, the best latency after each
 * joined batch (the history the gradient-based scheduler reads), and whether it is done.
 */
import type { Schedule } from "@tessera/schedule";
import type { RunnerResult } from "../interfaces/runner.js";
import { FAILED_RUN_SECS } from "../interfaces/runner.js";
import type { SearchStrategy } from "../interfaces/search-strategy.js";
import type { SpaceGenerator } from "../interfaces/space-generator.js";
import type { TuneContext } from "../tune-context.js";
import { estimateFlops } from "./flops.js";

/** A task to tune: a context (workload, target, random engine, logger) and the components serving it. */
export interface TuneTask {
  readonly ctx: TuneContext;
  readonly space: SpaceGenerator;
  /** One strategy per task: a strategy keeps the task's search state. */
  readonly strategy: SearchStrategy;
  /** How many times the workload runs in the whole model (1 by default). */
  readonly weight?: number;
}

/** TVM's latency of a result for the scheduler: the median of run_secs; FAILED_RUN_SECS for a failure. */
export function medianRunSecs(result: RunnerResult): number {
  if (!result.ok || result.runSecs.length === 0) return FAILED_RUN_SECS;
  const sorted = [...result.runSecs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export class TaskRecord {
  readonly ctx: TuneContext;
  readonly space: SpaceGenerator;
  readonly strategy: SearchStrategy;
  /** Estimated float operations of one run (at least 1). */
  readonly flop: number;
  readonly weight: number;
  designSpaces: readonly Schedule[] = [];
  /** Latency in seconds of every trial, in the order measured (FAILED_RUN_SECS for failures). */
  readonly latencies: number[] = [];
  /** The best latency after each joined batch, in seconds (FAILED_RUN_SECS while none succeeded). */
  readonly bestHistory: number[] = [];
  /**
   * Wall time spent so far generating candidates (search), building and running them, ms; and of
   * the search's wall, the time the search's own thread was busy (`searchBusy`, its event loop's
   * active time: its own work, and whatever else that thread ran meanwhile) rather than waiting for
   * its replay workers; and the search's wall while no batch was being built or run
   * (`searchAlone`: with overlapSearch, the only part of the search that lengthens the run — the
   * rest overlaps a batch's building and measuring; without it, the whole search).
   */
  readonly phaseMs = { search: 0, searchBusy: 0, searchAlone: 0, build: 0, run: 0 };
  buildErrors = 0;
  runErrors = 0;
  done = false;

  constructor(
    readonly id: number,
    task: TuneTask,
  ) {
    this.ctx = task.ctx;
    this.space = task.space;
    this.strategy = task.strategy;
    this.flop = estimateFlops(task.ctx.workload.func);
    this.weight = task.weight ?? 1;
    if (!(this.weight > 0)) throw new RangeError(`task ${task.ctx.taskName}: weight must be positive, got ${this.weight}`);
  }

  get name(): string {
    return this.ctx.taskName;
  }

  get trials(): number {
    return this.latencies.length;
  }

  /** The best latency so far in seconds, FAILED_RUN_SECS when no trial succeeded. */
  get bestLatency(): number {
    return this.latencies.reduce((best, t) => Math.min(best, t), FAILED_RUN_SECS);
  }

  get hasValidRun(): boolean {
    return this.bestLatency < FAILED_RUN_SECS;
  }

  /** GFLOPS at a latency in seconds. */
  gflopsAt(latencySecs: number): number {
    return this.flop / latencySecs / 1e9;
  }
}
