/**
 * The runner child's CPU backend: the checked run is the warm-up, and a candidate whose checked run
 * is already slower than the stop threshold keeps that run as its only sample (gcc, in process).
 */
import { target as targetOf } from "@tessera/codegen";
import { ops } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { CpuBuilder, argsInfoOf } from "../../src/index.js";
import { backend } from "../../src/runner/cpu-backend.js";
import type { MeasureTask } from "../../src/runner/measure-backend.js";
import { DEFAULT_OUTPUT_SAMPLES } from "../../src/runner/output-digest.js";

describe("the CPU measuring backend", () => {
  it("a candidate slower than stopAboveMsPerRun in its checked run gets that one sample; others the evaluator's samples", async () => {
    const func = ops.matmul(64, 64, 64).func;
    const built = await new CpuBuilder().buildOne({ func, target: targetOf("c") });
    if (!built.ok) throw new Error(built.error);
    const task = (stopAboveMsPerRun?: number): MeasureTask => ({
      artifact: built.artifact,
      argsInfo: argsInfoOf(func),
      evaluator: { number: 2, repeat: 3, minRepeatMs: 0 },
      seed: 1,
      returnOutputs: true,
      outputSamples: DEFAULT_OUTPUT_SAMPLES,
      deviceOrdinal: 0,
      ...(stopAboveMsPerRun === undefined ? {} : { stopAboveMsPerRun }),
    });
    const slow = await backend.measure(task(1e-9));
    expect(slow.runSecs).toHaveLength(1);
    expect(slow.runSecs[0]).toBeGreaterThan(0);
    expect(slow.outputs).toHaveLength(3);
    const timed = await backend.measure(task(60_000));
    expect(timed.runSecs).toHaveLength(3);
    expect(timed.outputs).toEqual(slow.outputs);
    expect((await backend.measure(task())).runSecs).toHaveLength(3);
  }, 60_000);
});
