import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { cuda } from "@tessera/runtime";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { prebuiltBundle } from "../../../../scripts/fast-start/prebuilt.mjs";
import {
  type ArgInfo,
  type BuiltArtifact,
  LocalRunner,
  type RunnerChecker,
  type RunnerInput,
  type RunnerResult,
  firstResultChecker,
  referenceChecker,
} from "../../src/index.js";
import { TaskPool } from "../../src/isolation/task-pool.js";
import { FatalTaskError, isFatalTaskError } from "../../src/isolation/serve.js";
import { randomArgsFor } from "../../src/runner/random-args.js";
import { runnerChildEntry, runnerChildStart } from "../../src/runner/local-runner.js";

const FAKE_BACKEND_SOURCE = fileURLToPath(new URL("./fake-backend.ts", import.meta.url));
/**
 * The fake backend as JavaScript, prebuilt once (scripts/fast-start/prebuilt.mjs): a child that
 * imports the TypeScript source needs tsx's loader, about 3 CPU s more per child start, and these
 * tests start about twenty. One test keeps the source (a TypeScript backend beside a bundled child).
 */
let FAKE_BACKEND = "";
beforeAll(async () => {
  FAKE_BACKEND = (await prebuiltBundle({ name: "test-fake-measure-backend", entry: FAKE_BACKEND_SOURCE })).entry;
}, 120_000);
const ARGS: ArgInfo[] = [
  { kind: "TENSOR", dtype: "float32", shape: [4, 4] },
  { kind: "TENSOR", dtype: "float32", shape: [4] },
];

function candidate(name: string, source = "x".repeat(100)): RunnerInput {
  const artifact: BuiltArtifact = { name, source, kernels: [] };
  return { artifact, argsInfo: ARGS };
}

function errorOf(r: RunnerResult | undefined): string {
  if (r === undefined || r.ok) throw new Error(`expected a failed result, got ${JSON.stringify(r)}`);
  return r.error;
}

/** What the fake backend computes: arg[k][i] = i. */
const indices = (inputs: readonly ArrayLike<unknown>[]): Float32Array[] => inputs.map((a) => Float32Array.from({ length: a.length }, (_, i) => i));

