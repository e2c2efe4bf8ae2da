/**
 * timeDispatches' warm-up: a stand-in device counts what is submitted, so the test needs no adapter.
 */
/// <reference types="@webgpu/types" />
import { describe, expect, it } from "vitest";
import { timeDispatches } from "../src/timing.js";

function countingDevice(): { device: GPUDevice; submits: () => number } {
  let submits = 0;
  const stub = {
    features: new Set<string>(),
    createCommandEncoder: () => ({ finish: () => ({}) }),
    queue: {
      submit: () => {
        submits++;
      },
      onSubmittedWorkDone: async () => undefined,
    },
  };
  return { device: stub as unknown as GPUDevice, submits: () => submits };
}

describe("timeDispatches", () => {
  it("runs only the counted warm-up and the timed runs when no warm-up time is asked", async () => {
    const { device, submits } = countingDevice();
    const t = await timeDispatches(device, () => undefined, 1, { warmup: 2, repeat: 3 });
    expect(submits()).toBe(5);
    expect(t.method).toBe("cpu");
    expect(t.runsMs).toHaveLength(3);
  });

  it("keeps the GPU busy for warmupMs before timing, so a GPU idle before the call is timed at its working clocks", async () => {
    const { device, submits } = countingDevice();
    const started = performance.now();
    await timeDispatches(device, () => undefined, 1, { warmup: 0, repeat: 1, warmupMs: 30 });
    expect(performance.now() - started).toBeGreaterThanOrEqual(30);
    expect(submits()).toBeGreaterThan(1);
  });
});
