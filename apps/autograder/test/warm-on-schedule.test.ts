/**
 * The rounds worker starts once a sandboxed run gives a schedule with an instruction, and not for
 * runs that fail or return the untouched schedule (the starter's tasks), so grading a starter
 * never pays for a thread it does not use.
 */
import { describe, expect, it } from "vitest";
import { SampledRoundsHelper } from "../src/grade/rounds/rounds-helper.js";
import { givesSchedule, warmOnSchedule } from "../src/grade/rounds/warm-on-schedule.js";
import type { FileRun, PreparedFile } from "../src/sandbox/index.js";
import type { JobResult } from "../src/sandbox/protocol.js";

const split: JobResult = { id: "a", ok: true, trace: { instructions: [{ kind: "GetBlock" }] }, millis: 1 };
const untouched: JobResult = { id: "b", ok: true, trace: { instructions: [] }, millis: 1 };
const threw: JobResult = { id: "c", ok: false, error: { name: "Error", message: "TODO" }, millis: 1 };

function fileGiving(results: readonly JobResult[]): PreparedFile {
  const run: FileRun = {
    file: "f.ts",
    load: { ok: true, exports: [] },
    results: new Map(results.map((r) => [r.id, r])),
    exit: undefined,
    stdout: "",
    stderr: "",
    invalidMessages: 0,
    millis: 1,
  };
  return { file: "f.ts", run: async () => run, dispose: async () => {} };
}

async function startsAfter(results: readonly JobResult[]): Promise<boolean> {
  let started = false;
  const file = warmOnSchedule(fileGiving(results), { start: () => void (started = true) });
  await file.run([]);
  return started;
}

describe("warmOnSchedule", () => {
  it("starts the worker when a run returns a schedule with an instruction", async () => {
    expect(await startsAfter([threw, split])).toBe(true);
  });

  it("does not start it for failed runs or the untouched schedule", async () => {
    expect(await startsAfter([threw, untouched])).toBe(false);
    expect(await startsAfter([])).toBe(false);
  });

  it("reads only well-formed traces as schedules", () => {
    for (const trace of [null, 3, "x", { instructions: "GetBlock" }, {}]) expect(givesSchedule({ ...split, trace })).toBe(false);
  });
});

describe("SampledRoundsHelper before start()", () => {
  it("starts no thread until asked, and its troubles are told only then", async () => {
    const troubles: string[] = [];
    const helper = new SampledRoundsHelper(
      () => {
        throw new Error("no worker code");
      },
      (why) => troubles.push(why),
    );
    expect(helper.started).toBe(false);
    expect(troubles).toEqual([]);
    helper.start();
    helper.start();
    expect(helper.started).toBe(true);
    expect(troubles).toEqual(["no worker code"]);
    await helper.dispose();
  });
});
