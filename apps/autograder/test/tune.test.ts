/**
 * The tuner behind `pnpm grade --tune` without a GPU: the instructor solution's search space,
 * sampled in the sandbox and searched by meta-schedule with the simulated runner, gives a hand-in
 * the grader accepts; a space that replays only with its recorded decisions still gives one; the
 * starter, a throwing space and bad command lines fail with clear messages.
 */
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lower } from "@tessera/codegen";
import { Schedule } from "@tessera/schedule";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_ASSIGNMENT, assignmentBinding } from "../src/assignment.js";
import { memoryIO } from "../src/cli/io.js";
import { runGradeCli } from "../src/cli/main.js";
import { replayTrace } from "../src/grade/replay.js";
import { simulatedNumericsMemo } from "../src/grade/numerics-memo.js";
import { simulatorNumerics } from "../src/grade/simulator-numerics.js";
import { loadManifest } from "../src/manifest/index.js";
import { prepareSubmissionFile } from "../src/sandbox/index.js";
import { formatHandIn, formatTuneReport, tuneSearchSpace } from "../src/tune/index.js";
import { workloadStart } from "../src/grade/workload-start.js";

const binding = assignmentBinding(DEFAULT_ASSIGNMENT);
const manifest = loadManifest(binding.manifestPath);
const SOLUTION = join(binding.root, "solution");
const T4 = "nvidia/tesla-t4";
const FULL = manifest.numerics.sizes.full;
/**
 * The direct tuning runs start no replay worker thread (about 4 CPU s each, started cold, on two
 * cores; docs/benchmarks/ci-time.md): a seed picks the same candidates with any number of workers
 * (meta-schedule's parallel-search.test.ts). Their searches are the smallest that feed the tuner's
 * steps under test (sampling, the hand-in, the report): a population of 16 rather than 64 and no
 * climbs on the cost model (a quarter of such a search's CPU), whose reach meta-schedule's search tests
 * check. The `--write` run through the CLI keeps the defaults.
 */
const SMALL_SEARCH = { searchWorkers: 0, searchConfig: { populationSize: 16, climbStarts: 0 } } as const;

let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "tessera-tune-test-"));
});

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** A private copy of the solution's files (the tests write into it). */
async function solutionCopy(name: string): Promise<string> {
  const dir = join(scratch, name);
  await cp(SOLUTION, dir, { recursive: true });
  return dir;
}

function fresh(): Schedule {
  return new Schedule(binding.workload(FULL));
}

