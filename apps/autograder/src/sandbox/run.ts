/**
 * Runs a bundled submission: a child Node process (the sandbox host, host/host.ts) runs the bundle
 * in a V8 isolate without Node's objects. Around it: an empty environment, Node's permission model
 * (the host reads only the work directory and isolated-vm's addon; no writes, child processes or workers),
 * the OS layers of os-confinement.ts, a wall-clock limit, and a watch on the process's resident
 * memory. Messages come back on fd 3 from the host alone, bounded and validated; stdout/stderr are
 * the student's printed output, kept (bounded) and never parsed.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { readFile, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { execa } from "execa";
import { RUNTIME_FILE } from "./bundle.js";
import { HOST_FILE, type HostRequest, REQUEST_FILE, RUNTIME_CACHE_FILE } from "./host/request.js";
import { findIsolatedVmAddon } from "./isolated-vm.js";
import { confinement } from "./os-confinement.js";
import { type ChildMessage, ChildMessageSchema, type Job } from "./protocol.js";
import { sandboxHost } from "./runtime-source.js";

export interface SandboxLimits {
  readonly timeoutMs: number;
  /** The isolate's memory (heap and array buffers together), in MB. */
  readonly heapMb: number;
}

export const DEFAULT_LIMITS: SandboxLimits = { timeoutMs: 60_000, heapMb: 1024 };

export type SandboxExit =
  | { readonly kind: "finished" }
  | { readonly kind: "timeout"; readonly afterMs: number }
  | { readonly kind: "out-of-memory" }
  | { readonly kind: "crashed"; readonly code: number | undefined; readonly signal: string | undefined; readonly detail?: string }
  /** The process ended with status 0 before saying it was done. */
  | { readonly kind: "ended-early" };

export interface SandboxRun {
  readonly messages: readonly ChildMessage[];
  /** How the host compiled the sandbox runtime: producing V8's code cache, or with the one kept from an earlier run. */
  readonly runtimeCache: "produced" | "accepted" | "rejected" | "none";
  /** Lines on fd 3 that were not valid messages (or too long to be). */
  readonly invalidMessages: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly exit: SandboxExit;
  readonly millis: number;
}

/**
 * V8's code cache of the sandbox runtime, by the digest of the runtime's text, as a host of this
 * process produced it. V8 checks a cache against the source's length only, so a cache is given
 * only to a host running the very text it came from. A few entries at most: one runtime per process.
 */
const runtimeCodeCaches = new Map<string, Buffer>();
const MAX_RUNTIME_CODE_CACHES = 4;

/** Keeps `cache` for hosts running the runtime whose text has `digest` (exported for tests that hand a host a bad cache). */
export function keepRuntimeCodeCache(digest: string, cache: Buffer): void {
  if (runtimeCodeCaches.size >= MAX_RUNTIME_CODE_CACHES) runtimeCodeCaches.clear();
  runtimeCodeCaches.set(digest, cache);
}

/** Digests of runtime files by path, size and modification time (each work folder's is hashed once, not once per run). */
const runtimeDigests = new Map<string, string>();

async function runtimeDigestOf(path: string): Promise<string> {
  const st = await stat(path);
  const key = `${path}\0${st.size}\0${st.mtimeMs}`;
  let digest = runtimeDigests.get(key);
  if (digest === undefined) {
    if (runtimeDigests.size >= 64) runtimeDigests.clear();
    digest = digestOf(await readFile(path));
    runtimeDigests.set(key, digest);
  }
  return digest;
}

export function digestOf(data: Buffer | string): string {
  return createHash("sha256").update(data).digest("hex");
}

/** Printed output kept per stream (the host already keeps no more than 64 KiB). */
const OUTPUT_LIMIT = 128 * 1024;
/** The longest message line accepted on fd 3 (a result carries a trace of at most 8 MB). */
const MAX_MESSAGE_CHARS = 9 * 1024 * 1024;
/** The host's own JavaScript heap (it holds output and answers, never student objects). */
const HOST_HEAP_MB = 256;
/** Time the host gets beyond the run's limit to report a timeout itself before it is killed. */
const GRACE_MS = 5000;

function permissionFlags(workDir: string, isolatedVmAddon: string): string[] {
  const major = Number(process.versions.node.split(".")[0]);
  const flag = major >= 22 ? "--permission" : "--experimental-permission";
  return [flag, `--allow-fs-read=${workDir}/*`, `--allow-fs-read=${dirname(isolatedVmAddon)}/*`, "--allow-addons"];
}

export interface RunOptions {
  /** Aborting it kills the run's process (a run nobody will read, e.g. a speculative one). */
  readonly signal?: AbortSignal;
}

/** Numbers the files of each run, so that runs in one work directory at once never share one. */
let runSequence = 0;

