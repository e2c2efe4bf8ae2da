/**
 * `pnpm bench:grade`: what grading costs without a GPU, and what the sandbox adds.
 *   - the whole grading of the solution (`tessera-grade --no-gpu`, in this process: no startup);
 *   - the part-1 tasks of the solution run in the sandbox (bundle, host process, isolate, the five
 *     calls), against the same five calls made directly in this process: the difference is the
 *     isolation's cost per submission.
 * Medians of `--rounds` runs (default 5). Writes docs/benchmarks/grading-time.{json,md}.
 * Usage: pnpm bench:grade [--rounds N] [--out-dir DIR]
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Schedule } from "@tessera/schedule";
import { assignmentBinding } from "../src/assignment.js";
import { memoryIO } from "../src/cli/io.js";
import { runGradeCli } from "../src/cli/main.js";
import { jobArgs, trustedArgs } from "../src/grade/task-args.js";
import { workloadStart } from "../src/grade/workload-start.js";
import { loadManifest } from "../src/manifest/index.js";
import { type Job, confinement, prepareSubmissionFile } from "../src/sandbox/index.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const FILE = "gemm_relu_add.ts";

const { values } = parseArgs({
  options: { rounds: { type: "string", default: "5" }, "out-dir": { type: "string", default: join(repoRoot, "docs", "benchmarks") } },
});
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1) {
  console.error(`bench:grade: --rounds must be a positive integer, got "${values.rounds}"`);
  process.exit(2);
}

const binding = assignmentBinding("gemm-relu-add");
const manifest = loadManifest(binding.manifestPath);
const solutionDir = join(binding.root, "solution");
const tiles = manifest.manual.tileSizes;
const size = manifest.numerics.sizes.full;
const chain = manifest.tasks.filter((t) => t.start === "previous-task");

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

async function gradeSolution(): Promise<void> {
  const io = memoryIO();
  const code = await runGradeCli(["--dir", solutionDir, "--no-gpu", "--results", join(repoRoot, "node_modules", ".bench-grade-results.json")], io);
  if (code !== 0 || !/Total\s+80 \/ 80/.test(io.out.join(""))) throw new Error(`grading the solution did not give 80 / 80:\n${io.out.join("")}`);
}

function sandboxJobs(): Job[] {
  return chain.map((task, k) => ({
    id: task.id,
    call: task.function,
    start: k === 0 ? workloadStart(binding, size) : { kind: "previous" },
    args: jobArgs(task.args, tiles),
  }));
}

/** Bundling and the sandboxed run, apart. */
async function inSandbox(): Promise<{ bundleMs: number; runMs: number }> {
  const started = performance.now();
  const prepared = await prepareSubmissionFile(solutionDir, FILE);
  const bundleMs = performance.now() - started;
  try {
    const run = await prepared.run(sandboxJobs());
    if ([...run.results.values()].some((r) => !r.ok) || run.results.size !== chain.length)
      throw new Error(`the sandboxed tasks failed: ${JSON.stringify(run.exit)}`);
    return { bundleMs, runMs: performance.now() - started - bundleMs };
  } finally {
    await prepared.dispose();
  }
}

async function direct(): Promise<void> {
  const sch = new Schedule(binding.workload(size));
  for (const task of chain) await binding.solution(task.function)!(sch, ...trustedArgs(sch, task.args, tiles));
  sch.trace.toJSON();
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0]!;
  // One of each first: caches (the sandbox runtime's build, the JIT) are not what is measured.
  await gradeSolution();
  await inSandbox();
  await direct();
  const grade: number[] = [];
  const bundle: number[] = [];
  const sandboxRun: number[] = [];
  const directRun: number[] = [];
  for (let r = 0; r < rounds; r++) {
    grade.push(await timed(gradeSolution));
    const s = await inSandbox();
    bundle.push(s.bundleMs);
    sandboxRun.push(s.runMs);
    directRun.push(await timed(direct));
    console.log(
      `round ${r + 1}/${rounds}: grade ${(grade[r]! / 1000).toFixed(2)} s, sandbox ${(s.bundleMs + s.runMs).toFixed(0)} ms, direct ${directRun[r]!.toFixed(0)} ms`,
    );
  }
  const result = {
    date: new Date().toISOString(),
    machine: `${cpus().length} × ${cpus()[0]?.model ?? "?"}, Node ${process.version}`,
    rounds,
    sandboxLayers: ["V8 isolate (isolated-vm)", "child process with Node's permission model", ...(await confinement(60_000)).layers],
    gradeSolutionSeconds: median(grade) / 1000,
    sandbox: { bundleMs: median(bundle), runMs: median(sandboxRun) },
    directMs: median(directRun),
    isolationCostMs: median(bundle) + median(sandboxRun) - median(directRun),
    samples: { grade, bundle, sandboxRun, directRun },
    // The 1-minute load average before and after: on a 2-core machine, other work inflates every figure.
    loadAverage: { before: loadBefore, after: loadavg()[0]! },
  };
  const ms = (x: number): string => `${x.toFixed(0)} ms`;
  const md = [
    "# Grading time without a GPU (`pnpm bench:grade`)",
    "",
    `${result.date.slice(0, 10)}, ${result.machine}; medians of ${rounds} rounds after one warm-up round; load average ${result.loadAverage.before.toFixed(1)} before, ${result.loadAverage.after.toFixed(1)} after (an idle 2-core machine reads below 0.5).`,
    "",
    "| what | median |",
    "| --- | ---: |",
    `| grading the solution (\`tessera-grade --no-gpu\`, all checks and simulator numerics) | ${result.gradeSolutionSeconds.toFixed(2)} s |`,
    `| the five part-1 tasks in the sandbox: bundling (esbuild) | ${ms(result.sandbox.bundleMs)} |`,
    `| the five part-1 tasks in the sandbox: host process, isolate, calls | ${ms(result.sandbox.runMs)} |`,
    `| the same five calls in this process, without isolation | ${ms(result.directMs)} |`,
    `| **isolation cost per sandboxed run** | **${ms(result.isolationCostMs)}** |`,
    "",
    `Sandbox layers in force on this machine: ${result.sandboxLayers.join("; ")}.`,
    "A full grading runs the sandbox twice (part 1 and part 2's `trace_submission.ts`), more when a task stands in.",
    "",
  ].join("\n");
  const outDir = resolve(values["out-dir"]);
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, "grading-time.json"), JSON.stringify(result, null, 2) + "\n");
  writeFileSync(join(outDir, "grading-time.md"), md);
  console.log(md);
}

main().catch((err: unknown) => {
  console.error(`bench:grade: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
