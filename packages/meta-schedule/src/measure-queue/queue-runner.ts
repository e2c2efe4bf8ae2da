/**
 * A runner that measures through a job queue (TVM's RPC runner, on BullMQ: see @tessera/queue and
 * `tessera-grade worker`): each candidate is one "measure" job, for whichever worker takes it, all of a
 * batch at once. The queue itself is injected as `dispatch`, so this package does not depend on
 * it; a job that failed for good (the worker's retries spent) is that candidate's failed result.
 *
 * With a `checker`, the workers send back each argument's digest after a run and the check runs
 * here, in candidate order (the first-result checker's reference is then the same whichever worker
 * finishes first): a wrong kernel is a failed trial, as with a LocalRunner and its checker.
 */
import type { Runner, RunnerInput, RunnerResult } from "../interfaces/runner.js";
import type { RunnerChecker } from "../runner/checker.js";
import { RandomArgsCache } from "../runner/random-args.js";
import { decodeDigest } from "./digest-json.js";
import { type MeasureJobPayload, type MeasureJobResult, type RemoteRunnerSpec, measureJobPayload } from "./measure-job.js";

/** Sends one measure job and resolves with its result (e.g. `Dispatcher.dispatch(MEASURE_JOB, …)`). */
export type MeasureDispatch = (payload: MeasureJobPayload, key: string) => Promise<MeasureJobResult>;

export interface QueueRunnerOptions {
  readonly dispatch: MeasureDispatch;
  /** How the workers measure (default: the simulated runner). */
  readonly runner?: RemoteRunnerSpec;
  /** Prefix of the job keys, unique per tuning run (default a fresh one). */
  readonly runId?: string;
  /** Checks each measured candidate's outputs (the local runner's kind only: the workers send them back). */
  readonly checker?: RunnerChecker;
}

export class QueueRunner implements Runner {
  readonly name = "QueueRunner";
  readonly #opts: QueueRunnerOptions;
  readonly #runId: string;
  #batches = 0;
  /** The seeded random arguments the workers ran on, per argument list (what a checker's reference is computed from). */
  readonly #inputs = new RandomArgsCache();

  constructor(opts: QueueRunnerOptions) {
    this.#opts = opts;
    this.#runId = opts.runId ?? Math.random().toString(36).slice(2, 10);
  }

  async run(inputs: readonly RunnerInput[]): Promise<RunnerResult[]> {
    const batch = this.#batches++;
    const spec = this.#spec();
    const results = await Promise.all(
      inputs.map(async (input, index): Promise<MeasureJobResult> => {
        let payload: MeasureJobPayload;
        try {
          payload = measureJobPayload(input, spec);
        } catch (err) {
          return { ok: false, error: err instanceof Error ? err.message : String(err) };
        }
        try {
          return await this.#opts.dispatch(payload, `${this.#runId}/${batch}/${index}`);
        } catch (err) {
          return { ok: false, error: `QueueRunner: ${err instanceof Error ? err.message : String(err)}` };
        }
      }),
    );
    const checked: RunnerResult[] = [];
    // In candidate order, whatever order the jobs finished in.
    for (const [index, result] of results.entries()) checked.push(await this.#checked(result, inputs[index]!, spec));
    return checked;
  }

  #spec(): RemoteRunnerSpec {
    const spec = this.#opts.runner ?? { kind: "simulated" };
    return this.#opts.checker !== undefined && spec.kind === "local" ? { ...spec, returnOutputs: true } : spec;
  }

  async #checked(result: MeasureJobResult, input: RunnerInput, spec: RemoteRunnerSpec): Promise<RunnerResult> {
    if (!result.ok) return result;
    const timed: RunnerResult = { ok: true, runSecs: result.runSecs };
    const checker = this.#opts.checker;
    if (checker === undefined || spec.kind !== "local") return timed;
    if (result.outputs === undefined) return { ok: false, error: `the worker sent back no outputs for the ${checker.name} check` };
    const seed = spec.seed ?? 0;
    try {
      const outputs = result.outputs.map(decodeDigest);
      await checker.prepare?.(input, seed);
      const wrong = checker.check(outputs, this.#inputs.get(input.argsInfo, seed), input);
      return wrong === undefined ? timed : { ok: false, error: `wrong result (${checker.name} check): ${wrong}` };
    } catch (err) {
      return { ok: false, error: `the ${checker.name} check failed: ${err instanceof Error ? err.message : String(err)}` };
    }
  }
}