export async function runSandboxed(
  bundlePath: string,
  workDir: string,
  jobs: readonly Job[],
  limits: SandboxLimits = DEFAULT_LIMITS,
  options: RunOptions = {},
): Promise<SandboxRun> {
  const started = performance.now();
  const isolatedVm = findIsolatedVmAddon().addon;
  const runtimeDigest = await runtimeDigestOf(join(workDir, RUNTIME_FILE));
  const cache = runtimeCodeCaches.get(runtimeDigest);
  const n = ++runSequence;
  const cacheFile = `${n}-${RUNTIME_CACHE_FILE}`;
  const hostFile = `${n}-${HOST_FILE}`;
  const requestFile = `${n}-${REQUEST_FILE}`;
  if (cache !== undefined) await writeFile(join(workDir, cacheFile), cache);
  const request: HostRequest = {
    workDir,
    bundle: bundlePath.slice(workDir.length + 1),
    runtime: RUNTIME_FILE,
    ...(cache === undefined ? {} : { runtimeCache: cacheFile }),
    isolatedVm,
    jobs,
    limits,
  };
  await writeFile(join(workDir, hostFile), await sandboxHost());
  await writeFile(join(workDir, requestFile), JSON.stringify(request));
  const { prefix } = await confinement(limits.timeoutMs);
  const node = [
    process.execPath,
    // isolated-vm needs it on Node 20 and later.
    "--no-node-snapshot",
    ...permissionFlags(workDir, isolatedVm),
    `--max-old-space-size=${HOST_HEAP_MB}`,
    "--no-warnings",
    join(workDir, hostFile),
    join(workDir, requestFile),
  ];
  const [command, ...args] = [...prefix, ...node] as [string, ...string[]];
  const child = execa(command, args, {
    cwd: workDir,
    stdio: ["ignore", "pipe", "pipe", "pipe"],
    timeout: limits.timeoutMs + GRACE_MS,
    killSignal: "SIGKILL",
    reject: false,
    // Only what Node needs; none of the grader's environment (tokens, paths) leaks in.
    env: { PATH: "/usr/bin:/bin", LANG: "C.UTF-8" },
    extendEnv: false,
    maxBuffer: { stdout: OUTPUT_LIMIT, stderr: OUTPUT_LIMIT },
    stripFinalNewline: false,
    ...(options.signal === undefined ? {} : { cancelSignal: options.signal }),
  });
  const channel = new MessageChannelReader();
  child.stdio[3]?.on("data", (chunk: Buffer) => channel.push(chunk));
  const memory = watchMemory(child.pid, limits.heapMb, () => child.kill("SIGKILL"));
  const result = await child;
  memory.stop();
  const messages = channel.messages;
  const compiled = messages.find((m): m is Extract<ChildMessage, { type: "runtime-compiled" }> => m.type === "runtime-compiled");
  if (compiled?.cache === "produced" && compiled.data !== undefined) keepRuntimeCodeCache(runtimeDigest, Buffer.from(compiled.data, "base64"));
  if (compiled?.cache === "rejected") runtimeCodeCaches.delete(runtimeDigest);
  const stopped = messages.find((m): m is Extract<ChildMessage, { type: "stopped" }> => m.type === "stopped");
  const fault = messages.find((m): m is Extract<ChildMessage, { type: "fault" }> => m.type === "fault");
  let exit: SandboxExit;
  if (stopped?.reason === "timeout" || result.timedOut) exit = { kind: "timeout", afterMs: limits.timeoutMs };
  else if (stopped?.reason === "out-of-memory" || memory.exceeded) exit = { kind: "out-of-memory" };
  else if (messages.some((m) => m.type === "done")) exit = { kind: "finished" };
  else if (fault !== undefined) exit = { kind: "crashed", code: result.exitCode, signal: result.signal ?? undefined, detail: fault.message };
  else if (result.exitCode === 0) exit = { kind: "ended-early" };
  else exit = { kind: "crashed", code: result.exitCode, signal: result.signal ?? undefined };
  return {
    messages,
    runtimeCache: compiled?.cache ?? "none",
    invalidMessages: channel.invalid,
    stdout: truncate(String(result.stdout ?? "")),
    stderr: truncate(String(result.stderr ?? "")),
    exit,
    millis: Math.round(performance.now() - started),
  };
}

/** JSON lines from fd 3: a line beyond MAX_MESSAGE_CHARS is dropped as it arrives, never buffered whole. */
class MessageChannelReader {
  readonly messages: ChildMessage[] = [];
  invalid = 0;
  private pending = "";
  private skipping = false;

  push(chunk: Buffer): void {
    let text = chunk.toString("utf8");
    for (;;) {
      const nl = text.indexOf("\n");
      if (nl < 0) break;
      this.endLine(text.slice(0, nl));
      text = text.slice(nl + 1);
    }
    if (this.skipping) return;
    this.pending += text;
    if (this.pending.length > MAX_MESSAGE_CHARS) {
      this.pending = "";
      this.skipping = true;
    }
  }

  private endLine(tail: string): void {
    const line = this.pending + tail;
    this.pending = "";
    if (this.skipping || line.length > MAX_MESSAGE_CHARS) {
      this.skipping = false;
      this.invalid++;
      return;
    }
    const parsed = safeParse(line);
    if (parsed === undefined) this.invalid++;
    else this.messages.push(parsed);
  }
}

/**
 * Polls the child's resident memory (Linux): beyond the isolate's limit plus room for Node and
 * isolated-vm, it is killed. A backstop: the isolate's own limit normally stops it first.
 */
function watchMemory(pid: number | undefined, heapMb: number, kill: () => void): { stop(): void; readonly exceeded: boolean } {
  const limitKb = (2 * heapMb + HOST_HEAP_MB + 512) * 1024;
  let exceeded = false;
  const timer =
    pid === undefined || process.platform !== "linux"
      ? undefined
      : setInterval(() => {
          const rss = residentKb(pid);
          if (rss !== undefined && rss > limitKb) {
            exceeded = true;
            kill();
          }
        }, 200);
  timer?.unref();
  return {
    stop: () => clearInterval(timer),
    get exceeded() {
      return exceeded;
    },
  };
}

function residentKb(pid: number): number | undefined {
  try {
    const match = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match === null ? undefined : Number(match[1]);
  } catch {
    return undefined;
  }
}

function safeParse(line: string): ChildMessage | undefined {
  try {
    const r = ChildMessageSchema.safeParse(JSON.parse(line));
    return r.success ? r.data : undefined;
  } catch {
    return undefined;
  }
}

function truncate(text: string): string {
  return text.length <= OUTPUT_LIMIT ? text : `${text.slice(0, OUTPUT_LIMIT)}\n… (output truncated)`;
}
