/**
 * One isolated worker of a pool: a worker thread or a child process, behind one interface so
 * that the pool's scheduling, time limits and restarts are written once.
 */
import { type ChildProcess, fork } from "node:child_process";
import { type ResourceLimits, Worker } from "node:worker_threads";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { type EntryPoint, typeScriptExecArgv, typeScriptThreadBootstrap } from "./entry-point.js";

export interface WorkerEvents {
  onMessage(message: unknown): void;
  /** The worker is gone (it exited, crashed or failed to start); `why` says how. */
  onExit(why: string): void;
}

export interface IsolatedWorker {
  post(message: unknown): void;
  /** An idle worker does not keep the process alive (a caller that forgets dispose() still exits). */
  setBusy(busy: boolean): void;
  /** Ends it at once (terminate / SIGKILL); no onExit follows. Idempotent. */
  kill(): void;
}

export type WorkerKind = "thread" | "process";

export interface SpawnOptions {
  readonly kind: WorkerKind;
  readonly entry: EntryPoint;
  /** Extra environment variables of the worker (processes only; threads share the process's). */
  readonly env?: Readonly<Record<string, string>>;
  /** Extra command-line arguments of a child process. */
  readonly args?: readonly string[];
  /**
   * A worker thread's heap limits (threads only; see Node's `Worker` `resourceLimits`), or a function
   * that gives them when a thread starts (worker-heap-limits.ts reads V8's defaults then).
   */
  readonly resourceLimits?: ResourceLimits | (() => ResourceLimits);
}

/** The last `limit` characters a child process wrote, for crash reports. */
class Tail {
  #text = "";
  constructor(readonly limit = 2000) {}
  attach(stream: Readable | null | undefined): void {
    stream?.setEncoding("utf8");
    stream?.on("data", (chunk: string) => {
      this.#text = (this.#text + chunk).slice(-this.limit);
    });
  }
  get text(): string {
    return this.#text.trim();
  }
}

function withOutput(why: string, tail: Tail): string {
  const out = tail.text;
  return out.length === 0 ? why : `${why}; its last output: ${out}`;
}

function spawnThread(opts: SpawnOptions, events: WorkerEvents): IsolatedWorker {
  // The thread's output goes to this process's (a listener on worker.stdout would keep an idle
  // worker alive); an uncaught error arrives as the `error` event.
  const { entry } = opts;
  const asked = typeof opts.resourceLimits === "function" ? opts.resourceLimits() : opts.resourceLimits;
  const limits = asked === undefined ? {} : { resourceLimits: asked };
  const worker = entry.typeScript
    ? (() => {
        const boot = typeScriptThreadBootstrap();
        return new Worker(boot.url, { execArgv: boot.execArgv, workerData: { entry: entry.url.href }, ...limits });
      })()
    : new Worker(entry.url, limits);
  let killed = false;
  let lastError: string | undefined;
  worker.on("message", (m: unknown) => events.onMessage(m));
  worker.on("error", (err: unknown) => {
    lastError = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  });
  worker.on("exit", (code) => {
    if (killed) return;
    events.onExit(lastError !== undefined ? `the worker thread failed: ${lastError}` : `the worker thread exited with code ${code}`);
  });
  return {
    post: (m) => worker.postMessage(m),
    setBusy: (busy) => (busy ? worker.ref() : worker.unref()),
    kill: () => {
      if (killed) return;
      killed = true;
      void worker.terminate();
    },
  };
}

function spawnProcess(opts: SpawnOptions, events: WorkerEvents): IsolatedWorker {
  const tail = new Tail();
  const child: ChildProcess = fork(fileURLToPath(opts.entry.url), [...(opts.args ?? [])], {
    execArgv: opts.entry.typeScript ? typeScriptExecArgv() : [],
    env: { ...process.env, ...opts.env },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
    // Structured clone over IPC: typed arrays (images, outputs) travel as they are.
    serialization: "advanced",
  });
  tail.attach(child.stdout);
  tail.attach(child.stderr);
  let killed = false;
  let spawnError: string | undefined;
  child.on("message", (m: unknown) => events.onMessage(m));
  child.on("error", (err) => {
    spawnError = err.message;
  });
  // `close` (not `exit`): the output streams are drained by then, so the tail is complete.
  child.on("close", (code, signal) => {
    if (killed) return;
    const how = spawnError !== undefined ? `could not run: ${spawnError}` : signal !== null ? `was killed by ${signal}` : `exited with code ${code}`;
    events.onExit(withOutput(`the child process ${how}`, tail));
  });
  return {
    post: (m) => {
      if (child.connected) child.send(m as Parameters<ChildProcess["send"]>[0]);
    },
    setBusy: (busy) => {
      // The process, its IPC channel and its output pipes are each a handle of the event loop.
      const handles = [child, child.channel, child.stdout, child.stderr] as ({ ref?(): unknown; unref?(): unknown } | null | undefined)[];
      for (const h of handles) (busy ? h?.ref : h?.unref)?.call(h);
    },
    kill: () => {
      if (killed) return;
      killed = true;
      child.kill("SIGKILL");
    },
  };
}

export function spawnWorker(opts: SpawnOptions, events: WorkerEvents): IsolatedWorker {
  return opts.kind === "thread" ? spawnThread(opts, events) : spawnProcess(opts, events);
}
