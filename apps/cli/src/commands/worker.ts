/**
 * `tessera worker --redis URL [--gpu N]`: a measuring worker of the job queue for tuning runs
 * (`tessera tune --redis`), until SIGTERM or SIGINT (the job in hand is finished first; a second
 * signal exits at once and the job goes to another worker once its lock lapses).
 */
import { PASSWORD_FILE_ENV, QueueConfigError, parseRedisUrl, redactUrl, startMeasureWorker, stopOnSignals } from "@tessera/queue";
import { CliError } from "../errors.js";
import { parseCommandArgs } from "../help/args.js";
import type { CliIO } from "../io.js";
import { workerSpec } from "./specs.js";

export async function run(args: readonly string[], io: CliIO): Promise<number> {
  const { positionals, values } = parseCommandArgs(workerSpec, args);
  if (positionals.length > 0) throw new CliError(`unexpected argument '${positionals[0]}' (tessera worker takes options only)`);
  if (values.redis === undefined) throw new CliError("tessera worker needs --redis URL: the job queue's Redis, e.g. --redis redis://127.0.0.1:6379");
  const gpu = values.gpu === undefined ? undefined : gpuNumber("--gpu", values.gpu);
  if (values["redis-password-file"] !== undefined) process.env[PASSWORD_FILE_ENV] = values["redis-password-file"];
  try {
    parseRedisUrl(values.redis);
  } catch (err) {
    throw new CliError((err as Error).message);
  }
  // Before anything opens the GPU: the driver reads it once, and the measuring child inherits it.
  if (gpu !== undefined) process.env.CUDA_VISIBLE_DEVICES = String(gpu);
  let worker: Awaited<ReturnType<typeof startMeasureWorker>>;
  try {
    worker = await startMeasureWorker({
      redisUrl: values.redis,
      insecure: values.insecure === true,
      ...(values.name === undefined ? {} : { name: values.name }),
      log: (line) => io.stdout(`${line}\n`),
    });
  } catch (err) {
    if (err instanceof QueueConfigError) throw new CliError(err.message, 1);
    throw err;
  }
  const where = process.env.CUDA_VISIBLE_DEVICES === undefined ? "this machine's GPU" : `CUDA_VISIBLE_DEVICES=${process.env.CUDA_VISIBLE_DEVICES}`;
  io.stdout(`[${worker.name}] ready: measure jobs from ${redactUrl(values.redis)} on ${where}\n`);
  await stopOnSignals(worker, (line) => io.stdout(`${line}\n`));
  io.stdout(`[${worker.name}] stopped\n`);
  return 0;
}

/** A GPU's number as CUDA counts them (0, 1, …). */
export function gpuNumber(flag: string, raw: string): number {
  if (!/^\d{1,4}$/.test(raw)) throw new CliError(`${flag} expects a GPU number (0, 1, …), got '${raw}'`);
  return Number(raw);
}

/** `--gpus 0,1,…`: distinct GPU numbers. */
export function gpuList(raw: string): number[] {
  const gpus = raw.split(",").map((part) => gpuNumber("--gpus", part.trim()));
  const twice = gpus.find((g, i) => gpus.indexOf(g) !== i);
  if (twice !== undefined) throw new CliError(`--gpus names GPU ${twice} twice ('${raw}')`);
  return gpus;
}
