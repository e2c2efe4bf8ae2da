/**
 * Numerics without a GPU: the simulator at the reduced size, with the course GPU's limits checked
 * at the graded size, and a bound on the work a schedule may ask the simulator to do.
 */
import * as solution from "@tessera/assignment-gemm-relu-add/solution";
import { Schedule } from "@tessera/schedule";
import { beforeAll, describe, expect, it } from "vitest";
import { assignmentBinding } from "../src/assignment.js";
import { simulatorNumerics } from "../src/grade/simulator-numerics.js";
import { type Manifest, loadManifest } from "../src/manifest/index.js";

const binding = assignmentBinding("gemm-relu-add");
let manifest: Manifest;
beforeAll(() => {
  manifest = loadManifest(binding.manifestPath);
});

const check = (schedule: Schedule) => simulatorNumerics({ schedule, settings: { ...manifest.numerics, rounds: 1 }, seed: 1 }, binding);

describe("simulator numerics", () => {
  it("pass for the solution's tuned trace, at the reduced size", () => {
    const sch = new Schedule(binding.workload(2048));
    solution.applyTrace(sch);
    const outcome = check(sch);
    expect(outcome).toMatchObject({ passed: true, backend: "simulator", size: 256 });
    expect(outcome.rounds[0]?.mismatches).toBe(0);
  });

  it("refuse a trace whose block fits the GPU at 256³ but not at 2048³", () => {
    const sch = new Schedule(binding.workload(2048));
    solution.applyTrace(sch);
    const samples = sch.trace.instructions.filter((i) => i.kind.name === "SamplePerfectTile");
    // 64 threads along i and along j: 4096 per block at 2048³; the replay at 256³ shrinks them to fit.
    const trace = sch.trace.withDecision(samples[0]!, [4, 64, 8]).withDecision(samples[1]!, [4, 64, 8]);
    const big = new Schedule(binding.workload(2048));
    trace.applyTo(big);
    const outcome = check(big);
    expect(outcome.passed).toBe(false);
    expect(outcome.error).toMatch(/cannot be built for the GPU at 2048×2048×2048: .*4096 threads per block/);
  });

  it("refuse, without running it, a schedule whose kernels would do far more work than the computation", () => {
    const sch = solution.manualSchedule(2048);
    const innermost = sch.getLoops(sch.getBlock("gemm")).at(-1);
    sch.split(innermost, [null, 100_000]);
    const outcome = check(sch);
    expect(outcome.passed).toBe(false);
    expect(outcome.error).toMatch(/would execute about .* statements, more than 8× .* it was not run/);
    expect(outcome.rounds).toHaveLength(0);
  });
});
