/**
 * `tessera-grade worker --redis URL`: a worker process of the job queue.
 * It takes "grade" jobs (submissions of `batch --redis`) and "measure" jobs (candidates of a
 * tuning run's QueueRunner) until it gets SIGTERM or SIGINT, finishes the jobs in hand and exits
 * with 0; a second signal exits at once (the jobs in hand then go to another worker once their
 * lock lapses). Run one per GPU (`--gpu N`), or CPU-only workers that grade in the simulator.
 */
import { parseArgs } from "node:util";
import {
  PASSWORD_FILE_ENV,
  QueueConfigError,
  RedisMutex,
  createMeasureHandler,
  gpuLockKey,
  parseRedisUrl,
  redactUrl,
  startWorker,
  stopOnSignals,
} from "@tessera/queue";
import { serializedGpu } from "../batch/serialized-gpu.js";
import { createGradeHandler } from "../queue/grade-handler.js";
import { type GradeCommand, UsageError } from "./command.js";
import { workerLine } from "./specs.js";
import { chooseGpu } from "./gpu-choice.js";
import type { GradeIO } from "./io.js";
import { integerOption } from "./options.js";

export const WORKER_OPTIONS_HELP = [
  "  --redis URL        the job queue's Redis (redis://HOST:PORT[/DB]); required",
  "  --gpu N            use GPU N only (sets CUDA_VISIBLE_DEVICES for this worker and its child processes)",
  "  --no-gpu           grade in the CPU simulator (no timing), whatever GPUs there are",
  "  --concurrency K    jobs handled at once (default 1; without a GPU each grading has a thread of its own)",
  "  --name NAME        shown in the log and stored on the jobs it takes (default host:pid)",
  "  --redis-password-file FILE",
  "                     the Redis password (or ACL user's, with TESSERA_REDIS_USERNAME), read from FILE; also",
  "                     TESSERA_REDIS_PASSWORD or redis://USER:PASSWORD@HOST",
  "  --insecure         work for a Redis that answers without a password although it is not on loopback",
  "",
  "With TESSERA_QUEUE_KEY (or TESSERA_QUEUE_KEY_FILE) set, as on the dispatchers, jobs are signed: unsigned or forged",
  "payloads are refused into the dead-letter queue, and results are signed for the dispatcher to check.",
  "",
  "Prints one line per job. Exit code: 0 after SIGTERM/SIGINT (the jobs in hand are finished first), 1 when",
  "Redis cannot be reached, 2 for a bad command line.",
].join("\n");

export interface WorkerInvocation {
  readonly redis: string;
  readonly gpu: number | undefined;
  readonly noGpu: boolean;
  readonly concurrency: number;
  readonly name: string | undefined;
  readonly passwordFile: string | undefined;
  readonly insecure: boolean;
}

export function parseWorkerArgs(args: readonly string[]): WorkerInvocation {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    strict: true,
    options: {
      redis: { type: "string" },
      gpu: { type: "string" },
      "no-gpu": { type: "boolean" },
      concurrency: { type: "string" },
      name: { type: "string" },
      "redis-password-file": { type: "string" },
      insecure: { type: "boolean" },
    },
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}" (worker takes options only)`);
  if (values.redis === undefined) throw new UsageError("worker needs --redis URL: the job queue's Redis, e.g. --redis redis://127.0.0.1:6379");
  try {
    parseRedisUrl(values.redis, {});
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (values.gpu !== undefined && values["no-gpu"] === true) throw new UsageError("--gpu and --no-gpu contradict each other");
  return {
    redis: values.redis,
    gpu: values.gpu === undefined ? undefined : integerOption("--gpu", values.gpu, 0, 0, 1023),
    noGpu: values["no-gpu"] === true,
    concurrency: integerOption("--concurrency", values.concurrency, 1, 1, 64),
    name: values.name,
    passwordFile: values["redis-password-file"],
    insecure: values.insecure === true,
  };
}

export async function runWorkerCommand(inv: WorkerInvocation, io: GradeIO): Promise<number> {
  // Read wherever the queue connects (the GPU lock, the worker); never passed to the sandbox (it gets no environment).
  if (inv.passwordFile !== undefined) process.env[PASSWORD_FILE_ENV] = inv.passwordFile;
  // Before anything opens the GPU: the driver reads it once, and child processes inherit it.
  if (inv.gpu !== undefined) process.env.CUDA_VISIBLE_DEVICES = String(inv.gpu);
  const choice = chooseGpu(inv.noGpu);
  // Workers on one GPU take turns on it (their kernels and timings must not overlap): a lock per
  // machine and GPU, in the queue's Redis.
  let gpuLock: RedisMutex | undefined;
  if (choice.gpu !== undefined) {
    try {
      gpuLock = await RedisMutex.open(inv.redis, gpuLockKey());
    } catch (err) {
      choice.gpu.dispose();
      if (err instanceof QueueConfigError) {
        io.stderr(`tessera-grade worker: ${err.message}\n`);
        return 1;
      }
      throw err;
    }
  }
  const lock = gpuLock;
  const gpu = choice.gpu === undefined || lock === undefined ? undefined : serializedGpu(choice.gpu, (work) => lock.run(work));
  const where =
    gpu !== undefined
      ? `GPU ${gpu.name}${inv.gpu === undefined ? "" : ` (CUDA_VISIBLE_DEVICES=${inv.gpu})`}`
      : `no GPU (${choice.reason ?? "none"}): grading in the CPU simulator`;
  const grade = createGradeHandler({ concurrency: inv.concurrency, gpu: gpu !== undefined ? { backend: gpu } : { reason: choice.reason ?? "no GPU" } });
  const measure = createMeasureHandler(lock === undefined ? undefined : (work) => lock.run(work));
  const dispose = async (): Promise<void> => {
    await grade.dispose();
    await measure.dispose();
    gpuLock?.close();
  };
  let worker;
  try {
    worker = await startWorker({
      redisUrl: inv.redis,
      handlers: [grade.handler, measure.handler],
      concurrency: inv.concurrency,
      insecure: inv.insecure,
      ...(inv.name === undefined ? {} : { name: inv.name }),
      log: (line) => io.stdout(`${line}\n`),
    });
  } catch (err) {
    await dispose();
    if (err instanceof QueueConfigError) {
      io.stderr(`tessera-grade worker: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
  io.stdout(`[${worker.name}] ready: jobs from ${redactUrl(inv.redis)}, ${inv.concurrency} at a time, on ${where}\n`);
  try {
    await stopOnSignals(worker, (line) => io.stdout(`${line}\n`));
  } finally {
    await dispose();
  }
  io.stdout(`[${worker.name}] stopped\n`);
  return 0;
}

export const workerCommand: GradeCommand = {
  ...workerLine,
  help: WORKER_OPTIONS_HELP,
  run: async (args, io) => runWorkerCommand(parseWorkerArgs(args), io),
};