describe("tuning without a GPU", () => {
  it("searches the solution's space with estimates: the chosen trace replays, passes numerics and is printed as applyTrace; the report has the summary table", async () => {
    const workDir = join(scratch, "work-estimated");
    const result = await tuneSearchSpace({
      submissionDir: SOLUTION,
      binding,
      manifest,
      trials: 8,
      seed: 1,
      gpu: undefined,
      workDir,
      numerics: { rounds: 1 },
      ...SMALL_SEARCH,
    });

    expect(result.sampling).toMatchObject({ completed: 8, threw: 0, unfinished: 0 });
    expect(result.replayed).toBe(8);
    expect(result.designSpaces).toBeGreaterThanOrEqual(1);
    expect(result.target).toBe(T4);
    expect(result.strategy).toBe("evolutionary");
    expect(result.measured).toBe(false);
    expect(result.search.trials).toBeGreaterThan(0);
    expect(result.search.trials).toBeLessThanOrEqual(8);
    // The T4's limits reject some samples of the space before anything is measured.
    expect(result.search.rejected.some(([reason]) => /verifyGpuCode/.test(reason))).toBe(true);

    // The chosen trace is the grader's replay of the search's best correct record, printed as a complete trace_submission.ts.
    const chosen = result.chosen;
    if (chosen === undefined) throw new Error(`no candidate: ${result.noChoiceReason}`);
    expect(chosen.rank).toBe(1);
    expect(chosen.timing).toBeUndefined();
    expect(Number.isFinite(chosen.searchMs)).toBe(true);
    expect(chosen.numerics).toMatchObject({ passed: true, backend: "simulator" });
    expect(chosen.text).toMatch(/^import type \{ Schedule \} from "@tessera\/schedule";\n\nexport function applyTrace\(sch: Schedule\): void \{\n/);
    const [i] = chosen.decisions as number[][];
    expect(chosen.text).toContain(`sch.samplePerfectTile(l1, 3, 8, [${i!.join(", ")}]);`);
    const replay = replayTrace(chosen.json, fresh());
    if (!replay.ok) throw new Error(replay.error);
    expect(replay.schedule.trace.show()).toBe(chosen.text);
    expect(() => lower(replay.schedule, T4)).not.toThrow();
    // The grader's replay of the hand-in is the very program whose numerics the tuner checked (seed
    // 1, tune.ts): the check is answered from the numerics memo, keyed by trace and function, rather
    // than simulated again. A replay that built another program would miss and be simulated here.
    const simulated = simulatedNumericsMemo.stats.misses;
    const numerics = simulatorNumerics(
      { assignment: binding.name, schedule: replay.schedule, settings: { ...manifest.numerics, rounds: 1 }, seed: 1 },
      binding,
    );
    expect(numerics.passed).toBe(true);
    expect(simulatedNumericsMemo.stats.misses).toBe(simulated);

    const report = formatTuneReport(result);
    expect(report).toContain(`Work dir: ${workDir}`);
    // Estimates, labelled as such (nothing was measured without a GPU).
    expect(report).toMatch(/ID \| +Name \| +FLOP \| Weight \| Est\. Speed \(GFLOPS\) \| Est\. Latency \(us\)/);
    expect(report).toMatch(/\n +0 \| gemm_relu_add \| +\d+ \| +1 \|/);
    expect(report).toContain(`Total trials: ${result.search.trials}`);
    expect(report).toContain(`Tuning curve: ${join(workDir, "tuning-curve.svg")}`);
    expect(existsSync(join(workDir, "tuning-curve.svg"))).toBe(true);
    expect(report).toContain("ESTIMATED by the simulator's latency model for nvidia/tesla-t4");
    expect(report).toContain("the ranking is the simulator's ESTIMATE for nvidia/tesla-t4, not a measurement");
    expect(report).not.toMatch(/Best candidate/);
    // Candidates over the T4's limits, in the course's words (not codegen's message with each candidate's numbers).
    expect(report).toMatch(/\n +\d+ exceed (1024 threads per block and )?48 KB of shared memory per block \(postproc verifyGpuCode\)\n/);
    expect(report).not.toMatch(/GpuVerifyError/);

    // A mutation that found nothing to change is no candidate: not counted nor listed as a rejection.
    const counted = Number(/Candidates the search rejected before measuring \((\d+)\)/.exec(report)?.[1]);
    const withNoops = formatTuneReport({
      ...result,
      search: {
        ...result.search,
        rejected: [["mutator mutateTileSize found nothing to change", 7], ...result.search.rejected.filter(([reason]) => !reason.startsWith("mutator "))],
      },
    });
    expect(withNoops).toContain(`Candidates the search rejected before measuring (${counted}), by reason:`);
    expect(withNoops).not.toMatch(/found nothing to change/);
    expect(withNoops).toContain("Mutation attempts that made no candidate (not rejections; the search picks another parent): 7.");
  });

  it("a space whose samples only replay with their own decisions still yields a choice: the recorded decisions, measured first", async () => {
    const dir = await solutionCopy("recorded-only");
    // The sampled values as numbers (sch.get): the trace keeps these constants, so no other decisions replay.
    await writeFile(
      join(dir, "auto_tuning.ts"),
      [
        'import type { ExprRV, LoopRV, Schedule } from "@tessera/schedule";',
        "export function autoTuningSchedule(sch: Schedule): void {",
        '  const gemm = sch.getBlock("gemm");',
        "  const [i, j] = sch.getLoops(gemm) as [LoopRV, LoopRV];",
        "  const [outer, inner] = sch.samplePerfectTile(i, 2, 16) as [ExprRV, ExprRV];",
        "  const [i0, i1] = sch.split(i, [outer, inner]) as [LoopRV, LoopRV];",
        "  const [, rows] = sch.split(i0, [1, sch.get(outer)]) as [LoopRV, LoopRV];",
        "  const [, threads] = sch.split(i1, [1, sch.get(inner)]) as [LoopRV, LoopRV];",
        "  const [, cols] = sch.split(j, [null, 32]) as [LoopRV, LoopRV];",
        '  sch.bind(rows, "blockIdx.x");',
        '  sch.bind(threads, "threadIdx.x");',
        '  sch.bind(cols, "threadIdx.y");',
        '  sch.computeInline(sch.getBlock("relu"));',
        '  const [ai, aj] = sch.getLoops(sch.getBlock("add")) as [LoopRV, LoopRV];',
        "  const [, aThreads] = sch.split(aj, [null, 128]) as [LoopRV, LoopRV];",
        '  sch.bind(ai, "blockIdx.x");',
        '  sch.bind(aThreads, "threadIdx.x");',
        "}",
        "",
      ].join("\n"),
    );
    const result = await tuneSearchSpace({
      submissionDir: dir,
      binding,
      manifest,
      trials: 6,
      seed: 3,
      gpu: undefined,
      workDir: join(scratch, "work-recorded"),
      numerics: { rounds: 1 },
      ...SMALL_SEARCH,
    });

    expect(result.search.rejected.find(([reason]) => reason === "the trace does not replay")?.[1]).toBeGreaterThan(0);
    // Only the recorded points were measured: one per distinct structure.
    expect(result.search.trials).toBe(result.designSpaces);
    const chosen = result.chosen;
    if (chosen === undefined) throw new Error(`no candidate: ${result.noChoiceReason}`);
    const [tile] = chosen.decisions as number[][];
    expect(chosen.text).toContain(`sch.split(l6, [1, ${tile![0]}]);`);
    expect(chosen.numerics.passed).toBe(true);
    expect(formatTuneReport(result)).toContain("A trace whose structure depends on a sampled value replays only with decisions that give the same structure");
  });

  it("a space of one schedule is searched as it is, and its hand-in is printed between BEGIN/END markers", async () => {
    const dir = await solutionCopy("one-point");
    // The part-1 advice of the handout: start with a space of one schedule (here the fixed solution trace).
    await writeFile(join(dir, "auto_tuning.ts"), 'export { applyTrace as autoTuningSchedule } from "./trace_submission.js";\n');
    const result = await tuneSearchSpace({
      submissionDir: dir,
      binding,
      manifest,
      trials: 4,
      seed: 7,
      gpu: undefined,
      workDir: join(scratch, "work-one"),
      numerics: { rounds: 1 },
      ...SMALL_SEARCH,
    });

    expect(result.sampling.completed).toBe(4);
    expect(result.designSpaces).toBe(1);
    const block = formatHandIn(result, dir);
    expect(block).toContain(`----- BEGIN trace_submission.ts -----\n${result.chosen?.text.trimEnd()}\n----- END trace_submission.ts -----\n`);
    expect(block).toContain("pnpm grade --evaluate-tuned");
  });

  it("--write puts a trace_submission.ts in the folder that the grader's sandbox loads and replays", async () => {
    const dir = await solutionCopy("write");
    const before = await readFile(join(dir, "trace_submission.ts"), "utf8");
    const io = memoryIO();
    const workDir = join(scratch, "work-write");
    const code = await runGradeCli(["--tune", "--dir", dir, "--no-gpu", "--trials", "8", "--strategy", "replay-trace", "--work-dir", workDir, "--write"], io);
    const out = io.out.join("");
    expect(code, io.err.join("")).toBe(0);
    expect(out).toContain("with replay-trace search: 8 trials");
    expect(out).toContain("Wrote the search's rank-1 candidate");
    expect(existsSync(join(workDir, "tuning-history.json"))).toBe(true);
    expect(out).not.toContain("----- BEGIN");

    const written = await readFile(join(dir, "trace_submission.ts"), "utf8");
    expect(written).not.toBe(before);
    const file = await prepareSubmissionFile(dir, "trace_submission.ts");
    try {
      const run = await file.run([{ id: "tuned", call: "applyTrace", start: workloadStart(binding, FULL), args: [] }]);
      const result = run.results.get("tuned");
      if (result?.ok !== true) throw new Error(`the written file did not run: ${JSON.stringify(run.load)} ${JSON.stringify(result)}`);
      const replay = replayTrace(result.trace, fresh());
      if (!replay.ok) throw new Error(replay.error);
      // The sandbox records no EnterPostproc marker, only its comment is missing from the replay's printout.
      expect(replay.schedule.trace.show()).toBe(written.replace(/ {2}\/\/ enterPostproc:.*\n/, ""));
      expect(() => lower(replay.schedule, T4)).not.toThrow();
    } finally {
      await file.dispose();
    }
  });
});

describe("tune command errors", () => {
  it("the starter's autoTuningSchedule: exit code 1, 'not implemented yet'", async () => {
    const io = memoryIO();
    const code = await runGradeCli(["--tune", "--dir", binding.root, "--no-gpu", "--trials", "2"], io);
    expect(code).toBe(1);
    expect(io.err.join("")).toContain("cannot tune: autoTuningSchedule is not implemented yet");
    expect(io.out.join("")).toBe("");
  });

  it("a search space that throws: exit code 1 with its message", async () => {
    const throws = join(scratch, "throws");
    await mkdir(throws);
    await writeFile(join(throws, "auto_tuning.ts"), 'export function autoTuningSchedule(): void {\n  throw new Error("no tiles for you");\n}\n');
    const io = memoryIO();
    expect(await runGradeCli(["tune", "--dir", throws, "--no-gpu", "--trials", "2"], io)).toBe(1);
    expect(io.err.join("")).toMatch(/cannot tune: .*no tiles for you/);
    expect(io.out.join("")).toBe("");
  });

  it("a search space that does not compile, or never returns: exit code 1 with the reason", async () => {
    const broken = join(scratch, "broken");
    const endless = join(scratch, "endless");
    await mkdir(broken);
    await mkdir(endless);
    await writeFile(join(broken, "auto_tuning.ts"), "export function autoTuningSchedule(sch {\n");
    await writeFile(join(endless, "auto_tuning.ts"), "export function autoTuningSchedule(): void {\n  for (;;) {}\n}\n");

    const io = memoryIO();
    expect(await runGradeCli(["tune", "--dir", broken, "--no-gpu"], io)).toBe(1);
    expect(io.err.join("")).toMatch(/cannot tune: auto_tuning\.ts could not be compiled:\n {2}auto_tuning\.ts:1:\d+: Expected/);

    const io2 = memoryIO();
    expect(await runGradeCli(["tune", "--dir", endless, "--no-gpu", "--trials", "2", "--timeout", "2"], io2)).toBe(1);
    expect(io2.err.join("")).toContain("cannot tune: autoTuningSchedule did not finish: it was stopped after the time limit of 2 s");
  });

  it.each([
    [["tune", "--trials", "zero"], /--trials must be an integer from 1 to 512, got "zero"/],
    [["tune", "--trials", "513"], /--trials must be an integer from 1 to 512/],
    [["--tune", "--seed=-1"], /--seed must be an integer from 0/],
    [["--tune", "--results", "x.json"], /Unknown option '--results'/],
    [["tune", "--strategy", "annealing"], /--strategy must be evolutionary or replay-trace, got "annealing"/],
    [["tune", "--dir", "/no/such/folder"], /--dir \/no\/such\/folder: no such folder/],
    [["tune", "extra"], /unexpected argument "extra"/],
  ])("%j: exit code 2", async (argv, message) => {
    const io = memoryIO();
    expect(await runGradeCli(argv, io)).toBe(2);
    expect(io.err.join("")).toMatch(message);
  });
});
