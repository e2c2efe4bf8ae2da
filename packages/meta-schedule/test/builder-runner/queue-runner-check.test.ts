/**
 * Candidates measured through the job queue are checked on the tuning side (regression: a worker's
 * wrong kernel came back as a fast time). The worker's side (MeasureJobRunners with the fake GPU
 * backend of local-runner.test.ts) sends each argument's digest back; QueueRunner decodes them and
 * runs the checker in candidate order.
 */
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { type ArgInfo, type BuiltArtifact, type RunnerInput, firstResultChecker } from "../../src/index.js";
import { MeasureJobRunners, QueueRunner, decodeDigest, encodeDigest } from "../../src/measure-queue/index.js";
import { digestOf } from "../../src/runner/output-digest.js";

const FAKE_BACKEND = fileURLToPath(new URL("./fake-backend.ts", import.meta.url));
const ARGS: ArgInfo[] = [
  { kind: "TENSOR", dtype: "float32", shape: [4, 4] },
  { kind: "TENSOR", dtype: "float32", shape: [4] },
];

function candidate(name: string): RunnerInput {
  const artifact: BuiltArtifact = { name, source: "x".repeat(40), kernels: [] };
  return { artifact, argsInfo: ARGS };
}

describe("QueueRunner with a checker", () => {
  let runners: MeasureJobRunners | undefined;
  afterEach(async () => {
    await runners?.dispose();
    runners = undefined;
  });

  it("fails the candidate whose outputs differ from the first one's, in candidate order, whatever order the jobs finish in", async () => {
    runners = new MeasureJobRunners(undefined, FAKE_BACKEND);
    const worker = runners;
    const payloads: unknown[] = [];
    const queue = new QueueRunner({
      runner: { kind: "local" },
      checker: firstResultChecker(),
      // The first job finishes last: the reference is still the first candidate's outputs.
      dispatch: async (payload, key) => {
        payloads.push(payload);
        if (key.endsWith("/0")) await new Promise((resolve) => setTimeout(resolve, 200));
        return worker.run(payload);
      },
    });
    const results = await queue.run([candidate("ok"), candidate("wrong"), candidate("ok")]);
    expect(results.map((r) => r.ok)).toEqual([true, false, true]);
    expect(results[1]).toMatchObject({ ok: false, error: expect.stringMatching(/wrong result \(first-result check\): argument 0, element 3: 42, expected 3/) });
    // The jobs asked for the outputs; the results handed to the search carry only times.
    expect(payloads.every((p) => (p as { runner: { returnOutputs?: boolean } }).runner.returnOutputs === true)).toBe(true);
    expect(Object.keys(results[0]!).sort()).toEqual(["ok", "runSecs"]);
  });

  it("fails a measured candidate whose worker sent no outputs, naming the check", async () => {
    const queue = new QueueRunner({ runner: { kind: "local" }, checker: firstResultChecker(), dispatch: async () => ({ ok: true, runSecs: [1e-5] }) });
    const [result] = await queue.run([candidate("ok")]);
    expect(result).toEqual({ ok: false, error: "the worker sent back no outputs for the first-result check" });
  });

  it("carries digests exactly, NaN and infinities included, and refuses bytes that do not fit", () => {
    const values = Float32Array.from([1.5, Number.NaN, Number.POSITIVE_INFINITY, -0, 3]);
    for (const samples of ["all", 3] as const) {
      const digest = digestOf(values, samples);
      const back = decodeDigest(JSON.parse(JSON.stringify(encodeDigest(digest))));
      expect(Array.from(back.values as Float64Array)).toEqual(Array.from(digest.values as Float32Array));
      expect(back.indices === undefined ? undefined : Array.from(back.indices)).toEqual(digest.indices === undefined ? undefined : Array.from(digest.indices));
      expect(back.sum).toEqual(digest.sum);
      expect(back.length).toBe(5);
    }
    expect(() => decodeDigest({ length: 2, valuesBase64: Buffer.from([1, 2, 3]).toString("base64") })).toThrow(/not a whole number of 8-byte values/);
  });
});
