/**
 * A measure job's payload (what a queue worker receives) keeps what the worker needs to compile a
 * candidate built without a GPU: the source, and the architecture-specific target it needs.
 */
import { describe, expect, it } from "vitest";
import type { RunnerInput } from "../../src/index.js";
import { MeasureJobPayloadSchema, measureJobPayload, runnerInputOf } from "../../src/measure-queue/index.js";

/** The runner input a worker rebuilds from the job that `input` was sent as (through JSON and the schema). */
function received(input: RunnerInput): RunnerInput {
  const payload = measureJobPayload(input, { kind: "local" });
  return runnerInputOf(MeasureJobPayloadSchema.parse(JSON.parse(JSON.stringify(payload))));
}

describe("measure job payloads", () => {
  it("carry a wgmma candidate's required sm_90a to the worker (regression: a worker compiled it for sm_90)", () => {
    const plain: RunnerInput = { artifact: { name: "k", source: "// mma.sync", kernels: [] }, argsInfo: [] };
    const wgmma: RunnerInput = { artifact: { name: "k", source: "// wgmma", kernels: [], requiredArch: "sm_90a" }, argsInfo: [] };
    expect(received(wgmma).artifact.requiredArch).toBe("sm_90a");
    expect(received(plain).artifact.requiredArch).toBeUndefined();
  });
});