describe("LocalRunner process isolation (fake backend, no GPU)", () => {
  let runner: LocalRunner | undefined;
  afterEach(async () => {
    await runner?.dispose();
    runner = undefined;
  });

  it("records candidates that kill the child, hang or fail as failures with the reason, restarts the child when needed, and measures the rest", async () => {
    runner = new LocalRunner({ backendModule: FAKE_BACKEND, timeoutSec: 2, evaluator: { repeat: 2 } });
    const results = await runner.run([
      candidate("ok1", "a".repeat(10)),
      candidate("crash"),
      candidate("ok2", "b".repeat(20)),
      candidate("hang"),
      candidate("segfault"),
      candidate("throws"),
      candidate("ok3", "c".repeat(30)),
      candidate("fatal"),
      candidate("ok4", "d".repeat(40)),
    ]);
    expect(results.map((r) => r.ok)).toEqual([true, false, true, false, false, false, true, false, true]);
    expect(results[0]).toEqual({ ok: true, runSecs: [10e-6, 10e-6] });
    expect(results[2]).toEqual({ ok: true, runSecs: [20e-6, 20e-6] });
    expect(results[6]).toEqual({ ok: true, runSecs: [30e-6, 30e-6] });
    expect(results[8]).toEqual({ ok: true, runSecs: [40e-6, 40e-6] });
    expect(errorOf(results[1])).toMatch(/child process exited with code 3/);
    expect(errorOf(results[3])).toMatch(/the run timed out after 2 s/);
    expect(errorOf(results[4])).toMatch(/killed by SIGSEGV/);
    expect(errorOf(results[5])).toMatch(/the kernel image is invalid/);
    expect(errorOf(results[7])).toMatch(/illegal memory access/);
    // The first child, and one after the crash, the hang, the segfault and the fatal error (not after `throws`).
    expect(runner.childrenStarted).toBe(5);
  });

  it("with `batch`, measures a run's candidates by one message to the child, and a batch that crashes the child one by one again", async () => {
    runner = new LocalRunner({ backendModule: FAKE_BACKEND, timeoutSec: 2, evaluator: { repeat: 2 }, checker: firstResultChecker(), batch: true });
    const noArtifact = { argsInfo: ARGS } as unknown as RunnerInput;
    const calm = await runner.run([candidate("ok1", "a".repeat(10)), candidate("throws"), candidate("wrong"), noArtifact, candidate("ok2", "b".repeat(20))]);
    expect(calm[0]).toEqual({ ok: true, runSecs: [10e-6, 10e-6] });
    expect(errorOf(calm[1])).toMatch(/the kernel image is invalid/);
    expect(errorOf(calm[2])).toMatch(/^wrong result \(first-result check\)/);
    expect(errorOf(calm[3])).toMatch(/the input has no built artifact/);
    expect(calm[4]).toEqual({ ok: true, runSecs: [20e-6, 20e-6] });
    expect([runner.batchFallbacks, runner.childrenStarted, runner.timeSpent.candidates]).toEqual([0, 1, 3]);
    // A crash (as a hang, a timeout, or a fatal error) fails the batch as a whole.
    const results = await runner.run([candidate("ok3", "c".repeat(30)), candidate("crash"), candidate("ok4", "d".repeat(40))]);
    expect(results[0]).toEqual({ ok: true, runSecs: [30e-6, 30e-6] });
    expect(errorOf(results[1])).toMatch(/child process exited with code 3/);
    expect(results[2]).toEqual({ ok: true, runSecs: [40e-6, 40e-6] });
    expect(runner.batchFallbacks).toBe(1);
  });

  it("checks results against the first candidate's, and against a reference computed from the random arguments", async () => {
    runner = new LocalRunner({ backendModule: FAKE_BACKEND, checker: firstResultChecker() });
    const first = await runner.run([candidate("ok"), candidate("wrong"), candidate("ok")]);
    expect(first.map((r) => r.ok)).toEqual([true, false, true]);
    expect(errorOf(first[1])).toMatch(/wrong result \(first-result check\): argument 0, element 3: 42, expected 3/);
    await runner.dispose();

    const seen: number[][] = [];
    const reference = referenceChecker((inputs) => {
      seen.push(...inputs.map((a) => Array.from(a as Float32Array)));
      return indices(inputs);
    });
    runner = new LocalRunner({ backendModule: FAKE_BACKEND, checker: reference, seed: 7 });
    const checked = await runner.run([candidate("ok"), candidate("wrong")]);
    expect(checked[0]!.ok).toBe(true);
    expect(errorOf(checked[1])).toMatch(/wrong result \(reference check\): argument 0, element 3/);
    // The reference ran once, on the seeded random arguments.
    expect(seen).toEqual(randomArgsFor(ARGS, 7).map((a) => Array.from(a as Float32Array)));
  });

  it("sums where measuring time went: the child's steps as reported, the round trip's rest as transfer, the check as verify", async () => {
    // The TypeScript source: a bundled child starts with tsx's loader to import it (runnerChildStart).
    runner = new LocalRunner({ backendModule: FAKE_BACKEND_SOURCE });
    await runner.run([candidate("steps"), candidate("steps"), candidate("ok")]);
    const spent = runner.timeSpent;
    expect(spent.candidates).toBe(3);
    expect(spent.stepsMs.load).toBe(4);
    expect(spent.stepsMs.timing).toBe(10);
    expect(spent.stepsMs.transfer).toBeGreaterThan(0);
    expect(spent.stepsMs.verify).toBeGreaterThanOrEqual(0);
    expect(Object.keys(spent.stepsMs).sort()).toEqual(["load", "timing", "transfer", "verify"]);
    expect([spent.timedGpuMs, spent.timedRuns]).toEqual([8, 14]);
  });

  it("asks the child to stop timing runs 3× slower than the fastest checked candidate so far and to aim samples 1.2× higher, or neither (TVM's evaluator)", async () => {
    const report = join(mkdtempSync(join(tmpdir(), "tessera-runner-options-")), "options.jsonl");
    const optionsSent = async (r: LocalRunner): Promise<{ stopAboveMsPerRun: number | null; headroom: number | null }> => {
      await r.run([candidate("report-options", report)]);
      return JSON.parse(readFileSync(report, "utf8").trim().split("\n").at(-1)!);
    };
    runner = new LocalRunner({ backendModule: FAKE_BACKEND, checker: firstResultChecker() });
    expect(await optionsSent(runner)).toEqual({ stopAboveMsPerRun: null, headroom: 1.2 });
    // 400 µs per run, then 200 µs (the source's length in µs): the threshold follows the fastest.
    await runner.run([candidate("ok", "x".repeat(400))]);
    expect((await optionsSent(runner)).stopAboveMsPerRun).toBeCloseTo(3 * 0.4, 9);
    await runner.run([candidate("ok", "x".repeat(200)), candidate("wrong", "x")]);
    // The wrong candidate (1 µs) failed its check: it does not count.
    expect((await optionsSent(runner)).stopAboveMsPerRun).toBeCloseTo(3 * 0.2, 9);
    await runner.dispose();
    runner = new LocalRunner({ backendModule: FAKE_BACKEND, stopSlowerThan: false, sampleHeadroom: 1 });
    await runner.run([candidate("ok", "x".repeat(200))]);
    expect(await optionsSent(runner)).toEqual({ stopAboveMsPerRun: null, headroom: null });
    expect(() => new LocalRunner({ backendModule: FAKE_BACKEND, sampleHeadroom: 0.9 })).toThrow(/sampleHeadroom must be at least 1/);
    expect(() => new LocalRunner({ backendModule: FAKE_BACKEND, stopSlowerThan: 0.5 })).toThrow(/stopSlowerThan must be at least 1/);
    rmSync(dirname(report), { recursive: true, force: true });
  });

  it("draws the checker's inputs once per workload and seed, not once per candidate (regression: 16M draws per 2048³ candidate)", async () => {
    const given: unknown[] = [];
    const spy: RunnerChecker = {
      name: "spy",
      check(_outputs, inputs) {
        given.push(inputs);
        return undefined;
      },
    };
    runner = new LocalRunner({ backendModule: FAKE_BACKEND, checker: spy, seed: 3 });
    await runner.run([candidate("ok"), candidate("ok"), candidate("ok")]);
    expect(given).toHaveLength(3);
    expect(new Set(given).size).toBe(1);
    expect(given[0]).toEqual(randomArgsFor(ARGS, 3));
  });

  it("a sampled check compares a few elements one by one and sees the others through the sums", async () => {
    // Two samples per argument: its first and last elements; the fake's wrong element sits in the middle.
    runner = new LocalRunner({ backendModule: FAKE_BACKEND, checker: firstResultChecker(), checkSamples: 2 });
    const results = await runner.run([candidate("ok"), candidate("wrong-unsampled"), candidate("wrong"), candidate("ok")]);
    expect(results.map((r) => r.ok)).toEqual([true, false, false, true]);
    expect(errorOf(results[1])).toMatch(/argument 0: the sum of its 16 elements is 1120\.0+, expected 120\.0+ .*elements that were not sampled differ/);
    expect(errorOf(results[2])).toMatch(/argument 0: the sum of its 16 elements is 159\.0+, expected 120/);
    await runner.dispose();
    // Against a reference computed on the host, digested at the same elements.
    runner = new LocalRunner({ backendModule: FAKE_BACKEND, checker: referenceChecker(indices), checkSamples: 2 });
    const checked = await runner.run([candidate("ok"), candidate("wrong-unsampled")]);
    expect(checked[0]!.ok).toBe(true);
    expect(errorOf(checked[1])).toMatch(/wrong result \(reference check\): argument 0: the sum of its 16 elements/);
  });

  it("rejects a sample count below two when the runner is made", () => {
    expect(() => new LocalRunner({ backendModule: FAKE_BACKEND, checker: firstResultChecker(), checkSamples: 1 })).toThrow(
      /output samples must be an integer ≥ 2, got 1/,
    );
  });

  it("a checker that throws fails its candidate with the reason, and the batch's other results are kept", async () => {
    let calls = 0;
    const flaky = referenceChecker((inputs) => {
      if (calls++ === 0) throw new TypeError("the reference cannot run");
      return indices(inputs);
    });
    runner = new LocalRunner({ backendModule: FAKE_BACKEND, checker: flaky });
    const results = await runner.run([candidate("ok"), candidate("ok"), candidate("wrong")]);
    expect(errorOf(results[0])).toMatch(/the reference check failed: TypeError: the reference cannot run/);
    expect(results[1]!.ok).toBe(true);
    expect(errorOf(results[2])).toMatch(/wrong result \(reference check\)/);
  });

  it("starts a child from JavaScript (a bundle, dist) with tsx's loader when its backend module is TypeScript (regression: it could not import it)", () => {
    const bundled = { url: new URL("file:///bundle/ms-runner-child.mjs"), typeScript: false };
    expect(runnerChildStart(bundled, FAKE_BACKEND_SOURCE)).toEqual({ ...bundled, typeScript: true });
    expect(runnerChildStart(bundled, `${new URL("./fake-backend.mts", import.meta.url)}`).typeScript).toBe(true);
    expect(runnerChildStart(bundled, "/backends/fake.mjs")).toEqual(bundled);
    expect(runnerChildStart(bundled, undefined)).toEqual(bundled);
    const sources = { url: new URL("file:///src/runner-child.ts"), typeScript: true };
    expect(runnerChildStart(sources, "/backends/fake.mjs")).toEqual(sources);
  });

  it("recognises a FatalTaskError of another copy of its module (a TypeScript backend beside a bundled child; regression: instanceof missed it)", () => {
    const brand = Symbol.for("tessera.isolation.FatalTaskError");
    class OtherCopy extends Error {
      readonly [brand] = true;
    }
    expect(isFatalTaskError(new FatalTaskError("lost"))).toBe(true);
    expect(isFatalTaskError(new OtherCopy("lost"))).toBe(true);
    expect(isFatalTaskError(new Error("FatalTaskError"))).toBe(false);
    expect(isFatalTaskError(undefined)).toBe(false);
  });

  it("names a backend module that cannot be loaded", async () => {
    runner = new LocalRunner({ backendModule: "/nonexistent/backend.ts" });
    const [result] = await runner.run([candidate("ok")]);
    expect(errorOf(result)).toMatch(/nonexistent\/backend\.ts/);
  });

  it.skipIf(cuda.available())("without a GPU, the default backend fails every candidate with the reason, starting no child", async () => {
    runner = new LocalRunner();
    const results = await runner.run([candidate("a"), candidate("b")]);
    for (const r of results) expect(errorOf(r)).toMatch(/no CUDA device to measure on .*use the SimulatedRunner/);
    expect(runner.childrenStarted).toBe(0);
  });

  it.skipIf(cuda.available())("the child's default GPU backend loads, and says there is no CUDA device", async () => {
    const pool = new TaskPool<unknown, unknown>({ kind: "process", entry: runnerChildEntry(), size: 1 });
    try {
      const outcome = await pool.run(
        {
          artifact: candidate("x").artifact,
          argsInfo: ARGS,
          evaluator: { number: 1, repeat: 1, minRepeatMs: 0 },
          seed: 0,
          returnOutputs: false,
          outputSamples: 2,
          deviceOrdinal: 0,
        },
        60_000,
      );
      expect(outcome).toEqual({ ok: false, kind: "error", error: expect.stringMatching(/FatalTaskError: no CUDA device in the runner's process/) });
    } finally {
      await pool.dispose();
    }
  });

  it("rejects a bad evaluator configuration and an input without an artifact", async () => {
    expect(() => new LocalRunner({ backendModule: FAKE_BACKEND, evaluator: { number: 0 } })).toThrow(/evaluator\.number must be a positive integer/);
    runner = new LocalRunner({ backendModule: FAKE_BACKEND });
    const [result] = await runner.run([{ argsInfo: ARGS } as unknown as RunnerInput]);
    expect(errorOf(result)).toMatch(/the input has no built artifact/);
    expect(runner.childrenStarted).toBe(0);
  });
});
