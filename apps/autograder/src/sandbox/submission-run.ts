/**
 * One student file prepared for grading: bundled once into a private directory, then run on as
 * many job lists as the grader needs, each in a fresh isolate of a sandbox host kept for the file's
 * runs (host-pool.ts).
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RUNTIME_FILE, bundleSubmission } from "./bundle.js";
import { SubmissionBuildError } from "./errors.js";
import type { ErrorInfo, Job, JobResult } from "./protocol.js";
import { probeConfinement } from "./os-confinement.js";
import { HostPool } from "./host-pool.js";
import { SandboxRunMemo } from "./run-memo.js";
import { digestOf, runtimeDigestOf } from "./runtime-code-cache.js";
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

export interface PrepareOptions {
  /** Where runs of the same content, jobs and limits are remembered (run-memo.ts); none: every run runs. */
  readonly memo?: SandboxRunMemo;
}

export async function prepareSubmissionFile(submissionDir: string, file: string, options: PrepareOptions = {}): Promise<PreparedFile> {
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
  const { memo } = options;
  // What the file's runs are a function of besides their jobs: the bundle and the runtime it runs on.
  const contentDigest =
    memo === undefined || bundle === undefined ? undefined : `${digestOf(await readFile(bundle))}:${await runtimeDigestOf(join(workDir, RUNTIME_FILE))}`;
  return {
    file,
    async run(jobs, limits = DEFAULT_LIMITS, runOptions = {}) {
      if (hosts === undefined) {
        return { file, load: buildFailure!, results: new Map(), exit: undefined, stdout: "", stderr: "", invalidMessages: 0, millis: 0 };
      }
      const key = contentDigest === undefined ? undefined : SandboxRunMemo.key(contentDigest, jobs, limits);
      const remembered = key === undefined ? undefined : memo?.get(key);
      if (remembered !== undefined) return { ...remembered, file };
      const fresh = await runInHost(hosts, jobs, limits, runOptions);
      if (key !== undefined) memo?.remember(key, fresh);
      return fresh;
    },
    async dispose() {
      await hosts?.close();
      await rm(workDir, { recursive: true, force: true });
    },
  };

  async function runInHost(hosts: HostPool, jobs: readonly Job[], limits: SandboxLimits, runOptions: RunOptions): Promise<FileRun> {
    const run = await hosts.run(jobs, limits, runOptions);
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
  }
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
