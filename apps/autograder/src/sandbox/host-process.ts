/**
 * One sandbox host process (host/host.ts) and the runs it serves, one at a time, each in a fresh
 * isolate. Around the process: an empty environment, Node's permission model (the host reads only
 * the work directory and isolated-vm's addon; no writes, child processes or workers), the OS layers
 * of os-confinement.ts, and for every run a wall-clock limit and a watch on the process's resident
 * memory. Messages come back on fd 3 from the host alone, bounded and validated; what the student
 * printed comes back in the run's "run-end" message, never parsed.
 *
 * A host is kept for another run only after a run that finished normally, and only while it has
 * used less CPU than one run's budget (so the next run still has a whole budget under the
 * process's CPU limit) and fewer than MAX_RUNS_PER_HOST runs; after a run that timed out, ran out
 * of memory, crashed or was cancelled, the process is killed, as it ended before.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Readable, Writable } from "node:stream";
import { RUNTIME_FILE } from "./bundle.js";
import { HOST_FILE, type HostSession, RUNTIME_CACHE_FILE, type RunRequest, SESSION_FILE } from "./host/request.js";
import { findIsolatedVmAddon } from "./isolated-vm.js";
import { type MemoryWatch, watchMemory } from "./memory-watch.js";
import { MessageChannelReader } from "./message-channel.js";
import { confinement, runCpuSeconds } from "./os-confinement.js";
import type { ChildMessage, Job } from "./protocol.js";
import type { RunOptions, SandboxExit, SandboxLimits, SandboxRun } from "./run.js";
import { dropRuntimeCodeCache, keepRuntimeCodeCache, runtimeCodeCache, runtimeDigestOf } from "./runtime-code-cache.js";
import { sandboxHost } from "./runtime-source.js";

/** Printed output kept per stream and run (the host already keeps no more than 64 KiB). */
const OUTPUT_LIMIT = 128 * 1024;
/** The host's own JavaScript heap (it holds output and answers, never student objects). */
const HOST_HEAP_MB = 256;
/** Time the host gets beyond the run's limit to report a timeout itself before it is killed. */
const GRACE_MS = 5000;
/** Runs one host serves at most (a bound on whatever a long-lived process accumulates). */
export const MAX_RUNS_PER_HOST = 32;

/** Numbers the files of each host, so that hosts in one work directory at once never share one. */
let hostSequence = 0;

function permissionFlags(workDir: string, isolatedVmAddon: string): string[] {
  const major = Number(process.versions.node.split(".")[0]);
  const flag = major >= 22 ? "--permission" : "--experimental-permission";
  return [flag, `--allow-fs-read=${workDir}/*`, `--allow-fs-read=${dirname(isolatedVmAddon)}/*`, "--allow-addons"];
}

/** Resident memory beyond which the host is killed: the isolate's limit plus room for Node and isolated-vm. */
function memoryLimitKb(heapMb: number): number {
  return (2 * heapMb + HOST_HEAP_MB + 512) * 1024;
}

interface CurrentRun {
  readonly started: number;
  readonly messages: ChildMessage[];
  invalid: number;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  readonly memory: MemoryWatch;
  readonly timer: NodeJS.Timeout;
  readonly finish: (run: SandboxRun) => void;
  stopListening: () => void;
}

type RunEnd = { readonly kind: "run-end" } | { readonly kind: "exit"; readonly code: number | undefined; readonly signal: string | undefined };

export class SandboxHost {
  private current: CurrentRun | undefined;
  private runs = 0;
  /** CPU the process had used at the end of its last run (the host's own count, all threads). */
  private cpuMs = 0;
  private exited: { readonly code: number | undefined; readonly signal: string | undefined } | undefined;
  private retired = false;
  private readonly closed: Promise<void>;

  private constructor(
    private readonly child: ChildProcess,
    readonly limits: SandboxLimits,
    private readonly runtimeDigest: string,
  ) {
    const channel = new MessageChannelReader(
      (m) => this.onMessage(m),
      () => {
        if (this.current !== undefined) this.current.invalid++;
      },
    );
    (child.stdio[3] as Readable | null)?.on("data", (chunk: Buffer) => channel.push(chunk));
    child.stdout?.on("data", (chunk: Buffer) => this.onOutput("stdout", chunk));
    child.stderr?.on("data", (chunk: Buffer) => this.onOutput("stderr", chunk));
    // A host that died is noticed on its next write, or at "close": the write's error is not the run's.
    child.stdin?.on("error", () => {});
    this.closed = new Promise((resolve) => {
      const ended = (code: number | null | undefined, signal: string | null | undefined) => {
        if (this.exited !== undefined) return;
        this.exited = { code: code ?? undefined, signal: signal ?? undefined };
        if (this.current !== undefined) this.end(this.current, { kind: "exit", ...this.exited });
        resolve();
      };
      child.on("close", ended);
      child.on("error", () => ended(undefined, undefined));
    });
    this.idle(true);
  }

