/**
 * A runner that measures through a job queue (TVM's RPC runner, on BullMQ: see @tessera/queue and
 * `tessera-grade worker`): each candidate is one "measure" job, for whichever worker takes it, all of a
 * batch at once. The queue itself is injected as `dispatch`, so this package does not depend on
 * it; a job that failed for good (the worker's retries spent) is that candidate's failed result.
 */
import type { Runner, RunnerInput, RunnerResult } from "../interfaces/runner.js";
import { type MeasureJobPayload, type RemoteRunnerSpec, measureJobPayload } from "./measure-job.js";

/** Sends one measure job and resolves with its result (e.g. `Dispatcher.dispatch(MEASURE_JOB, …)`). */
export type MeasureDispatch = (payload: MeasureJobPayload, key: string) => Promise<RunnerResult>;

export interface QueueRunnerOptions {
  readonly dispatch: MeasureDispatch;
  /** How the workers measure (default: the simulated runner). */
  readonly runner?: RemoteRunnerSpec;
  /** Prefix of the job keys, unique per tuning run (default a fresh one). */
  readonly runId?: string;
}

export class QueueRunner implements Runner {
  readonly name = "QueueRunner";
  readonly #opts: QueueRunnerOptions;
  readonly #runId: string;
  #batches = 0;

  constructor(opts: QueueRunnerOptions) {
    this.#opts = opts;
    this.#runId = opts.runId ?? Math.random().toString(36).slice(2, 10);
  }

  async run(inputs: readonly RunnerInput[]): Promise<RunnerResult[]> {
    const batch = this.#batches++;
    const spec = this.#opts.runner ?? { kind: "simulated" };
    return Promise.all(
      inputs.map(async (input, index): Promise<RunnerResult> => {
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
  }
}
