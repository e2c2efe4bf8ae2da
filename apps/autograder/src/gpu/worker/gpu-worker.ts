/**
 * The grader's GPU, isolated: a GpuBackend whose numerics and timing run in a child process that
 * owns the CUDA context (gpu-worker-child.ts), one request at a time, each under a watchdog. A
 * request that hits a CUDA error, crashes the child or outlives its limit fails as a GpuFault in
 * the student's terms; the child is killed and the next request starts a fresh one, so one faulting
 * kernel never breaks CUDA for the rest of a batch. The pool machinery (time limits, restarts,
 * crash reports) is meta-schedule's, as its LocalRunner uses it.
 */
import { printTVMScript } from "@tessera/ir";
import { type EntryPoint, TaskPool, type TaskOutcome, resolveEntryPoint } from "@tessera/meta-schedule/isolation";
import type { Schedule } from "@tessera/schedule";
import type { GpuBackend, NumericsOutcome, NumericsRequest, TimingOutcome } from "../../grade/numerics-types.js";
import type { Timing } from "../../manifest/index.js";
import { type GpuFault, describeGpuFault } from "../fault.js";
import { gpuKeyFor } from "../gpu-key.js";
import { messageOf } from "../messages.js";
import { assignmentBinding } from "../../assignment.js";
import { workloadSizeLabel } from "../../workload-size.js";
import { GPU_WORKER_BACKEND_ENV } from "./backend-env.js";
import type { GpuWorkReply, GpuWorkRequest } from "./protocol.js";

export interface GpuWorkerOptions {
  /** The watchdog: how long one request (numerics of all rounds, or one timing) may take, in seconds (default 60). */
  readonly requestTimeoutSec?: number;
  /** How long the worker may take to start (load its code), in seconds (default 120). */
  readonly startTimeoutSec?: number;
  /** A module (path or file URL) exporting `backend: GpuWorkBackend`, instead of the GPU: for tests. */
  readonly backendModule?: string;
  /** The child's code, when not the default `gpu-worker-child` beside this module (see meta-schedule's entry-point.ts). */
  readonly childEntry?: EntryPoint;
  /** Extra environment variables of the worker process. */
  readonly env?: Readonly<Record<string, string>>;
}

export const DEFAULT_GPU_REQUEST_TIMEOUT_SEC = 60;

type RunResult = GpuWorkReply | { readonly fault: GpuFault } | { readonly error: string };

/** The worker's entry, resolved for sources, the GPU bundle (grade-gpu-worker.mjs) or dist. */
export function gpuWorkerEntry(): EntryPoint {
  return resolveEntryPoint(import.meta.url, { module: "gpu-worker-child", bundle: "grade-gpu-worker.mjs" });
}

function positiveSeconds(value: number, what: string): number {
  if (!(value > 0) || !Number.isFinite(value)) throw new RangeError(`GpuWorker: ${what} must be a positive number of seconds, got ${value}`);
  return value;
}

export class GpuWorker implements GpuBackend {
  readonly key: string | undefined;
  readonly requestTimeoutSec: number;
  readonly #newPool: () => TaskPool<GpuWorkRequest, GpuWorkReply>;
  #pool: TaskPool<GpuWorkRequest, GpuWorkReply>;
  /** Workers of the pools replaced after a fault. */
  #startedBefore = 0;
  #disposed = false;
  #turns: Promise<void> = Promise.resolve();
  /** Whether the current worker process answered a ping (requests then run on a worker known to work). */
  #started = false;
  readonly #pids: number[] = [];

  /** `name`: the driver's name of the GPU the worker will open (device 0). */
  constructor(
    readonly name: string,
    opts: GpuWorkerOptions = {},
  ) {
    this.key = gpuKeyFor(name);
    this.requestTimeoutSec = positiveSeconds(opts.requestTimeoutSec ?? DEFAULT_GPU_REQUEST_TIMEOUT_SEC, "requestTimeoutSec");
    const startTimeoutMs = positiveSeconds(opts.startTimeoutSec ?? 120, "startTimeoutSec") * 1000;
    const entry = opts.childEntry ?? gpuWorkerEntry();
    const env = { ...opts.env, ...(opts.backendModule === undefined ? {} : { [GPU_WORKER_BACKEND_ENV]: opts.backendModule }) };
    // One child: requests of one grading run one after the other, never on a shared context.
    this.#newPool = () => new TaskPool({ kind: "process", entry, size: 1, startTimeoutMs, env });
    this.#pool = this.#newPool();
  }

  /** Worker processes started so far (a fault starts another for the next request). */
  get workersStarted(): number {
    return this.#startedBefore + this.#pool.spawned;
  }

