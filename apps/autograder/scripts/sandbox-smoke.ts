/**
 * Smoke test of the sandbox where the grader runs (e.g. on a GPU machine, from the device bundle:
 * `.device-bundle/run.sh sandbox-smoke [repoRoot]`): prepares the instructor solution as a
 * submission, runs task 1 (sharedMemoryTiling 64, 64, 64 on gemm_relu_add at 2048) in the
 * sandboxed child, and prints PASS or FAIL with the length of the recorded trace.
 *
 * The repository root is the first argument, else the current directory. Exit status 0 on PASS.
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { Trace } from "@tessera/schedule";
import { DEFAULT_ASSIGNMENT, assignmentBinding } from "../src/assignment.js";
import { workloadStart } from "../src/grade/workload-start.js";
import { type FileRun, type Job, prepareSubmissionFile } from "../src/sandbox/index.js";
import { sandboxRuntime } from "../src/sandbox/runtime-source.js";

const SOLUTION_DIR = join("assignments", "gemm-relu-add", "solution");
const FILE = "gemm_relu_add.ts";
const SIZE = 2048;
const JOB: Job = { id: "smoke", call: "sharedMemoryTiling", start: workloadStart(assignmentBinding(DEFAULT_ASSIGNMENT), SIZE), args: [64, 64, 64] };

/** Why the job did not run, in words; undefined when it did. */
function failure(run: FileRun): string | undefined {
  if (!run.load.ok) {
    const why =
      run.load.stage === "build"
        ? run.load.diagnostics.join("\n")
        : run.load.stage === "import"
          ? run.load.error.message
          : `the child never reported (exit: ${JSON.stringify(run.exit)})`;
    return `the solution did not load (${run.load.stage}): ${why}`;
  }
  const result = run.results.get(JOB.id);
  if (result === undefined) return `the job did not finish (exit: ${JSON.stringify(run.exit)})`;
  if (!result.ok) return `the job threw ${result.error.name}: ${result.error.message}`;
  return undefined;
}

async function main(): Promise<number> {
  const root = resolve(process.argv[2] ?? process.cwd());
  const dir = join(root, SOLUTION_DIR);
  if (!existsSync(join(dir, FILE))) {
    console.error(`sandbox-smoke: FAIL: no ${join(SOLUTION_DIR, FILE)} under ${root} (run from the repository root, or pass it as the first argument)`);
    return 1;
  }
  const runtime = await sandboxRuntime();
  console.log(`sandbox runtime: ${runtime.origin.kind === "built" ? "built from source" : `${runtime.origin.path} (${runtime.origin.kind})`}`);
  const started = performance.now();
  const prepared = await prepareSubmissionFile(dir, FILE);
  const bundledMs = performance.now() - started;
  let run: FileRun;
  try {
    run = await prepared.run([JOB]);
  } finally {
    await prepared.dispose();
  }
  const why = failure(run);
  const result = run.results.get(JOB.id);
  if (why !== undefined || result?.ok !== true) {
    console.log(`sandbox-smoke: FAIL: ${why ?? "no result"}`);
    if (run.stderr.trim() !== "") console.log(`child stderr:\n${run.stderr.trim()}`);
    return 1;
  }
  const instructions = Trace.fromJSON(result.trace).instructions.length;
  const call = `${JOB.call}(${JOB.args.join(", ")}) on gemm_relu_add ${SIZE}`;
  console.log(
    `sandbox-smoke: PASS: ${call} recorded a trace of ${instructions} instructions (bundled in ${bundledMs.toFixed(0)} ms, child ran ${run.millis} ms)`,
  );
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(`sandbox-smoke: FAIL: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  },
);