  /** Starts a host for the bundle in `workDir`, serving runs under `limits`. */
  static async start(bundlePath: string, workDir: string, limits: SandboxLimits): Promise<SandboxHost> {
    const isolatedVm = findIsolatedVmAddon().addon;
    const runtimeDigest = await runtimeDigestOf(join(workDir, RUNTIME_FILE));
    const cache = runtimeCodeCache(runtimeDigest);
    const n = ++hostSequence;
    const cacheFile = `${n}-${RUNTIME_CACHE_FILE}`;
    const hostFile = `${n}-${HOST_FILE}`;
    const sessionFile = `${n}-${SESSION_FILE}`;
    if (cache !== undefined) await writeFile(join(workDir, cacheFile), cache);
    const session: HostSession = {
      workDir,
      bundle: bundlePath.slice(workDir.length + 1),
      runtime: RUNTIME_FILE,
      ...(cache === undefined ? {} : { runtimeCache: cacheFile }),
      isolatedVm,
    };
    await writeFile(join(workDir, hostFile), await sandboxHost());
    await writeFile(join(workDir, sessionFile), JSON.stringify(session));
    // Room for two runs' CPU budgets: the host is retired once it has used one (see the header).
    const { prefix } = await confinement(limits.timeoutMs, runCpuSeconds(limits.timeoutMs));
    const node = [
      process.execPath,
      // isolated-vm needs it on Node 20 and later.
      "--no-node-snapshot",
      ...permissionFlags(workDir, isolatedVm),
      `--max-old-space-size=${HOST_HEAP_MB}`,
      "--no-warnings",
      join(workDir, hostFile),
      join(workDir, sessionFile),
    ];
    const [command, ...args] = [...prefix, ...node] as [string, ...string[]];
    const child = spawn(command, args, {
      cwd: workDir,
      stdio: ["pipe", "pipe", "pipe", "pipe"],
      // Only what Node needs; none of the grader's environment (tokens, paths) leaks in.
      env: { PATH: "/usr/bin:/bin", LANG: "C.UTF-8" },
    });
    return new SandboxHost(child, limits, runtimeDigest);
  }

  /** Whether this host can take a run under `limits` now. */
  serves(limits: SandboxLimits): boolean {
    return (
      this.exited === undefined &&
      !this.retired &&
      this.current === undefined &&
      limits.timeoutMs === this.limits.timeoutMs &&
      limits.heapMb === this.limits.heapMb
    );
  }

  /** Runs `jobs` in a fresh isolate of this host. Aborting `options.signal` kills the host. */
  run(jobs: readonly Job[], options: RunOptions = {}): Promise<SandboxRun> {
    if (this.current !== undefined) throw new Error("a sandbox host serves one run at a time");
    this.runs++;
    return new Promise<SandboxRun>((resolve) => {
      const kill = () => this.child.kill("SIGKILL");
      const run: CurrentRun = {
        started: performance.now(),
        messages: [],
        invalid: 0,
        stdout: "",
        stderr: "",
        timedOut: false,
        memory: watchMemory(this.child.pid, memoryLimitKb(this.limits.heapMb), kill),
        timer: setTimeout(() => {
          run.timedOut = true;
          kill();
        }, this.limits.timeoutMs + GRACE_MS),
        finish: resolve,
        stopListening: () => {},
      };
      this.current = run;
      const signal = options.signal;
      if (signal !== undefined) {
        signal.addEventListener("abort", kill, { once: true });
        run.stopListening = () => signal.removeEventListener("abort", kill);
      }
      if (this.exited !== undefined) return this.end(run, { kind: "exit", ...this.exited });
      this.idle(false);
      if (signal?.aborted === true) return kill();
      const request: RunRequest = { jobs, limits: this.limits };
      this.child.stdin?.write(`${JSON.stringify(request)}\n`);
    });
  }

