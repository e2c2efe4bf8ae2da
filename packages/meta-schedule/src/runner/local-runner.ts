/**
 * TVM's `LocalRunner`: measures built candidates on the GPU — or, for candidates the CpuBuilder
 * compiled for the CPU target, on the host (cpu-backend.ts) — in a separate child process, one at a
 * time, with TVM's evaluator semantics (number=3, repeat=1, min_repeat_ms=100 by default) on
 * seeded random arguments allocated from the ArgInfo. A candidate that crashes the child (an
 * illegal address, a launch failure, an abort) or outlives its limit (TVM: 30 s) gets a failed
 * result with the reason; the child is restarted and the batch goes on.
 */
import { cuda } from "@tessera/runtime";
import { isTypeScript, resolveEntryPoint, type EntryPoint } from "../isolation/entry-point.js";
import { errorText } from "../isolation/serve.js";
import { TaskPool } from "../isolation/task-pool.js";
import type { MeasureBatch, MeasureBatchReply, MeasureResult, MeasureTask } from "./measure-backend.js";
import { DEFAULT_OUTPUT_SAMPLES, type OutputSamples, sampleIndices } from "./output-digest.js";
import { RandomArgsCache } from "./random-args.js";
import { argInfoToJSON } from "../arg-info.js";
import type { RunnerChecker } from "./checker.js";
import { DEFAULT_EVALUATOR_CONFIG, type EvaluatorConfig, type Runner, type RunnerInput, type RunnerResult } from "../interfaces/runner.js";

export interface LocalRunnerOptions {
  readonly evaluator?: Partial<EvaluatorConfig>;
  /** Limit per candidate in seconds (TVM: 30). */
  readonly timeoutSec?: number;
  /** How long the child may take to start, in seconds (default 120). */
  readonly startTimeoutSec?: number;
  /** Seed of the random arguments (default 0). */
  readonly seed?: number;
  /** Checks each candidate's results (the runner then runs it once more, untimed). */
  readonly checker?: RunnerChecker;
  /**
   * Elements of each argument the check compares one by one (default DEFAULT_OUTPUT_SAMPLES;
   * whole-array sums cover the rest, see output-digest.ts), or "all".
   */
  readonly checkSamples?: OutputSamples;
  readonly deviceOrdinal?: number;
  /**
   * Not TVM's: a candidate whose first timed runs are more than this many times slower than the
   * fastest checked candidate of its workload so far is not timed further (its first sample is its
   * time; default 3). It cannot be the best, and the precision saved is most of the time spent on
   * slow candidates. `false` times every candidate as TVM does.
   */
  readonly stopSlowerThan?: number | false;
  /**
   * Not TVM's: a sample growing to `minRepeatMs` aims this much higher (default 1.2; 1 is TVM's),
   * so that a first estimate made slow by an idle GPU does not end in a sample 1.6× too long.
   */
  readonly sampleHeadroom?: number;
  /** A module (path or file URL) exporting `backend: MeasureBackend`, instead of the GPU: for tests. */
  readonly backendModule?: string;
  /** The child's code, when not the default `runner-child` beside this module (see entry-point.ts). */
  readonly childEntry?: EntryPoint;
  /**
   * Not TVM's: send the candidates of a `run` call to the child in one message, measured there one
   * after another (default false). The GPU then never waits for this process to read a result and
   * send the next candidate (70–75 ms a candidate while a search ran beside it). Within a batch,
   * `stopSlowerThan` compares with the fastest candidate checked before the batch. A batch that
   * crashes the child or outlives `timeoutSec` per candidate (`BATCH_TIMEOUT_CAP_SEC` at most beyond
   * one candidate's) is measured again one candidate at a time.
   */
  readonly batch?: boolean;
}

export const DEFAULT_RUN_TIMEOUT_SEC = 30;

/** Seconds a batch may take per candidate beyond one candidate's limit, so that a hang costs minutes, not the sum of every limit. */
export const BATCH_TIMEOUT_PER_CANDIDATE_SEC = 5;

