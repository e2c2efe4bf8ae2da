/**
 * Worker processes, one per GPU of this machine, each pinned to its GPU (CUDA_VISIBLE_DEVICES):
 * what `tessera tune --gpus 0,1` starts so that every GPU measures. Each one's output goes to a
 * log file of its own; the pool is ready once every worker printed its ready line, and fails,
 * naming the GPU and quoting its log, when one exits before that.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { type WriteStream, createWriteStream, mkdirSync } from "node:fs";
import { join } from "node:path";

/** How to start one worker: a program and its arguments. */
export interface WorkerCommand {
  readonly file: string;
  readonly args: readonly string[];
  /** Where it starts (default this process's working directory). */
  readonly cwd?: string;
}

export interface GpuWorkersOptions {
  /** The GPUs, as CUDA numbers them on this machine; one worker each. */
  readonly gpus: readonly number[];
  readonly command: WorkerCommand;
  /** Added to this process's environment (e.g. the Redis password, which stays off the command line). */
  readonly env?: NodeJS.ProcessEnv;
  /** Where `worker-gpu<N>.log` go. */
  readonly logDir: string;
  /** A line of the worker's stdout that says it takes jobs (default: `[name] ready: …`). */
  readonly ready?: RegExp;
  readonly readyTimeoutMs?: number;
  /** Called when a worker exits on its own after it was ready (a crash): the jobs it held go to the others. */
  readonly onExit?: (gpu: number, how: string, remaining: number) => void;
}

export interface GpuWorkers {
  /** Log file of each worker, by GPU. */
  readonly logs: ReadonlyMap<number, string>;
  /** Asks every worker to finish its job in hand and exit (SIGTERM; SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<void>;
}

interface Started {
  readonly gpu: number;
  readonly child: ChildProcess;
  readonly log: WriteStream;
  readonly exited: Promise<string>;
  output: string;
}

const READY = /^\[[^\]]*\] ready: /m;

export async function startGpuWorkers(opts: GpuWorkersOptions): Promise<GpuWorkers> {
  if (opts.gpus.length === 0) throw new RangeError("startGpuWorkers: no GPU given");
  if (new Set(opts.gpus).size !== opts.gpus.length) throw new RangeError(`startGpuWorkers: a GPU is named twice in ${opts.gpus.join(",")}`);
  mkdirSync(opts.logDir, { recursive: true });
  const logs = new Map(opts.gpus.map((gpu) => [gpu, join(opts.logDir, `worker-gpu${gpu}.log`)]));
  const started = opts.gpus.map((gpu) => spawnWorker(gpu, logs.get(gpu)!, opts));
  let stopping = false;
  const stop = async (graceMs = 30_000): Promise<void> => {
    stopping = true;
    await Promise.all(started.map((w) => stopWorker(w, graceMs)));
  };
  try {
    await Promise.all(started.map((w) => untilReady(w, opts.ready ?? READY, opts.readyTimeoutMs ?? 120_000)));
  } catch (err) {
    await stop(5_000);
    throw err;
  }
  let running = started.length;
  for (const w of started)
    void w.exited.then((how) => {
      running--;
      if (!stopping) opts.onExit?.(w.gpu, how, running);
    });
  return { logs, stop };
}

function spawnWorker(gpu: number, logFile: string, opts: GpuWorkersOptions): Started {
  const child = spawn(opts.command.file, [...opts.command.args], {
    ...(opts.command.cwd === undefined ? {} : { cwd: opts.command.cwd }),
    env: { ...process.env, ...opts.env, CUDA_VISIBLE_DEVICES: String(gpu) },
    // The IPC channel closes when this process dies, however: the worker then stops (stopOnSignals).
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  const log = createWriteStream(logFile, { flags: "a" });
  const exited = new Promise<string>((resolve) => {
    child.once("error", (err) => resolve(err.message));
    child.once("exit", (code, signal) => resolve(signal === null ? `exit code ${code}` : signal));
  });
  const w: Started = { gpu, child, log, exited, output: "" };
  const take = (d: Buffer): void => {
    log.write(d);
    // Only the start is kept in memory: the ready line, or why there was none.
    if (w.output.length < 64 * 1024) w.output += d.toString();
  };
  child.stdout?.on("data", take);
  child.stderr?.on("data", take);
  void exited.then(() => log.end());
  return w;
}

function untilReady(w: Started, ready: RegExp, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const fail = (why: string): void => {
      clearInterval(poll);
      clearTimeout(timer);
      reject(new Error(`the worker on GPU ${w.gpu} ${why}; its output:\n${w.output.trim() || "(none)"}`));
    };
    const poll = setInterval(() => {
      if (!ready.test(w.output)) return;
      clearInterval(poll);
      clearTimeout(timer);
      resolve();
    }, 20);
    const timer = setTimeout(() => fail(`did not say it was ready within ${timeoutMs / 1000} s`), timeoutMs);
    void w.exited.then((how) => {
      if (!ready.test(w.output)) fail(`exited (${how}) before it was ready`);
    });
  });
}

async function stopWorker(w: Started, graceMs: number): Promise<void> {
  if (w.child.exitCode !== null || w.child.signalCode !== null) return;
  w.child.kill("SIGTERM");
  const timer = setTimeout(() => w.child.kill("SIGKILL"), graceMs);
  await w.exited;
  clearTimeout(timer);
}
