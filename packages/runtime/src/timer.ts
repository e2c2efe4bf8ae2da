/**
 * timeEvaluator with the semantics of TVM's `time_evaluator` (src/runtime/timer.cc):
 * one warm-up run; then `repeat` samples, each timing `number` back-to-back runs; while a sample
 * takes less than `minRepeatMs`, `number` grows to max(minRepeatMs / perRunMs + 1, number × 1.618)
 * and the sample is taken again (the grown `number` is kept for later samples); a cooldown
 * sleep after every `repeatsToCooldown` samples. Results are milliseconds per run.
 *
 * What is timed is a `BatchTimer`: something that runs `number` times and says how long that
 * took. For kernels, `Kernel.bind(...)` gives one whose loop runs in native code between two
 * CUDA events, so JavaScript overhead is not measured.
 */

export interface BatchTimer {
  /** Runs once, untimed (first-launch costs, caches). */
  warmup(): void;
  /** Runs `number` times back to back; returns the elapsed milliseconds for all of them. */
  timeBatch(number: number): number;
}

export interface TimeEvaluatorOptions {
  /** Runs per sample before growth (default 3). */
  number?: number;
  /** Samples (default 10). */
  repeat?: number;
  /** Minimum duration of one sample in ms (default 100); 0 disables growth. */
  minRepeatMs?: number;
  /** Sleep between samples in ms (default 0). */
  cooldownMs?: number;
  /** Sleep after every this many samples (default 1). */
  repeatsToCooldown?: number;
  /** Give up growing after this many samples that read exactly 0 ms (default 100). */
  limitZeroTimeIterations?: number;
  /**
   * Not TVM's: a sample whose runs take more than this many ms each is taken as it is, without
   * growing `number` to `minRepeatMs` (a tuner's candidate far slower than its best so far needs
   * no more precision to rank it). Undefined: TVM's behaviour.
   */
  stopAboveMsPerRun?: number;
  /** Not TVM's: no warm-up run, because the caller has just run the same launches untimed. */
  warm?: boolean;
  /**
   * Not TVM's (default 1, TVM's): a growing sample aims at `minRepeatMs × headroom`. With TVM's
   * aim, a first estimate a few percent slow (the first runs after an idle GPU) leaves the next
   * sample just short of `minRepeatMs`, and the golden-ratio step then makes it 1.6× too long.
   */
  headroom?: number;
}

export interface TimingResult {
  /** Milliseconds per run. */
  mean: number;
  median: number;
  min: number;
  max: number;
  /** Population standard deviation (numpy's default, as TVM's BenchmarkResult). */
  std: number;
  /** One value per sample, ms per run. */
  samples: number[];
  /** Runs per sample after growth. */
  number: number;
  repeat: number;
}

export interface TimerDeps {
  sleep(ms: number): Promise<void>;
}

const defaultDeps: TimerDeps = {
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

export function summarize(samples: readonly number[], number: number): TimingResult {
  if (samples.length === 0) throw new RangeError("summarize: no samples");
  const sorted = [...samples].sort((a, b) => a - b);
  const n = sorted.length;
  const mean = samples.reduce((s, x) => s + x, 0) / n;
  const median = n % 2 === 1 ? (sorted[(n - 1) / 2] as number) : ((sorted[n / 2 - 1] as number) + (sorted[n / 2] as number)) / 2;
  const variance = samples.reduce((s, x) => s + (x - mean) * (x - mean), 0) / n;
  return {
    mean,
    median,
    min: sorted[0] as number,
    max: sorted[n - 1] as number,
    std: Math.sqrt(variance),
    samples: [...samples],
    number,
    repeat: n,
  };
}

/** Times `fn` as TVM's time_evaluator does (see the module comment). */
export async function timeEvaluator(fn: BatchTimer, options: TimeEvaluatorOptions = {}, deps: TimerDeps = defaultDeps): Promise<TimingResult> {
  let number = options.number ?? 3;
  const repeat = options.repeat ?? 10;
  const minRepeatMs = options.minRepeatMs ?? 100;
  const cooldownMs = options.cooldownMs ?? 0;
  const repeatsToCooldown = options.repeatsToCooldown ?? 1;
  const limitZero = options.limitZeroTimeIterations ?? 100;
  if (!Number.isInteger(number) || number < 1) throw new RangeError("timeEvaluator: number must be an integer >= 1");
  if (!Number.isInteger(repeat) || repeat < 1) throw new RangeError("timeEvaluator: repeat must be an integer >= 1");
  if (!Number.isInteger(repeatsToCooldown) || repeatsToCooldown < 1) throw new RangeError("timeEvaluator: repeatsToCooldown must be an integer >= 1");

  const headroom = options.headroom ?? 1;
  if (!(headroom >= 1)) throw new RangeError("timeEvaluator: headroom must be at least 1");
  const stopAbove = options.stopAboveMsPerRun;
  if (stopAbove !== undefined && !(stopAbove > 0)) throw new RangeError("timeEvaluator: stopAboveMsPerRun must be positive");
  if (options.warm !== true) fn.warmup();
  const samples: number[] = [];
  for (let i = 0; i < repeat; i++) {
    let durationMs = 0;
    let zeroTimes = 0;
    do {
      if (durationMs > 0) {
        const golden = 1.618;
        number = Math.trunc(Math.max((minRepeatMs * headroom) / (durationMs / number) + 1, number * golden));
      }
      durationMs = fn.timeBatch(number);
      if (durationMs === 0) zeroTimes++;
      if (stopAbove !== undefined && durationMs / number > stopAbove) break;
    } while (durationMs < minRepeatMs && zeroTimes < limitZero);
    samples.push(durationMs / number);
    if (cooldownMs > 0 && i % repeatsToCooldown === 0) await deps.sleep(cooldownMs);
  }
  return summarize(samples, number);
}