  /** Process ids of the workers that started and answered, oldest first (to check that none outlives its use). */
  get workerPids(): readonly number[] {
    return [...this.#pids];
  }

  async numerics(req: NumericsRequest): Promise<NumericsOutcome> {
    const size = req.settings.sizes.full;
    const failed = (error: string, fault?: GpuFault): NumericsOutcome => ({
      passed: false,
      backend: "gpu",
      device: this.name,
      size,
      shape: workloadSizeLabel(assignmentBinding(req.assignment), size),
      rounds: [],
      error,
      ...(fault === undefined ? {} : { fault }),
    });
    const script = scriptOf(req.schedule);
    if (!script.ok) return failed(script.error);
    const reply = await this.#run({ kind: "numerics", assignment: req.assignment, script: script.text, settings: req.settings, seed: req.seed });
    if ("fault" in reply) return failed(describeGpuFault(reply.fault), reply.fault);
    if ("error" in reply) return failed(reply.error);
    if (reply.kind !== "numerics") return failed(`the GPU worker answered a numerics request with "${reply.kind}"`);
    return reply.outcome;
  }

  /** Throws an Error saying why (in the student's terms after a fault) when the schedule cannot be timed. */
  async time(schedule: Schedule, timing: Timing, assignment: string): Promise<TimingOutcome> {
    const script = scriptOf(schedule);
    if (!script.ok) throw new Error(script.error);
    const reply = await this.#run({ kind: "time", assignment, script: script.text, timing });
    if ("fault" in reply) throw new GpuFaultError(reply.fault);
    if ("error" in reply) throw new Error(reply.error);
    if (reply.kind !== "time") throw new Error(`the GPU worker answered a timing request with "${reply.kind}"`);
    return reply.outcome;
  }

  /**
   * One request at a time, here rather than in the pool's queue: replacing the pool after a fault
   * must not fail requests that were waiting behind the faulting one.
   */
  #run(req: GpuWorkRequest): Promise<RunResult> {
    const turn = this.#turns.then(() => this.#runNow(req));
    this.#turns = turn.then(
      () => undefined,
      () => undefined,
    );
    return turn;
  }

  async #runNow(req: GpuWorkRequest): Promise<RunResult> {
    if (this.#disposed) return { error: "the GPU worker was disposed" };
    if (!this.#started) {
      const ping = await this.#pool.run({ kind: "ping" }, this.requestTimeoutSec * 1000);
      if (!ping.ok) return { error: `the GPU worker could not start: ${withoutErrorName(ping.error)}` };
      if (ping.value.kind === "pong") this.#pids.push(ping.value.pid);
      this.#started = true;
    }
    const outcome = await this.#pool.run(req, this.requestTimeoutSec * 1000);
    const fault = faultOf(outcome, this.requestTimeoutSec);
    if (fault !== undefined) {
      // A timeout or a crash has already cost the pool its worker (its next task starts another);
      // a CUDA error leaves a live worker with an unusable context.
      if (fault.kind === "cuda-error") this.#replaceWorker();
      this.#started = false;
      return { fault };
    }
    if (!outcome.ok) return { error: `the GPU worker could not run the request: ${withoutErrorName(outcome.error)}` };
    return outcome.value;
  }

  #replaceWorker(): void {
    this.#startedBefore += this.#pool.spawned;
    void this.#pool.dispose();
    this.#pool = this.#newPool();
  }

  /** Kills the worker process. Idempotent. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    void this.#pool.dispose();
  }
}

/** A timing that hit a GPU fault: the message is the student's, the fault the details. */
export class GpuFaultError extends Error {
  override readonly name = "GpuFaultError";
  constructor(readonly fault: GpuFault) {
    super(describeGpuFault(fault));
  }
}

function scriptOf(schedule: Schedule): { ok: true; text: string } | { ok: false; error: string } {
  try {
    return { ok: true, text: printTVMScript(schedule.func) };
  } catch (err) {
    return { ok: false, error: `the scheduled function cannot be sent to the GPU worker: ${messageOf(err)}` };
  }
}

/** The fault of a failed request: its worker died or hung under it, or it answered with a CUDA error. */
function faultOf(outcome: TaskOutcome<GpuWorkReply>, timeoutSec: number): GpuFault | undefined {
  if (outcome.ok) return outcome.value.kind === "fault" ? outcome.value.fault : undefined;
  if (outcome.kind === "timeout") return { kind: "timeout", seconds: timeoutSec };
  if (outcome.kind === "crash") return { kind: "crash", how: outcome.error };
  return undefined;
}

/** "Error: text" (how the worker reports a thrown error) as "text". */
function withoutErrorName(error: string): string {
  return error.replace(/^Error: /, "");
}
