/**
 * GPU fault isolation on a real GPU (the device bundle's `gpu-fault-check` entry): grades, with one
 * isolated GPU worker, a submission whose kernel reads 4 GiB past the end of C (the instructor
 * solution replayed on the course's workload with one read shifted, test/support/workload-variants.ts),
 * then runs a kernel that never ends under a short watchdog, then grades the instructor solution.
 * Checks that the fault is the faulting submission's feedback (CUDA's error in the student's terms,
 * with the simulator's finding at the reduced size), that the watchdog stops the endless kernel,
 * and that the solution still scores full marks on the same GPU afterwards. Writes
 * gpu-fault-check.{md,json} and the terminal reports into --out-dir; exits 1 when a check fails.
 *
 * Usage: gpu-fault-check [--out-dir DIR] [--hang-limit-sec S]   (defaults: docs/benchmarks, 10)
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { cuda } from "@tessera/runtime";
import { assignmentBinding, DEFAULT_ASSIGNMENT } from "../src/assignment.js";
import { type GradeReport, gradeSubmission, numericsSummary } from "../src/grade/grade-submission.js";
import type { NumericsOutcome } from "../src/grade/numerics-types.js";
import { GpuWorker } from "../src/gpu/index.js";
import { loadManifest } from "../src/manifest/index.js";
import { formatTerminalReport } from "../src/report/terminal.js";
import { endlessSchedule } from "../test/support/endless-kernel.js";
import { lingering } from "../test/support/processes.js";
import { outOfBoundsBinding } from "../test/support/workload-variants.js";

const args = process.argv.slice(2);
const option = (name: string, fallback: string): string => {
  const at = args.indexOf(name);
  return at >= 0 ? (args[at + 1] ?? fallback) : fallback;
};
const outDir = resolve(option("--out-dir", "docs/benchmarks"));
const hangLimitSec = Number(option("--hang-limit-sec", "10"));
if (!(hangLimitSec > 0)) {
  console.error(`gpu-fault-check: --hang-limit-sec must be a positive number of seconds, got ${option("--hang-limit-sec", "")}`);
  process.exit(2);
}
if (!cuda.available()) {
  console.error(`gpu-fault-check: needs a CUDA GPU (${cuda.unavailableReason() ?? "CUDA is unavailable"})`);
  process.exit(1);
}

const binding = assignmentBinding(DEFAULT_ASSIGNMENT);
const manifest = loadManifest(binding.manifestPath);
const solutionDir = join(binding.root, "solution");
const deviceName = cuda.device(0).name;
const progress = (m: string): void => console.error(`… ${m}`);

interface Check {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}
const checks: Check[] = [];
const check = (name: string, ok: boolean, detail: string): void => {
  checks.push({ name, ok, detail });
  console.error(`${ok ? "PASS" : "FAIL"} ${name}: ${detail}`);
};

const gpu = new GpuWorker(deviceName);
const seconds = (since: number): number => (performance.now() - since) / 1000;

// 1. The faulting submission.
progress("grading a submission whose kernel reads out of bounds");
let started = performance.now();
const faulty = await gradeSubmission({ submissionDir: solutionDir, binding: outOfBoundsBinding(), manifest, gpu, onProgress: progress });
const faultySec = seconds(started);
const manual = faulty.numerics.manual;
check(
  "the out-of-bounds kernel faults, and the fault is its numerics feedback",
  manual?.fault?.kind === "cuda-error" && manual.error !== undefined && manual.error.startsWith("your kernel"),
  manual === undefined ? "no numerics ran" : (manual.error ?? "no error: the kernel did not fault"),
);
check(
  "CUDA names it an illegal address, reported as out of bounds",
  // Which of the two the driver reports depends on where the stray address lands (both seen on an H100).
  manual?.fault?.kind === "cuda-error" &&
    ["CUDA_ERROR_ILLEGAL_ADDRESS", "CUDA_ERROR_INVALID_ADDRESS_SPACE"].includes(manual.fault.code) &&
    /out of bounds/.test(manual.error ?? ""),
  manual?.fault?.kind === "cuda-error" ? `${manual.fault.code} from ${manual.fault.call} (${manual.fault.stage})` : `fault: ${JSON.stringify(manual?.fault)}`,
);
check(
  "the simulator at the reduced size finds the out-of-bounds load",
  /out-of-bounds load from buffer C/.test(manual?.fault?.simulatorFinding ?? ""),
  manual?.fault?.simulatorFinding ?? "no finding",
);
check("the faulting submission loses its numerics-dependent points", faulty.score < faulty.maxScore, `${faulty.score} / ${faulty.maxScore}`);

// 2. An endless kernel under a short watchdog, on a worker of its own.
progress(`running a kernel that never ends under a ${hangLimitSec} s watchdog`);
const watched = new GpuWorker(deviceName, { requestTimeoutSec: hangLimitSec });
const settings = { ...manifest.numerics, rounds: 1 };
started = performance.now();
const endless = await watched.numerics({ assignment: binding.name, schedule: endlessSchedule(settings.sizes.full), settings, seed: 1 });
const endlessSec = seconds(started);
check(
  "the watchdog stops the endless kernel",
  endless.fault?.kind === "timeout",
  `${endless.error ?? "no error: it finished"} (after ${endlessSec.toFixed(1)} s, the worker's start included)`,
);
started = performance.now();
const reference = binding.referenceManual(settings.sizes.full);
if (reference === undefined) throw new Error("gpu-fault-check needs the grader's solution (the reference manual schedule)");
const afterHang = await watched.numerics({ assignment: binding.name, schedule: reference, settings, seed: 1 });
const afterHangSec = seconds(started);
check(
  "the next request after the hang runs on a fresh worker and passes",
  afterHang.passed,
  `${summaryOf(afterHang)} (${afterHangSec.toFixed(1)} s, ${watched.workersStarted} workers started)`,
);
const watchedPids = watched.workerPids;
watched.dispose();

// 3. The solution, on the GPU worker that had the fault.
progress("grading the instructor solution");
started = performance.now();
const solution = await gradeSubmission({ submissionDir: solutionDir, binding, manifest, gpu, onProgress: progress });
const solutionSec = seconds(started);
check(
  "the solution still grades full marks afterwards",
  solution.score === solution.maxScore && solution.maxScore === 100,
  `${solution.score} / ${solution.maxScore}`,
);
check(
  "the solution's numerics pass on the GPU",
  solution.numerics.manual?.passed === true && solution.numerics.tuned?.passed === true,
  `manual: ${solution.numerics.manual === undefined ? "not run" : summaryOf(solution.numerics.manual)}; tuned: ${solution.numerics.tuned === undefined ? "not run" : summaryOf(solution.numerics.tuned)}`,
);
const workers = gpu.workersStarted;
const pids = [...gpu.workerPids, ...watchedPids];
gpu.dispose();
// The first worker, and one after each fault of the faulting submission: its numerics (manual,
// tuned) and the timings of everything on its broken workload (the course's schedules included).
const faults = faultsOf(faulty);
check(
  "a new worker after each fault, none otherwise",
  workers === 1 + faults.length,
  `${workers} worker processes started by the grading GPU worker; faults: ${faults.join("; ")}`,
);
const left = await lingering(pids);
check(
  "every worker process is gone (exited and reaped, no zombie)",
  left.length === 0 && pids.length === workers + watched.workersStarted,
  left.length === 0 ? `${pids.length} worker processes, all gone` : `still there: ${left.join(", ")}`,
);

const passed = checks.every((c) => c.ok);
const json = {
  generatedAt: new Date().toISOString(),
  device: deviceName,
  passed,
  checks,
  seconds: { faultySubmission: faultySec, endlessKernel: endlessSec, requestAfterHang: afterHangSec, solution: solutionSec },
  faulty: { score: faulty.score, maxScore: faulty.maxScore, numerics: numericsOf(faulty) },
  endless: { fault: endless.fault, error: endless.error },
  solution: { score: solution.score, maxScore: solution.maxScore, numerics: numericsOf(solution) },
};
const md = [
  "# GPU fault isolation on a GPU",
  "",
  `Generated by \`run.sh gpu-fault-check\` (apps/autograder/scripts/gpu-fault-check.ts) on ${json.generatedAt}. Device: **${deviceName}**.`,
  `Result: **${passed ? "PASS" : "FAIL"}** (${checks.filter((c) => c.ok).length} of ${checks.length} checks).`,
  "",
  "| check | result | detail |",
  "| --- | --- | --- |",
  ...checks.map((c) => `| ${c.name} | ${c.ok ? "PASS" : "FAIL"} | ${c.detail.replace(/\|/g, "\\|").replace(/\n/g, " ")} |`),
  "",
  `Times: faulting submission graded in ${faultySec.toFixed(1)} s; endless kernel stopped after ${endlessSec.toFixed(1)} s (watchdog ${hangLimitSec} s, plus the worker's start); ` +
    `the request after it ${afterHangSec.toFixed(1)} s; solution graded in ${solutionSec.toFixed(1)} s.`,
  "",
  "## Terminal report of the faulting submission",
  "",
  "```",
  formatTerminalReport(faulty).trimEnd(),
  "```",
  "",
  "## Terminal report of the solution, graded after it",
  "",
  "```",
  formatTerminalReport(solution).trimEnd(),
  "```",
  "",
].join("\n");

mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, "gpu-fault-check.json"), JSON.stringify(json, null, 2) + "\n");
writeFileSync(join(outDir, "gpu-fault-check.md"), md);
console.log(md);
process.exit(passed ? 0 : 1);

function summaryOf(n: NumericsOutcome): string {
  return `${n.passed ? "pass" : "FAIL"}: ${numericsSummary(n)}`;
}

function numericsOf(r: GradeReport) {
  return Object.fromEntries(
    Object.entries(r.numerics).map(([role, o]) => [role, { passed: o.passed, size: o.size, device: o.device, error: o.error, fault: o.fault }]),
  );
}

/** The GPU faults one grading met, named by where: numerics of its schedules, and timings that failed with a fault. */
function faultsOf(result: Awaited<ReturnType<typeof gradeSubmission>>): string[] {
  const numerics = Object.entries(result.numerics)
    .filter(([, n]) => n?.fault !== undefined)
    .map(([role]) => `${role} numerics`);
  const timings = Object.entries(result.timings ?? {})
    .filter(([, t]) => t !== undefined && "error" in t && /CUDA_ERROR|did not finish|worker process died/.test(t.error))
    .map(([role]) => `${role} timing`);
  return [...numerics, ...timings];
}
