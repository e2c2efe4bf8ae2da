/**
 * TVM's `GradientBased` task scheduler (the default of tune_tir): every task once in order, then
 * always the task whose weighted latency is expected to fall fastest. For a task whose history of
 * best latencies (one entry per measured batch) is b[0..n-1]:
 *   g1 = (b[n-1-w] - b[n-1]) / w   when n ≥ w + 1, else 0   (recent improvement over the window w)
 *   g2 = b[n-1] / n                                          (optimistic: what one more round could save)
 *   score = (α·g1 + (1-α)·g2) · weight, or -1e9 while no run succeeded.
 * The highest score wins; when every score is equal, a random task among those not done.
 */
import { RandomEngine } from "@tessera/schedule";
import { FAILED_RUN_SECS } from "../interfaces/runner.js";
import { TaskScheduler } from "./task-scheduler.js";

export interface GradientBasedOptions {
  /** Weight of the recent improvement against the optimistic estimate (0.2). */
  readonly alpha?: number;
  /** Batches the recent improvement is measured over (3). */
  readonly windowSize?: number;
  /** Seed of the tie-breaking draws (random when absent). */
  readonly seed?: number;
}

/** What the gradient reads of a task. */
export interface GradientInput {
  readonly bestHistory: readonly number[];
  readonly weight: number;
}

export const NO_VALID_RUN_SCORE = -1e9;

/** The score of each task (see the module comment). */
export function gradientScores(tasks: readonly GradientInput[], alpha: number, windowSize: number): number[] {
  return tasks.map(({ bestHistory: b, weight }) => {
    const n = b.length;
    const best = n === 0 ? FAILED_RUN_SECS : b[n - 1]!;
    if (best >= FAILED_RUN_SECS) return NO_VALID_RUN_SCORE;
    const g1 = n >= windowSize + 1 ? (b[n - 1 - windowSize]! - best) / windowSize : 0;
    const g2 = best / n;
    return (alpha * g1 + (1 - alpha) * g2) * weight;
  });
}

export class GradientBased extends TaskScheduler {
  readonly name = "gradient-based";
  readonly alpha: number;
  readonly windowSize: number;
  private readonly rng: RandomEngine;
  private roundRobinRounds = 0;

  constructor(opts: GradientBasedOptions = {}) {
    super();
    this.alpha = opts.alpha ?? 0.2;
    this.windowSize = opts.windowSize ?? 3;
    if (!(this.alpha >= 0 && this.alpha <= 1)) throw new RangeError(`GradientBased: alpha must be in [0, 1], got ${this.alpha}`);
    if (!Number.isSafeInteger(this.windowSize) || this.windowSize < 1)
      throw new RangeError(`GradientBased: windowSize must be a positive integer, got ${this.windowSize}`);
    this.rng = new RandomEngine(opts.seed);
  }

  protected nextTaskId(): number {
    while (this.roundRobinRounds < this.tasks.length) {
      const id = this.roundRobinRounds++;
      if (!this.tasks[id]!.done) return id;
    }
    const alive = this.tasks.filter((t) => !t.done);
    if (alive.length === 0) return -1;
    const scores = gradientScores(alive, this.alpha, this.windowSize);
    const max = Math.max(...scores);
    const min = Math.min(...scores);
    if (max === min) return alive[this.rng.int(0, alive.length)]!.id;
    return alive[scores.indexOf(max)]!.id;
  }
}
