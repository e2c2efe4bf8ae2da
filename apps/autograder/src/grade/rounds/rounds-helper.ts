/**
 * A second core for the simulator's sampled checks: a worker thread (rounds-worker.ts) that runs
 * some of a check's rounds while the grader runs the others. Rounds are independent (each its own
 * launch on its own inputs), so the outcome is the one the grader would reach alone; when the
 * worker cannot help (it failed to start, crashed, or lowered another kernel), the grader runs
 * those rounds itself. The thread starts loading its code on `start()`: the grader calls it once a
 * student's function has given a schedule (see warm-on-schedule.ts), so that the thread is ready by
 * the time the first check comes, and a submission with nothing to check never pays for it.
 */
import { printTVMScript } from "@tessera/ir";
import { type EntryPoint, TaskPool, resolveEntryPoint } from "@tessera/meta-schedule/isolation";
import type { Schedule } from "@tessera/schedule";
import { type SamplePlan, type SampleResult, type SampledRound, assembleSample, endsCheck, runSampledRound } from "../sampled-numerics.js";
import { kernelFingerprint } from "./fingerprint.js";
import type { RoundsReply, RoundsRequest } from "./protocol.js";

/** One request's limit: a worker's share of a check's rounds is at most a few seconds of simulation. */
const REQUEST_TIMEOUT_MS = 300_000;

export function roundsWorkerEntry(): EntryPoint {
  return resolveEntryPoint(import.meta.url, { module: "rounds-worker", bundle: "grade-rounds-worker.mjs" });
}

export class SampledRoundsHelper {
  /** Undefined before `start()`, and when the worker's code cannot be found (every round then runs here). */
  #pool: TaskPool<RoundsRequest, RoundsReply> | undefined;
  #started = false;
  /** Rounds the worker ran, and rounds it was given but the grader ran itself (for tests). */
  readonly stats = { workerRounds: 0, fallbackRounds: 0 };

  /**
   * @param onTrouble told when the worker could not run its rounds (they then ran here), with why:
   *   the outcome is the same, only slower, so this is for the grader's progress lines, not the report
   */
  constructor(
    private readonly entry: EntryPoint | (() => EntryPoint) = roundsWorkerEntry,
    private readonly onTrouble: (why: string) => void = () => {},
  ) {}

  /** Whether the worker thread was asked to start (by `start()` or a first check). */
  get started(): boolean {
    return this.#started;
  }

  /** Starts the worker thread loading its code, once; later calls do nothing. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    let resolved: EntryPoint | undefined;
    try {
      resolved = typeof this.entry === "function" ? this.entry() : this.entry;
    } catch (err) {
      this.onTrouble(err instanceof Error ? err.message : String(err));
    }
    this.#pool = resolved === undefined ? undefined : new TaskPool({ kind: "thread", entry: resolved, size: 1 });
    void this.#pool?.run({ kind: "ping" }, REQUEST_TIMEOUT_MS);
  }

  /**
   * The sampled check of `schedule` lowered as `plan.module`: the plan's rounds split between the
   * worker and this thread by their number of blocks.
   */
  async check(schedule: Schedule, plan: SamplePlan, started: number): Promise<SampleResult> {
    this.start();
    const [mine, theirs] = this.#pool === undefined ? [plan.rounds.map((_, r) => r), []] : splitRounds(plan);
    const remote =
      theirs.length === 0 || this.#pool === undefined
        ? Promise.resolve(undefined)
        : this.#pool.run(
            {
              kind: "rounds",
              assignment: plan.binding.name,
              script: printTVMScript(schedule.func),
              n: plan.n,
              settings: plan.settings,
              seed: plan.seed,
              rounds: plan.rounds,
              run: theirs,
              fingerprint: kernelFingerprint(plan.module),
            },
            REQUEST_TIMEOUT_MS,
          );
    const results = new Map<number, SampledRound>();
    for (const r of mine) {
      const result = runSampledRound(plan, r);
      results.set(r, result);
      if (endsCheck(result)) break;
    }
    const reply = await remote;
    const remoteResults = reply?.ok === true && reply.value.kind === "rounds" && reply.value.results.length === theirs.length ? reply.value.results : undefined;
    if (remoteResults !== undefined) this.stats.workerRounds += theirs.length;
    else if (reply !== undefined) this.onTrouble(reply.ok ? "it gave no result for its rounds" : reply.error);
    theirs.forEach((r, k) => {
      const result = remoteResults?.[k];
      if (result !== undefined) results.set(r, result);
    });
    // In round order, up to the first round that ends the check; any round the worker did not
    // answer runs here, unless an earlier one already ended the check.
    const ordered: SampledRound[] = [];
    for (let r = 0; r < plan.rounds.length; r++) {
      let result = results.get(r);
      if (result === undefined) {
        result = runSampledRound(plan, r);
        if (theirs.includes(r)) this.stats.fallbackRounds++;
      }
      ordered.push(result);
      if (endsCheck(result)) break;
    }
    return assembleSample(plan, ordered, started);
  }

  async dispose(): Promise<void> {
    await this.#pool?.dispose();
  }
}

/** Round indices for this thread and for the worker, each side about half of the blocks (the larger rounds first). */
export function splitRounds(plan: SamplePlan): [number[], number[]] {
  const order = plan.rounds.map((blocks, r) => ({ r, size: blocks.length })).sort((a, b) => b.size - a.size || a.r - b.r);
  const sides: [{ rounds: number[]; size: number }, { rounds: number[]; size: number }] = [
    { rounds: [], size: 0 },
    { rounds: [], size: 0 },
  ];
  for (const { r, size } of order) {
    const side = sides[0].size <= sides[1].size ? sides[0] : sides[1];
    side.rounds.push(r);
    side.size += size;
  }
  return [sides[0].rounds.sort((a, b) => a - b), sides[1].rounds.sort((a, b) => a - b)];
}