/** LocalRunnerOptions.stopSlowerThan's default. */
export const DEFAULT_STOP_SLOWER_THAN = 3;

/** LocalRunnerOptions.sampleHeadroom's default. */
export const DEFAULT_SAMPLE_HEADROOM = 1.2;

/**
 * The child's entry as the pool starts it: with tsx's loader when the entry or the backend module
 * it imports is TypeScript (a child started from a bundle or dist cannot import a `.ts` backend
 * without it).
 */
export function runnerChildStart(entry: EntryPoint, backendModule: string | undefined): EntryPoint {
  return backendModule !== undefined && isTypeScript(backendModule) && !entry.typeScript ? { ...entry, typeScript: true } : entry;
}

/** The default child entry, resolved for sources, the GPU bundle (ms-runner-child.mjs) or dist. */
export function runnerChildEntry(): EntryPoint {
  return resolveEntryPoint(import.meta.url, { module: "runner-child", bundle: "ms-runner-child.mjs" });
}

function checkEvaluator(e: EvaluatorConfig): EvaluatorConfig {
  for (const key of ["number", "repeat"] as const)
    if (!Number.isInteger(e[key]) || e[key] < 1) throw new RangeError(`LocalRunner: evaluator.${key} must be a positive integer, got ${e[key]}`);
  if (!(e.minRepeatMs >= 0)) throw new RangeError(`LocalRunner: evaluator.minRepeatMs must be non-negative, got ${e.minRepeatMs}`);
  return e;
}

export class LocalRunner implements Runner {
  readonly name = "LocalRunner";
  readonly evaluator: EvaluatorConfig;
  readonly timeoutMs: number;
  readonly #opts: LocalRunnerOptions;
  readonly #pool: TaskPool<MeasureTask | MeasureBatch, MeasureResult | MeasureBatchReply>;
  /** The checker's view of the inputs, drawn once per workload rather than once per candidate. */
  readonly #inputs = new RandomArgsCache();
  /** The fastest checked run so far (ms), per workload (or per argument list, without one). */
  readonly #fastestMs = new Map<unknown, number>();
  readonly #stopSlowerThan: number | undefined;
  readonly #headroom: number;

  /** The name of the check each candidate's outputs go through (undefined: timed only, as TVM's runner). */
  get checkName(): string | undefined {
    return this.#opts.checker?.name;
  }

  constructor(opts: LocalRunnerOptions = {}) {
    this.#opts = opts;
    this.evaluator = checkEvaluator({ ...DEFAULT_EVALUATOR_CONFIG, ...opts.evaluator });
    const stop = opts.stopSlowerThan ?? DEFAULT_STOP_SLOWER_THAN;
    if (stop !== false && !(stop >= 1)) throw new RangeError(`LocalRunner: stopSlowerThan must be at least 1 (or false), got ${stop}`);
    this.#stopSlowerThan = stop === false ? undefined : stop;
    this.#headroom = opts.sampleHeadroom ?? DEFAULT_SAMPLE_HEADROOM;
    if (!(this.#headroom >= 1)) throw new RangeError(`LocalRunner: sampleHeadroom must be at least 1, got ${this.#headroom}`);
    // Checked here rather than in the child, where a bad count would fail every candidate.
    if (opts.checkSamples !== undefined && opts.checkSamples !== "all") sampleIndices(0, opts.checkSamples);
    const timeoutSec = opts.timeoutSec ?? DEFAULT_RUN_TIMEOUT_SEC;
    if (!(timeoutSec > 0)) throw new RangeError(`LocalRunner: timeoutSec must be positive, got ${timeoutSec}`);
    this.timeoutMs = timeoutSec * 1000;
    this.#pool = new TaskPool({
      kind: "process",
      entry: runnerChildStart(opts.childEntry ?? runnerChildEntry(), opts.backendModule),
      // One child: candidates are timed one after the other, never on a shared GPU.
      size: 1,
      startTimeoutMs: (opts.startTimeoutSec ?? 120) * 1000,
      env: opts.backendModule === undefined ? {} : { TESSERA_RUNNER_BACKEND: opts.backendModule },
    });
  }

