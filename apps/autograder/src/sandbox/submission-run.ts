/**
 * One student file prepared for grading: bundled once into a private directory, then run on as
 * many job lists as the grader needs, each in a fresh isolate of a sandbox host kept for the file's
 * runs (host-pool.ts).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundleSubmission } from "./bundle.js";
import { SubmissionBuildError } from "./errors.js";
import type { ErrorInfo, Job, JobResult } from "./protocol.js";
import { probeConfinement } from "./os-confinement.js";
import { HostPool } from "./host-pool.js";
import { DEFAULT_LIMITS, type RunOptions, type SandboxExit, type SandboxLimits, type SandboxRun } from "./run.js";

export type FileLoad =
  | { readonly ok: true; readonly exports: readonly string[] }
  /** The file did not bundle (syntax error, forbidden import): esbuild's diagnostics. */
  | { readonly ok: false; readonly stage: "build"; readonly diagnostics: readonly string[] }
  /** Importing the module threw. */
  | { readonly ok: false; readonly stage: "import"; readonly error: ErrorInfo }
  /** The child never reported (crashed, timed out or exited while loading). */
  | { readonly ok: false; readonly stage: "sandbox" };

export interface FileRun {
  readonly file: string;
  readonly load: FileLoad;
  /** Results by job id; a job with no result did not finish (see `exit`). */
  readonly results: ReadonlyMap<string, JobResult>;
  readonly exit: SandboxExit | undefined;
  readonly stdout: string;
  readonly stderr: string;
  readonly invalidMessages: number;
  readonly millis: number;
  /** How the sandbox compiled its runtime (absent when nothing ran): see run.ts. */
  readonly runtimeCache?: SandboxRun["runtimeCache"];
  /** The host process that ran it and which of its runs it was (absent when nothing ran). */
  readonly host?: SandboxRun["host"];
}

export interface PreparedFile {
  readonly file: string;
  /** Runs `jobs` in a fresh isolate; runs of one file may overlap. Aborting `options.signal` kills the run's process. */
  run(jobs: readonly Job[], limits?: SandboxLimits, options?: RunOptions): Promise<FileRun>;
  dispose(): Promise<void>;
}

export async function prepareSubmissionFile(submissionDir: string, file: string): Promise<PreparedFile> {
  // The machine's probes for the sandbox's OS layers run while the file bundles.
  void probeConfinement();
  const workDir = await mkdtemp(join(tmpdir(), "tessera-grade-"));
  let bundle: string | undefined;
  let buildFailure: FileLoad | undefined;
  try {
    bundle = await bundleSubmission({ submissionDir, file, workDir });
  } catch (err) {
    if (!(err instanceof SubmissionBuildError)) {
      await rm(workDir, { recursive: true, force: true });
      throw err;
    }
    buildFailure = { ok: false, stage: "build", diagnostics: err.diagnostics };
  }
  const hosts = bundle === undefined ? undefined : new HostPool(bundle, workDir);
  return {
    file,
    async run(jobs, limits = DEFAULT_LIMITS, options = {}) {
      if (hosts === undefined) {
        return { file, load: buildFailure!, results: new Map(), exit: undefined, stdout: "", stderr: "", invalidMessages: 0, millis: 0 };
      }
      const run = await hosts.run(jobs, limits, options);
      let load: FileLoad = { ok: false, stage: "sandbox" };
      const results = new Map<string, JobResult>();
      const expected = new Set(jobs.map((j) => j.id));
      for (const m of run.messages) {
        if (m.type === "load") load = m.body.loaded ? { ok: true, exports: m.body.exports } : { ok: false, stage: "import", error: m.body.error };
        // Only the first result per requested job counts.
        else if (m.type === "result" && expected.has(m.body.id) && !results.has(m.body.id)) results.set(m.body.id, m.body);
      }
      const stdout = scrubPaths(run.stdout, workDir);
      const stderr = scrubPaths(run.stderr, workDir);
      return {
        file,
        load,
        results: scrubResults(results, workDir),
        exit: run.exit,
        stdout,
        stderr,
        invalidMessages: run.invalidMessages,
        millis: run.millis,
        runtimeCache: run.runtimeCache,
        host: run.host,
      };
    },
    async dispose() {
      await hosts?.close();
      await rm(workDir, { recursive: true, force: true });
    },
  };
}

/** Paths of the private copy are shown relative to the submission (`schedule.ts:12:5`). */
function scrubPaths(text: string, workDir: string): string {
  return text
    .split(`${join(workDir, "submission")}/`)
    .join("")
    .split(`${workDir}/`)
    .join("");
}

function scrubResults(results: Map<string, JobResult>, workDir: string): Map<string, JobResult> {
  for (const [id, r] of results) {
    if (!r.ok) {
      const stack = r.error.stack === undefined ? {} : { stack: scrubPaths(r.error.stack, workDir) };
      results.set(id, { ...r, error: { ...r.error, message: scrubPaths(r.error.message, workDir), ...stack } });
    }
  }
  return results;
}
