/**
 * The tuner behind `pnpm grade --tune`, without a GPU: on the instructor solution's search space
 * (sampled in the sandbox, replayed, deduplicated, checked against the T4's limits) its printout is
 * a submission the grader accepts; the starter and bad command lines fail with clear messages.
 */
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
import { loadManifest } from "../src/manifest/index.js";
import { prepareSubmissionFile } from "../src/sandbox/index.js";
import { formatHandIn, formatTuneReport, tuneSearchSpace } from "../src/tune/index.js";

const binding = assignmentBinding(DEFAULT_ASSIGNMENT);
const manifest = loadManifest(binding.manifestPath);
const SOLUTION = join(binding.root, "solution");
const T4 = "nvidia/tesla-t4";
const FULL = manifest.numerics.sizes.full;

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
  it("samples the solution's space, drops what exceeds the T4's limits and returns a valid, untimed candidate", async () => {
    const result = await tuneSearchSpace({ submissionDir: SOLUTION, binding, manifest, trials: 8, seed: 1, gpu: undefined, numerics: { rounds: 1 } });

    expect(result.sampling).toMatchObject({ completed: 8, threw: 0, unfinished: 0 });
    expect(result.target).toBe(T4);
    const discarded = result.discarded.reduce((n, d) => n + d.count, 0);
    expect(result.ranked.length + discarded + result.duplicates).toBe(8);
    expect(discarded).toBeGreaterThan(0);
    for (const d of result.discarded) expect(d.reason).toMatch(/^exceed (1024 threads per block|48 KB of shared memory per block)( and 48 KB of shared memory per block)?$/);

    // Valid candidates: distinct decisions, each buildable for the T4, none timed.
    expect(result.ranked.length).toBeGreaterThan(0);
    const decisions = result.ranked.map((a) => JSON.stringify(a.candidate.decisions));
    expect(new Set(decisions).size).toBe(decisions.length);
    for (const a of result.ranked) {
      expect(a.candidate.decisions).toHaveLength(3);
      expect(() => lower(a.candidate.schedule, T4)).not.toThrow();
      expect(a.quickMs).toBeUndefined();
    }

    // The chosen trace is the grader's replay, printed as a complete trace_submission.ts.
    const chosen = result.chosen;
    if (chosen === undefined) throw new Error(`no candidate: ${result.noChoiceReason}`);
    expect(chosen.timing).toBeUndefined();
    expect(chosen.numerics).toMatchObject({ passed: true, backend: "simulator" });
    expect(chosen.text).toMatch(/^import type \{ Schedule \} from "@tessera\/schedule";\n\nexport function applyTrace\(sch: Schedule\): void \{\n/);
    const [i] = chosen.decisions as number[][];
    expect(chosen.text).toContain(`sch.samplePerfectTile(l1, 3, 8, [${i!.join(", ")}]);`);
    const replay = replayTrace(chosen.json, fresh());
    if (!replay.ok) throw new Error(replay.error);
    expect(replay.schedule.trace.show()).toBe(chosen.text);
    expect(() => lower(replay.schedule, T4)).not.toThrow();

    const report = formatTuneReport(result);
    expect(report).toContain(`untimed valid candidate (seed ${chosen.seed}), not the best one`);
    expect(report).not.toMatch(/Best candidate/);
    expect(report).toMatch(/\d+ exceed 1024 threads per block/);
  });

  it("drops duplicates: a space of one schedule gives one candidate, printed between BEGIN/END markers", async () => {
    const dir = await solutionCopy("one-point");
    // The part-1 advice of the handout: start with a space of one schedule (here the fixed solution trace).
    await writeFile(join(dir, "auto_tuning.ts"), 'export { applyTrace as autoTuningSchedule } from "./trace_submission.js";\n');
    const result = await tuneSearchSpace({ submissionDir: dir, binding, manifest, trials: 4, seed: 7, gpu: undefined, numerics: { rounds: 1 } });

    expect(result.sampling.completed).toBe(4);
    expect(result.duplicates).toBe(3);
    expect(result.ranked).toHaveLength(1);
    expect(result.chosen?.seed).toBe(7);
    expect(result.chosen?.decisions).toEqual([
      [16, 16, 8],
      [16, 16, 8],
      [64, 32, 1],
    ]);
    const block = formatHandIn(result, dir);
    expect(block).toContain(`----- BEGIN trace_submission.ts -----\n${result.chosen?.text.trimEnd()}\n----- END trace_submission.ts -----\n`);
    expect(block).toContain("pnpm grade --evaluate-tuned");
  });

  it("--write puts a trace_submission.ts in the folder that the grader's sandbox loads and replays", async () => {
    const dir = await solutionCopy("write");
    const before = await readFile(join(dir, "trace_submission.ts"), "utf8");
    const io = memoryIO();
    const code = await runGradeCli(["--tune", "--dir", dir, "--no-gpu", "--trials", "8", "--write"], io);
    const out = io.out.join("");
    expect(code, io.err.join("")).toBe(0);
    expect(out).toContain(`Wrote the candidate of seed`);
    expect(out).not.toContain("----- BEGIN");

    const written = await readFile(join(dir, "trace_submission.ts"), "utf8");
    expect(written).not.toBe(before);
    const file = await prepareSubmissionFile(dir, "trace_submission.ts");
    try {
      const run = await file.run([{ id: "tuned", call: "applyTrace", start: { kind: "workload", workload: manifest.workload, size: FULL }, args: [] }]);
      const result = run.results.get("tuned");
      if (result?.ok !== true) throw new Error(`the written file did not run: ${JSON.stringify(run.load)} ${JSON.stringify(result)}`);
      const replay = replayTrace(result.trace, fresh());
      if (!replay.ok) throw new Error(replay.error);
      expect(replay.schedule.trace.show()).toBe(written);
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
    [["tune", "--dir", "/no/such/folder"], /--dir \/no\/such\/folder: no such folder/],
    [["tune", "extra"], /unexpected argument "extra"/],
  ])("%j: exit code 2", async (argv, message) => {
    const io = memoryIO();
    expect(await runGradeCli(argv, io)).toBe(2);
    expect(io.err.join("")).toMatch(message);
  });
});