  /**
   * Where measuring time went so far, in milliseconds summed over candidates: the child's steps
   * (load, upload, check, timing), "transfer" (the rest of the round trip to the child: sending the
   * image, the digests back) and "verify" (the checker, here), with the candidates measured; and,
   * within timing, the GPU's time in the timed runs and their number.
   */
  get timeSpent(): {
    readonly candidates: number;
    readonly stepsMs: Readonly<Record<string, number>>;
    readonly timedGpuMs: number;
    readonly timedRuns: number;
  } {
    return { candidates: this.#measured, stepsMs: { ...this.#stepsMs }, timedGpuMs: this.#timedGpuMs, timedRuns: this.#timedRuns };
  }

  #measured = 0;
  #timedGpuMs = 0;
  #timedRuns = 0;
  readonly #stepsMs: Record<string, number> = {};

  #addSteps(steps: Readonly<Record<string, number>>): void {
    for (const [name, ms] of Object.entries(steps)) this.#stepsMs[name] = (this.#stepsMs[name] ?? 0) + ms;
  }

  /** Batches measured again one candidate at a time after they crashed the child or timed out. */
  batchFallbacks = 0;

  /** Child processes started so far (a restart after a crash or a timeout starts another). */
  get childrenStarted(): number {
    return this.#pool.spawned;
  }

  async run(inputs: readonly RunnerInput[]): Promise<RunnerResult[]> {
    const needsGpu = inputs.some((input) => input.artifact?.host === undefined);
    if (this.#opts.backendModule === undefined && needsGpu && !cuda.available()) {
      // Not a child per candidate that finds no GPU: say so once per result.
      const error = `LocalRunner: no CUDA device to measure on (${cuda.unavailableReason() ?? "unknown reason"}); use the SimulatedRunner without a GPU`;
      return inputs.map(() => ({ ok: false, error }));
    }
    if (this.#opts.batch === true && inputs.length > 1) {
      const batched = await this.#runBatch(inputs);
      if (batched !== undefined) return batched;
      this.batchFallbacks++;
    }
    const results: RunnerResult[] = [];
    for (const input of inputs) results.push(await this.#runOne(input));
    return results;
  }

  /** The inputs measured by one message to the child; undefined when the batch failed as a whole. */
  async #runBatch(inputs: readonly RunnerInput[]): Promise<RunnerResult[] | undefined> {
    const tasks = inputs.map((input) => this.#taskOf(input));
    const batch = tasks.filter((t): t is MeasureTask => typeof t !== "string");
    const sent = performance.now();
    const perCandidateMs = Math.min(this.timeoutMs, BATCH_TIMEOUT_PER_CANDIDATE_SEC * 1000);
    const outcome = batch.length === 0 ? undefined : await this.#pool.run({ batch }, this.timeoutMs + perCandidateMs * (batch.length - 1));
    if (outcome !== undefined && !outcome.ok) return undefined;
    const replies = (outcome?.value ?? []) as MeasureBatchReply;
    if (replies.length !== batch.length) return undefined;
    let inChild = 0;
    for (const reply of replies) if (reply.ok) inChild += Object.values(reply.result.stepsMs ?? {}).reduce((a, b) => a + b, 0);
    this.#addSteps({ transfer: Math.max(0, performance.now() - sent - inChild) });
    const results: RunnerResult[] = [];
    let next = 0;
    for (const [k, task] of tasks.entries()) {
      if (typeof task === "string") {
        results.push({ ok: false, error: task });
        continue;
      }
      const reply = replies[next++]!;
      results.push(reply.ok ? await this.#resultOf(inputs[k]!, reply.result) : { ok: false, error: reply.error });
    }
    return results;
  }

  async #runOne(input: RunnerInput): Promise<RunnerResult> {
    const task = this.#taskOf(input);
    if (typeof task === "string") return { ok: false, error: task };
    const sent = performance.now();
    const outcome = await this.#pool.run(task, this.timeoutMs);
    if (!outcome.ok) return { ok: false, error: outcome.kind === "timeout" ? `the run ${outcome.error}` : outcome.error };
    const value = outcome.value as MeasureResult;
    const inChild = Object.values(value.stepsMs ?? {}).reduce((a, b) => a + b, 0);
    this.#addSteps({ transfer: Math.max(0, performance.now() - sent - inChild) });
    return this.#resultOf(input, value);
  }

  /** What the child is sent to measure `input`, or why it cannot be. */
  #taskOf(input: RunnerInput): MeasureTask | string {
    const { artifact, argsInfo } = input;
    if (artifact === undefined || typeof artifact.source !== "string") return "LocalRunner: the input has no built artifact";
    const { lowered: _lowered, ...portable } = artifact;
    const checker = this.#opts.checker;
    return {
      artifact: portable,
      argsInfo,
      evaluator: this.evaluator,
      seed: this.#opts.seed ?? 0,
      returnOutputs: checker !== undefined,
      outputSamples: this.#opts.checkSamples ?? DEFAULT_OUTPUT_SAMPLES,
      deviceOrdinal: this.#opts.deviceOrdinal ?? 0,
      ...this.#stopAbove(input),
      ...(this.#headroom === 1 ? {} : { headroom: this.#headroom }),
    };
  }

  /** A measured candidate's result: its step times counted, its outputs checked. */
  async #resultOf(input: RunnerInput, measured: MeasureResult): Promise<RunnerResult> {
    const { runSecs, outputs, stepsMs = {}, timed } = measured;
    this.#timedGpuMs += timed?.gpuMs ?? 0;
    this.#timedRuns += timed?.runs ?? 0;
    this.#measured++;
    this.#addSteps(stepsMs);
    const verifyStarted = performance.now();
    try {
      const result = await this.#verified(input, this.#opts.seed ?? 0, runSecs, outputs);
      if (result.ok) this.#noteFastest(input, result.runSecs);
      return result;
    } finally {
      this.#addSteps({ verify: performance.now() - verifyStarted });
    }
  }

