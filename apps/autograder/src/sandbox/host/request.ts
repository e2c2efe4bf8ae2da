/** What the grader hands the sandbox host (a session file, then a line per run), and the host's bounds. */
import type { Job } from "../protocol.js";

/** What a host is started with (a JSON file in the work directory, named on its command line). */
export interface HostSession {
  /** The work directory: the bundle, this file and the private copy of the submission. */
  readonly workDir: string;
  /** The bundle's file name in the work directory. */
  readonly bundle: string;
  /** The sandbox runtime's file name in the work directory (CommonJS; run before the bundle). */
  readonly runtime: string;
  /** The file name, in the work directory, of V8's code cache for the runtime (see ../run.ts); absent: the first run produces one. */
  readonly runtimeCache?: string;
  /** Absolute path of isolated-vm's native addon for this Node (see ../isolated-vm.ts); it exports `{ ivm }`. */
  readonly isolatedVm: string;
}

/** One run, a JSON line on the host's stdin: its jobs, in a fresh isolate under these limits. */
export interface RunRequest {
  readonly jobs: readonly Job[];
  readonly limits: { readonly timeoutMs: number; readonly heapMb: number };
}

/** The host's file name in the work directory. */
export const HOST_FILE = "host.js";
/** The runtime's code cache's file name in the work directory. */
export const RUNTIME_CACHE_FILE = "runtime.cache";
/** The session's file name in the work directory. */
export const SESSION_FILE = "session.json";
/** Printed output kept per run (both streams together). */
export const OUTPUT_LIMIT_CHARS = 64 * 1024;
/** The largest answer the harness may give for one job (a trace of 5000 instructions is far less). */
export const MAX_ANSWER_CHARS = 8 * 1024 * 1024;
