/**
 * Sandbox runs of one file started before the grader knows it will need them. The chain (chain.ts)
 * starts the run it would need next if the task now running failed as well, so that a submission
 * whose tasks fail one after another (a starter, or work in progress) waits for about half as many
 * runs in turn. A run is read only when the grader asks for exactly the same jobs, start schedule
 * included, so whether a guess was right changes how long grading takes, never its verdict; the
 * runs nobody read are killed when the chain ends.
 */
import type { FileRun, Job, PreparedFile, SandboxLimits } from "../sandbox/index.js";

interface Started {
  readonly run: Promise<FileRun>;
  readonly abort: AbortController;
}

export class SpeculativeRuns {
  private readonly ahead = new Map<string, Started>();

  constructor(
    private readonly file: PreparedFile,
    private readonly limits: SandboxLimits,
  ) {}

  /** Starts a run of `jobs` unless one of exactly these jobs is already waiting to be read. */
  prefetch(jobs: readonly Job[]): void {
    const key = keyOf(jobs);
    if (this.ahead.has(key)) return;
    const abort = new AbortController();
    const run = this.file.run(jobs, this.limits, { signal: abort.signal });
    // Read later, or never: its failure must not count as unhandled meanwhile.
    run.catch(() => {});
    this.ahead.set(key, { run, abort });
  }

  /** The run of `jobs`: the one started ahead for exactly these jobs, or a new one. */
  run(jobs: readonly Job[]): Promise<FileRun> {
    const key = keyOf(jobs);
    const started = this.ahead.get(key);
    if (started === undefined) return this.file.run(jobs, this.limits);
    this.ahead.delete(key);
    return started.run;
  }

  /** How many runs were started ahead and not read yet. */
  get waiting(): number {
    return this.ahead.size;
  }

  /** Kills the runs nobody read and waits until they have ended (their work folders are the file's). */
  async close(): Promise<void> {
    const left = [...this.ahead.values()];
    this.ahead.clear();
    for (const s of left) s.abort.abort();
    await Promise.allSettled(left.map((s) => s.run));
  }
}

function keyOf(jobs: readonly Job[]): string {
  return JSON.stringify(jobs);
}