  #workloadKey(input: RunnerInput): unknown {
    return input.workload ?? JSON.stringify(input.argsInfo.map(argInfoToJSON));
  }

  #stopAbove(input: RunnerInput): { stopAboveMsPerRun?: number } {
    const fastest = this.#fastestMs.get(this.#workloadKey(input));
    return this.#stopSlowerThan === undefined || fastest === undefined ? {} : { stopAboveMsPerRun: fastest * this.#stopSlowerThan };
  }

  #noteFastest(input: RunnerInput, runSecs: readonly number[]): void {
    const ms = Math.min(...runSecs) * 1000;
    if (!(ms > 0 && Number.isFinite(ms))) return;
    const key = this.#workloadKey(input);
    if (ms < (this.#fastestMs.get(key) ?? Number.POSITIVE_INFINITY)) this.#fastestMs.set(key, ms);
  }

  async #verified(input: RunnerInput, seed: number, runSecs: readonly number[], outputs: MeasureResult["outputs"]): Promise<RunnerResult> {
    const { argsInfo } = input;
    const checker = this.#opts.checker;
    if (checker !== undefined) {
      try {
        await checker.prepare?.(input, seed);
      } catch (err) {
        return { ok: false, error: `the ${checker.name} check could not compute its reference: ${errorText(err)}` };
      }
      if (outputs === undefined) return { ok: false, error: `the runner backend sent no outputs for the ${checker.name} check` };
      let wrong: string | undefined;
      try {
        wrong = checker.check(outputs, this.#inputs.get(argsInfo, seed), input);
      } catch (err) {
        // A reference that fails (say, the CPU executor on this workload) fails this candidate, not the batch.
        return { ok: false, error: `the ${checker.name} check failed: ${errorText(err)}` };
      }
      if (wrong !== undefined) return { ok: false, error: `wrong result (${checker.name} check): ${wrong}` };
    }
    return { ok: true, runSecs: [...runSecs] };
  }

  async dispose(): Promise<void> {
    await this.#pool.dispose();
  }
}