  /** Ends the process (an idle host holds nothing worth keeping) and waits until it is gone. */
  async close(): Promise<void> {
    this.retired = true;
    if (this.exited === undefined) {
      // Held again until it is gone: an unreferenced process's end would not keep anyone waiting for it.
      this.idle(false);
      this.child.kill("SIGKILL");
    }
    await this.closed;
  }

  private onMessage(message: ChildMessage): void {
    const run = this.current;
    if (run === undefined) return;
    if (message.type !== "run-end") {
      run.messages.push(message);
      return;
    }
    this.cpuMs = message.cpuMs;
    run.stdout = message.stdout + run.stdout;
    run.stderr = message.stderr + run.stderr;
    this.end(run, { kind: "run-end" });
  }

  private onOutput(stream: "stdout" | "stderr", chunk: Buffer): void {
    const run = this.current;
    if (run === undefined || run[stream].length > OUTPUT_LIMIT) return;
    run[stream] += chunk.toString("utf8");
  }

  private end(run: CurrentRun, how: RunEnd): void {
    clearTimeout(run.timer);
    run.memory.stop();
    run.stopListening();
    this.current = undefined;
    const messages = run.messages;
    const compiled = messages.find((m): m is Extract<ChildMessage, { type: "runtime-compiled" }> => m.type === "runtime-compiled");
    if (compiled?.cache === "produced" && compiled.data !== undefined) keepRuntimeCodeCache(this.runtimeDigest, Buffer.from(compiled.data, "base64"));
    if (compiled?.cache === "rejected") dropRuntimeCodeCache(this.runtimeDigest);
    const exit = exitOf(messages, run, how, this.limits);
    if (servesAgain({ ended: how.kind, exit, cpuMs: this.cpuMs, runs: this.runs, timeoutMs: this.limits.timeoutMs })) this.idle(true);
    else void this.close();
    run.finish({
      messages,
      runtimeCache: compiled?.cache ?? "none",
      invalidMessages: run.invalid,
      stdout: truncate(run.stdout),
      stderr: truncate(run.stderr),
      exit,
      millis: Math.round(performance.now() - run.started),
      host: { pid: this.child.pid, run: this.runs },
    });
  }

  /** An idle host does not keep the grader's process alive (a grader that forgot to dispose still exits). */
  private idle(idle: boolean): void {
    const handles: (ChildProcess | Readable | Writable | null | undefined)[] = [this.child, ...this.child.stdio];
    for (const h of handles) {
      const handle = h as { ref?: () => void; unref?: () => void } | null | undefined;
      if (idle) handle?.unref?.();
      else handle?.ref?.();
    }
  }
}

/**
 * Whether a host may serve another run after one that ended so: the run finished and said so
 * ("run-end", not the process's exit), the host has used at most one run's CPU budget (its CPU
 * limit is two budgets, so the next run still has a whole one), and it has served fewer than
 * MAX_RUNS_PER_HOST runs.
 */
export function servesAgain(after: {
  readonly ended: RunEnd["kind"];
  readonly exit: SandboxExit;
  readonly cpuMs: number;
  readonly runs: number;
  readonly timeoutMs: number;
}): boolean {
  return after.ended === "run-end" && after.exit.kind === "finished" && after.cpuMs <= runCpuSeconds(after.timeoutMs) * 1000 && after.runs < MAX_RUNS_PER_HOST;
}

function exitOf(messages: readonly ChildMessage[], run: CurrentRun, how: RunEnd, limits: SandboxLimits): SandboxExit {
  const stopped = messages.find((m): m is Extract<ChildMessage, { type: "stopped" }> => m.type === "stopped");
  const fault = messages.find((m): m is Extract<ChildMessage, { type: "fault" }> => m.type === "fault");
  const code = how.kind === "exit" ? how.code : undefined;
  const signal = how.kind === "exit" ? how.signal : undefined;
  if (stopped?.reason === "timeout" || run.timedOut) return { kind: "timeout", afterMs: limits.timeoutMs };
  if (stopped?.reason === "out-of-memory" || run.memory.exceeded) return { kind: "out-of-memory" };
  if (messages.some((m) => m.type === "done")) return { kind: "finished" };
  if (fault !== undefined) return { kind: "crashed", code, signal, detail: fault.message };
  if (how.kind === "exit" && code === 0) return { kind: "ended-early" };
  return { kind: "crashed", code, signal };
}

function truncate(text: string): string {
  return text.length <= OUTPUT_LIMIT ? text : `${text.slice(0, OUTPUT_LIMIT)}\n… (output truncated)`;
}
