/**
 * Sandboxed runs remembered for the life of the grader process. A run is a function of what the
 * isolate is given: the bundled student file (with the files it imports), the sandbox runtime,
 * the jobs and the limits; the work folder's path never reaches the results (submission-run.ts
 * scrubs it). So a file graded again with the same content and jobs (a batch's untouched starter
 * files, a test file grading the solution's trace_submission.ts beside every broken gemm file)
 * reuses the first run instead of starting a host.
 *
 * Only runs that finished are remembered: a timeout, running out of memory, a crash or a
 * cancelled run depends on the machine and the moment, and runs again. What a run reports of its
 * own process (`host`, `millis`, `runtimeCache`) is the first run's. The key is a SHA-256 of all of
 * it, so that no submission can aim for another's entry.
 */
import { createHash } from "node:crypto";
import type { Job } from "./protocol.js";
import type { SandboxLimits } from "./run.js";
import type { FileRun } from "./submission-run.js";

/** Runs kept; the least recently used goes first. Each is a few kilobytes (traces, messages). */
const CAPACITY = 256;

export class SandboxRunMemo {
  readonly #runs = new Map<string, FileRun>();
  readonly stats = { hits: 0, misses: 0 };

  /** The key of `jobs` run under `limits` on the file whose bundle and runtime have these digests. */
  static key(fileDigest: string, jobs: readonly Job[], limits: SandboxLimits): string {
    return createHash("sha256")
      .update(fileDigest)
      .update("\u0000")
      .update(JSON.stringify(jobs))
      .update("\u0000")
      .update(JSON.stringify([limits.timeoutMs, limits.heapMb]))
      .digest("hex");
  }

  /** The remembered run (a copy: its results map is the caller's), or undefined. */
  get(key: string): FileRun | undefined {
    const run = this.#runs.get(key);
    if (run === undefined) {
      this.stats.misses++;
      return undefined;
    }
    this.stats.hits++;
    this.#runs.delete(key);
    this.#runs.set(key, run);
    return { ...run, results: new Map(run.results) };
  }

  /** Keeps `run` if it finished. */
  remember(key: string, run: FileRun): void {
    if (run.exit?.kind !== "finished") return;
    this.#runs.set(key, { ...run, results: new Map(run.results) });
    if (this.#runs.size > CAPACITY) this.#runs.delete(this.#runs.keys().next().value as string);
  }

  clear(): void {
    this.#runs.clear();
    this.stats.hits = 0;
    this.stats.misses = 0;
  }
}

/** The grader's memo (gradeSubmission passes it to every file it prepares). */
export const sandboxRunMemo = new SandboxRunMemo();
