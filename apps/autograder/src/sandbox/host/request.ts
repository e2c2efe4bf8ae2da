/** What the grader hands the sandbox host (as a JSON file in the work directory), and the host's bounds. */
import type { Job } from "../protocol.js";

export interface HostRequest {
  /** The work directory: the bundle, this request and the private copy of the submission. */
  readonly workDir: string;
  /** The bundle's file name in the work directory. */
  readonly bundle: string;
  /** The sandbox runtime's file name in the work directory (CommonJS; run before the bundle). */
  readonly runtime: string;
  /** The file name, in the work directory, of V8's code cache for the runtime (see run.ts); absent: the host produces one. */
  readonly runtimeCache?: string;
  /** Absolute path of isolated-vm's native addon for this Node (see ../isolated-vm.ts); it exports `{ ivm }`. */
  readonly isolatedVm: string;
  readonly jobs: readonly Job[];
  readonly limits: { readonly timeoutMs: number; readonly heapMb: number };
}

/** The host's file name in the work directory. */
export const HOST_FILE = "host.js";
/** The runtime's code cache's file name in the work directory. */
export const RUNTIME_CACHE_FILE = "runtime.cache";
/** The request's file name in the work directory. */
export const REQUEST_FILE = "request.json";
/** Printed output kept per run (both streams together). */
export const OUTPUT_LIMIT_CHARS = 64 * 1024;
/** The largest answer the harness may give for one job (a trace of 5000 instructions is far less). */
export const MAX_ANSWER_CHARS = 8 * 1024 * 1024;
