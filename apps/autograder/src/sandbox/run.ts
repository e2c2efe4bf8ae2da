/**
 * A sandboxed run of a bundled submission: a child Node process (the sandbox host, host/host.ts)
 * runs the bundle in a V8 isolate without Node's objects; host-process.ts starts and watches it.
 * `runSandboxed` is one run in a host of its own; a prepared file (submission-run.ts) keeps its
 * hosts for the file's later runs, each in a fresh isolate.
 */
import type { ChildMessage, Job } from "./protocol.js";
import { SandboxHost } from "./host-process.js";

export { digestOf, keepRuntimeCodeCache } from "./runtime-code-cache.js";

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
  /** The host process that ran it, and which of that host's runs it was (1 for a host's first). */
  readonly host: { readonly pid: number | undefined; readonly run: number };
}

export interface RunOptions {
  /** Aborting it kills the run's process (a run nobody will read, e.g. a speculative one). */
  readonly signal?: AbortSignal;
}

/** One run of `jobs` in a sandbox host of its own, ended afterwards. */
export async function runSandboxed(
  bundlePath: string,
  workDir: string,
  jobs: readonly Job[],
  limits: SandboxLimits = DEFAULT_LIMITS,
  options: RunOptions = {},
): Promise<SandboxRun> {
  const host = await SandboxHost.start(bundlePath, workDir, limits);
  try {
    return await host.run(jobs, options);
  } finally {
    await host.close();
  }
}
